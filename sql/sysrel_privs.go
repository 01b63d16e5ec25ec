package sql

import (
	"strconv"

	"github.com/eddydb/eddy/repr"
)

// information_schema's privilege views, from the relations' ACLs.

func init() {
	cols := "grantor information_schema.sql_identifier, grantee information_schema.sql_identifier, table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, privilege_type information_schema.character_data, is_grantable information_schema.yes_or_no, with_hierarchy information_schema.yes_or_no"
	defSysRel(311, 13416, nsInfoSchema, "table_privileges", true, cols, func(s *sysSnap) []repr.Row {
		return rowsTablePrivileges(s, "information_schema.table_privileges", true)
	})
	defSysRel(312, 13421, nsInfoSchema, "role_table_grants", true, cols, func(s *sysSnap) []repr.Row {
		return rowsTablePrivileges(s, "information_schema.role_table_grants", false)
	})
	colCols := "grantor information_schema.sql_identifier, grantee information_schema.sql_identifier, table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, column_name information_schema.sql_identifier, privilege_type information_schema.character_data, is_grantable information_schema.yes_or_no"
	defSysRel(313, 13285, nsInfoSchema, "column_privileges", true, colCols, func(s *sysSnap) []repr.Row {
		return rowsColumnPrivileges(s, "information_schema.column_privileges", true)
	})
	defSysRel(381, 13344, nsInfoSchema, "role_column_grants", true, colCols, func(s *sysSnap) []repr.Row {
		return rowsColumnPrivileges(s, "information_schema.role_column_grants", false)
	})
}

// privReader is the role information_schema's privilege views answer
// for: the reading session's current user.
func (s *sysSnap) privReader() string {
	if s.sess != nil && s.sess.CurrentUser != "" {
		return s.sess.CurrentUser
	}
	return s.userName()
}

// rowsColumnPrivileges lists, as PostgreSQL's column_privileges view,
// one row per column and privilege (SELECT, INSERT, UPDATE, REFERENCES)
// of each ACL item of the tables, views and sources, relation-level
// items applying to every column, and of the columns' own ACLs; those
// granted by or to a role the reader is a member of, or (with public, for
// column_privileges; role_column_grants leaves them out) to PUBLIC.
func rowsColumnPrivileges(s *sysSnap, rel string, public bool) []repr.Row {
	r := sysRelsByName[rel]
	reader := s.privReader()
	type key struct {
		grantor, grantee uint32
		col              string
		priv             aclMode
		grantable        bool
	}
	var out []repr.Row
	for _, ri := range s.relations() {
		if ri.obj == nil || !containsByte("rvf", ri.kind) {
			continue
		}
		o := ri.obj
		seen := map[key]bool{}
		emit := func(col string, a ACLItem) {
			if !s.aclItemShown(reader, a, public) {
				return
			}
			owner := a.Grantee != 0 && s.e.isMemberOf(s.roleDisplay(a.Grantee), ownerOID(o.Owner))
			for i := range privNames {
				p := aclMode(1) << i
				k := key{a.Grantor, a.Grantee, col, p, a.Grantable&p != 0}
				if a.Privs&p == 0 || p&allColumnPrivs == 0 || seen[k] {
					continue
				}
				seen[k] = true
				grantee := "PUBLIC"
				if a.Grantee != 0 {
					grantee = s.roleDisplay(a.Grantee)
				}
				out = append(out, r.row(map[string]repr.Datum{"grantor": nameD(s.roleDisplay(a.Grantor)), "grantee": nameD(grantee),
					"table_catalog": nameD(s.database()), "table_schema": nameD(o.Schema), "table_name": nameD(o.Name),
					"column_name": nameD(col), "privilege_type": repr.NewText(privNames[i]), "is_grantable": yesNo(k.grantable || owner)}))
			}
		}
		for _, c := range o.Columns {
			for _, a := range relACL(o) {
				emit(c.Name, a)
			}
			for _, a := range c.ACL {
				emit(c.Name, a)
			}
		}
	}
	return out
}

