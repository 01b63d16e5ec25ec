// Package agg is the aggregate registry: every aggregate function is
// declared once, in the defs table (registry.go), with its SQL names, the
// shape of its calls, its result type, the state a group keeps for it and
// how that state becomes the result. The planner resolves names and types
// through it, exec/dataflow prints and parses calls through it, and exec's
// Reduce keeps the state it asks for (an Acc, a multiset of values, or
// both) and calls its Final function. Every aggregate here is maintained
// incrementally under insertions and retractions: its state is a sum (of
// counts, values, squares, bits) or a multiset, never a running fold that
// a deletion could not undo.
//
// The package is deterministic and pure: no clock, goroutines or I/O.
package agg
