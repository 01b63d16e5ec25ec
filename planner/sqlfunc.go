package planner

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// SQL-language functions (CREATE FUNCTION ... LANGUAGE sql) are inlined
// where they are called, as PostgreSQL's inline_function and
// inline_set_returning_function do, but for every body: a call costs
// nothing at run time, and a materialized view over an immutable
// function is maintained incrementally like any expression. The
// arguments are planned at the call site and bound as values
// (sqlfunc_value.go for a body that is one expression, sqlfunc_bind.go
// for a body that is a query, which becomes a correlated subquery or, in
// FROM, a LATERAL derived table), never substituted as text, so an
// argument may read any column and keeps its meaning. A VOLATILE
// function in a materialized view is refused (0A000), as now() is; a
// function whose inlining reaches itself, or nests deeper than
// maxInlineDepth, is 54001 (PostgreSQL's stack depth error: an inlined
// recursion never ends).

// SQLFunction is a LANGUAGE sql function of the catalog, as the planner
// inlines it.
type SQLFunction struct {
	ID       uint64
	Name     string
	Args     []repr.T
	ArgNames []string // "" for an unnamed parameter
	// Defaults are the parameters' DEFAULT expressions as SQL text ("":
	// none); only trailing parameters have one.
	Defaults []string
	// Ret is a scalar function's result type; RetSet marks a
	// set-returning one, whose result columns are RetCols (a column
	// without a name, of SETOF a base type, takes the FROM item's alias).
	Ret     repr.T
	RetSet  bool
	RetCols []Column
	// Body is the SelectStmt the function computes.
	Body     *pg_query.Node
	Volatile bool
	Strict   bool
	// Procedural marks a LANGUAGE plpgsql function (plfunc.go): called at
	// run time, not inlined; Body is nil. Its RetCols are its OUT
	// parameters when it has any.
	Procedural bool
	// PLSource is a PL/pgSQL function's whole CREATE FUNCTION text, as
	// pg_query's PL/pgSQL parser reads it: a call in a materialized
	// view translates it into one expression (plinline.go).
	PLSource string
	// Procedure marks a procedure (CREATE PROCEDURE): only CALL
	// (Options.CallProcedure) calls it; a call elsewhere is 42809.
	Procedure bool
	// Variadic marks the last parameter VARIADIC: a call may give the
	// array's elements as arguments (sqlfunc_variadic.go).
	Variadic bool
	// Poly names, per parameter, its polymorphic pseudo-type ("" for
	// none; nil when no parameter has one), and RetPoly the result's:
	// each call instantiates them (sqlfunc_poly.go).
	Poly    []string
	RetPoly string
	// RetColPoly names, per result column, its polymorphic pseudo-type
	// (an OUT or TABLE parameter's; nil when none has one).
	RetColPoly []string
}

// FunctionCatalog is implemented by catalogs that define SQL functions:
// Functions returns those named name (lower case), in any schema on the
// path.
type FunctionCatalog interface {
	Functions(name string) []*SQLFunction
}

// FunctionUser is implemented by catalogs that record the SQL functions a
// plan inlined (dependencies of views).
type FunctionUser interface {
	UseFunction(id uint64)
}

// sqlFunctions returns the catalog's SQL functions named name.
func (b *builder) sqlFunctions(name string) []*SQLFunction {
	fc, ok := b.cat.(FunctionCatalog)
	if !ok {
		return nil
	}
	var out []*SQLFunction
	for _, f := range fc.Functions(name) {
		if f.Procedure == b.opts.CallProcedure && !slices.Contains(b.opts.CallHidden, f.ID) {
			out = append(out, f)
		}
	}
	return out
}

