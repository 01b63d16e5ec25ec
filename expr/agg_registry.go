package expr

import "github.com/eddydb/eddy/repr"

// AggKind is an aggregate function: an index into the registry.
type AggKind uint8

// The aggregate functions (see aggDefs for each one's declaration).
const (
	AggCountStar AggKind = iota
	AggCount
	AggSum
	AggAvg
	AggMin
	AggMax
	AggBoolAnd
	AggBoolOr
	AggStringAgg
	AggVarSamp
	AggVarPop
	AggStddevSamp
	AggStddevPop
	AggBitAnd
	AggBitOr
	AggMode
	AggPercentileCont
	AggPercentileDisc
	AggArrayAgg
	AggJSONBAgg
	AggJSONAgg
	AggJSONBObjectAgg
	AggJSONObjectAgg
	AggBitXor
	AggRank
	AggDenseRank
	AggPercentRank
	AggCumeDist
	numAggKinds
)

// AggShape is how a call of the aggregate is written.
type AggShape uint8

const (
	// AggUnary is f(x) or f(DISTINCT x), with an optional ORDER BY.
	AggUnary AggShape = iota
	// AggStar is count(*).
	AggStar
	// AggBinary is f(x, y): string_agg's separator.
	AggBinary
	// AggOrderedSet is f(direct...) WITHIN GROUP (ORDER BY x): the value is
	// the sort column; Direct says whether a fraction is passed.
	AggOrderedSet
)

// AggDef declares one aggregate function. Everything the planner, the
// optimizer, the dataflow printer and parser and exec know about it is
// here.
type AggDef struct {
	// Name is the SQL name, also the printed and parsed one.
	Name string
	// Aliases are other SQL names of the same function.
	Aliases []string
	Shape   AggShape
	// Direct says an ordered-set aggregate takes a fraction in [0, 1]
	// (percentile_cont(0.5) WITHIN GROUP (ORDER BY x)).
	Direct bool
	// Hypothetical says an ordered-set aggregate is a hypothetical-set
	// one (rank(args) WITHIN GROUP (ORDER BY cols)): its value is a record
	// of the ORDER BY values followed by the hypothetical row's (constant)
	// values, and its Order lists the ORDER BY columns (agg_hypothetical.go).
	Hypothetical bool
	// Ordered says the result depends on the order of the input, so an
	// ORDER BY in the call is kept (string_agg(x, ',' ORDER BY y)); the
	// planner drops it for the others.
	Ordered bool
	// Result returns the result type over an argument of type arg
	// (PostgreSQL's), false if the function has no such variant.
	Result func(arg repr.T) (repr.T, bool)
	// Literal is the type an untyped literal argument takes ('t' for
	// bool_and, 'x' for string_agg).
	Literal repr.T
	// Class returns the accumulator Acc keeps over an argument of type arg
	// (AccNone: none).
	Class func(arg repr.T) AccClass
	// Multiset says the aggregate keeps the group's multiset of values in
	// order (keyed by the ORDER BY columns, then the value, then the
	// separator), one entry per distinct key with its count; the others
	// keep only their Acc.
	Multiset bool
	// Extremum is -1 for min and +1 for max: over an append-only input the
	// multiset then keeps only the current extremum.
	Extremum int
	// Window says a Window operator computes the aggregate over a frame
	// (exec/winfunc.go); the others are 0A000 as window functions.
	Window bool
	// Boxed says the planner passes each value x boxed as the one-element
	// array ARRAY[x] (Result then sees the array type): the box is never
	// NULL, so a NULL x is aggregated (Reduce skips NULL inputs), while a
	// FILTER still excludes a row by passing NULL instead of the box.
	Boxed bool
	// Convert names the scalar function the planner applies to the
	// aggregated value (the last argument) before aggregating it:
	// to_jsonb for jsonb_agg, whose state then holds JSON values only.
	// Key, when set, is the type the first argument of a Binary aggregate
	// is cast to (the object key of jsonb_object_agg: text).
	Convert string
	Key     repr.T
	// Final computes the aggregate of a group from its state.
	Final func(c *AggCall, ac *Acc, vs AggValues) (repr.Datum, error)
	// State states what a group keeps for the aggregate and how large it
	// grows (shown by EXPLAIN's state report and the docs).
	State string
}

