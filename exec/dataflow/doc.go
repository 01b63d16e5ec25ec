// Package dataflow is the plan exec accepts: a printable, parsable graph of
// incremental operators over typed columns. It is exec's input format, so
// exec never imports the optimizer; the optimizer's lowering produces it and
// exec's golden tests write it by hand.
//
// A Plan lists Nodes in topological order; each node names its operator,
// its inputs (earlier nodes) and its output column types. The operators are
// a small closed set, each stating its semantics over (row, time, diff)
// updates and the state it costs: Source, Constant, MFP (fused
// map/filter/project), Reduce (group by with aggregates, DISTINCT),
// Join (inner and outer equi-joins with residual predicates), DeltaJoin
// (a multiway inner join with one lookup path per input), Union,
// Negate, Threshold (with Negate and Union, EXCEPT ALL), TopK and FlatMap
// (set-returning functions over each row, stateless). Variable
// and Fixpoint bracket a loop (WITH RECURSIVE): the nodes between them
// are iterated to a fixed point (see Variable).
//
// The text form, one node per line, is the test interface (Plan.String
// prints it and Parse reads it back):
//
//	%0 = Source coll=1 name=t :: int4, text
//	%1 = MFP map=[(#0 + 1)] filter=[(#1 IS NOT NULL)] project=[#2, #1] <- %0 :: int4, text
//	%2 = Reduce key=[#1] aggs=[count(*), sum(#0), max(DISTINCT #0)] <- %1 :: text, int8, int8, int4
//	%3 = Join kind=left on=[#1=#0] residual=[(#0 > #3)] <- %1, %2 :: ...
//	%4 = TopK key=[] order=[#0 DESC, #1] limit=10 offset=0 <- %3 :: ...
//	output %2
//
// A Source may name its event-time column (watermark=#i) and a Reduce may
// emit only closed windows (emit=close); see Source and Reduce.
//
// Columns are #i (0-based) of the node's input (for Join residuals, of the
// left columns followed by the right ones); expressions use the scalar
// package's printed form, constant rows and source rows the literal form
// of repr. Types are given with expr.TypeName and may be omitted
// except for Source and Constant.
//
// Plans are not type-checked beyond what Parse needs (expression typing is
// expr.ParseExpr's): the producer guarantees, for example, that the two
// sides of a join key and the inputs of a Union have the same types.
package dataflow
