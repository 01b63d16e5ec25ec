package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// Composite type names and search_path. qualifyNames binds an unqualified
// type name that is no built-in type to the first schema of the search
// path that holds a composite type of that name (and that the role may
// use), rewriting the TypeName in place as it does relation names, so the
// planner, DDL and stored view queries see qualified names; a name found
// nowhere is left for the statement to report. CREATE TYPE puts an
// unqualified type in the creation schema.

// typeSchema returns the schema of the composite type an unqualified name
// (or relation row type, rowtype.go) finds on the search path ("" if
// none).
func (s *Session) typeSchema(cat *Catalog, name string) string {
	for _, ns := range s.searchPath(cat) {
		if o := cat.byName[qualified(ns, name)]; o != nil && (o.Kind == relType || hasRowType(o)) && s.mayUseSchema(cat, ns) {
			return ns
		}
	}
	return ""
}

// typeVisible reports whether the composite type name of schema ns is the
// one its unqualified name finds (pg_type_is_visible; format_type then
// leaves the name unqualified).
func (s *Session) typeVisible(cat *Catalog, ns, name string) bool {
	return s.typeSchema(cat, name) == ns
}

// typeName qualifies an unqualified name of a composite type.
func (q *qualifier) typeName(tn *pg.TypeName) {
	if len(tn.Names) == 2 && tn.Names[0].GetString_().GetSval() == tempSchemaAlias {
		if t := q.s.ownTempSchema(q.cat); t != "" { // pg_temp.t: the session's (temp.go)
			tn.Names[0] = pg.MakeStrNode(t)
		}
		return
	}
	if len(tn.Names) != 1 || tn.Names[0].GetString_() == nil {
		return
	}
	if _, err := typeFromName(tn); err == nil {
		return // a built-in type
	}
	name := tn.Names[0].GetString_().GetSval()
	if ns := q.s.typeSchema(q.cat, name); ns != "" {
		tn.Names = []*pg.Node{pg.MakeStrNode(ns), tn.Names[0]}
	} else if ns := q.s.tempRowType(q.cat, name); ns != "" {
		tn.Names = []*pg.Node{pg.MakeStrNode(ns), tn.Names[0]}
	}
}
