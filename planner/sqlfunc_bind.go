package planner

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// A SQL function whose body is a query is inlined with its arguments
// bound as values, as PostgreSQL binds a function's parameters (Params)
// rather than substituting their text: the arguments are planned and
// typed at the call site, appended to the caller's relation (ectx.rel)
// as columns, and the body is planned once per call as a correlated
// subquery whose outer values are those columns (subquery.go's
// decorrelation, lateral.go's for a call in FROM). In the body's FROM
// scope each parameter is an outer value named twice: by a marker that
// no SQL text can write (what $n becomes) and, for a named parameter, by
// its name qualified with the function's name. An inner column wins over
// an outer value of the same name, so a column of the body's FROM wins
// over an unqualified parameter name, and fname.param reaches the
// parameter: PostgreSQL's resolution rules. The body sees nothing of the
// caller (no column, no CTE): its scope chain ends in an empty scope.
//
// An argument is one column however often the body reads it, so a
// volatile argument (random()) is evaluated once per call.

// maxInlineDepth bounds the nesting of SQL function calls being inlined
// (54001 past it), as PostgreSQL's max_stack_depth bounds a function's
// recursion.
const maxInlineDepth = 64

// paramMarker is the name of parameter i's marker column in a body's
// scope ($n, 0-based i).
func paramMarker(seq, i int) string {
	return "\x00eddy_param_" + strconv.Itoa(seq) + "_" + strconv.Itoa(i+1)
}

// paramValues returns args (expressions over c.rel) cast to fn's
// parameter types, with each volatile one appended to c.rel as a
// column and read there, so that it is evaluated once per call.
func (c *ectx) paramValues(fn *SQLFunction, args []expr.Expr) ([]expr.Expr, error) {
	marks := c.bindArgs(args)
	defer c.unbind(marks)
	vals := make([]expr.Expr, len(args))
	for i, m := range marks {
		v, err := c.expr(castTo(m, fn.Args[i]))
		if err != nil {
			return nil, err
		}
		if expr.IsVolatile(v) {
			if c.noSubquery {
				return nil, repr.Unsupported("a volatile argument of SQL function %s in %s", fn.Name, c.clause)
			}
			n := ir.Arity(c.rel)
			c.derive(ir.NewMap(c.rel, v))
			v = &expr.Col{Idx: n, T: v.Type()}
		}
		vals[i] = v
	}
	return vals, nil
}

// unbind forgets the markers bindArgs returned.
func (c *ectx) unbind(marks []*pg_query.Node) {
	for _, m := range marks {
		delete(c.args, m.GetColumnRef().Fields[0].GetString_().Sval)
	}
}

// boundBody returns a copy of fn's body (a SELECT) with each $n
// replaced by a reference to marker names[n-1].
func boundBody(fn *SQLFunction, names []string) (*pg_query.SelectStmt, error) {
	body := proto.Clone(fn.Body).(*pg_query.Node)
	var refs []*pg_query.Node
	walkMessages(body.ProtoReflect(), func(m proto.Message) {
		if n, ok := m.(*pg_query.Node); ok && n.GetParamRef() != nil {
			refs = append(refs, n)
		}
	})
	for _, n := range refs {
		k := int(n.GetParamRef().Number)
		if k < 1 || k > len(names) {
			return nil, repr.Errorf(repr.CodeUndefinedParameter, "there is no parameter $%d", k)
		}
		n.Node = pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(names[k-1])}, -1).Node
	}
	return body.GetSelectStmt(), nil
}

// paramNames returns fresh marker names for fn's parameters.
func (b *builder) paramNames(fn *SQLFunction) []string {
	b.argSeq++
	names := make([]string, len(fn.Args))
	for i := range names {
		names[i] = paramMarker(b.argSeq, i)
	}
	return names
}

// correlateBody plans sel, a body of fn whose parameters are the
// markers names, as a subquery of c over the parameter values vals
// (expressions over c.rel, one per parameter). Like correlate, it
// returns the planned block (over the outer values) and the columns of
// c.rel keying it.
func (c *ectx) correlateBody(fn *SQLFunction, sel *pg_query.SelectStmt, names []string, vals []expr.Expr) (*planned, []int, error) {
	saved := c.b.ctes
	c.b.ctes = nil // the body sees none of the caller's names
	defer func() { c.b.ctes = saved }()
	barrier := &scope{}
	if len(vals) == 0 {
		p, err := c.b.planQuery(sel, barrier, nil)
		return p, nil, err
	}
	n := ir.Arity(c.rel)
	c.derive(ir.NewMap(c.rel, vals...))
	var keys []int
	var cols []scopeCol
	for i, v := range vals {
		keys = append(keys, n+i)
		cols = append(cols, scopeCol{name: names[i], typ: v.Type(), outer: true})
		if fn.ArgNames[i] != "" {
			keys = append(keys, n+i)
			cols = append(cols, scopeCol{table: fn.Name, name: fn.ArgNames[i], typ: v.Type(), outer: true})
		}
	}
	d := c.domain(keys, vals, n)
	p, err := c.b.planQuery(sel, barrier, &outerRel{rel: d, cols: cols})
	return p, keys, err
}

