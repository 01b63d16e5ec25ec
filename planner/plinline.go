package planner

import (
	"encoding/json"
	"errors"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// A PL/pgSQL function called in a materialized view is translated into
// one SQL expression and then inlined as a SQL function's RETURN body
// (sqlfunc.go), so the view's dataflow evaluates it per row like any
// expression: deterministic, stored with the view's plan, the same
// after a restart and at any number of workers. No session runs it.
//
// The translation executes the body symbolically: each variable holds
// the expression of its current value (parameters are $n), an
// assignment replaces it, IF and CASE merge their branches' values with
// CASE expressions over the branch conditions, and RETURN (or RAISE
// EXCEPTION, a return of an error) records the result under the
// condition that the path reached it. Every assigned value is also
// forced (num_nulls over the values, each guarded by its path), so an
// error PL/pgSQL would raise for an unused assignment is raised too.
// Bodies it cannot express are 0A000 naming the function and the
// construct: loops, exception handlers, SQL statements and queries
// (reading tables), records, OUT parameters. Volatile calls (now(),
// random()) are refused by the view's own rules, with the function
// named. A function whose expression would grow past plMaxInline bytes
// (branches duplicate what they merge) is refused too.

// plMaxInline bounds the size of a translated body (protobuf bytes).
const plMaxInline = 1 << 20

// plTrans translates one function.
type plTrans struct {
	fn    *SQLFunction
	names map[string]int // variable name -> datum number (the last declared wins)
	// topLine is the line of the body's BEGIN: a variable declared after
	// it belongs to a nested block.
	topLine int
	types   []*pg_query.TypeName
	// forced are the values to evaluate for their errors, guarded.
	forced []*pg_query.Node
	size   map[*pg_query.Node]int
}

// plSym is the symbolic state at one point of the body: env holds the
// value of each datum; path is the condition under which this point is
// reached (nil: always); done whether the function returned before it
// (nil: never; a condition that is never NULL), always that it did on
// every path; ret the result when done.
type plSym struct {
	env    []*pg_query.Node
	path   *pg_query.Node
	done   *pg_query.Node
	always bool
	ret    *pg_query.Node
}

// plInlined returns fn, a scalar PL/pgSQL function, as a SQL function
// whose body is SELECT <the translated expression>.
func (b *builder) plInlined(fn *SQLFunction) (*SQLFunction, error) {
	e, err := translatePL(fn)
	if err != nil {
		return nil, err
	}
	body := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
		Op: pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT,
		TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: e, Location: -1}}}}}}}
	out := *fn
	out.Procedural, out.Body = false, body
	return &out, nil
}

// plViewCall plans a call of fn, a PL/pgSQL function, in a materialized
// view: its translation inlined as a SQL function's body. A construct
// of the body a view refuses (a volatile call) is refused naming fn.
func (c *ectx) plViewCall(fn *SQLFunction, fc *pg_query.FuncCall, args []expr.Expr, defs []*pg_query.Node) (expr.Expr, error) {
	if fn.RetSet {
		return nil, repr.Unsupported("set-returning PL/pgSQL function %s outside FROM", fn.Name).WithPosition(fc.Location + 1)
	}
	inl, err := c.b.plInlined(fn)
	if err != nil {
		return nil, withPos(err, fc.Location)
	}
	e, err := c.inlineCall(inl, args, defs, fc.Location)
	var re *repr.Error
	if errors.As(err, &re) && re.Code == repr.CodeFeatureNotSupported && !strings.Contains(re.Message, "PL/pgSQL function "+fn.Name+"()") {
		return nil, plRefuse(fn, re.Message)
	}
	return e, err
}

// plRefuse is the 0A000 for a construct fn's translation cannot take.
func plRefuse(fn *SQLFunction, why string) error {
	return repr.Unsupported("calling the PL/pgSQL function %s() in a materialized view: %s", fn.Name, why)
}

