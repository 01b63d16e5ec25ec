package dataflow

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Plan is a dataflow: Nodes in topological order (a node's inputs have
// smaller indices), and Output, the index of the node whose updates are the
// dataflow's result.
type Plan struct {
	Nodes  []Node
	Output int
}

// Node is one operator with its inputs (indices into Plan.Nodes) and the
// types of its output columns.
type Node struct {
	Op     Op
	Inputs []int
	Types  []repr.T
}

// Op is one of the operator structs below.
type Op interface{ opName() string }

// Source reads the updates of a collection: a table's committed writes or a
// materialized view's output.
//
// With HasEventTime, column EventTimeCol is the source's event time: the
// runtime receives watermarks for the collection (promises that no later
// update has an event time below them), drops and counts late updates, and
// carries the watermark to the operators downstream. State: the current
// watermark and the count of late updates.
type Source struct {
	Collection repr.CollectionID
	// Name is for printing only.
	Name         string
	HasEventTime bool
	EventTimeCol int
	// Retracts (with HasEventTime) marks a collection whose deletions
	// nothing checks against its rows (a FORMAT DEBEZIUM source created
	// before sources checked their deletions upstream): the
	// Source then holds the rows at or above the watermark and drops the
	// part of a deletion that retracts more than it holds, so no operator
	// sees a negative multiplicity.
	Retracts bool
}

// Constant emits Rows once, at the first time the dataflow runs (backfill).
type Constant struct{ Rows []repr.Row }

// MFP is a fused map/filter/project: append Map expressions to each input
// row (each may refer to earlier mapped columns), drop rows where any Filter
// predicate is not true, then keep the columns Project lists. Stateless and
// linear, so correct under retractions.
type MFP struct {
	Map     []expr.Expr
	Filter  []expr.Expr
	Project []int
}

// Reduce groups its input by the Key columns and outputs one row per
// non-empty group: the key columns then one column per aggregate. With no
// Key it is a global aggregate and always outputs exactly one row (count 0,
// sum NULL on empty input), as SQL requires. With no Aggs it is DISTINCT.
//
// State: per group, the aggregates' accumulators; min/max (and distinct
// aggregates) keep the multiset of values so deletions stay correct.
//
// With EmitOnClose (EMIT ON WINDOW CLOSE) a group emits nothing while it
// can still change, and its final row once the watermark of one of its key
// columns passes its key value; the plan must group by a column that
// carries a watermark.
type Reduce struct {
	Key         []int
	Aggs        []expr.Agg
	EmitOnClose bool
	// AppendOnly promises that the input never retracts a row (see
	// TopK.AppendOnly): min and max then keep only the current extremum
	// of each group, not every value (a retraction fails the Step).
	AppendOnly bool
	// Shared, when set, makes the Reduce keep no state: see SharedGroups.
	Shared *SharedGroups
}

// SharedGroups names the arrangement a grouped Reduce reads its groups
// from: Index is an arrangement (kept by the caller) of the collection
// that the Reduce's input reads, directly as a Source or through one MFP
// over a Source whose Cols are source columns; its leading columns are
// Cols, which are the Reduce's Key columns in the arrangement's order.
// The Reduce then keeps nothing: per Step, it reads each touched group's
// rows from the arrangement as of the Step (which already includes the
// Step's changes), takes the changes away to get the group as it was,
// and emits the groups' old and new rows. Printed shared=<index>
// lookup=[#c, ...].
type SharedGroups struct {
	Index uint64
	Cols  []int
}

// JoinKind is the kind of a join.
type JoinKind uint8

// The join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
)

// Join is an equi-join of Inputs[0] (left) and Inputs[1] (right) on
// left[LeftKey[i]] = right[RightKey[i]] (NULL keys never match). The output
// row is the left columns followed by the right columns; Residual predicates
// over that combined row must also be true to match. Outer joins pad the
// missing side with NULLs. With empty keys it is a cross join.
//
// State: both inputs arranged by their key (every live input row).
type Join struct {
	Kind     JoinKind
	LeftKey  []int
	RightKey []int
	Residual []expr.Expr
	// AppendOnly promises that neither input ever retracts a row (an inner
	// join of append-only inputs, see TopK.AppendOnly): the arrangements
	// then need no per-row identity, only each join key's rows.
	AppendOnly bool
	// Shared, when set, makes one input of an inner join read a shared
	// arrangement instead of one of its own: see SharedArrangement.
	Shared *SharedArrangement
}

