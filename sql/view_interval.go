package sql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// styleFreeIntervals rewrites a view's stored query so that it reads the
// same in every IntervalStyle: each string constant read as interval text
// whose meaning IntervalStyle sql_standard changes ('-1 2:03:04' is -1 day
// +2:03:04 in the other styles, -1 day -2:03:04 in sql_standard) is
// replaced by the value it has in the creating session's style, printed in
// the postgres style, which carries a sign on every field
// ('-1 days +02:03:04'). PostgreSQL reads a view's constants once, when it
// is created, in that session's style; the stored text (planned again
// after a restart or an ALTER, by sessions of any style) must keep that
// reading. The caller holds no lock; sql is returned unchanged when it has
// no such constant, or when planning fails (the caller's own planning
// reports the error).
func (e *Engine) styleFreeIntervals(sql string, forView bool, tz string, style repr.IntervalStyle) (string, error) {
	n, err := parseOne(sql)
	if err != nil || !hasStyledText(n) {
		return sql, nil
	}
	texts := map[*pg.A_Const]string{}
	opts := planner.Options{MaterializedView: forView, TimeZone: tz, IntervalStyle: style, IntervalTexts: texts}
	e.readLocked(func() {
		_, err = planner.PlanQuery(e.cat, n, opts)
	})
	if err != nil || len(texts) == 0 {
		return sql, nil
	}
	for a, text := range texts {
		a.Val = &pg.A_Const_Sval{Sval: &pg.String{Sval: text}}
	}
	return parse.Deparse(n)
}

// hasStyledText reports whether a parse tree holds a string constant that
// IntervalStyle sql_standard might read differently as an interval (one
// with a minus sign: the planner decides, knowing the constant's type and
// field qualifier).
func hasStyledText(n *pg.Node) bool {
	found := false
	walkProto(n, func(m proto.Message) {
		if a, ok := m.(*pg.A_Const); ok && a.GetSval() != nil && strings.Contains(a.GetSval().Sval, "-") {
			found = true
		}
	})
	return found
}
