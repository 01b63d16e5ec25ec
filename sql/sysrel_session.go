package sql

import (
	"sort"
	"time"

	"github.com/eddydb/eddy/repr"
)

// The system views of the reading session's own objects: its prepared
// statements and its cursors.

func init() {
	defSysRel(471, 12095, nsPgCatalog, "pg_prepared_statements", true,
		"name text, statement text, prepare_time timestamp with time zone, parameter_types regtype[], from_sql boolean, generic_plans bigint, custom_plans bigint",
		rowsPreparedStatements)
	defSysRel(472, 12077, nsPgCatalog, "pg_cursors", true,
		"name text, statement text, is_holdable boolean, is_binary boolean, is_scrollable boolean, creation_time timestamp with time zone",
		rowsCursors)
}

// session is the reading session, nil when the query has none.
func (s *sysSnap) session() *Session {
	if s.sess == nil {
		return nil
	}
	if c, ok := s.sess.Catalog.(sessionCatalog); ok {
		return c.s
	}
	return nil
}

// rowsPreparedStatements lists the session's named prepared statements,
// from the protocol and from PREPARE.
func rowsPreparedStatements(s *sysSnap) []repr.Row {
	sess := s.session()
	if sess == nil {
		return nil
	}
	r := sysRelsByName["pg_catalog.pg_prepared_statements"]
	var out []repr.Row
	for _, name := range sess.preparedNames() {
		ps := sess.prepared[name]
		var types []repr.Datum
		if ps.st != nil {
			for _, oid := range ps.st.ParamOIDs() {
				types = append(types, oidD(oid))
			}
		}
		out = append(out, r.row(map[string]repr.Datum{"name": repr.NewText(name), "statement": repr.NewText(ps.sql),
			"prepare_time": timestampTZD(ps.at), "parameter_types": repr.NewArray(types),
			"from_sql": repr.NewBool(ps.fromSQL)}))
	}
	return out
}

// rowsCursors lists the session's open cursors.
func rowsCursors(s *sysSnap) []repr.Row {
	sess := s.session()
	if sess == nil {
		return nil
	}
	r := sysRelsByName["pg_catalog.pg_cursors"]
	cs := make([]*cursor, 0, len(sess.cursors))
	for _, c := range sess.cursors {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].seq < cs[j].seq })
	var out []repr.Row
	for _, c := range cs {
		out = append(out, r.row(map[string]repr.Datum{"name": repr.NewText(c.name), "statement": repr.NewText(c.sql),
			"is_holdable": repr.NewBool(c.hold), "is_binary": repr.NewBool(c.binary),
			"is_scrollable": repr.NewBool(c.sub == nil && !c.noScroll), "creation_time": timestampTZD(c.created)}))
	}
	return out
}

// timestampTZD is a timestamptz datum of t.
func timestampTZD(t time.Time) repr.Datum { return repr.NewTimestampTZ(repr.TimeToTimestamp(t)) }
