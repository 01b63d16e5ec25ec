package planner

import (
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// SQL-language functions (CREATE FUNCTION ... LANGUAGE sql) are inlined
// where they are called, as PostgreSQL's inline_function and
// inline_set_returning_function do for the simple ones: the call is
// replaced by the function's body with every parameter reference ($n, or
// the parameter's name) replaced by the argument cast to the parameter's
// type, and planned in its place. So a call costs nothing at run time,
// and a materialized view over an immutable function is maintained
// incrementally like any expression. A body that is one expression
// (RETURN e, or SELECT e with no FROM) becomes that expression; a body
// that is a query becomes a scalar subquery (a set-returning function in
// FROM, a derived table). An argument substituted into a query body
// could be captured by the body's own FROM names, so such calls take only
// arguments that read no column (0A000 otherwise). A VOLATILE function in
// a materialized view is refused (0A000), as now() is; a function whose
// inlining reaches itself is refused (0A000: recursion).

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
		e, err := c.plViewCall(fn, fc, nargs)
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
		return nil, true, repr.Unsupported("calling %s, a function with several OUT parameters, outside FROM", name).WithPosition(fc.Location + 1)
	}
	if e, ok, err := c.inlineByValue(fn, args, nargs); ok {
		return e, true, err
	}
	node, err := c.b.inlineScalar(fn, fc.Args, nargs, fc.Location)
	if err != nil {
		return nil, true, err
	}
	defer c.b.leaveFunction(fn)
	e, err := c.expr(node)
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
	if b.inlining[fn.ID] {
		return repr.Unsupported("recursive SQL function %s (a SQL function that calls itself cannot be inlined)", fn.Name)
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

// inlineScalar returns the expression a scalar call of fn over args
// (then defs, the defaults of the parameters not written) stands for:
// its body with the arguments in place, cast to fn.Ret, NULL when a
// STRICT function gets a NULL argument. The caller plans it, then calls
// leaveFunction.
func (b *builder) inlineScalar(fn *SQLFunction, args, defs []*pg_query.Node, loc int32) (*pg_query.Node, error) {
	all := append(append([]*pg_query.Node(nil), args...), defs...)
	if err := b.enterFunction(fn); err != nil {
		return nil, err
	}
	body, err := substituteParams(fn, all)
	if err != nil {
		b.leaveFunction(fn)
		return nil, err
	}
	sel := body.GetSelectStmt()
	var val *pg_query.Node
	if e := bodyExpr(sel); e != nil {
		val = e
	} else {
		if !b.captureFree(fn.Body, args) {
			b.leaveFunction(fn)
			return nil, repr.Unsupported("calling SQL function %s, whose body is a query, on arguments whose column names its body also binds", fn.Name).WithPosition(loc + 1)
		}
		if sel.LimitCount == nil && sel.Op == pg_query.SetOperation_SETOP_NONE {
			sel.LimitCount, sel.LimitOption = pg_query.MakeAConstIntNode(1, -1), pg_query.LimitOption_LIMIT_OPTION_COUNT // a scalar function returns its first row
		}
		val = &pg_query.Node{Node: &pg_query.Node_SubLink{SubLink: &pg_query.SubLink{SubLinkType: pg_query.SubLinkType_EXPR_SUBLINK, Subselect: body, Location: loc}}}
	}
	val = castTo(val, fn.Ret)
	if fn.Strict && len(all) > 0 {
		val = strictGuard(val, all)
	}
	return val, nil
}

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

// captureFree reports whether args, substituted into body, keep
// meaning what they mean at the call: no column reference of theirs
// names a FROM item of the body (by its qualifier) nor, unqualified, a
// column of a relation the body reads; a body with derived tables,
// functions in FROM or WITH, whose columns are not looked up here, takes
// only qualified references. Subqueries in arguments are refused.
func (b *builder) captureFree(body *pg_query.Node, args []*pg_query.Node) bool {
	names, cols, opaque := map[string]bool{}, map[string]bool{}, false
	walkMessages(body.ProtoReflect(), func(m proto.Message) {
		switch m := m.(type) {
		case *pg_query.RangeVar:
			names[m.Relname] = true
			if m.Alias != nil {
				names[m.Alias.Aliasname] = true
			}
			if rel, err := b.cat.Relation(m.Schemaname, m.Relname); err == nil {
				for _, c := range rel.Columns {
					cols[c.Name] = true
				}
			} else {
				opaque = true
			}
		case *pg_query.Alias:
			names[m.Aliasname] = true
		case *pg_query.CommonTableExpr:
			names[m.Ctename], opaque = true, true
		case *pg_query.RangeSubselect, *pg_query.RangeFunction:
			opaque = true
		}
	})
	free := true
	for _, a := range args {
		walkMessages(a.ProtoReflect(), func(m proto.Message) {
			switch m := m.(type) {
			case *pg_query.SubLink:
				free = false
			case *pg_query.ColumnRef:
				first := m.Fields[0].GetString_()
				if first == nil {
					free = false
				} else if len(m.Fields) == 1 {
					free = free && !opaque && !cols[first.Sval]
				} else {
					free = free && !names[first.Sval]
				}
			}
		})
	}
	return free
}

// readsColumns reports whether any of ns refers to a column.
func readsColumns(ns []*pg_query.Node) bool {
	found := false
	for _, n := range ns {
		walkMessages(n.ProtoReflect(), func(m proto.Message) {
			switch m.(type) {
			case *pg_query.ColumnRef, *pg_query.SubLink:
				found = true
			}
		})
	}
	return found
}

// substituteParams returns a copy of fn's body with each parameter
// reference replaced by its argument cast to the parameter's type: $n,
// a one-name column reference naming a parameter, or fn.param.
func substituteParams(fn *SQLFunction, args []*pg_query.Node) (*pg_query.Node, error) {
	body := proto.Clone(fn.Body).(*pg_query.Node)
	var nodes []*pg_query.Node
	walkMessages(body.ProtoReflect(), func(m proto.Message) {
		if n, ok := m.(*pg_query.Node); ok {
			nodes = append(nodes, n)
		}
	})
	var err error
	for _, n := range nodes {
		i := paramIndex(fn, n)
		if i == -2 {
			err = repr.Errorf(repr.CodeUndefinedParameter, "there is no parameter $%d", n.GetParamRef().Number)
		}
		if i < 0 {
			continue
		}
		arg := proto.Clone(args[i]).(*pg_query.Node)
		n.Node = castTo(paren(arg), fn.Args[i]).Node
	}
	return body, err
}

// paramIndex returns which parameter n refers to, -1 for none, -2 for a
// $n past the parameters.
func paramIndex(fn *SQLFunction, n *pg_query.Node) int {
	if p := n.GetParamRef(); p != nil {
		if int(p.Number) > len(fn.Args) || p.Number < 1 {
			return -2
		}
		return int(p.Number) - 1
	}
	ref := n.GetColumnRef()
	if ref == nil {
		return -1
	}
	var names []string
	for _, f := range ref.Fields {
		if f.GetString_() == nil {
			return -1
		}
		names = append(names, f.GetString_().Sval)
	}
	if len(names) == 2 && names[0] == fn.Name {
		names = names[1:]
	}
	if len(names) != 1 {
		return -1
	}
	for i, a := range fn.ArgNames {
		if a != "" && a == names[0] {
			return i
		}
	}
	return -1
}

// paren keeps an argument one operand wherever it lands (an A_Expr
// argument is already a tree, so the AST needs no parentheses).
func paren(n *pg_query.Node) *pg_query.Node { return n }

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

// sqlFunctionItem plans a FROM item calling a set-returning SQL function
// as the derived table its body is (ok false: rf calls none).
func (b *builder) sqlFunctionItem(rf *pg_query.RangeFunction, parent *scope) (ir.Rel, []scopeCol, bool, error) {
	if len(rf.Functions) != 1 || rf.IsRowsfrom {
		return nil, nil, false, nil
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil {
		return nil, nil, false, nil
	}
	fc := items[0].GetFuncCall()
	name := funcName(fc)
	fns := b.sqlFunctions(name)
	if len(fns) == 0 || fns[0].Procedural || expr.IsTableFunc(name) || expr.LookupFunc(name) {
		return nil, nil, false, nil
	}
	rel, cols, err := b.inlineSetReturning(rf, fc, name, fns, parent)
	return rel, cols, true, err
}

// inlineSetReturning plans rf, a call of one of fns in FROM.
func (b *builder) inlineSetReturning(rf *pg_query.RangeFunction, fc *pg_query.FuncCall, name string, fns []*SQLFunction, parent *scope) (ir.Rel, []scopeCol, error) {
	if rf.Ordinality || len(rf.Coldeflist) > 0 {
		return nil, nil, repr.Unsupported("WITH ORDINALITY or a column definition list on SQL function %s", name)
	}
	if readsColumns(fc.Args) {
		return nil, nil, repr.Unsupported("calling SQL function %s in FROM on arguments that read columns (LATERAL)", name).WithPosition(fc.Location + 1)
	}
	ec := &ectx{b: b, sc: &scope{parent: parent}, rel: unitRel(), clause: "FROM"}
	fc, err := ec.positionalCall(fc)
	if err == nil {
		fc, err = ec.variadicForm(fc)
	}
	if err != nil {
		return nil, nil, err
	}
	args, err := ec.exprs(fc.Args)
	if err != nil {
		return nil, nil, err
	}
	fn, defs, err := resolveSQLFunction(name, fns, exprTypes(args))
	if err != nil {
		return nil, nil, withPos(err, fc.Location)
	}
	if !fn.RetSet && len(fn.RetCols) == 0 {
		return nil, nil, repr.Unsupported("SQL function %s in FROM that is not set-returning", name).WithPosition(fc.Location + 1)
	}
	body, err := b.inlineRows(fn, fc, defs)
	if err != nil {
		return nil, nil, err
	}
	defer b.leaveFunction(fn)
	alias := &pg_query.Alias{Aliasname: name}
	if rf.Alias != nil {
		alias = proto.Clone(rf.Alias).(*pg_query.Alias)
	}
	given := len(alias.Colnames)
	for i, c := range fn.RetCols {
		if i >= given {
			cn := c.Name
			if cn == "" {
				cn = alias.Aliasname
			}
			alias.Colnames = append(alias.Colnames, pg_query.MakeStrNode(cn))
		}
	}
	return b.rangeSubselect(&pg_query.RangeSubselect{Lateral: rf.Lateral, Subquery: body, Alias: alias}, parent)
}

// inlineRows returns the query a call of fn in FROM stands for: its body
// with the arguments in place, each column cast to its declared type.
// The caller plans it, then calls leaveFunction.
func (b *builder) inlineRows(fn *SQLFunction, fc *pg_query.FuncCall, defs []*pg_query.Node) (*pg_query.Node, error) {
	if err := b.enterFunction(fn); err != nil {
		return nil, err
	}
	all := append(append([]*pg_query.Node(nil), fc.Args...), defs...)
	body, err := substituteParams(fn, all)
	if err != nil {
		b.leaveFunction(fn)
		return nil, err
	}
	if sel := body.GetSelectStmt(); !fn.RetSet && sel.LimitCount == nil && sel.Op == pg_query.SetOperation_SETOP_NONE {
		// OUT parameters: one row, the body's first (as a scalar call's).
		sel.LimitCount, sel.LimitOption = pg_query.MakeAConstIntNode(1, -1), pg_query.LimitOption_LIMIT_OPTION_COUNT
	}
	var names, targets []*pg_query.Node
	for i, c := range fn.RetCols {
		col := "_c" + strconv.Itoa(i+1)
		names = append(names, pg_query.MakeStrNode(col))
		ref := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(col)}, -1)
		targets = append(targets, pg_query.MakeResTargetNodeWithVal(castTo(ref, c.Type), -1))
	}
	from := &pg_query.Node{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Subquery: body, Alias: &pg_query.Alias{Aliasname: "_" + strings.ReplaceAll(fn.Name, `"`, ``), Colnames: names}}}}
	return &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
		TargetList: targets, FromClause: []*pg_query.Node{from}, Op: pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}}}, nil
}

// BodyWithNulls returns fn's body with every parameter a NULL of its
// type, to plan it alone (CREATE FUNCTION's check of the body).
func BodyWithNulls(fn *SQLFunction) (*pg_query.Node, error) {
	nulls := make([]*pg_query.Node, len(fn.Args))
	for i := range nulls {
		nulls[i] = &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}}
	}
	return substituteParams(fn, nulls)
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
