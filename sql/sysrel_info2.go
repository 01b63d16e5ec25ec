package sql

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// More of information_schema: the catalog's name, the roles the reader
// has, and the constraints by column and table. PostgreSQL 15 lists each
// NOT NULL column of a table as a CHECK constraint named
// "<schema oid>_<table oid>_<attnum>_not_null" in table_constraints and
// check_constraints (check_clause "col IS NOT NULL"), so Eddy does too.

func init() {
	id := "information_schema.sql_identifier"
	defSysRel(380, 13227, nsInfoSchema, "information_schema_catalog_name", true, "catalog_name "+id,
		func(s *sysSnap) []repr.Row {
			return []repr.Row{sysRelsByName["information_schema.information_schema_catalog_name"].row(
				map[string]repr.Datum{"catalog_name": nameD(s.database())})}
		})
	defSysRel(373, 13325, nsInfoSchema, "enabled_roles", true, "role_name "+id, rowsEnabledRoles)
	defSysRel(356, 13236, nsInfoSchema, "applicable_roles", true,
		"grantee "+id+", role_name "+id+", is_grantable information_schema.yes_or_no", rowsApplicableRoles)
	defSysRel(359, 13260, nsInfoSchema, "check_constraints", true,
		"constraint_catalog "+id+", constraint_schema "+id+", constraint_name "+id+", check_clause information_schema.character_data",
		rowsCheckConstraints)
	defSysRel(366, 13300, nsInfoSchema, "constraint_column_usage", true,
		"table_catalog "+id+", table_schema "+id+", table_name "+id+", column_name "+id+", constraint_catalog "+id+", constraint_schema "+id+", constraint_name "+id,
		rowsConstraintUsage("constraint_column_usage"))
	defSysRel(367, 13305, nsInfoSchema, "constraint_table_usage", true,
		"table_catalog "+id+", table_schema "+id+", table_name "+id+", constraint_catalog "+id+", constraint_schema "+id+", constraint_name "+id,
		rowsConstraintUsage("constraint_table_usage"))
}

// usableRoles calls f with every role whose privileges the reader has
// (pg_has_role(role, 'USAGE'), for the current user): all of them for a
// superuser.
func (s *sysSnap) usableRoles(f func(r Role)) {
	reader := s.privReader()
	for _, r := range s.e.allRoles() {
		if s.e.isMemberOf(reader, r.OID) {
			f(r)
		}
	}
}

func rowsEnabledRoles(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.enabled_roles"]
	var out []repr.Row
	s.usableRoles(func(role Role) {
		out = append(out, r.row(map[string]repr.Datum{"role_name": nameD(role.Name)}))
	})
	return out
}

// rowsApplicableRoles lists the memberships of the roles the reader has,
// the database owner's implicit one in pg_database_owner included.
func rowsApplicableRoles(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.applicable_roles"]
	var out []repr.Row
	s.usableRoles(func(role Role) {
		edges := role.MemberOf
		if role.OID == oidSuperuser { // datdba
			if owner, ok := s.e.role("pg_database_owner"); ok {
				edges = append(edges[:len(edges):len(edges)], Membership{Role: owner.OID})
			}
		}
		for _, m := range edges {
			out = append(out, r.row(map[string]repr.Datum{"grantee": nameD(role.Name),
				"role_name": nameD(s.e.roleName(m.Role)), "is_grantable": yesNo(m.Admin)}))
		}
	})
	return out
}

// notNullConstraints calls f with each NOT NULL column of each table and
// the name PostgreSQL 15 gives its implicit CHECK constraint.
func (s *sysSnap) notNullConstraints(f func(ri *relInfo, col ColumnDef, name string)) {
	s.userRels("r", func(ri *relInfo) {
		for i, c := range ri.obj.Columns {
			if c.NotNull {
				f(ri, c, fmt.Sprintf("%d_%d_%d_not_null", ri.ns, ri.oid, i+1))
			}
		}
	})
}

func rowsCheckConstraints(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.check_constraints"]
	var out []repr.Row
	row := func(ri *relInfo, name, clause string) {
		out = append(out, r.row(map[string]repr.Datum{"constraint_catalog": nameD(s.database()),
			"constraint_schema": nameD(s.cat.namespaceName(ri.ns)), "constraint_name": nameD(name),
			"check_clause": repr.NewText(clause)}))
	}
	s.tableConstraints(func(ri *relInfo, k int, c Constraint) {
		if c.Kind != "check" || !s.ownsRel(ri) {
			return
		}
		def, err := getConstraintdef(sessionCatalog{}, s, []repr.Datum{oidD(constraintOID(ri.obj.ID, k))})
		if err == nil && def != repr.Null {
			row(ri, c.Name, strings.TrimPrefix(def.Text(), "CHECK "))
		}
	})
	s.notNullConstraints(func(ri *relInfo, col ColumnDef, name string) {
		if !s.ownsRel(ri) {
			return
		}
		row(ri, name, pgQuoteIdent(col.Name)+" IS NOT NULL")
	})
	return out
}

// rowsConstraintUsage lists, for constraint_column_usage, the columns
// each constraint uses (a key's own columns, a foreign key's referenced
// columns, the columns a CHECK reads) and, for constraint_table_usage,
// the table whose columns those are (none for a CHECK), as PostgreSQL.
func rowsConstraintUsage(rel string) func(s *sysSnap) []repr.Row {
	return func(s *sysSnap) []repr.Row {
		r := sysRelsByName["information_schema."+rel]
		byCol := rel == "constraint_column_usage"
		var out []repr.Row
		s.tableConstraints(func(ri *relInfo, _ int, c Constraint) {
			table, cols := ri.obj, c.Cols
			switch c.Kind {
			case "foreign":
				if table, cols = s.cat.byID[c.RefTable], c.RefCols; table == nil {
					return
				}
			case "check":
				if !byCol {
					return
				}
				cols = checkColumns(ri.obj, c.Check)
			}
			if !s.e.isMemberOf(s.privReader(), ownerOID(table.Owner)) {
				return
			}
			ns := nameD(table.Schema)
			vals := map[string]repr.Datum{"table_catalog": nameD(s.database()), "table_schema": ns, "table_name": nameD(table.Name),
				"constraint_catalog": nameD(s.database()), "constraint_schema": nameD(s.cat.namespaceName(ri.ns)),
				"constraint_name": nameD(c.Name)}
			if !byCol {
				out = append(out, r.row(vals))
				return
			}
			for _, col := range cols {
				vals["column_name"] = nameD(table.Columns[col].Name)
				out = append(out, r.row(vals))
			}
		})
		return out
	}
}

// checkColumns returns the columns of o a CHECK expression's text reads,
// in column order, each once.
func checkColumns(o *Object, check string) []int {
	n, err := parseExpr(check)
	if err != nil {
		return nil
	}
	used := make([]bool, len(o.Columns))
	walkProto(n, func(m proto.Message) {
		cr, ok := m.(*pg.ColumnRef)
		if !ok || len(cr.Fields) == 0 {
			return
		}
		at := 0
		if s := cr.Fields[0].GetString_(); len(cr.Fields) > 1 && s != nil && s.Sval == o.Name {
			at = 1
		}
		if s := cr.Fields[at].GetString_(); s != nil {
			for i, c := range o.Columns {
				used[i] = used[i] || c.Name == s.Sval
			}
		}
	})
	var out []int
	for i, u := range used {
		if u {
			out = append(out, i)
		}
	}
	return out
}
