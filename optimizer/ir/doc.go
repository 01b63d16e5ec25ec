// Package ir is Eddy's relational intermediate representation: a small,
// closed set of immutable tree operators (Get, Values, Map, Filter, Project,
// Join, Reduce, TopK, Union, Negate, Threshold, and the window, session,
// temporal, loop, FlatMap and Shared operators) whose scalars are
// expr expressions over the operator's input columns, referenced by
// position.
//
// Every relation is a multiset of rows that may change over time, so each
// operator's doc comment states its semantics under insertions and
// retractions and the state an incremental implementation keeps. Nodes are
// never mutated after construction: rewrite rules build new nodes (WithChildren
// copies a node over new children) and may share unchanged subtrees.
//
// String prints an indented tree, one operator per line with its children
// indented below it; EXPLAIN, error messages and golden tests share it.
package ir