// SharedArrangement names the arrangement an inner join reads one input
// from: Index is an arrangement (an index, kept by the caller) of the
// collection that the Side input (0 left, 1 right) reads, either directly
// as a Source or through one MFP over a Source whose join key columns are
// source columns; its leading columns are those join key columns, in
// order. The join keeps no state for that side: it joins the side's
// changes with the other side's rows as they were, and the other side's
// changes with the arrangement as of the Step, which already includes
// the side's changes (the delta-join rule dL⋈R' + L⋈dR). Printed
// shared=left:<index> or shared=right:<index>.
type SharedArrangement struct {
	Side  int
	Index uint64
}

// Union concatenates its inputs (UNION ALL). Stateless.
type Union struct{}

// Negate flips the sign of every update. Stateless.
type Negate struct{}

// Threshold keeps each row with multiplicity max(count, 0): with Negate and
// Union it implements EXCEPT ALL. State: the multiset of input rows.
type Threshold struct{}

// SessionWindow assigns each input row to the session window it belongs
// to and outputs the row followed by the session's window_start and
// window_end (two columns of TimeCol's type). Sessions are formed per
// group of the Key columns: rows of one group whose times (column TimeCol,
// a timestamp) lie closer than Gap microseconds to each other, transitively,
// form one session [first time, last time + Gap). Rows with a NULL time are
// dropped. When a row joins, bridges or leaves sessions, the rows whose
// session bounds change are retracted with the old bounds and inserted
// with the new ones, so a Reduce grouped by the key and the window columns
// above it stays correct incrementally.
//
// State: per group, every live row, ordered by time. With a watermark on
// TimeCol a session whose window_end is at or below the watermark can never
// change again; its rows are freed. window_end carries the input
// watermark of TimeCol (see exec/session.go for the proof).
type SessionWindow struct {
	Key     []int
	TimeCol int
	Gap     int64
}

func (SessionWindow) opName() string { return "SessionWindow" }

// TopK keeps, per group of the Key columns, the rows ranked Offset+1 through
// Offset+Limit by Order (Limit < 0 means no limit). Ties are broken by the
// whole row so the result is deterministic. State: per group, every live row.
// Rank appends a bigint column to each output row: its 1-based position in
// its group (row_number()), so a row whose position changes is retracted
// and reinserted.
type TopK struct {
	Key    []int
	Order  []expr.SortCol
	Limit  int64
	Offset int64
	Rank   bool
	// AppendOnly promises that the input never retracts a row (it derives
	// from append-only sources through maps, filters and inner joins only).
	// With a Limit, the state then keeps only the rows ranked within
	// Offset+Limit of each group: a row pushed past them can never come
	// back, since no row above it can leave.
	AppendOnly bool
}

// TemporalFilter keeps each input row while it is valid at the Step's
// wall-clock time now (exec.Input.Now, microseconds since 2000-01-01 like
// timestamptz): while every Lower bound is <= now and now is < every Upper
// bound. The bounds are timestamptz expressions over the row that call no
// volatile function, so a row's validity interval [max Lower, min Upper)
// is fixed when it arrives; a NULL bound makes the row never valid. It is
// how `WHERE ts > now() - INTERVAL '1 hour'` is maintained in a view
// (Materialize's temporal filters over mz_now()): rows enter the output
// when now reaches their lower bound and leave it when now reaches their
// upper bound, at the logical time of that Step.
//
// State: every row with a transition still ahead (not yet valid, or valid
// until a finite upper bound), ordered by its next transition time; it
// grows with the rows inside the window, not with history.
type TemporalFilter struct {
	Lower []expr.Expr
	Upper []expr.Expr
}

func (Source) opName() string    { return "Source" }
func (Constant) opName() string  { return "Constant" }
func (MFP) opName() string       { return "MFP" }
func (Reduce) opName() string    { return "Reduce" }
func (Join) opName() string      { return "Join" }
func (Union) opName() string     { return "Union" }
func (Negate) opName() string    { return "Negate" }
func (Threshold) opName() string { return "Threshold" }
func (TopK) opName() string      { return "TopK" }

func (TemporalFilter) opName() string { return "TemporalFilter" }

// OpName returns op's name as the plan prints it, e.g. "Reduce".
func OpName(op Op) string { return op.opName() }
