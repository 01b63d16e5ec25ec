// Package optimizer turns the planner's relational IR into the dataflow exec
// runs. Its subpackages are ir (the small, closed tree of relational
// operators with their semantics and state costs), rules (named rewrite
// rules over ir run in ordered phases) and lower (ir -> exec/dataflow).
package optimizer