// translatePL translates fn's body into one expression over $1..$n.
func translatePL(fn *SQLFunction) (*pg_query.Node, error) {
	if fn.RetSet || len(fn.RetCols) > 0 || fn.PLSource == "" {
		return nil, plRefuse(fn, "only functions returning one value are evaluated in a view")
	}
	js, err := pg_query.ParsePlPgSqlToJSON(fn.PLSource)
	if err != nil {
		return nil, repr.Errorf(repr.CodeSyntax, "%s", err.Error())
	}
	var fns []map[string]struct {
		Datums []map[string]json.RawMessage `json:"datums"`
		Action map[string]json.RawMessage   `json:"action"`
	}
	if err := json.Unmarshal([]byte(js), &fns); err != nil || len(fns) != 1 {
		return nil, repr.Errorf(repr.CodeInternal, "reading the PL/pgSQL tree: %v", err)
	}
	f := fns[0]["PLpgSQL_function"]
	t := &plTrans{fn: fn, names: map[string]int{}, size: map[*pg_query.Node]int{}}
	st := &plSym{}
	var top struct {
		B struct {
			Line int `json:"lineno"`
		} `json:"PLpgSQL_stmt_block"`
	}
	b, _ := json.Marshal(f.Action)
	_ = json.Unmarshal(b, &top)
	t.topLine = top.B.Line
	if err := t.declare(f.Datums, st); err != nil {
		return nil, err
	}
	if err := t.stmt(f.Action, st); err != nil {
		return nil, err
	}
	return t.result(st), nil
}

// result is the function's value: its RETURN's, 2F005 on a path that
// reached the end without one, after the forced values.
func (t *plTrans) result(st *plSym) *pg_query.Node {
	end := castTo(t.errorNode("2F005", plText("control reached end of function without RETURN"), nil, nil), t.fn.Ret)
	val := end
	switch {
	case st.always:
		val = st.ret
	case st.done != nil:
		val = plCase([]*pg_query.Node{st.done}, []*pg_query.Node{st.ret}, end)
	}
	if len(t.forced) == 0 {
		return val
	}
	call := &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{
		Funcname: []*pg_query.Node{pg_query.MakeStrNode("num_nulls")}, Args: t.forced, Location: -1}}}
	ok := &pg_query.Node{Node: &pg_query.Node_NullTest{NullTest: &pg_query.NullTest{Arg: call, Nulltesttype: pg_query.NullTestType_IS_NOT_NULL, Location: -1}}}
	return plCase([]*pg_query.Node{ok}, []*pg_query.Node{val}, nil)
}

// declare gives each datum its initial value: parameters their $n,
// FOUND false, variables their DEFAULT (cast to their type) or NULL.
func (t *plTrans) declare(datums []map[string]json.RawMessage, st *plSym) error {
	st.env = make([]*pg_query.Node, len(datums))
	t.types = make([]*pg_query.TypeName, len(datums))
	for i, d := range datums {
		raw, ok := d["PLpgSQL_var"]
		if !ok {
			for kind := range d {
				return plRefuse(t.fn, "a "+strings.ToLower(strings.TrimPrefix(kind, "PLpgSQL_"))+" variable")
			}
		}
		var decl plVarDecl
		if err := json.Unmarshal(raw, &decl); err != nil {
			return err
		}
		if err := t.declareVar(i, &decl, st); err != nil {
			return err
		}
		t.names[decl.Refname] = i
	}
	return nil
}

// plVarDecl is a PLpgSQL_var datum.
type plVarDecl struct {
	Refname  string `json:"refname"`
	Line     int    `json:"lineno"`
	Datatype struct {
		Type struct {
			Typname string `json:"typname"`
		} `json:"PLpgSQL_type"`
	} `json:"datatype"`
	Default *struct {
		Expr struct {
			Query string `json:"query"`
		} `json:"PLpgSQL_expr"`
	} `json:"default_val"`
	NotNull bool `json:"notnull"`
}

