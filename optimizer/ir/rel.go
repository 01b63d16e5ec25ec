package ir

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Rel is a relational operator: a multiset of rows with static column types.
// Implementations are the pointer types of this package; they are immutable.
type Rel interface {
	// ColTypes returns the output column types (do not mutate the slice).
	ColTypes() []repr.T
	// Children returns the input relations, left to right.
	Children() []Rel
	// WithChildren returns a copy of the node over new inputs (same count).
	WithChildren(in []Rel) Rel
	// String prints the tree rooted at the node, indented, one operator per line.
	String() string
	// header is the operator's line in the printed tree.
	header() string
}

// MapChildren returns r over f applied to each of its inputs, left to
// right: r itself, not a copy, when f returns every input unchanged, so
// that a rewrite that changes nothing keeps the tree (and the sharing of
// its subtrees) as it was.
func MapChildren(r Rel, f func(Rel) Rel) Rel {
	kids := r.Children()
	var out []Rel
	for i, k := range kids {
		nk := f(k)
		if nk != k && out == nil {
			out = append(make([]Rel, 0, len(kids)), kids...)
		}
		if out != nil {
			out[i] = nk
		}
	}
	if out == nil {
		return r
	}
	return r.WithChildren(out)
}

// Get reads a stored collection (table or materialized view) by ID.
// Stateless: it replays the collection's updates. With HasEventTime,
// column EventTimeCol is the source's event time (WATERMARK FOR): the
// runtime carries its watermark downstream and drops late rows (see
// dataflow.Source).
type Get struct {
	ID           repr.CollectionID
	Name         string // for printing only
	Types        []repr.T
	HasEventTime bool
	EventTimeCol int
	// AppendOnly marks an input that never retracts a row (a plain
	// CREATE SOURCE); see AppendOnly.
	AppendOnly bool
	// DeletionsChecked marks an input whose every deletion retracts a row
	// it holds (a table; a Debezium source checking its deletions):
	// lowering then needs no held rows in its Source (dataflow.Source
	// Retracts). Not printed.
	DeletionsChecked bool
	// Key, when not nil, lists columns whose values are unique among the
	// collection's rows (its primary key); join ordering reads it to
	// estimate join results. Rows is the collection's size when planned
	// (0: unknown). Both are planning hints: neither changes the relation,
	// and neither is printed.
	Key  []int
	Rows int64
	// NotNull, when not nil, marks the columns declared NOT NULL (a
	// planning hint like Key, read by NotNull; not printed).
	NotNull []bool
}

// Values is a constant relation: one row per element of Rows, each with one
// expression per column of Types_. The expressions do not reference columns.
// Stateless: its rows are emitted once.
type Values struct {
	Rows  [][]expr.Expr
	Types []repr.T
}

// Map appends one column per expression, evaluated over the input row (the
// i-th expression may reference the columns appended before it). Stateless
// and linear, so correct under retractions.
type Map struct {
	Input Rel
	Exprs []expr.Expr
}

// Filter keeps the rows for which every predicate is true (not false, not
// NULL). Stateless and linear.
type Filter struct {
	Input Rel
	Preds []expr.Expr
}

// Project keeps the listed input columns, in order (a column may repeat).
// Stateless and linear.
type Project struct {
	Input Rel
	Cols  []int
}

// JoinKind is the kind of a Join.
type JoinKind uint8

// The join kinds. JoinCross is an inner join with no condition.
const (
	JoinInner JoinKind = iota
	JoinLeft
	JoinRight
	JoinFull
	JoinCross
)

// String returns the lower-case name of the kind.
func (k JoinKind) String() string {
	return [...]string{"inner", "left", "right", "full", "cross"}[k]
}

// Join pairs the rows of Left and Right for which every On predicate (over
// the concatenated row, left columns first) is true; outer kinds also emit
// each unmatched row of the preserved side(s) padded with NULLs. The output
// multiplicity of a pair is the product of the inputs' multiplicities.
// State: both inputs, arranged by the equi-join key extracted from On (a
// cross join keeps both inputs whole). Outer joins additionally track, per
// key, whether any match exists, so a retraction can reintroduce the padded
// row.
type Join struct {
	Kind        JoinKind
	Left, Right Rel
	On          []expr.Expr
}

// Reduce groups the input by the Key columns and emits one row per non-empty
// group: the key columns followed by one column per aggregate. With no Key
// it is a global aggregate that always emits exactly one row. With no Aggs it
// is DISTINCT over the key. State: per group, the aggregate accumulators
// (min/max and DISTINCT aggregates keep the multiset of their values so
// retractions stay correct).
//
// With EmitOnClose (EMIT ON WINDOW CLOSE) each group emits only its final
// row, once the watermark of a key column passes it (dataflow.Reduce);
// rules that rebuild a Reduce must keep the flag.
type Reduce struct {
	Input       Rel
	Key         []int
	Aggs        []expr.Agg
	EmitOnClose bool
}

// TopK keeps, per group of the Key columns, the rows ranked Offset+1 through
// Offset+Limit by Order (Limit < 0: no limit); ties are broken by the whole
// row, so the result is deterministic. State: per group, every live row.
// With Rank, each output row gets one more column, its 1-based position in
// its group (row_number(); copies of a row take consecutive positions), of
// type bigint.
type TopK struct {
	Input  Rel
	Key    []int
	Order  []expr.SortCol
	Limit  int64
	Offset int64
	Rank   bool
}

// AppendOnly reports whether rel never retracts a row: it holds for an
// append-only Get and is kept by maps, filters, projections, inner joins
// unions and flat maps of append-only inputs; every other operator (aggregates,
// top-k, outer joins, negation, temporal filters) may retract.
func AppendOnly(rel Rel) bool {
	switch r := rel.(type) {
	case *Get:
		return r.AppendOnly
	case *Map:
		return AppendOnly(r.Input)
	case *Filter:
		return AppendOnly(r.Input)
	case *Project:
		return AppendOnly(r.Input)
	case *FlatMap:
		return AppendOnly(r.Input)
	case *Shared:
		return AppendOnly(r.Input)
	case *Join:
		return r.Kind == JoinInner && AppendOnly(r.Left) && AppendOnly(r.Right)
	case *Union:
		for _, in := range r.Inputs {
			if !AppendOnly(in) {
				return false
			}
		}
		return true
	}
	return false
}

// Union is the multiset sum (UNION ALL) of its inputs, which have the same
// arity and column types (the first input's types are the output's).
// Stateless.
type Union struct {
	Inputs []Rel
}

// Negate flips the multiplicity of every row, so Union(A, Negate(B)) is the
// signed difference A - B. Stateless.
type Negate struct {
	Input Rel
}

// Threshold keeps each row with multiplicity max(count, 0): applied to
// A - B it yields EXCEPT ALL. State: the multiset of input rows (their net
// counts).
type Threshold struct {
	Input Rel
}

// TemporalFilter keeps each row while it is valid at the wall-clock time
// now of the maintenance step: every Lower bound <= now < every Upper
// bound (timestamptz expressions over the row, without volatile calls; a
// NULL bound means never). It is how a view maintains `WHERE ts >= now() -
// INTERVAL '1 hour'`: the output changes as time passes, with no new input,
// so it is not a function of its input alone and rules must not move it;
// a deterministic Filter commutes with it, but none is moved across it
// today. The output is not append-only (rows expire). State: the rows with
// a transition ahead (dataflow.TemporalFilter); it grows with the rows
// inside the window.
type TemporalFilter struct {
	Input        Rel
	Lower, Upper []expr.Expr
}
