package agg

import (
	"github.com/eddydb/eddy/sql/types"
)

// Kind is an aggregate function: an index into the registry.
type Kind uint8

// The aggregate functions (see defs for each one's declaration).
const (
	CountStar Kind = iota
	Count
	Sum
	Avg
	Min
	Max
	BoolAnd
	BoolOr
	StringAgg
	VarSamp
	VarPop
	StddevSamp
	StddevPop
	BitAnd
	BitOr
	Mode
	PercentileCont
	PercentileDisc
	ArrayAgg
	JSONBAgg
	JSONAgg
	JSONBObjectAgg
	JSONObjectAgg
	numKinds
)

// Shape is how a call of the aggregate is written.
type Shape uint8

const (
	// Unary is f(x) or f(DISTINCT x), with an optional ORDER BY.
	Unary Shape = iota
	// Star is count(*).
	Star
	// Binary is f(x, y): string_agg's separator.
	Binary
	// OrderedSet is f(direct...) WITHIN GROUP (ORDER BY x): the value is
	// the sort column; Direct says whether a fraction is passed.
	OrderedSet
)

// Def declares one aggregate function. Everything the planner, the
// optimizer, the dataflow printer and parser and exec know about it is
// here.
type Def struct {
	// Name is the SQL name, also the printed and parsed one.
	Name string
	// Aliases are other SQL names of the same function.
	Aliases []string
	Shape   Shape
	// Direct says an ordered-set aggregate takes a fraction in [0, 1]
	// (percentile_cont(0.5) WITHIN GROUP (ORDER BY x)).
	Direct bool
	// Ordered says the result depends on the order of the input, so an
	// ORDER BY in the call is kept (string_agg(x, ',' ORDER BY y)); the
	// planner drops it for the others.
	Ordered bool
	// Result returns the result type over an argument of type arg
	// (PostgreSQL's), false if the function has no such variant.
	Result func(arg types.T) (types.T, bool)
	// Literal is the type an untyped literal argument takes ('t' for
	// bool_and, 'x' for string_agg).
	Literal types.T
	// Class returns the accumulator Acc keeps over an argument of type arg
	// (ClassNone: none).
	Class func(arg types.T) Class
	// Multiset says the aggregate keeps the group's multiset of values in
	// order (keyed by the ORDER BY columns, then the value, then the
	// separator), one entry per distinct key with its count; the others
	// keep only their Acc.
	Multiset bool
	// Extremum is -1 for min and +1 for max: over an append-only input the
	// multiset then keeps only the current extremum.
	Extremum int
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
	Key     types.T
	// Final computes the aggregate of a group from its state.
	Final func(c *Call, ac *Acc, vs Values) (types.Datum, error)
	// State states what a group keeps for the aggregate and how large it
	// grows (shown by EXPLAIN's state report and the docs).
	State string
}

// Call is one aggregate call of a Reduce as Final sees it.
type Call struct {
	Kind     Kind
	Distinct bool
	// Arg is the argument's type and T the result's.
	Arg, T types.T
	Class  Class
	// Frac is an ordered-set aggregate's direct argument.
	Frac float64
	// Scale is the largest display scale of the group's live numeric
	// inputs (sums and averages of numerics report it, as PostgreSQL's
	// from-scratch sum would).
	Scale int32
}