// notProcedure is 42809 when name is a procedure (and the statement is
// not a CALL), nil otherwise.
func (b *builder) notProcedure(name string, loc int32) error {
	fc, ok := b.cat.(FunctionCatalog)
	if !ok || b.opts.CallProcedure {
		return nil
	}
	for _, f := range fc.Functions(name) {
		if f.Procedure {
			return repr.Errorf(repr.CodeWrongObjectType, "%s(%s) is a procedure", name, expr.TypeList(f.Args)).
				WithHint("To call a procedure, use CALL.").WithPosition(loc + 1)
		}
	}
	return nil
}

// sqlFunctionCall inlines fc when it calls a SQL function (ok false:
// it does not; builtins win over a SQL function their signature takes).
func (c *ectx) sqlFunctionCall(name string, fc *pg_query.FuncCall) (expr.Expr, bool, error) {
	fns := c.b.sqlFunctions(name)
	if len(fns) == 0 {
		err := c.b.notProcedure(name, fc.Location)
		return nil, err != nil, err
	}
	args, err := c.exprs(fc.Args)
	if err != nil {
		return nil, true, err
	}
	ts := exprTypes(args)
	if _, _, err := expr.ResolveFunc(name, ts); err == nil {
		return nil, false, nil
	}
	fn, nargs, err := resolveSQLFunction(name, fns, ts)
	if err != nil {
		return nil, true, withPos(err, fc.Location)
	}
	if fn.Procedural && c.b.opts.MaterializedView {
		e, err := c.plViewCall(fn, fc, args, nargs)
		return e, true, err
	}
	if fn.Procedural {
		e, err := c.routineCall(fn, args, nargs, fc.Location)
		return e, true, err
	}
	if fn.RetSet {
		return nil, true, repr.Unsupported("set-returning SQL function %s outside FROM", name).WithPosition(fc.Location + 1)
	}
	if len(fn.RetCols) > 1 {
		e, err := c.recordCall(fn, args, nargs, fc.Location)
		return e, true, err
	}
	e, err := c.inlineCall(fn, args, nargs, fc.Location)
	return e, true, err
}

// resolveSQLFunction picks the function (and the number of arguments
// written, the rest taken from defaults) a call over ts means, by
// expr.ResolveAmong's rules.
func resolveSQLFunction(name string, fns []*SQLFunction, ts []repr.T) (*SQLFunction, []*pg_query.Node, error) {
	var cands []*expr.Func
	var of []*SQLFunction
	for _, f := range fns {
		if len(f.Args) < len(ts) {
			continue
		}
		if f = polyInstance(f, ts); f == nil {
			continue
		}
		missing := f.Defaults[len(ts):]
		if len(missing) > 0 && missing[0] == "" {
			continue
		}
		cands = append(cands, &expr.Func{Name: name, Args: f.Args[:len(ts)], Ret: f.Ret})
		of = append(of, f)
	}
	i, _, err := expr.ResolveAmong(name, cands, ts)
	if err != nil {
		return nil, nil, err
	}
	f := of[i]
	var defs []*pg_query.Node
	for _, d := range f.Defaults[len(ts):] {
		n, err := defaultArg(d)
		if err != nil {
			return nil, nil, err
		}
		defs = append(defs, n)
	}
	return f, defs, nil
}

// enterFunction marks fn as being inlined, refusing recursion.
func (b *builder) enterFunction(fn *SQLFunction) error {
	if b.inlining == nil {
		b.inlining = map[uint64]bool{}
	}
	if b.inlining[fn.ID] || len(b.inlining) >= maxInlineDepth {
		return repr.Errorf("54001", "stack depth limit exceeded").
			WithDetail("SQL function %s calls itself, directly or through other functions, or nests more than %d calls.", fn.Name, maxInlineDepth).
			WithHint("Eddy inlines SQL functions into the query, so a SQL function cannot be recursive.")
	}
	if fn.Volatile && b.opts.MaterializedView {
		return repr.Unsupported("calling %s() in a materialized view (the function is VOLATILE)", fn.Name)
	}
	b.inlining[fn.ID] = true
	if b.opts.Calls != nil {
		*b.opts.Calls = append(*b.opts.Calls, Call{SQLFunction: fn.ID})
	}
	if u, ok := b.cat.(FunctionUser); ok {
		u.UseFunction(fn.ID)
	}
	return nil
}