// declareVar sets datum i's type and initial value.
func (t *plTrans) declareVar(i int, decl *plVarDecl, st *plSym) error {
	switch {
	case i < len(t.fn.Args):
		st.env[i] = &pg_query.Node{Node: &pg_query.Node_ParamRef{ParamRef: &pg_query.ParamRef{Number: int32(i + 1), Location: -1}}}
		t.types[i] = typeNameOf(t.fn.Args[i])
		return nil
	case decl.Refname == "found":
		st.env[i] = plBool(false)
		return nil
	case decl.NotNull:
		return plRefuse(t.fn, "a NOT NULL variable")
	case decl.Line > t.topLine && !strings.HasPrefix(decl.Refname, "__Case__Variable_"):
		// PL/pgSQL initializes a nested block's variables when the block
		// is entered; the translation declares at the start.
		return plRefuse(t.fn, "a nested block with DECLARE")
	}
	name := decl.Datatype.Type.Typname
	if strings.Contains(name, "%") {
		return plRefuse(t.fn, "a variable of type "+strings.TrimSpace(name))
	}
	tree, err := pg_query.Parse("SELECT NULL::" + name)
	if err != nil {
		return plRefuse(t.fn, "a variable of type "+strings.TrimSpace(name))
	}
	t.types[i] = tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast().TypeName
	st.env[i] = t.typed(i, &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}})
	if decl.Default == nil {
		return nil
	}
	v, err := t.expr(decl.Default.Expr.Query, st)
	if err != nil {
		return err
	}
	t.assign(i, v, st)
	return nil
}

// typed is v cast to datum i's type (an assignment's conversion).
func (t *plTrans) typed(i int, v *pg_query.Node) *pg_query.Node {
	n := &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: v, TypeName: t.types[i], Location: -1}}}
	t.size[n] = t.sizeOf(v) + 16
	return n
}

// assign sets datum i to v (cast to its type), forcing v's evaluation.
func (t *plTrans) assign(i int, v *pg_query.Node, st *plSym) {
	st.env[i] = t.typed(i, v)
	t.force(st.env[i], st)
}

// force makes v evaluated (for its errors) where this point runs.
func (t *plTrans) force(v *pg_query.Node, st *plSym) {
	if g := t.live(st); g != nil {
		v = plCase([]*pg_query.Node{g}, []*pg_query.Node{v}, nil)
	}
	t.forced = append(t.forced, v)
}

// live is the condition that st's point runs: reached and not returned
// (nil: always). It reads done first: conditions of the path may fail
// once the function returned.
func (t *plTrans) live(st *plSym) *pg_query.Node {
	if st.done == nil {
		return st.path
	}
	path := st.path
	if path == nil {
		path = plBool(true)
	}
	return t.caseOf([]*pg_query.Node{st.done}, []*pg_query.Node{plBool(false)}, path)
}

// and is a AND b, b evaluated only when a is true (nil: true).
func (t *plTrans) and(a, b *pg_query.Node) *pg_query.Node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return t.caseOf([]*pg_query.Node{a}, []*pg_query.Node{b}, plBool(false))
}

// isNotTrue is c IS NOT TRUE (never NULL).
func (t *plTrans) isNotTrue(c *pg_query.Node) *pg_query.Node {
	n := &pg_query.Node{Node: &pg_query.Node_BooleanTest{BooleanTest: &pg_query.BooleanTest{
		Arg: c, Booltesttype: pg_query.BoolTestType_IS_NOT_TRUE, Location: -1}}}
	t.size[n] = t.sizeOf(c) + 8
	return n
}

// caseOf is plCase, its size remembered.
func (t *plTrans) caseOf(conds, vals []*pg_query.Node, def *pg_query.Node) *pg_query.Node {
	n := plCase(conds, vals, def)
	s := t.sizeOf(def) + 16
	for i := range conds {
		s += t.sizeOf(conds[i]) + t.sizeOf(vals[i]) + 8
	}
	t.size[n] = s
	return n
}

// plCase is CASE WHEN conds[0] THEN vals[0] ... ELSE def END (def nil:
// no ELSE).
func plCase(conds, vals []*pg_query.Node, def *pg_query.Node) *pg_query.Node {
	var whens []*pg_query.Node
	for i, c := range conds {
		whens = append(whens, &pg_query.Node{Node: &pg_query.Node_CaseWhen{CaseWhen: &pg_query.CaseWhen{Expr: c, Result: vals[i], Location: -1}}})
	}
	return &pg_query.Node{Node: &pg_query.Node_CaseExpr{CaseExpr: &pg_query.CaseExpr{Args: whens, Defresult: def, Location: -1}}}
}

// sizeOf is the size of n as a tree (protobuf bytes), remembered for
// the nodes the translation builds.
func (t *plTrans) sizeOf(n *pg_query.Node) int {
	if n == nil {
		return 0
	}
	if s, ok := t.size[n]; ok {
		return s
	}
	s := proto.Size(n)
	t.size[n] = s
	return s
}
