package exec

import (
	"github.com/eddydb/eddy/exec/agg"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/sql/types"
)

// aggSpec is one compiled aggregate of a Reduce: its plan, its registry
// declaration and the state slots it uses.
type aggSpec struct {
	dataflow.Agg
	def  *agg.Def
	call agg.Call
	// valSlot is the group's multiset of the argument values (min, max,
	// string_agg, ordered-set aggregates, DISTINCT), scaleSlot that of the
	// display scales of numeric values (sums, averages and variances
	// report the largest live scale, as PostgreSQL's from-scratch
	// computation would); -1 when unused.
	valSlot, scaleSlot int
	ordered            bool
}

// compileAgg prepares aggregate a over an argument of type arg,
// allocating its multiset slots.
func compileAgg(a dataflow.Agg, arg types.T, slots *int) aggSpec {
	s := aggSpec{Agg: a, def: a.Kind.Def(), valSlot: -1, scaleSlot: -1}
	if s.T.Family == types.FamUnknown {
		s.T, _ = dataflow.AggType(a.Kind, arg)
	}
	s.call = agg.Call{Kind: a.Kind, Distinct: a.Distinct, Arg: arg, T: s.T, Frac: a.Frac}
	s.call.Class = s.def.Class(arg)
	newSlot := func() int { *slots++; return *slots - 1 }
	if s.def.Multiset {
		s.valSlot, s.ordered = newSlot(), true
	}
	if agg.NeedsScales(s.call.Class, arg) {
		s.scaleSlot = newSlot()
	}
	if a.Distinct && s.valSlot < 0 && a.Kind != dataflow.AggCountStar {
		s.valSlot = newSlot()
	}
	return s
}

// entryKey sets o.ebuf to the multiset key of value v of row for a: the
// ORDER BY columns (topk's sort-key encoding), the value, and string_agg's
// separator.
func (o *reduceOp) entryKey(a *aggSpec, row types.Row, v types.Datum) {
	o.ebuf = appendSortKey(o.ebuf[:0], row, a.Order)
	o.ebuf = types.AppendKey(o.ebuf, v)
	if a.def.Shape == agg.Binary {
		o.ebuf = types.AppendKey(o.ebuf, row[a.Sep])
	}
}

// msValues shows a group's multiset to the registry's Final functions.
type msValues struct {
	ms *multiset
	// extremum says the multiset is an append-only min/max's, holding only
	// the extremum (and no order cache).
	extremum bool
}

func (v *msValues) Min() (types.Datum, bool) {
	switch {
	case v.ms == nil:
		return types.Null, false
	case v.extremum:
		return entryVal(liveEntry(v.ms))
	}
	return entryVal(v.ms.min())
}

func (v *msValues) Max() (types.Datum, bool) {
	switch {
	case v.ms == nil:
		return types.Null, false
	case v.extremum:
		return entryVal(liveEntry(v.ms))
	}
	return entryVal(v.ms.max())
}

func entryVal(e *mentry) (types.Datum, bool) {
	if e == nil {
		return types.Null, false
	}
	return e.val, true
}

func (v *msValues) Ascend(fn func(val, sep types.Datum, n int64) bool) {
	if v.ms == nil {
		return
	}
	v.ms.tree().Ascend(func(e *mentry) bool {
		return e.n <= 0 || fn(e.val, e.separator(), e.n)
	})
}