// leaveFunction ends fn's inlining.
func (b *builder) leaveFunction(fn *SQLFunction) { delete(b.inlining, fn.ID) }

// bodyExpr returns the one expression of a body SELECT e (no FROM or
// other clause, no subquery in e), nil for any other body.
func bodyExpr(sel *pg_query.SelectStmt) *pg_query.Node {
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) > 0 || sel.WhereClause != nil ||
		len(sel.GroupClause) > 0 || sel.HavingClause != nil || len(sel.SortClause) > 0 || sel.LimitCount != nil ||
		sel.LimitOffset != nil || sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.ValuesLists) > 0 ||
		sel.WithClause != nil || len(sel.DistinctClause) > 0 || len(sel.WindowClause) > 0 {
		return nil
	}
	e := sel.TargetList[0].GetResTarget().GetVal()
	sub := false
	walkMessages(e.ProtoReflect(), func(m proto.Message) {
		if _, ok := m.(*pg_query.SubLink); ok {
			sub = true
		}
		if fc, ok := m.(*pg_query.FuncCall); ok && isAggregate(fc) {
			sub = true
		}
	})
	if sub {
		return nil
	}
	return e
}

// castTo wraps n in CAST(n AS t).
func castTo(n *pg_query.Node, t repr.T) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: n, TypeName: typeNameOf(t), Location: -1}}}
}

// typeNameOf returns the syntax naming t. A composite, row or enum type
// (or an array of one), which only the catalog names, is named by its
// OID (TypeName.TypeOid, which builder.resolveType reads first).
func typeNameOf(t repr.T) *pg_query.TypeName {
	if t.Composite != 0 || t.Enum != 0 {
		return &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode("record")}, TypeOid: t.OID(), Location: -1}
	}
	tree, err := pg_query.Parse("SELECT NULL::" + t.Name())
	if err != nil {
		return &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode("text")}}
	}
	return tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast().TypeName
}

// strictGuard is CASE WHEN a1 IS NULL OR ... THEN NULL ELSE val END.
func strictGuard(val *pg_query.Node, args []*pg_query.Node) *pg_query.Node {
	var tests []*pg_query.Node
	for _, a := range args {
		tests = append(tests, &pg_query.Node{Node: &pg_query.Node_NullTest{NullTest: &pg_query.NullTest{
			Arg: proto.Clone(a).(*pg_query.Node), Nulltesttype: pg_query.NullTestType_IS_NULL, Location: -1}}})
	}
	cond := tests[0]
	if len(tests) > 1 {
		cond = pg_query.MakeBoolExprNode(pg_query.BoolExprType_OR_EXPR, tests, -1)
	}
	null := &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}}
	when := &pg_query.Node{Node: &pg_query.Node_CaseWhen{CaseWhen: &pg_query.CaseWhen{Expr: cond, Result: null, Location: -1}}}
	return &pg_query.Node{Node: &pg_query.Node_CaseExpr{CaseExpr: &pg_query.CaseExpr{Args: []*pg_query.Node{when}, Defresult: val, Location: -1}}}
}

// callsSQLFunction reports whether FROM item rf calls a SQL function
// (planned by sqlFunctionItem, as its own FROM item).
func (b *builder) callsSQLFunction(rf *pg_query.RangeFunction) bool {
	if len(rf.Functions) != 1 || rf.IsRowsfrom {
		return false
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil {
		return false
	}
	name := funcName(items[0].GetFuncCall())
	fns := b.sqlFunctions(name)
	return len(fns) > 0 && !fns[0].Procedural && !expr.IsTableFunc(name) && !expr.LookupFunc(name)
}
