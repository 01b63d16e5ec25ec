package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
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
// arguments, nor outside the select list. A call in another's arguments
// runs first (PostgreSQL's levels of ProjectSet): a call's level is one
// more than the deepest call in its arguments, and each level is one
// FlatMap over the one below, whose calls run in lockstep.

// codeSRF is the SQLSTATE of a misplaced set-returning function.
const codeSRF = repr.CodeFeatureNotSupported

// planSRFs plans the select list's set-returning function calls as a
// FlatMap over ec.rel and records their values in ec.srfs.
//
// Over an aggregated relation whose GROUP BY holds set-returning calls
// (srfgroup.go), an expression equal to a grouping key reads the key and
// its calls are not evaluated again.
func (b *builder) planSRFs(targets []target, ec *ectx, p *planned) error {
	levels := map[*pg_query.FuncCall]int{}
	var calls []*pg_query.FuncCall
	var skip func(*pg_query.Node) bool
	if ec.grp != nil && ec.grp.srfs != nil {
		skip = ec.isGroupKey
	}
	for _, t := range targets {
		if _, err := collectSRFs(t.node, "", skip, b.sqlSetFunc, &calls, levels); err != nil {
			return err
		}
	}
	ec.srfs = map[*pg_query.FuncCall]expr.Expr{}
	if len(calls) > 0 {
		ec.srfBase = ec.rel
	}
	for level := 1; len(ec.srfs) < len(calls); level++ {
		if err := ec.srfLevel(calls, levels, level); err != nil {
			return err
		}
		p.atMostOne = false
	}
	return nil
}

// srfLevel plans the calls of one level as a FlatMap over ec.rel; their
// arguments read the values of the lower levels' calls. When ec.srfCalls
// is set (the GROUP BY's calls), calls equal to one planned before
// (TableCall.String) share its columns, and every call's value is
// recorded there: in lockstep equal calls yield equal values.
func (ec *ectx) srfLevel(calls []*pg_query.FuncCall, levels map[*pg_query.FuncCall]int, level int) error {
	if fc := sqlSRFAt(ec.b, calls, levels, level); fc != nil {
		return ec.sqlSRFLevel(fc, calls, levels, level)
	}
	fm := &ir.FlatMap{}
	var at []*pg_query.FuncCall
	same := map[*pg_query.FuncCall]*pg_query.FuncCall{} // a call -> the equal one planned
	firsts := map[string]*pg_query.FuncCall{}
	for _, fc := range calls {
		if levels[fc] != level {
			continue
		}
		if name := funcName(fc); expr.ReturnsRecord(name) {
			return repr.Unsupported("could not determine row type for result of %s", name).
				WithHint("Call the function in the FROM clause using a column definition list.").WithPosition(fc.Location + 1)
		}
		call, err := ec.tableCall(fc, nil)
		if err != nil {
			return err
		}
		if ec.srfCalls != nil {
			k := call.String()
			if first, ok := firsts[k]; ok {
				same[fc] = first
				continue
			}
			firsts[k] = fc
		}
		fm.Funcs, at = append(fm.Funcs, call), append(at, fc)
	}
	if one, oneAt, rest, restAt := splitOneRow(fm.Funcs, at); len(one) > 0 && len(rest) > 0 {
		if err := ec.bindSRFs(&ir.FlatMap{Funcs: one}, oneAt, false); err != nil {
			return err
		}
		fm.Funcs, at = rest, restAt
	}
	if err := ec.bindSRFs(fm, at, ec.keepNatural); err != nil {
		return err
	}
	ec.shareSRFs(same)
	return nil
}

// splitOneRow parts a level's calls into those of one row per call
// (expr.TableFunc.OneRow) and the others, keeping each part's order.
func splitOneRow(funcs []expr.TableCall, at []*pg_query.FuncCall) (one []expr.TableCall, oneAt []*pg_query.FuncCall, rest []expr.TableCall, restAt []*pg_query.FuncCall) {
	for i, f := range funcs {
		if f.Func.OneRow {
			one, oneAt = append(one, f), append(oneAt, at[i])
		} else {
			rest, restAt = append(rest, f), append(restAt, at[i])
		}
	}
	return one, oneAt, rest, restAt
}

