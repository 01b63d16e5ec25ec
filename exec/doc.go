// Package exec is Eddy's incremental runtime. A dataflow.Plan becomes a
// Dataflow of deterministic operators that turn batches of (row, time,
// diff) updates on its sources into updates of its output, keeping the
// state each operator needs in memory and logging every change of that
// state to a StateWriter so that it can be made durable atomically with the
// writes that caused it, and restored after a restart without recomputation.
//
// Operators never read the clock, start goroutines or do I/O; time comes in
// as data (the logical time of each Step).
package exec