// enterCall enters fn (its recursion bound) for a call over args, then
// defs (the defaults of the parameters not written), and returns the
// values of its parameters. When it succeeds the caller leaves fn
// (builder.leaveFunction) once the call is planned.
func (c *ectx) enterCall(fn *SQLFunction, args []expr.Expr, defs []*pg_query.Node, loc int32) ([]expr.Expr, error) {
	more, err := c.exprs(defs)
	if err != nil {
		return nil, err
	}
	if err := c.b.enterFunction(fn); err != nil {
		return nil, withPos(err, loc)
	}
	vals, err := c.paramValues(fn, append(append([]expr.Expr(nil), args...), more...))
	if err != nil {
		c.b.leaveFunction(fn)
		return nil, err
	}
	return vals, nil
}

// inlineCall plans a scalar call of fn over args (then defs, the
// defaults of the parameters not written): the body's expression, or
// its query's first row (NULL when it has none; the first under its
// ORDER BY, else any one), cast to the result type; NULL when a STRICT
// function gets a NULL argument.
func (c *ectx) inlineCall(fn *SQLFunction, args []expr.Expr, defs []*pg_query.Node, loc int32) (expr.Expr, error) {
	vals, err := c.enterCall(fn, args, defs, loc)
	if err != nil {
		return nil, err
	}
	defer c.b.leaveFunction(fn)
	marks := c.bindArgs(vals)
	defer c.unbind(marks)
	var val *pg_query.Node
	if body := bodyExpr(fn.Body.GetSelectStmt()); body != nil {
		val = proto.Clone(body).(*pg_query.Node)
		if err := replaceParams(fn, val, marks); err != nil {
			return nil, err
		}
	} else {
		v, err := c.bodyValue(fn, vals, loc)
		if err != nil {
			return nil, err
		}
		val = c.bindArgs([]expr.Expr{v})[0]
		defer c.unbind([]*pg_query.Node{val})
	}
	val = castTo(val, fn.Ret)
	if fn.Strict && len(vals) > 0 {
		val = strictGuard(val, marks)
	}
	return c.expr(val)
}

// bodyValue plans the query body of scalar function fn as a subquery of
// c over the parameter values vals and returns its value.
func (c *ectx) bodyValue(fn *SQLFunction, vals []expr.Expr, loc int32) (expr.Expr, error) {
	if c.noSubquery {
		return nil, repr.Unsupported("calling SQL function %s, whose body is a query, in %s", fn.Name, c.clause).WithPosition(loc + 1)
	}
	names := c.b.paramNames(fn)
	sel, err := boundBody(fn, names)
	if err != nil {
		return nil, err
	}
	if sel.LimitCount == nil {
		// The first row (PostgreSQL's rule): under ORDER BY, the first;
		// without, any one of them, as PostgreSQL returns whichever its
		// scan met first.
		sel.LimitCount, sel.LimitOption = pg_query.MakeAConstIntNode(1, -1), pg_query.LimitOption_LIMIT_OPTION_COUNT
	}
	p, keys, err := c.correlateBody(fn, sel, names, vals)
	if err != nil {
		return nil, err
	}
	if len(p.cols) != 1 {
		return nil, repr.Errorf("42P13", "return type mismatch in function declared to return %s", fn.Ret.Name()).
			WithDetail("Final statement must return exactly one column.")
	}
	vs, err := c.singleRowBack(p, keys)
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// sqlFunctionFrom plans `left, fn(args) alias` or `left JOIN fn(args)
// alias ON ...` (j nil for a comma or CROSS JOIN), rf calling a
// set-returning SQL function (or one with OUT parameters): a LATERAL
// derived table whose query is fn's body over the arguments, which may
// read left's columns. left nil is a first FROM item.
func (b *builder) sqlFunctionFrom(rf *pg_query.RangeFunction, kind ir.JoinKind, left ir.Rel, lcols []scopeCol, parent *scope, j *pg_query.JoinExpr) (ir.Rel, []scopeCol, error) {
	fc := rf.Functions[0].GetList().GetItems()[0].GetFuncCall()
	name := funcName(fc)
	if len(rf.Coldeflist) > 0 {
		return nil, nil, repr.Unsupported("a column definition list on SQL function %s", name).WithPosition(fc.Location + 1)
	}
	if left == nil {
		left = unitRel()
	}
	placeholder := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{}}}
	rs := &pg_query.RangeSubselect{Lateral: true, Subquery: placeholder}
	if b.fnItems == nil {
		b.fnItems = map[*pg_query.RangeSubselect]func(*ectx) (*planned, []int, error){}
	}
	b.fnItems[rs] = func(ec *ectx) (*planned, []int, error) {
		return ec.functionRows(rf, fc, rs)
	}
	defer delete(b.fnItems, rs)
	return b.lateral(rs, kind, left, lcols, parent, j)
}

