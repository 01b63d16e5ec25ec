package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/sql/pgerr"
)

// Set-returning functions in the select list (SELECT id,
// generate_series(1, n) FROM t) follow PostgreSQL 10's semantics: they
// are evaluated after grouping and window functions, before DISTINCT,
// ORDER BY and LIMIT, all of a block's calls in lockstep (one ir.FlatMap:
// as many rows per input row as the longest result, shorter ones padded
// with NULL; an input row for which every call is empty yields nothing),
// and the rest of the select list is computed over each resulting row.
// As in PostgreSQL they may not appear inside CASE or COALESCE (whose
// lazy evaluation they would defeat), in aggregate or window function
// arguments, nor outside the select list; nesting one in another's
// arguments is not supported.

// codeSRF is the SQLSTATE of a misplaced set-returning function.
const codeSRF = pgerr.CodeFeatureNotSupported

// planSRFs plans the select list's set-returning function calls as a
// FlatMap over ec.rel and records their values in ec.srfs.
func (b *builder) planSRFs(targets []target, ec *ectx, p *planned) error {
	var calls []*pg_query.FuncCall
	for _, t := range targets {
		if err := collectSRFs(t.node, "", &calls); err != nil {
			return err
		}
	}
	if len(calls) == 0 {
		return nil
	}
	fm := &ir.FlatMap{}
	for _, fc := range calls {
		call, err := ec.tableCall(fc)
		if err != nil {
			return err
		}
		if len(call.Func.Cols) != 1 {
			return pgerr.Unsupported("set-returning function %s returning a record in the select list (call it in FROM)", call.Func.Name).WithPosition(fc.Location + 1)
		}
		fm.Funcs = append(fm.Funcs, call)
	}
	fm.Input = ec.rel
	n := ir.Arity(ec.rel)
	ec.rel, ec.srfs = fm, map[*pg_query.FuncCall]scalar.Expr{}
	for i, fc := range calls {
		ec.srfs[fc] = ec.colExpr(n + i)
	}
	p.atMostOne = false
	return nil
}

// collectSRFs appends the set-returning function calls of a select-list
// expression, not descending into subqueries (their own) or aggregate and
// window calls (whose arguments reject them when built). within names the
// enclosing CASE or COALESCE, where they are refused.
func collectSRFs(n *pg_query.Node, within string, out *[]*pg_query.FuncCall) error {
	var err error
	walk(n, func(x *pg_query.Node) bool {
		switch {
		case err != nil || x.GetSubLink() != nil:
			return false
		case x.GetCaseExpr() != nil && within == "":
			err = collectSRFs(&pg_query.Node{Node: &pg_query.Node_List{List: &pg_query.List{Items: children(x)}}}, "CASE", out)
			return false
		case x.GetCoalesceExpr() != nil && within == "":
			err = collectSRFs(&pg_query.Node{Node: &pg_query.Node_List{List: &pg_query.List{Items: children(x)}}}, "COALESCE", out)
			return false
		}
		fc := x.GetFuncCall()
		switch {
		case fc == nil:
			return true
		case fc.Over != nil || isAggregate(fc):
			return false
		case !scalar.IsTableFunc(funcName(fc)):
			return true
		}
		if within != "" {
			err = pgerr.New(codeSRF, "set-returning functions are not allowed in %s", within).WithPosition(fc.Location + 1).
				WithHint("You might be able to move the set-returning function into a LATERAL FROM item.")
			return false
		}
		var nested []*pg_query.FuncCall
		for _, a := range fc.Args {
			if err = collectSRFs(a, "", &nested); err != nil {
				return false
			}
		}
		if len(nested) > 0 {
			err = pgerr.Unsupported("nested set-returning functions").WithPosition(nested[0].Location + 1)
			return false
		}
		*out = append(*out, fc)
		return false
	})
	return err
}

// srfRef returns the value of a planned select-list set-returning call;
// anywhere else the call is misplaced.
func (c *ectx) srfRef(fc *pg_query.FuncCall) (scalar.Expr, error) {
	if e, ok := c.srfs[fc]; ok {
		return e, nil
	}
	var err *pgerr.Error
	switch c.clause {
	case "aggregate":
		err = pgerr.New(codeSRF, "aggregate function calls cannot contain set-returning function calls")
	case "window function":
		err = pgerr.New(codeSRF, "window function calls cannot contain set-returning function calls")
	case "functions in FROM":
		err = pgerr.New(codeSRF, "set-returning functions must appear at top level of FROM")
	case "JOIN/ON":
		err = pgerr.New(codeSRF, "set-returning functions are not allowed in JOIN conditions")
	default:
		err = pgerr.New(codeSRF, "set-returning functions are not allowed in %s", c.clause)
	}
	return nil, err.WithPosition(fc.Location + 1).WithHint("You might be able to move the set-returning function into a LATERAL FROM item.")
}
