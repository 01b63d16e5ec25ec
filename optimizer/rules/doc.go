// Package rules holds the optimizer's rewrite rules over optimizer/ir and
// the engine that runs them.
//
// A Rule is a named Go value whose Apply returns a replacement for the node
// it is given, or nil to decline. Every rule preserves the node's output
// columns and its multiset semantics exactly (NULLs included), and, because
// Eddy maintains plans incrementally, every rule is an equivalence of
// relations at every logical time: the rewritten plan produces the same
// multiset after any sequence of insertions and retractions. Each rule's
// doc comment states its pattern, why it helps, when it would be unsafe and
// why it holds under retractions.
//
// Rules live in one file per root operator (filter.go, join.go, project.go,
// map.go, reduce.go; empty.go for the rules that apply to every operator),
// with golden tests in testdata/ under the same names.
//
// A Phase is a named, ordered list of rules. Run applies each phase in turn,
// bottom-up, to a fixed point: a node's inputs are rewritten before the node
// itself, and whatever a rule returns is rewritten again. A cap on the
// number of rule applications turns a rule cycle into an error instead of a
// hang. Run records which rules fired, so golden tests can assert on them.
package rules