// rowsTablePrivileges lists one row per privilege of each ACL item of
// the tables, views and sources, as PostgreSQL's views: those granted by
// or to a role the reader is a member of (and, with public, to PUBLIC).
func rowsTablePrivileges(s *sysSnap, rel string, public bool) []repr.Row {
	r := sysRelsByName[rel]
	reader := s.privReader()
	var out []repr.Row
	for _, ri := range s.relations() {
		if ri.obj == nil || !containsByte("rvf", ri.kind) {
			continue
		}
		o := ri.obj
		for _, a := range relACL(o) {
			grantee := "PUBLIC"
			if a.Grantee != 0 {
				grantee = s.roleDisplay(a.Grantee)
			}
			mine := s.e.isMemberOf(reader, a.Grantor) || (a.Grantee != 0 && s.e.isMemberOf(reader, a.Grantee))
			if !mine && !(public && a.Grantee == 0) {
				continue
			}
			owner := a.Grantee != 0 && s.e.isMemberOf(s.roleDisplay(a.Grantee), ownerOID(o.Owner))
			for i := range privNames {
				p := aclMode(1) << i
				if a.Privs&p == 0 || p&allTablePrivs == 0 {
					continue
				}
				out = append(out, r.row(map[string]repr.Datum{"grantor": nameD(s.roleDisplay(a.Grantor)), "grantee": nameD(grantee),
					"table_catalog": nameD(s.database()), "table_schema": nameD(o.Schema), "table_name": nameD(o.Name),
					"privilege_type": repr.NewText(privNames[i]), "is_grantable": yesNo(a.Grantable&p != 0 || owner),
					"with_hierarchy": yesNo(p == privSelect)}))
			}
		}
	}
	return out
}

func init() {
	cols := "grantor information_schema.sql_identifier, grantee information_schema.sql_identifier, specific_catalog information_schema.sql_identifier, specific_schema information_schema.sql_identifier, specific_name information_schema.sql_identifier, routine_catalog information_schema.sql_identifier, routine_schema information_schema.sql_identifier, routine_name information_schema.sql_identifier, privilege_type information_schema.character_data, is_grantable information_schema.yes_or_no"
	defSysRel(341, 13353, nsInfoSchema, "routine_privileges", true, cols, func(s *sysSnap) []repr.Row {
		return rowsRoutinePrivileges(s, "information_schema.routine_privileges", true)
	})
	defSysRel(342, 13358, nsInfoSchema, "role_routine_grants", true, cols, func(s *sysSnap) []repr.Row {
		return rowsRoutinePrivileges(s, "information_schema.role_routine_grants", false)
	})
	udtCols := "grantor information_schema.sql_identifier, grantee information_schema.sql_identifier, udt_catalog information_schema.sql_identifier, udt_schema information_schema.sql_identifier, udt_name information_schema.sql_identifier, privilege_type information_schema.character_data, is_grantable information_schema.yes_or_no"
	defSysRel(395, 13445, nsInfoSchema, "udt_privileges", true, udtCols, func(s *sysSnap) []repr.Row {
		return rowsUdtPrivileges(s, "information_schema.udt_privileges", true)
	})
	defSysRel(382, 13450, nsInfoSchema, "role_udt_grants", true, udtCols, func(s *sysSnap) []repr.Row {
		return rowsUdtPrivileges(s, "information_schema.role_udt_grants", false)
	})
	usageCols := "grantor information_schema.sql_identifier, grantee information_schema.sql_identifier, object_catalog information_schema.sql_identifier, object_schema information_schema.sql_identifier, object_name information_schema.sql_identifier, object_type information_schema.character_data, privilege_type information_schema.character_data, is_grantable information_schema.yes_or_no"
	defSysRel(343, 13454, nsInfoSchema, "usage_privileges", true, usageCols, func(s *sysSnap) []repr.Row {
		return rowsUsagePrivileges(s, "information_schema.usage_privileges", true)
	})
	defSysRel(383, 13459, nsInfoSchema, "role_usage_grants", true, usageCols, func(s *sysSnap) []repr.Row {
		return rowsUsagePrivileges(s, "information_schema.role_usage_grants", false)
	})
}

// aclItemShown reports whether information_schema's privilege views show
// item a to reader: granted by or to a role it is a member of or (with
// public) to PUBLIC.
func (s *sysSnap) aclItemShown(reader string, a ACLItem, public bool) bool {
	return s.e.isMemberOf(reader, a.Grantor) || (a.Grantee != 0 && s.e.isMemberOf(reader, a.Grantee)) || public && a.Grantee == 0
}

// granteeName is an ACL item's grantee as information_schema names it.
func (s *sysSnap) granteeName(a ACLItem) string {
	if a.Grantee == 0 {
		return "PUBLIC"
	}
	return s.roleDisplay(a.Grantee)
}

