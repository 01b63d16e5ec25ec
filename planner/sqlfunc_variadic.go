package planner

import (
	"cmp"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// VARIADIC parameters of SQL and PL/pgSQL functions (SQLFunction.Variadic):
// a call that lists the array's elements, f(a, 1, 2, 3), resolves as
// PostgreSQL's expanded form (the variadic parameter repeated with the
// element type as many times as the arguments need, at least once), and
// is rewritten into f(a, VARIADIC ARRAY[1, 2, 3]::elem[]), which the
// ordinary resolution then binds to the array parameter. A call that
// writes VARIADIC passes its array as it is. Non-variadic overloads of
// the name compete with the expanded forms by the same rules.

// variadicForm rewrites fc, positional, into its VARIADIC array form
// when it resolves to a variadic function's expanded form; otherwise it
// returns fc.
func (c *ectx) variadicForm(fc *pg_query.FuncCall) (*pg_query.FuncCall, error) {
	if fc.FuncVariadic || fc.AggStar || fc.Over != nil {
		return fc, nil
	}
	name := funcName(fc)
	fns := c.b.sqlFunctions(name)
	if !c.b.sqlVariadic(name) {
		return fc, nil
	}
	if listHasSubLink(fc.Args) {
		return nil, repr.Unsupported("a subquery argument of %s(), a VARIADIC function", name).WithPosition(fc.Location + 1)
	}
	args, err := c.exprs(fc.Args)
	if err != nil {
		return nil, err
	}
	ts := exprTypes(args)
	var cands []*expr.Func
	var of []*SQLFunction
	// Non-variadic overloads come first: an expanded form taking the
	// same types as one of them is dropped (PostgreSQL prefers it).
	slices.SortStableFunc(fns, func(a, b *SQLFunction) int { return cmp.Compare(b2i(a.Variadic), b2i(b.Variadic)) })
	for _, f := range fns {
		fixed := len(f.Args) - 1
		switch {
		case f.Variadic && len(ts) > fixed:
			in := append([]repr.T(nil), f.Args[:fixed]...)
			for range ts[fixed:] {
				in = append(in, f.Args[fixed].ElemType())
			}
			if !slices.ContainsFunc(cands, func(c *expr.Func) bool { return slices.Equal(c.Args, in) }) {
				cands, of = append(cands, &expr.Func{Name: name, Args: in, Ret: f.Ret}), append(of, f)
			}
		case !f.Variadic && len(f.Args) >= len(ts) && (len(f.Args) == len(ts) || f.Defaults[len(ts)] != ""):
			cands, of = append(cands, &expr.Func{Name: name, Args: f.Args[:len(ts)], Ret: f.Ret}), append(of, f)
		}
	}
	i, _, err := expr.ResolveAmong(name, cands, ts)
	if err != nil {
		// Without VARIADIC a variadic function takes only its expanded
		// form: an array argument alone does not match it.
		return nil, withPos(err, fc.Location)
	}
	if !of[i].Variadic {
		return fc, nil
	}
	f := of[i]
	fixed := len(f.Args) - 1
	arr := &pg_query.Node{Node: &pg_query.Node_AArrayExpr{AArrayExpr: &pg_query.A_ArrayExpr{
		Elements: fc.Args[fixed:], Location: -1}}}
	out := proto.Clone(fc).(*pg_query.FuncCall)
	out.Args = append(append([]*pg_query.Node(nil), fc.Args[:fixed]...), castTo(arr, f.Args[fixed]))
	out.FuncVariadic = true
	return out, nil
}

// sqlVariadic reports whether name calls a variadic SQL or PL/pgSQL
// function rather than a built-in: f(..., VARIADIC arr) then binds arr
// to its array parameter.
func (b *builder) sqlVariadic(name string) bool {
	if expr.LookupFunc(name) {
		return false
	}
	for _, f := range b.sqlFunctions(name) {
		if f.Variadic {
			return true
		}
	}
	return false
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
