package rules

import (
	"slices"

	"github.com/eddydb/eddy/optimizer/ir"
)

// MergeMaps concatenates nested maps:
//
//	(Map (Map $in $a) $b) => (Map $in $a ++ $b)
//
// One operator instead of two. Always valid in this IR: a map expression
// may read the columns appended before it, and $b's column numbers (over
// $in ++ $a ++ earlier $b) mean the same columns in the merged map, so
// nothing is renumbered and every expression is still evaluated once per
// row, in the same order. Safe under retractions: Map is linear.
var MergeMaps = Rule{Name: "MergeMaps", Root: (*ir.Map)(nil), Apply: func(e ir.Rel) ir.Rel {
	outer, ok := e.(*ir.Map)
	if !ok {
		return nil
	}
	inner, ok := outer.Input.(*ir.Map)
	if !ok {
		return nil
	}
	return &ir.Map{Input: inner.Input, Exprs: append(slices.Clone(inner.Exprs), outer.Exprs...)}
}}

// FoldMap constant-folds the map's expressions:
//
//	(Map $in [(1 + 2)]) => (Map $in [3])
//
// Saves work per row. expr.Fold never folds volatile calls and leaves
// failing expressions alone, so errors stay at run time. Safe under
// retractions: each row's values are unchanged.
var FoldMap = Rule{Name: "FoldMap", Root: (*ir.Map)(nil), Apply: func(e ir.Rel) ir.Rel {
	m, ok := e.(*ir.Map)
	if !ok {
		return nil
	}
	exprs, changed := foldAll(m.Exprs)
	if !changed {
		return nil
	}
	return &ir.Map{Input: m.Input, Exprs: exprs}
}}

// RemoveEmptyMap drops a map without expressions:
//
//	(Map $in []) => $in
//
// Always safe. Safe under retractions: the identity.
var RemoveEmptyMap = Rule{Name: "RemoveEmptyMap", Root: (*ir.Map)(nil), Apply: func(e ir.Rel) ir.Rel {
	m, ok := e.(*ir.Map)
	if !ok || len(m.Exprs) > 0 {
		return nil
	}
	return m.Input
}}
