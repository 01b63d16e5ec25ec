package sql

import (
	"bytes"
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// targetRows returns the rows an UPDATE or DELETE changes, with their
// multiplicities, as ws's reader sees the tables: the table's rows passing filter (matchingRows), or
// with from (UPDATE ... FROM, DELETE ... USING) one joined row per
// matched table row (joinedRows).
func (e *Engine) targetRows(t *planner.Relation, filter expr.Expr, from *planner.Query, ctx *expr.Ctx, ws *writeSet) ([]repr.Row, []int64, error) {
	ws = ws.reader()
	if from == nil {
		return e.matchingRows(t, filter, ctx, ws)
	}
	return e.joinedRows(t, from, ctx, ws)
}

// joinedRows runs from, the query joining table t with the other FROM
// items, and keeps one joined row per distinct table row (its first
// len(t.Columns) columns): the least in key order, so that a table row
// several FROM rows match is changed once, by the same match on every
// run. PostgreSQL also changes such a row once, with a match it does
// not specify. The rows come in key order, each with the multiplicity
// of its table row as the statement sees the table; at REPEATABLE READ
// or SERIALIZABLE, 40001 if a later commit changed one (checkUnchanged).
func (e *Engine) joinedRows(t *planner.Relation, from *planner.Query, ctx *expr.Ctx, ws *writeSet) ([]repr.Row, []int64, error) {
	all, err := e.runQuery(from, ctx, ws)
	if err != nil {
		return nil, nil, err
	}
	n := len(t.Columns)
	type match struct {
		key []byte // the joined row's
		row repr.Row
	}
	best := map[string]match{} // by the table row's key
	for _, r := range all {
		tk := repr.AppendRowKey(nil, r[:n])
		k := repr.AppendRowKey(nil, r)
		if m, ok := best[string(tk)]; !ok || bytes.Compare(k, m.key) < 0 {
			best[string(tk)] = match{key: k, row: r}
		}
	}
	ms := make([]match, 0, len(best))
	for _, m := range best {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b match) int { return bytes.Compare(a.key, b.key) })
	rows, olds := make([]repr.Row, len(ms)), make([]repr.Row, len(ms))
	for i, m := range ms {
		rows[i], olds[i] = m.row, m.row[:n:n]
	}
	counts, err := e.multiplicities(t, olds, ws)
	if err != nil {
		return nil, nil, err
	}
	return rows, counts, e.checkUnchanged(uint64(t.ID), olds, ws)
}

// multiplicities returns how many times each of rows (distinct rows of
// table t) occurs in t as the statement sees it: once each with a primary
// key, else as counted by a scan of the visible rows.
func (e *Engine) multiplicities(t *planner.Relation, rows []repr.Row, ws *writeSet) ([]int64, error) {
	counts := make([]int64, len(rows))
	if t.PrimaryKey != nil || len(rows) == 0 {
		for i := range counts {
			counts[i] = 1
		}
		return counts, nil
	}
	live, err := e.visibleRows(t, ws)
	if err != nil {
		return nil, err
	}
	have := make(map[string]int64, len(live))
	for _, u := range live {
		have[string(repr.AppendRowKey(nil, u.Row))] += u.Diff
	}
	for i, r := range rows {
		counts[i] = have[string(repr.AppendRowKey(nil, r))]
	}
	return counts, nil
}
