package ir

import "github.com/eddydb/eddy/expr"

// NotNull reports, per output column of rel, whether the column is known
// never to be NULL. It is conservative: false means "may be NULL". Sources
// of the knowledge are NOT NULL and primary-key columns (Get.NotNull),
// literals, count aggregates, IS [NOT] NULL tests, coalesce with a known
// non-NULL argument, strict functions of non-NULL arguments, filters
// (a row passes `f(c)` for a strict f only if c is not NULL) and inner-join
// conditions (the same argument); outer joins make the padded side
// nullable. Rules use it to simplify NULL-safe comparisons into plain ones.
func NotNull(rel Rel) []bool {
	switch r := rel.(type) {
	case *Get:
		out := make([]bool, len(r.Types))
		copy(out, r.NotNull)
		for _, k := range r.Key {
			out[k] = true
		}
		return out
	case *Values:
		return valuesNotNull(r)
	case *Map:
		out := NotNull(r.Input)
		for _, e := range r.Exprs {
			out = append(out, exprNotNull(e, out))
		}
		return out
	case *Filter:
		out := NotNull(r.Input)
		for _, p := range r.Preds {
			markStrict(p, out)
		}
		return out
	case *Project:
		in := NotNull(r.Input)
		out := make([]bool, len(r.Cols))
		for i, c := range r.Cols {
			out[i] = in[c]
		}
		return out
	case *Join:
		return joinNotNull(r)
	case *Reduce:
		return reduceNotNull(r)
	case *TopK:
		out := NotNull(r.Input)
		if r.Rank {
			out = append(out, true)
		}
		return out
	case *Union:
		return unionNotNull(r)
	case *Negate:
		return NotNull(r.Input)
	case *Shared:
		return NotNull(r.Input)
	case *Threshold:
		return NotNull(r.Input)
	}
	return make([]bool, Arity(rel))
}

// joinNotNull: both sides' columns, a padded side's all nullable; for an
// inner join, the columns its conditions are strict in are non-NULL.
func joinNotNull(j *Join) []bool {
	l, r := NotNull(j.Left), NotNull(j.Right)
	if j.Kind == JoinRight || j.Kind == JoinFull {
		clear(l)
	}
	if j.Kind == JoinLeft || j.Kind == JoinFull {
		clear(r)
	}
	out := append(l, r...)
	if j.Kind == JoinInner || j.Kind == JoinCross {
		for _, p := range j.On {
			markStrict(p, out)
		}
	}
	return out
}

// reduceNotNull: the key columns as in the input; count aggregates are
// never NULL. A global aggregate (no key) has no key columns.
func reduceNotNull(r *Reduce) []bool {
	in := NotNull(r.Input)
	out := make([]bool, 0, len(r.Key)+len(r.Aggs))
	for _, k := range r.Key {
		out = append(out, in[k])
	}
	for _, a := range r.Aggs {
		out = append(out, a.Kind == expr.AggCountStar || a.Kind == expr.AggCount)
	}
	return out
}

// unionNotNull: a column is non-NULL when it is in every input.
func unionNotNull(u *Union) []bool {
	out := NotNull(u.Inputs[0])
	for _, in := range u.Inputs[1:] {
		for i, nn := range NotNull(in) {
			out[i] = out[i] && nn
		}
	}
	return out
}

// valuesNotNull: a column is non-NULL when every row's expression is.
func valuesNotNull(v *Values) []bool {
	out := make([]bool, len(v.Types))
	for i := range out {
		out[i] = len(v.Rows) > 0
		for _, row := range v.Rows {
			out[i] = out[i] && exprNotNull(row[i], nil)
		}
	}
	return out
}

// exprNotNull reports whether e is never NULL over rows whose columns cols
// says are non-NULL.
func exprNotNull(e expr.Expr, cols []bool) bool {
	switch x := e.(type) {
	case *expr.Col:
		return x.Idx < len(cols) && cols[x.Idx]
	case *expr.Lit:
		return !x.D.IsNull()
	case *expr.IsNull:
		return true
	case *expr.Coalesce:
		for _, a := range x.Args {
			if exprNotNull(a, cols) {
				return true
			}
		}
		return false
	case *expr.Cast:
		return exprNotNull(x.Arg, cols)
	case *expr.Call:
		if !x.Fn.Strict || x.Fn.Volatile {
			return false
		}
		for _, a := range x.Args {
			if !exprNotNull(a, cols) {
				return false
			}
		}
		return true
	}
	return false
}

// markStrict marks non-NULL the columns that predicate p being true
// requires non-NULL: a conjunction's conjuncts are all true, x IS NOT NULL
// needs x non-NULL, and any other predicate is non-NULL when true.
func markStrict(p expr.Expr, cols []bool) {
	switch x := p.(type) {
	case *expr.And:
		for _, a := range x.Args {
			markStrict(a, cols)
		}
	case *expr.IsNull:
		if x.Negate {
			markNonNull(x.Arg, cols)
		}
	default:
		markNonNull(p, cols)
	}
}

// markNonNull marks non-NULL the columns e is strict in: those whose NULL
// makes e NULL, so they are non-NULL wherever e is.
func markNonNull(e expr.Expr, cols []bool) {
	switch x := e.(type) {
	case *expr.Col:
		if x.Idx < len(cols) {
			cols[x.Idx] = true
		}
	case *expr.Cast:
		markNonNull(x.Arg, cols)
	case *expr.Call:
		if x.Fn.Strict {
			for _, a := range x.Args {
				markNonNull(a, cols)
			}
		}
	}
}