// rowsRoutinePrivileges lists, as PostgreSQL's routine_privileges and
// role_routine_grants, one row per EXECUTE item of each built-in
// function's ACL (specific_name is name_oid).
func rowsRoutinePrivileges(s *sysSnap, rel string, public bool) []repr.Row {
	r := sysRelsByName[rel]
	reader := s.privReader()
	var out []repr.Row
	for _, p := range procs {
		for _, a := range s.cat.objACLs.funcACL(p) {
			if a.Privs&privExecute == 0 || !s.aclItemShown(reader, a, public) {
				continue
			}
			owner := a.Grantee != 0 && s.e.isMemberOf(s.roleDisplay(a.Grantee), oidSuperuser)
			out = append(out, r.row(map[string]repr.Datum{"grantor": nameD(s.roleDisplay(a.Grantor)), "grantee": nameD(s.granteeName(a)),
				"specific_catalog": nameD(s.database()), "specific_schema": nameD(nsPgCatalog),
				"specific_name":   nameD(p.name + "_" + strconv.FormatUint(uint64(p.oid), 10)),
				"routine_catalog": nameD(s.database()), "routine_schema": nameD(nsPgCatalog), "routine_name": nameD(p.name),
				"privilege_type": repr.NewText("EXECUTE"), "is_grantable": yesNo(a.Grantable&privExecute != 0 || owner)}))
		}
	}
	return out
}

// rowsUdtPrivileges lists, as PostgreSQL's udt_privileges, one TYPE
// USAGE row per USAGE item of each composite type's ACL (the default
// acldefault('T', owner): PUBLIC and the owner, granted by the owner);
// role_udt_grants (public false) leaves out what only PUBLIC holds.
// PostgreSQL also lists every relation's row type (rowtype.go), which
// Eddy does not yet.
func rowsUdtPrivileges(s *sysSnap, rel string, public bool) []repr.Row {
	r := sysRelsByName[rel]
	reader := s.privReader()
	var out []repr.Row
	for _, o := range s.cat.objects() {
		if o.Kind != relType {
			continue
		}
		owner := ownerOID(o.Owner)
		for _, a := range s.cat.objACLs.compositeTypeACL(o) {
			if a.Privs&privUsage == 0 || !s.aclItemShown(reader, a, public) {
				continue
			}
			mine := a.Grantee != 0 && s.e.isMemberOf(s.roleDisplay(a.Grantee), owner)
			out = append(out, r.row(map[string]repr.Datum{"grantor": nameD(s.roleDisplay(a.Grantor)), "grantee": nameD(s.granteeName(a)),
				"udt_catalog": nameD(s.database()), "udt_schema": nameD(o.Schema), "udt_name": nameD(o.Name),
				"privilege_type": repr.NewText("TYPE USAGE"), "is_grantable": yesNo(a.Grantable&privUsage != 0 || mine)}))
		}
	}
	return out
}

// rowsUsagePrivileges lists, as PostgreSQL's usage_privileges, USAGE on
// the collations (PUBLIC's, not grantable) and the USAGE items of the
// sequences' ACLs (a sequence without an ACL shows none: PostgreSQL's
// view reads it with the table default). role_usage_grants (public
// false) leaves out what only PUBLIC holds unless the reader has the
// grantor's privileges.
func rowsUsagePrivileges(s *sysSnap, rel string, public bool) []repr.Row {
	r := sysRelsByName[rel]
	reader := s.privReader()
	row := func(grantor, grantee, schema, name, typ string, grantable bool) repr.Row {
		return r.row(map[string]repr.Datum{"grantor": nameD(grantor), "grantee": nameD(grantee),
			"object_catalog": nameD(s.database()), "object_schema": nameD(schema), "object_name": nameD(name),
			"object_type": repr.NewText(typ), "privilege_type": repr.NewText("USAGE"), "is_grantable": yesNo(grantable)})
	}
	var out []repr.Row
	for _, c := range rowsCollation(s) {
		name := c[sysRelsByName["pg_catalog.pg_collation"].index["collname"]].Text()
		if name != "default" && (public || s.e.isMemberOf(reader, oidSuperuser)) {
			out = append(out, row(s.roleDisplay(oidSuperuser), "PUBLIC", nsPgCatalog, name, "COLLATION", false))
		}
	}
	for _, ri := range s.relations() {
		if ri.obj == nil || ri.obj.Kind != relSequence {
			continue
		}
		o := ri.obj
		for _, a := range o.ACL {
			if a.Privs&privUsage == 0 || !s.aclItemShown(reader, a, public) {
				continue
			}
			owner := a.Grantee != 0 && s.e.isMemberOf(s.roleDisplay(a.Grantee), ownerOID(o.Owner))
			out = append(out, row(s.roleDisplay(a.Grantor), s.granteeName(a), o.Schema, o.Name, "SEQUENCE", a.Grantable&privUsage != 0 || owner))
		}
	}
	return out
}