// AggCall is one aggregate call of a Reduce as Final sees it.
type AggCall struct {
	Kind     AggKind
	Distinct bool
	// Arg is the argument's type and T the result's.
	Arg, T repr.T
	Class  AccClass
	// Frac is an ordered-set aggregate's direct argument; Fracs, when
	// not the zero Datum, its array of fractions (a float8[]).
	Frac  float64
	Fracs repr.Datum
	// Order is the aggregate's ORDER BY (a hypothetical-set aggregate
	// compares by its directions).
	Order []SortCol
	// Scale is the largest display scale of the group's live numeric
	// inputs (sums and averages of numerics report it, as PostgreSQL's
	// from-scratch sum would).
	Scale int32
	// Decs, when set, allocates the decimals of Final's results (a sum's
	// numeric), so that an operator computing many output rows does not
	// allocate one per row: the results share the slab's chunks.
	Decs *repr.DecimalSlab
}

// aggDefs is the registry, indexed by AggKind.
var aggDefs = [numAggKinds]AggDef{
	AggCountStar: {Name: "count", Window: true, Shape: AggStar, Result: alwaysType(repr.Int8), Class: fixed(AccCount),
		Final: finalCount, State: "a count"},
	AggCount: {Name: "count", Window: true, Result: alwaysType(repr.Int8), Literal: repr.Text, Class: fixed(AccCount),
		Final: finalCount, State: "a count"},
	AggSum: {Name: "sum", Window: true, Result: sumType, Literal: repr.Text, Class: sumClass, Final: finalSum,
		State: "a count and an exact sum (numeric: also the multiset of display scales)"},
	AggAvg: {Name: "avg", Window: true, Result: avgType, Literal: repr.Text, Class: sumClass, Final: finalAvg,
		State: "a count and an exact sum (numeric: also the multiset of display scales)"},
	AggMin: {Name: "min", Window: true, Result: extremumType, Literal: repr.Text, Class: fixed(AccNone), Multiset: true,
		Extremum: -1, Final: finalMin, State: "the multiset of values (append-only: the minimum)"},
	AggMax: {Name: "max", Window: true, Result: extremumType, Literal: repr.Text, Class: fixed(AccNone), Multiset: true,
		Extremum: 1, Final: finalMax, State: "the multiset of values (append-only: the maximum)"},
	AggBoolAnd: {Name: "bool_and", Window: true, Aliases: []string{"every"}, Result: boolType, Literal: repr.Bool,
		Class: fixed(AccBool), Final: finalBoolAnd, State: "counts of non-NULL and of true inputs"},
	AggBoolOr: {Name: "bool_or", Window: true, Result: boolType, Literal: repr.Bool, Class: fixed(AccBool),
		Final: finalBoolOr, State: "counts of non-NULL and of true inputs"},
	AggStringAgg: {Name: "string_agg", Shape: AggBinary, Ordered: true, Result: textType, Literal: repr.Text,
		Class: fixed(AccNone), Multiset: true, Final: finalStringAgg,
		State: "the multiset of (order key, value, separator)"},
	AggVarSamp: {Name: "var_samp", Window: true, Aliases: []string{"variance"}, Result: momentType, Literal: repr.Float8,
		Class: momentClass, Final: finalVariance, State: momentState},
	AggVarPop: {Name: "var_pop", Window: true, Result: momentType, Literal: repr.Float8, Class: momentClass,
		Final: finalVariance, State: momentState},
	AggStddevSamp: {Name: "stddev_samp", Window: true, Aliases: []string{"stddev"}, Result: momentType, Literal: repr.Float8,
		Class: momentClass, Final: finalVariance, State: momentState},
	AggStddevPop: {Name: "stddev_pop", Window: true, Result: momentType, Literal: repr.Float8, Class: momentClass,
		Final: finalVariance, State: momentState},
	AggBitAnd: {Name: "bit_and", Window: true, Result: bitsAggType, Literal: repr.Int4, Class: bitsAggClass,
		Final: finalBitAnd, State: "a count and 64 per-bit counts (bit strings: also the sums of lengths and squares)"},
	AggBitOr: {Name: "bit_or", Window: true, Result: bitsAggType, Literal: repr.Int4, Class: bitsAggClass,
		Final: finalBitOr, State: "a count and 64 per-bit counts (bit strings: also the sums of lengths and squares)"},
	AggBitXor: {Name: "bit_xor", Window: true, Result: bitsAggType, Literal: repr.Int4, Class: bitsAggClass,
		Final: finalBitXor, State: "a count and 64 per-bit counts (bit strings: also the sums of lengths and squares)"},
	AggMode: {Name: "mode", Shape: AggOrderedSet, Result: sameArgType, Literal: repr.Text, Class: fixed(AccNone),
		Multiset: true, Final: finalMode, State: "the multiset of values; the result scans it"},
	AggPercentileCont: {Name: "percentile_cont", Shape: AggOrderedSet, Direct: true, Result: contType,
		Literal: repr.Float8, Class: fixed(AccNone), Multiset: true, Final: finalPercentileCont,
		State: "the multiset of values; the result scans it"},
	AggPercentileDisc: {Name: "percentile_disc", Shape: AggOrderedSet, Direct: true, Result: sameArgType,
		Literal: repr.Text, Class: fixed(AccNone), Multiset: true, Final: finalPercentileDisc,
		State: "the multiset of values; the result scans it"},
	AggArrayAgg: {Name: "array_agg", Ordered: true, Boxed: true, Result: boxedType, Literal: repr.Text,
		Class: fixed(AccNone), Multiset: true, Final: finalArrayAgg,
		State: "the multiset of (order key, value)"},
	AggJSONBAgg: {Name: "jsonb_agg", Ordered: true, Boxed: true, Convert: "to_jsonb", Result: boxedAs(repr.JSONB),
		Literal: repr.Text, Class: fixed(AccNone), Multiset: true, Final: finalJSONAgg,
		State: "the multiset of (order key, value as jsonb)"},
	AggJSONAgg: {Name: "json_agg", Ordered: true, Boxed: true, Convert: "to_json", Result: boxedAs(repr.JSON),
		Literal: repr.Text, Class: fixed(AccNone), Multiset: true, Final: finalJSONAgg,
		State: "the multiset of (order key, value as json)"},
	AggJSONBObjectAgg: {Name: "jsonb_object_agg", Shape: AggBinary, Ordered: true, Boxed: true, Convert: "to_jsonb",
		Key: repr.Text, Result: boxedAs(repr.JSONB), Literal: repr.Text, Class: fixed(AccNone), Multiset: true,
		Final: finalJSONObjectAgg, State: "the multiset of (order key, key, value as jsonb)"},
	AggJSONObjectAgg: {Name: "json_object_agg", Shape: AggBinary, Ordered: true, Boxed: true, Convert: "to_json",
		Key: repr.Text, Result: boxedAs(repr.JSON), Literal: repr.Text, Class: fixed(AccNone), Multiset: true,
		Final: finalJSONObjectAgg, State: "the multiset of (order key, key, value as json)"},
	AggRank: {Name: "rank", Shape: AggOrderedSet, Hypothetical: true, Result: alwaysType(repr.Int8),
		Class: fixed(AccNone), Multiset: true, Final: finalHypoRank, State: hypoState},
	AggDenseRank: {Name: "dense_rank", Shape: AggOrderedSet, Hypothetical: true, Result: alwaysType(repr.Int8),
		Class: fixed(AccNone), Multiset: true, Final: finalHypoDenseRank, State: hypoState},
	AggPercentRank: {Name: "percent_rank", Shape: AggOrderedSet, Hypothetical: true, Result: alwaysType(repr.Float8),
		Class: fixed(AccNone), Multiset: true, Final: finalHypoPercentRank, State: hypoState},
	AggCumeDist: {Name: "cume_dist", Shape: AggOrderedSet, Hypothetical: true, Result: alwaysType(repr.Float8),
		Class: fixed(AccNone), Multiset: true, Final: finalHypoCumeDist, State: hypoState},
}