// bindSRFs makes fm (its Funcs the calls at) a FlatMap over ec.rel,
// numbered by an ordinality when natural, and records each call's value
// in ec.srfs. A level's one-row calls, which PostgreSQL does not treat as
// set-returning, get a FlatMap of their own below the lockstep one: a
// longer call beside them repeats their value instead of padding it, and
// a FlatMap of one-row calls alone pads none.
func (ec *ectx) bindSRFs(fm *ir.FlatMap, at []*pg_query.FuncCall, natural bool) error {
	fm.Input = ec.rel
	col := ir.Arity(ec.rel)
	ec.rel = fm
	fm.Ordinality = natural
	defer func() {
		if natural {
			ec.natural = append(ec.natural, ec.colExpr(ir.Arity(fm)-1))
		}
	}()
	for i, fc := range at {
		cols := fm.Funcs[i].Func.Cols
		if len(cols) == 1 {
			ec.srfs[fc] = ec.colExpr(col)
		} else if err := ec.recordSRF(fc, cols, col); err != nil {
			return err
		} else if len(fm.Funcs) > 1 && !fm.Funcs[0].Func.OneRow {
			if err := ec.paddedRecord(fc, fm.Funcs[i].Func, col); err != nil {
				return err
			}
		}
		if ec.srfCalls != nil {
			ec.srfCalls[fm.Funcs[i].String()] = fc
		}
		col += len(cols)
	}
	return nil
}

// collectSRFs appends the set-returning function calls of a select-list
// or GROUP BY expression (inner calls before the calls whose arguments
// hold them, each call once), recording each one's level, and returns the
// deepest level found. It does not descend into subqueries (their own),
// aggregate and window calls (whose arguments reject them when built), nor
// nodes skip reports (nil: none; the select list's grouping keys). within
// names the enclosing CASE or COALESCE, where they are refused.
//
// sqlSRF (nil: none) reports the names of set-returning SQL functions,
// which are collected too (sqlfunc_srf.go).
func collectSRFs(n *pg_query.Node, within string, skip func(*pg_query.Node) bool, sqlSRF func(string) bool, out *[]*pg_query.FuncCall, levels map[*pg_query.FuncCall]int) (int, error) {
	var err error
	depth := 0
	walk(n, func(x *pg_query.Node) bool {
		switch {
		case err != nil || x.GetSubLink() != nil || skip != nil && skip(x):
			return false
		case x.GetCaseExpr() != nil && within == "":
			_, err = collectSRFs(&pg_query.Node{Node: &pg_query.Node_List{List: &pg_query.List{Items: children(x)}}}, "CASE", skip, sqlSRF, out, levels)
			return false
		case x.GetCoalesceExpr() != nil && within == "":
			_, err = collectSRFs(&pg_query.Node{Node: &pg_query.Node_List{List: &pg_query.List{Items: children(x)}}}, "COALESCE", skip, sqlSRF, out, levels)
			return false
		}
		fc := x.GetFuncCall()
		switch {
		case fc == nil:
			return true
		case fc.Over != nil || isAggregate(fc):
			return false
		case !expr.IsTableFunc(funcName(fc)) && populateFuncs[funcName(fc)] == "" && (sqlSRF == nil || !sqlSRF(funcName(fc))):
			return true
		}
		if within != "" {
			err = repr.Errorf(codeSRF, "set-returning functions are not allowed in %s", within).WithPosition(fc.Location + 1).
				WithHint("You might be able to move the set-returning function into a LATERAL FROM item.")
			return false
		}
		if l, ok := levels[fc]; ok { // reached again (a grouping set's key)
			depth = max(depth, l)
			return false
		}
		inner := 0
		for _, a := range fc.Args {
			d, e := collectSRFs(a, within, skip, sqlSRF, out, levels)
			if err = e; err != nil {
				return false
			}
			inner = max(inner, d)
		}
		levels[fc] = inner + 1
		depth = max(depth, inner+1)
		*out = append(*out, fc)
		return false
	})
	return depth, err
}

// srfRef returns the value of a planned select-list set-returning call;
// anywhere else the call is misplaced.
func (c *ectx) srfRef(fc *pg_query.FuncCall) (expr.Expr, error) {
	if e, ok := c.srfs[c.sameSRF(fc)]; ok {
		return e, nil
	}
	var err *repr.Error
	switch c.clause {
	case "aggregate", "GROUPING":
		err = repr.Errorf(codeSRF, "aggregate function calls cannot contain set-returning function calls")
	case "window function":
		err = repr.Errorf(codeSRF, "window function calls cannot contain set-returning function calls")
	case "functions in FROM":
		err = repr.Errorf(codeSRF, "set-returning functions must appear at top level of FROM")
	case "JOIN/ON":
		err = repr.Errorf(codeSRF, "set-returning functions are not allowed in JOIN conditions")
	default:
		err = repr.Errorf(codeSRF, "set-returning functions are not allowed in %s", c.clause)
	}
	return nil, err.WithPosition(fc.Location + 1).WithHint("You might be able to move the set-returning function into a LATERAL FROM item.")
}
