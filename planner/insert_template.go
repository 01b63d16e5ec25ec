package planner

import (
	"time"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// InsertTemplate is the reusable part of a prepared INSERT ... VALUES
// whose entries are all literals, DEFAULTs and bare parameters ($n): the
// plan constRows makes of it depends on the parameters' values only in
// the rows, each parameter assigned to its column as an assignment cast.
// Rows rebuilds those rows for new values, so that a driver's batched
// INSERT is planned once per prepared statement and catalog version, not
// at every execution (issue 9: 3% of a 1,000-row INSERT's CPU).
//
// Invariant: for every parameter list, Rows gives exactly the rows
// PlanInsert would plan with Options.Params set to it, or ok false where
// constRows would decline (a value that does not fit its column): the
// caller then plans in full, which reports the error as before. A
// template exists only when no parameter appears anywhere else in the
// statement (RETURNING, ON CONFLICT, WITH, an expression in VALUES).
type InsertTemplate struct {
	// flat holds the rows' values, row after row, width per row: the
	// literals and defaults; the slots' positions are overwritten.
	flat  []repr.Datum
	width int
	slots []paramSlot
	loc   *time.Location
	// bare: the rows are the parameters in order, $1 at flat[0], $2 at
	// flat[1] and so on, with no literal or default among them (a
	// driver's batched INSERT ... VALUES ($1, $2), ($3, $4), ...).
	bare bool
	// identity: every slot's parameter type is its column's type
	// exactly (FoldAssign then returns the value itself), so a bare
	// template's rows are the parameters without looking at a value.
	identity bool
}

// paramSlot is one VALUES entry that is parameter param, of type from,
// assigned to the column of type to at flat[at].
type paramSlot struct {
	at       int
	param    int
	from, to repr.T
}

// Rows returns the INSERT's rows for params (the caller may keep them but
// must not change them); ok is false when a value does not convert to
// its column as constRows converts it. The rows are freshly allocated,
// unless the template is bare and every value is its column's already
// (assignment changes none): then they are params itself, sliced into
// rows, and the parameters are converted once, not copied again (a
// 1,000-row INSERT's bound values are 144 KiB).
func (t *InsertTemplate) Rows(params []repr.Datum) (rows []repr.Row, ok bool) {
	if t.bare && len(params) == len(t.flat) && t.unchanged(params) {
		return t.slice(params), true
	}
	flat := make([]repr.Datum, len(t.flat))
	copy(flat, t.flat)
	for _, s := range t.slots {
		if s.param >= len(params) {
			return nil, false
		}
		d := params[s.param]
		if s.from.Family == repr.FamUnknown && !d.IsNull() {
			d = repr.NewText(d.Text())
		}
		if flat[s.at], ok = expr.FoldAssign(d, s.from, s.to, t.loc); !ok {
			return nil, false
		}
	}
	return t.slice(flat), true
}

// slice cuts flat into rows of the template's width.
func (t *InsertTemplate) slice(flat []repr.Datum) []repr.Row {
	rows := make([]repr.Row, len(flat)/t.width)
	for r := range rows {
		rows[r] = flat[r*t.width : (r+1)*t.width : (r+1)*t.width]
	}
	return rows
}

// unchanged reports whether every parameter of a bare template converts
// to its column as itself (false also when one does not convert: the
// copying path then reports it).
func (t *InsertTemplate) unchanged(params []repr.Datum) bool {
	if t.identity {
		return true
	}
	for _, s := range t.slots {
		d := params[s.param]
		if s.from.Family == repr.FamUnknown && !d.IsNull() {
			return false
		}
		if v, ok := expr.FoldAssign(d, s.from, s.to, t.loc); !ok || v != d {
			return false
		}
	}
	return true
}

// noteSlot records that entry i of a VALUES row at flat offset at is
// parameter param of type from, assigned to a column of type to.
func (b *builder) noteSlot(at, param int, from, to repr.T) {
	b.slots = append(b.slots, paramSlot{at: at, param: param, from: from, to: to})
}

// insertTemplate returns the template of the INSERT just planned from
// rows of width columns, or nil when it has no parameter slots or a
// parameter was planned outside them (then its plan depends on the
// values in other ways).
func (b *builder) insertTemplate(rows []repr.Row, width int) *InsertTemplate {
	if len(b.slots) == 0 || b.paramExprs > 0 || len(rows) == 0 || width == 0 {
		return nil
	}
	flat := make([]repr.Datum, 0, len(rows)*width)
	for _, r := range rows {
		flat = append(flat, r...)
	}
	loc := (&expr.Ctx{TimeZone: b.opts.TimeZone}).Location()
	bare := len(b.slots) == len(flat)
	identity := true
	for _, s := range b.slots {
		bare = bare && s.at == s.param
		identity = identity && s.from == s.to && s.from.Family != repr.FamUnknown
	}
	return &InsertTemplate{flat: flat, width: width, slots: b.slots, loc: loc, bare: bare, identity: identity}
}