const hypoState = "the multiset of ORDER BY rows; the result scans it"

const momentState = "a count, exact sums of the values and of their squares, special-value counts (numeric: also the multiset of display scales)"

// aggByName maps every SQL name to its kind (count to Count; count(*) is
// the Star shape of the same name).
var aggByName = func() map[string]AggKind {
	m := make(map[string]AggKind)
	for k := range AggKind(numAggKinds) {
		if d := &aggDefs[k]; d.Shape != AggStar {
			m[d.Name] = k
			for _, a := range d.Aliases {
				m[a] = k
			}
		}
	}
	return m
}()

// LookupAgg returns the aggregate named name (lower case), false if none.
// count resolves to Count; count(*) is CountStar.
func LookupAgg(name string) (AggKind, bool) {
	k, ok := aggByName[name]
	return k, ok
}

// Def returns k's declaration.
func (k AggKind) Def() *AggDef { return &aggDefs[k] }

// String returns k's SQL name.
func (k AggKind) String() string {
	if k >= numAggKinds {
		return "?"
	}
	return aggDefs[k].Name
}

// Type returns k's result type over an argument of type arg, false if k
// has no variant for it.
func (k AggKind) Type(arg repr.T) (repr.T, bool) {
	if k >= numAggKinds {
		return repr.Unknown, false
	}
	return aggDefs[k].Result(arg)
}
