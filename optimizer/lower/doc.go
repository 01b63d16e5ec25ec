// Package lower translates the optimizer's IR into the dataflow plan exec
// runs: Map/Filter/Project chains fuse into MFP operators, joins get their
// equi-join keys extracted from their conditions, Values become Constant
// and Get becomes Source. It makes no cost decisions: the rewrite rules run
// before it, and it preserves the IR's semantics operator by operator.
package lower
