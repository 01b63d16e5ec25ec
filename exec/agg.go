package exec

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// aggSpec is one compiled aggregate of a Reduce: its plan, its registry
// declaration and the state slots it uses.
type aggSpec struct {
	expr.Agg
	def  *expr.AggDef
	call expr.AggCall
	// valSlot is the group's multiset of the argument values (min, max,
	// string_agg, ordered-set aggregates, DISTINCT), scaleSlot that of the
	// display scales of numeric values (sums, averages and variances
	// report the largest live scale, as PostgreSQL's from-scratch
	// computation would); -1 when unused.
	valSlot, scaleSlot int
	ordered            bool
	// woff and doff locate the aggregate's packed accumulator in a
	// group's words and decimals (groupArena); pairOff its scale pair
	// (reduce_scale.go) in the words, if scaleSlot >= 0.
	woff, doff, pairOff int
	// directPos is the position in the Reduce's key of the column holding
	// a per-group direct argument (expr.Agg.DirectKey), -1 for none;
	// directArray says it holds an array of fractions.
	directPos   int
	directArray bool
}

// compileAgg prepares aggregate a over an argument of type arg,
// allocating its multiset slots.
func compileAgg(a expr.Agg, arg repr.T, slots *int) aggSpec {
	s := aggSpec{Agg: a, def: a.Kind.Def(), valSlot: -1, scaleSlot: -1, directPos: -1}
	if s.T.Family == repr.FamUnknown {
		s.T, _ = expr.AggType(a.Kind, arg)
	}
	s.call = expr.AggCall{Kind: a.Kind, Distinct: a.Distinct, Arg: arg, T: s.T, Frac: a.Frac,
		Fracs: a.Fracs, Order: a.Order}
	s.call.Class = s.def.Class(arg)
	newSlot := func() int { *slots++; return *slots - 1 }
	if s.def.Multiset {
		s.valSlot, s.ordered = newSlot(), true
	}
	if expr.NeedsScales(s.call.Class, arg) {
		s.scaleSlot = newSlot()
	}
	if a.Distinct && s.valSlot < 0 && a.Kind != expr.AggCountStar {
		s.valSlot = newSlot()
	}
	return s
}

// entryKey sets o.ebuf to the multiset key of value v of row for a: the
// ORDER BY columns (topk's sort-key encoding), the value, and string_agg's
// separator.
func (o *reduceOp) entryKey(a *aggSpec, row repr.Row, v repr.Datum) {
	o.ebuf = appendEntryKey(o.ebuf[:0], a, row, v)
}

// appendEntryKey appends to buf the multiset key entryKey computes.
func appendEntryKey(buf []byte, a *aggSpec, row repr.Row, v repr.Datum) []byte {
	buf = appendSortKey(buf, row, a.Order)
	// Exact: values equal under = but printed differently (2, 2.00) are
	// entries apart, so min, max and the ordered aggregates return a value
	// the group holds, not the first of its class ever seen.
	buf = repr.AppendKeyExact(buf, v)
	if a.def.Shape == expr.AggBinary {
		buf = repr.AppendKey(buf, row[a.Sep])
	}
	return buf
}

// msValues shows a group's multiset to the registry's Final functions.
type msValues struct {
	ms *multiset
	// extremum says the multiset is an append-only min/max's, holding only
	// the extremum (and no order cache).
	extremum bool
}

func (v *msValues) Min() (repr.Datum, bool) {
	switch {
	case v.ms == nil:
		return repr.Null, false
	case v.extremum:
		return entryVal(liveEntry(v.ms))
	}
	return v.ms.minVal()
}

func (v *msValues) Max() (repr.Datum, bool) {
	switch {
	case v.ms == nil:
		return repr.Null, false
	case v.extremum:
		return entryVal(liveEntry(v.ms))
	}
	return v.ms.maxVal()
}

func entryVal(e *mentry) (repr.Datum, bool) {
	if e == nil {
		return repr.Null, false
	}
	return e.val, true
}

func (v *msValues) Ascend(fn func(val, sep repr.Datum, n int64) bool) {
	if v.ms == nil {
		return
	}
	v.ms.ascend(func(e *mentry) bool {
		return e.n <= 0 || fn(e.val, e.separator(), e.n)
	})
}

// setDirect sets a's direct argument to the value its group's key holds
// (directPos), reporting false when it is NULL: the result is then NULL,
// as PostgreSQL's percentile_*_final return NULL for a NULL fraction.
func (a *aggSpec) setDirect(key repr.Row) bool {
	v := key[a.directPos]
	if v.IsNull() {
		return false
	}
	if a.directArray {
		a.call.Fracs = v
	} else {
		a.call.Frac, a.call.Fracs = v.Float(), repr.Null
	}
	return true
}