// functionRows plans the rows of rf's call fc over ec (the FROM items
// before it) and sets rs's alias to the FROM item's names.
func (ec *ectx) functionRows(rf *pg_query.RangeFunction, fc *pg_query.FuncCall, rs *pg_query.RangeSubselect) (*planned, []int, error) {
	b := ec.b
	name := funcName(fc)
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
	fn, defs, err := resolveSQLFunction(name, b.sqlFunctions(name), exprTypes(args))
	if err != nil {
		return nil, nil, withPos(err, fc.Location)
	}
	more, err := ec.exprs(defs)
	if err != nil {
		return nil, nil, err
	}
	if err := b.enterFunction(fn); err != nil {
		return nil, nil, withPos(err, fc.Location)
	}
	defer b.leaveFunction(fn)
	vals, err := ec.paramValues(fn, append(args, more...))
	if err != nil {
		return nil, nil, err
	}
	names := b.paramNames(fn)
	body, err := boundBody(fn, names)
	if err != nil {
		return nil, nil, err
	}
	if !fn.RetSet && len(fn.RetCols) == 0 {
		rs.Alias = scalarAlias(rf, fn)
		return ec.correlateBody(fn, scalarRowQuery(fn, body, names, rf.Ordinality), names, vals)
	}
	rs.Alias = functionAlias(rf, fn, fn.Name)
	return ec.correlateBody(fn, rowsQuery(fn, body, names, rf.Ordinality), names, vals)
}

// functionAlias returns the FROM item's alias and column names: those
// written, then the result columns' (a nameless one, of SETOF a base
// type, takes the alias), then ordinality.
func functionAlias(rf *pg_query.RangeFunction, fn *SQLFunction, name string) *pg_query.Alias {
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
	if rf.Ordinality && given <= len(fn.RetCols) {
		alias.Colnames = append(alias.Colnames, pg_query.MakeStrNode("ordinality"))
	}
	return alias
}

// rowsQuery returns the query a call of fn in FROM stands for: its
// bound body as a derived table, each column cast to its declared type
// (then the row's ordinal when ordinality), no row when a STRICT
// function gets a NULL argument, one row (the first) for a function
// with OUT parameters that is not set-returning.
func rowsQuery(fn *SQLFunction, body *pg_query.SelectStmt, params []string, ordinality bool) *pg_query.SelectStmt {
	if !fn.RetSet && body.LimitCount == nil && body.Op == pg_query.SetOperation_SETOP_NONE {
		body.LimitCount, body.LimitOption = pg_query.MakeAConstIntNode(1, -1), pg_query.LimitOption_LIMIT_OPTION_COUNT
	}
	var names, targets []*pg_query.Node
	for i, c := range fn.RetCols {
		col := "_c" + strconv.Itoa(i+1)
		names = append(names, pg_query.MakeStrNode(col))
		ref := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(col)}, -1)
		targets = append(targets, pg_query.MakeResTargetNodeWithVal(castTo(ref, c.Type), -1))
	}
	if ordinality {
		over := &pg_query.WindowDef{FrameOptions: 1058, Location: -1}
		rn := &pg_query.FuncCall{Funcname: []*pg_query.Node{pg_query.MakeStrNode("row_number")}, Over: over, Location: -1}
		targets = append(targets, pg_query.MakeResTargetNodeWithVal(&pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: rn}}, -1))
	}
	from := &pg_query.Node{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: body}},
		Alias:    &pg_query.Alias{Aliasname: "_" + strings.ReplaceAll(fn.Name, `"`, ``), Colnames: names}}}}
	out := &pg_query.SelectStmt{TargetList: targets, FromClause: []*pg_query.Node{from},
		Op: pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}
	if fn.Strict && len(params) > 0 {
		var tests []*pg_query.Node
		for _, p := range params {
			tests = append(tests, &pg_query.Node{Node: &pg_query.Node_NullTest{NullTest: &pg_query.NullTest{
				Arg:          pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(p)}, -1),
				Nulltesttype: pg_query.NullTestType_IS_NOT_NULL, Location: -1}}})
		}
		out.WhereClause = tests[0]
		if len(tests) > 1 {
			out.WhereClause = pg_query.MakeBoolExprNode(pg_query.BoolExprType_AND_EXPR, tests, -1)
		}
	}
	return out
}

// PlanFunctionBody plans fn's body alone, its parameters NULLs of their
// types, as CREATE FUNCTION checks a body (check_function_bodies): it
// returns the body's result columns. A recursive body is 54001
// (enterFunction).
func PlanFunctionBody(cat Catalog, fn *SQLFunction) ([]ResultColumn, error) {
	b := newBuilder(cat, Options{})
	c := &ectx{b: b, sc: &scope{}, rel: unitRel(), clause: "SELECT"}
	vals := make([]expr.Expr, len(fn.Args))
	for i, t := range fn.Args {
		vals[i] = &expr.Lit{D: repr.Null, T: t}
	}
	if err := b.enterFunction(fn); err != nil {
		return nil, err
	}
	names := b.paramNames(fn)
	sel, err := boundBody(fn, names)
	if err != nil {
		return nil, err
	}
	p, _, err := c.correlateBody(fn, sel, names, vals)
	if err != nil {
		return nil, err
	}
	return p.cols, nil
}
