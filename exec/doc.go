// Package exec is Eddy's incremental runtime. A dataflow.Plan becomes a
// Dataflow of deterministic operators that turn batches of (row, time,
// diff) updates on its sources into updates of its output, keeping the
// state each operator needs in memory and logging every change of that
// state to a StateWriter so that it can be made durable atomically with the
// writes that caused it, and restored after a restart without recomputation.
//
// Operators never read the clock, start goroutines or do I/O; time comes in
// as data (the logical time of each Step).
//
// Event time. A Source with an event-time column receives watermarks with
// each Step (StepInput's Input.Watermarks): promises that no update of a
// later Step has an event time below them. The Source drops and counts
// late updates (Late), and every node derives per-column watermarks from
// its inputs' (watermark.go states the rule of each operator). A Reduce
// grouping by a watermarked column closes a group once the watermark
// passes its key: it emits the final row if the Reduce is EMIT ON WINDOW
// CLOSE, and frees the group's state either way (windowReduce in
// window.go); a Join on a key watermarked on both sides frees arranged
// rows below the smaller watermark (windowJoin); a Join whose residual
// bounds one side's rows by the other side's watermark (an interval join
// such as b.date_time BETWEEN a.date_time AND a.expires) frees a row once
// no later row of the other side can match it (intervalJoin, interval.go,
// which also carries watermarks through such conditions); a TopK
// partitioned by a watermarked column frees closed partitions
// (windowTopK); a SessionWindow frees the
// rows of sessions whose window_end the watermark reached (session.go).
// A closed group's value multisets are deleted with one range deletion
// when the StateWriter is a PrefixDeleter.
// Watermarks, late counts
// and closed windows are part of the tentative Step (Rollback undoes
// them) and of the logged state (Restore brings them back). Bounded
// reports which stateful nodes a watermark bounds, OutputWatermarks what a
// dataflow reading this one's output may assume.
//
// Design notes: closing happens after a Step's updates are processed,
// with the Step's new watermark, so updates that arrive together with a
// watermark are never late for it and a downstream operator sees a closed
// window's final rows in the same Step in which it may close the window
// itself. Groups and arranged rows are found by a min-heap over their
// window values (closeIndex), so closing costs O(log windows) per closed
// value, not a scan of the state. The windowed operators wrap the plain
// ones instead of changing them, so the hot paths of Reduce and Join are
// untouched for plans without event time (which also skip watermark
// derivation entirely).
//
// Append-only inputs (the plan's AppendOnly flags) let operators keep
// less: a TopK keeps only the rows within offset+limit, and an inner Join
// that no watermark bounds runs as appendJoin (append_join.go), which
// keeps each side's rows encoded per join key, without per-row identity.
// A retraction that reaches them anyway fails the Step.
//
// Loops (a plan's Variable ... Fixpoint, WITH RECURSIVE) run as
// differential dataflow's iterate (iterate.go): the body's stateful
// operators keep every row's diffs per iteration, past Steps compacted
// into one time, and a Step re-evaluates only the (key, iteration) pairs
// its changes reach, so retractions through cycles are exact. A loop that
// does not converge within its iteration limit fails the Step (54001).
package exec
