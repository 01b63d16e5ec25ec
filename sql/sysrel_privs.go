package sql

import "github.com/eddydb/eddy/repr"

// information_schema's privilege views, from the relations' ACLs.

func init() {
	cols := "grantor information_schema.sql_identifier, grantee information_schema.sql_identifier, table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, privilege_type information_schema.character_data, is_grantable information_schema.yes_or_no, with_hierarchy information_schema.yes_or_no"
	defSysRel(311, 13473, nsInfoSchema, "table_privileges", true, cols, func(s *sysSnap) []repr.Row {
		return rowsTablePrivileges(s, "information_schema.table_privileges", true)
	})
	defSysRel(312, 13417, nsInfoSchema, "role_table_grants", true, cols, func(s *sysSnap) []repr.Row {
		return rowsTablePrivileges(s, "information_schema.role_table_grants", false)
	})
	defSysRel(313, 13285, nsInfoSchema, "column_privileges", true,
		"grantor information_schema.sql_identifier, grantee information_schema.sql_identifier, table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, column_name information_schema.sql_identifier, privilege_type information_schema.character_data, is_grantable information_schema.yes_or_no",
		rowsColumnPrivileges)
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
// granted by or to a role the reader is a member of, or to PUBLIC.
func rowsColumnPrivileges(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.column_privileges"]
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
			if !(s.e.isMemberOf(reader, a.Grantor) || a.Grantee == 0 || s.e.isMemberOf(reader, a.Grantee)) {
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