// defs is the registry, indexed by Kind.
var defs = [numKinds]Def{
	CountStar: {Name: "count", Shape: Star, Result: always(types.Int8), Class: fixed(ClassCount),
		Final: finalCount, State: "a count"},
	Count: {Name: "count", Result: always(types.Int8), Literal: types.Text, Class: fixed(ClassCount),
		Final: finalCount, State: "a count"},
	Sum: {Name: "sum", Result: sumType, Literal: types.Text, Class: sumClass, Final: finalSum,
		State: "a count and an exact sum (numeric: also the multiset of display scales)"},
	Avg: {Name: "avg", Result: avgType, Literal: types.Text, Class: sumClass, Final: finalAvg,
		State: "a count and an exact sum (numeric: also the multiset of display scales)"},
	Min: {Name: "min", Result: sameType, Literal: types.Text, Class: fixed(ClassNone), Multiset: true,
		Extremum: -1, Final: finalMin, State: "the multiset of values (append-only: the minimum)"},
	Max: {Name: "max", Result: sameType, Literal: types.Text, Class: fixed(ClassNone), Multiset: true,
		Extremum: 1, Final: finalMax, State: "the multiset of values (append-only: the maximum)"},
	BoolAnd: {Name: "bool_and", Aliases: []string{"every"}, Result: boolType, Literal: types.Bool,
		Class: fixed(ClassBool), Final: finalBoolAnd, State: "counts of non-NULL and of true inputs"},
	BoolOr: {Name: "bool_or", Result: boolType, Literal: types.Bool, Class: fixed(ClassBool),
		Final: finalBoolOr, State: "counts of non-NULL and of true inputs"},
	StringAgg: {Name: "string_agg", Shape: Binary, Ordered: true, Result: textType, Literal: types.Text,
		Class: fixed(ClassNone), Multiset: true, Final: finalStringAgg,
		State: "the multiset of (order key, value, separator)"},
	VarSamp: {Name: "var_samp", Aliases: []string{"variance"}, Result: momentType, Literal: types.Float8,
		Class: momentClass, Final: finalVariance, State: momentState},
	VarPop: {Name: "var_pop", Result: momentType, Literal: types.Float8, Class: momentClass,
		Final: finalVariance, State: momentState},
	StddevSamp: {Name: "stddev_samp", Aliases: []string{"stddev"}, Result: momentType, Literal: types.Float8,
		Class: momentClass, Final: finalVariance, State: momentState},
	StddevPop: {Name: "stddev_pop", Result: momentType, Literal: types.Float8, Class: momentClass,
		Final: finalVariance, State: momentState},
	BitAnd: {Name: "bit_and", Result: intType, Literal: types.Int4, Class: fixed(ClassBits),
		Final: finalBitAnd, State: "a count and 64 per-bit counts"},
	BitOr: {Name: "bit_or", Result: intType, Literal: types.Int4, Class: fixed(ClassBits),
		Final: finalBitOr, State: "a count and 64 per-bit counts"},
	Mode: {Name: "mode", Shape: OrderedSet, Result: sameType, Literal: types.Text, Class: fixed(ClassNone),
		Multiset: true, Final: finalMode, State: "the multiset of values; the result scans it"},
	PercentileCont: {Name: "percentile_cont", Shape: OrderedSet, Direct: true, Result: contType,
		Literal: types.Float8, Class: fixed(ClassNone), Multiset: true, Final: finalPercentileCont,
		State: "the multiset of values; the result scans it"},
	PercentileDisc: {Name: "percentile_disc", Shape: OrderedSet, Direct: true, Result: sameType,
		Literal: types.Text, Class: fixed(ClassNone), Multiset: true, Final: finalPercentileDisc,
		State: "the multiset of values; the result scans it"},
	ArrayAgg: {Name: "array_agg", Ordered: true, Boxed: true, Result: boxedType, Literal: types.Text,
		Class: fixed(ClassNone), Multiset: true, Final: finalArrayAgg,
		State: "the multiset of (order key, value)"},
	JSONBAgg: {Name: "jsonb_agg", Ordered: true, Boxed: true, Convert: "to_jsonb", Result: boxedAs(types.JSONB),
		Literal: types.Text, Class: fixed(ClassNone), Multiset: true, Final: finalJSONAgg,
		State: "the multiset of (order key, value as jsonb)"},
	JSONAgg: {Name: "json_agg", Ordered: true, Boxed: true, Convert: "to_json", Result: boxedAs(types.JSON),
		Literal: types.Text, Class: fixed(ClassNone), Multiset: true, Final: finalJSONAgg,
		State: "the multiset of (order key, value as json)"},
	JSONBObjectAgg: {Name: "jsonb_object_agg", Shape: Binary, Ordered: true, Boxed: true, Convert: "to_jsonb",
		Key: types.Text, Result: boxedAs(types.JSONB), Literal: types.Text, Class: fixed(ClassNone), Multiset: true,
		Final: finalJSONObjectAgg, State: "the multiset of (order key, key, value as jsonb)"},
	JSONObjectAgg: {Name: "json_object_agg", Shape: Binary, Ordered: true, Boxed: true, Convert: "to_json",
		Key: types.Text, Result: boxedAs(types.JSON), Literal: types.Text, Class: fixed(ClassNone), Multiset: true,
		Final: finalJSONObjectAgg, State: "the multiset of (order key, key, value as json)"},
}

const momentState = "a count, exact sums of the values and of their squares, special-value counts (numeric: also the multiset of display scales)"

// byName maps every SQL name to its kind (count to Count; count(*) is
// the Star shape of the same name).
var byName = func() map[string]Kind {
	m := make(map[string]Kind)
	for k := range Kind(numKinds) {
		if d := &defs[k]; d.Shape != Star {
			m[d.Name] = k
			for _, a := range d.Aliases {
				m[a] = k
			}
		}
	}
	return m
}()

// Lookup returns the aggregate named name (lower case), false if none.
// count resolves to Count; count(*) is CountStar.
func Lookup(name string) (Kind, bool) {
	k, ok := byName[name]
	return k, ok
}

// Def returns k's declaration.
func (k Kind) Def() *Def { return &defs[k] }

// String returns k's SQL name.
func (k Kind) String() string {
	if k >= numKinds {
		return "?"
	}
	return defs[k].Name
}

// Type returns k's result type over an argument of type arg, false if k
// has no variant for it.
func (k Kind) Type(arg types.T) (types.T, bool) {
	if k >= numKinds {
		return types.Unknown, false
	}
	return defs[k].Result(arg)
}
