package sql

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// PL/pgSQL: one interpreter for DO blocks and LANGUAGE plpgsql functions.
// pg_query parses the body (ParsePlPgSqlToJSON, PostgreSQL's own PL/pgSQL
// grammar) into a JSON tree whose datums (variables, records, rows of
// targets, record fields) are numbered as PostgreSQL numbers them
// (dno/varno) and whose statements the interpreter walks (plpgsql_stmt.go:
// control flow and exception blocks; plpgsql_sql.go: the statements that
// run SQL). Variables are substituted into each SQL statement as typed
// literals before it runs (a column reference naming a variable, rec.field
// or $n is the variable: PostgreSQL's variable_conflict = error would
// refuse the ambiguous ones); expressions run as SELECT through the
// session's write set, statements as nested statements of the session
// (its privileges, its block). Names are looked up in one flat name space
// (the last declaration of a name wins), so a nested block's variable
// that shadows an outer one of the same name is the same variable after
// the nested block ends. Every loop iteration polls the statement's
// context (statement_timeout, cancel: 57014); calls nest at most
// plMaxDepth deep (54001).

// plNode is one node of the PL/pgSQL JSON tree: {"PLpgSQL_kind": {...}}.
type plNode map[string]json.RawMessage

// plVar is one datum: a scalar variable of type t, a record (rec: the
// columns and row of its last assignment), a row of target variables
// (fields, the varnos INTO and FOR assign) or a record's field (parent,
// field).
type plVar struct {
	name   string
	t      repr.T
	v      repr.Datum
	rec    bool
	cols   []planner.ResultColumn
	row    repr.Row
	fields []int
	parent int
	field  string
	isRow  bool
	isFld  bool
	// isConst marks a CONSTANT variable (and SQLSTATE/SQLERRM).
	isConst bool
	// notNull marks a variable declared NOT NULL: assigning NULL is 22004.
	notNull bool
}

// plExec runs one DO block or one call of a function.
type plExec struct {
	ctx    context.Context
	s      *Session
	datums []*plVar
	vars   map[string]int
	// nparams is the number of the function's parameters, the first
	// datums ($1 is datum 0).
	nparams int
	// using are EXECUTE ... USING's values while its statement is
	// substituted ($n is using[n-1]).
	using []plValue
	// rowCount is GET DIAGNOSTICS ROW_COUNT: the rows the last SQL
	// statement processed.
	rowCount int64
	// errs is the stack of errors the enclosing exception handlers
	// caught (RAISE with no message re-raises the innermost).
	errs []*repr.Error
	// call is the function being called (nil for a DO block).
	call *plCall
}

// plValue is a value with its type.
type plValue struct {
	d repr.Datum
	t repr.T
}

// errPlReturn ends the block or function (RETURN).
var errPlReturn = fmt.Errorf("plpgsql return")

// execDo executes DO [LANGUAGE plpgsql] 'body'.
func (p *Portal) execDo(ctx context.Context, ds *pg.DoStmt) error {
	p.tag = "DO"
	body, lang := "", "plpgsql"
	for _, n := range ds.Args {
		d := n.GetDefElem()
		switch d.Defname {
		case "as":
			body = d.Arg.GetString_().Sval
		case "language":
			lang = strings.ToLower(d.Arg.GetString_().Sval)
		}
	}
	if lang != "plpgsql" {
		return repr.Unsupported("DO with LANGUAGE %s", lang)
	}
	fn, err := parsePlpgsql("CREATE FUNCTION eddy_do() RETURNS void LANGUAGE plpgsql AS ", body)
	if err != nil {
		return err
	}
	x := &plExec{ctx: ctx, s: p.st.s, vars: map[string]int{}}
	defer p.st.s.txnControl()()
	return x.atomic(func() error { return x.function(fn, nil) })
}

// parsePlpgsql parses a body, given the CREATE FUNCTION text before its
// AS (which tells the parser the parameters and result), into its
// function node.
func parsePlpgsql(head, body string) (map[string]json.RawMessage, error) {
	js, err := pg.ParsePlPgSqlToJSON(plSource(head, body))
	if err != nil {
		return nil, repr.Errorf(repr.CodeSyntax, "%s", err.Error())
	}
	var fns []plNode
	if err := json.Unmarshal([]byte(js), &fns); err != nil || len(fns) != 1 {
		return nil, repr.Errorf(repr.CodeInternal, "reading the PL/pgSQL tree: %v", err)
	}
	var fn map[string]json.RawMessage
	if err := json.Unmarshal(fns[0]["PLpgSQL_function"], &fn); err != nil {
		return nil, repr.Errorf(repr.CodeInternal, "reading the PL/pgSQL tree: %v", err)
	}
	return fn, nil
}

// plSource is the CREATE FUNCTION text pg_query's PL/pgSQL parser reads
// for body, given the text before its AS.
func plSource(head, body string) string {
	tag := "$eddy_pl$"
	for strings.Contains(body, tag) {
		tag = "$eddy_pl_" + tag[1:]
	}
	// pg_query's JSON leaves out RETURN NEXT's retvarno, which its grammar
	// sets (instead of an expression) for a lone variable: parenthesized,
	// the variable stays an expression.
	body = plReturnNextVar.ReplaceAllString(body, "${1}(${2});")
	return head + tag + body + tag
}

// plReturnNextVar matches RETURN NEXT of a lone variable.
var plReturnNextVar = regexp.MustCompile(`(?i)(\bRETURN\s+NEXT\s+)([a-z_][a-z0-9_$]*|\$[0-9]+)\s*;`)

// atomic runs fn in the session's transaction block, or in one of its
// own when there is none.
func (x *plExec) atomic(fn func() error) error {
	if x.s.tx != txIdle {
		return fn()
	}
	if err := x.exec("BEGIN"); err != nil {
		return err
	}
	if err := fn(); err != nil {
		_ = x.exec("ROLLBACK")
		return err
	}
	return x.exec("COMMIT")
}

// function declares the datums, sets the parameters to args and runs
// the action.
func (x *plExec) function(fn map[string]json.RawMessage, args []plValue) error {
	var datums []plNode
	if err := json.Unmarshal(fn["datums"], &datums); err != nil {
		return err
	}
	x.datums = make([]*plVar, len(datums))
	for i, d := range datums {
		if err := x.declare(i, d, args); err != nil {
			return err
		}
	}
	var action plNode
	if err := json.Unmarshal(fn["action"], &action); err != nil {
		return err
	}
	if err := x.stmt(action); err != nil && err != errPlReturn {
		if e, ok := err.(*plExit); ok {
			return e.misplaced()
		}
		return err
	}
	return nil
}

// plVarDecl is a PLpgSQL_var, PLpgSQL_rec, PLpgSQL_row or
// PLpgSQL_recfield datum.
type plVarDecl struct {
	Refname  string `json:"refname"`
	Dno      int    `json:"dno"`
	Datatype struct {
		Type struct {
			Typname string `json:"typname"`
		} `json:"PLpgSQL_type"`
	} `json:"datatype"`
	Default  *plExpr `json:"default_val"`
	Constant bool    `json:"isconst"`
	NotNull  bool    `json:"notnull"`
	Fields   []struct {
		Name  string `json:"name"`
		Varno int    `json:"varno"`
	} `json:"fields"`
	Fieldname   string `json:"fieldname"`
	Recparentno int    `json:"recparentno"`
}

// plExpr is a PLpgSQL_expr.
type plExpr struct {
	Expr struct {
		Query string `json:"query"`
	} `json:"PLpgSQL_expr"`
}

// declare makes datum i; a function's parameters (the first datums) take
// the call's arguments.
func (x *plExec) declare(i int, d plNode, args []plValue) error {
	for kind, raw := range d {
		var decl plVarDecl
		if err := json.Unmarshal(raw, &decl); err != nil {
			return err
		}
		v := &plVar{name: decl.Refname, v: repr.Null, isConst: decl.Constant, notNull: decl.NotNull}
		x.datums[i] = v
		switch kind {
		case "PLpgSQL_var":
			if err := x.declareVar(i, v, &decl, args); err != nil {
				return err
			}
		case "PLpgSQL_rec":
			v.rec = true
		case "PLpgSQL_row":
			v.isRow = true
			for _, f := range decl.Fields {
				v.fields = append(v.fields, f.Varno)
			}
			return nil // a target row has no name
		case "PLpgSQL_recfield":
			v.isFld, v.parent, v.field = true, decl.Recparentno, decl.Fieldname
			return nil
		default:
			return repr.Unsupported("PL/pgSQL declaration %s", strings.TrimPrefix(kind, "PLpgSQL_"))
		}
		x.vars[v.name] = i
	}
	return nil
}

// declareVar types a scalar variable and gives it its argument or its
// DEFAULT's value.
func (x *plExec) declareVar(i int, v *plVar, decl *plVarDecl, args []plValue) error {
	if v.name == "found" {
		v.t, v.v = repr.Bool, repr.NewBool(false)
		return nil
	}
	if x.call != nil && i < len(x.call.def.Args)+len(x.call.def.OutArgs) {
		return x.call.bindParam(x, i, v, args)
	}
	name := decl.Datatype.Type.Typname
	if base, ok := cutSuffixFold(name, "%ROWTYPE"); ok {
		return x.declareRowType(v, base)
	}
	var t repr.T
	var err error
	if base, ok := cutSuffixFold(name, "%TYPE"); ok {
		t, err = x.copiedType(base)
	} else {
		t, err = x.typeNamed(name)
	}
	if err != nil {
		return err
	}
	v.t = t
	if decl.Default != nil {
		if v.v, err = x.evalAs(decl.Default.Expr.Query, t); err != nil {
			return err
		}
	}
	if decl.NotNull && v.v.IsNull() {
		return repr.Errorf("22004", "null value cannot be assigned to variable \"%s\" declared NOT NULL", v.name)
	}
	return nil
}

// cutSuffixFold cuts suffix off s, ignoring case.
func cutSuffixFold(s, suffix string) (string, bool) {
	if len(s) < len(suffix) || !strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return s, false
	}
	return strings.TrimSpace(s[:len(s)-len(suffix)]), true
}

// copiedType is the type of x%TYPE: a variable's, or a table's column's
// (table.column, schema.table.column).
func (x *plExec) copiedType(ref string) (repr.T, error) {
	if i, ok := x.vars[strings.ToLower(ref)]; ok && !x.datums[i].rec {
		return x.datums[i].t, nil
	}
	parts := strings.Split(strings.ToLower(ref), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return repr.T{}, repr.Unsupported("PL/pgSQL variable type %s%%TYPE", ref)
	}
	schema := ""
	if len(parts) == 3 {
		schema = parts[0]
	}
	tab, col := parts[len(parts)-2], parts[len(parts)-1]
	x.s.e.mu.RLock()
	defer x.s.e.mu.RUnlock()
	if o := x.s.e.cat.lookup(schema, tab); o != nil {
		for _, c := range o.Columns {
			if c.Name == col {
				return c.Type, nil
			}
		}
	}
	return repr.T{}, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, tab)
}

// declareRowType makes v, declared table%ROWTYPE, a record of the
// table's columns, all NULL.
func (x *plExec) declareRowType(v *plVar, table string) error {
	parts := strings.Split(strings.ToLower(table), ".")
	schema := ""
	if len(parts) == 2 {
		schema = parts[0]
	}
	o := x.s.e.lookupObject(schema, parts[len(parts)-1])
	if o == nil {
		return repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", table)
	}
	v.rec = true
	for _, c := range o.Columns {
		v.cols = append(v.cols, planner.ResultColumn{Name: c.Name, Type: c.Type})
		v.row = append(v.row, repr.Null)
	}
	return nil
}

// typeNamed resolves a declared type's name.
func (x *plExec) typeNamed(name string) (repr.T, error) {
	n, err := parseExpr("NULL::" + name)
	if err != nil || n.GetTypeCast() == nil {
		return repr.T{}, repr.Unsupported("PL/pgSQL variable type %s", strings.TrimSpace(name))
	}
	x.s.e.mu.RLock()
	defer x.s.e.mu.RUnlock()
	return x.s.e.cat.typeFromName(n.GetTypeCast().TypeName)
}

// exprOf reads a PLpgSQL_expr field's query text.
func exprOf(raw json.RawMessage) (string, error) {
	var e plExpr
	if err := json.Unmarshal(raw, &e); err != nil {
		return "", err
	}
	return e.Expr.Query, nil
}

// cond evaluates a boolean condition (NULL is false).
func (x *plExec) cond(raw json.RawMessage) (bool, error) {
	q, err := exprOf(raw)
	if err != nil {
		return false, err
	}
	d, err := x.evalAs(q, repr.Bool)
	if err != nil {
		return false, err
	}
	return !d.IsNull() && d.Bool(), nil
}

// evalAs evaluates expression text as a value of type t.
func (x *plExec) evalAs(text string, t repr.T) (repr.Datum, error) {
	rows, cols, err := x.query("SELECT (" + text + ")::" + t.Name())
	if err != nil {
		return repr.Null, err
	}
	if len(cols) != 1 {
		return repr.Null, repr.Errorf(repr.CodeSyntax, "query \"%s\" returned %d columns", text, len(cols))
	}
	if len(rows) != 1 {
		return repr.Null, repr.Errorf("21000", "query \"%s\" returned more than one row", text)
	}
	return rows[0][0], nil
}

// evalValue evaluates expression text to a value of its own type.
func (x *plExec) evalValue(text string) (plValue, error) {
	rows, cols, err := x.query("SELECT " + text)
	if err != nil {
		return plValue{}, err
	}
	if len(cols) != 1 {
		return plValue{}, repr.Errorf(repr.CodeSyntax, "query \"%s\" returned %d columns", text, len(cols))
	}
	if len(rows) != 1 {
		return plValue{}, repr.Errorf("21000", "query \"%s\" returned more than one row", text)
	}
	return plValue{rows[0][0], cols[0].Type}, nil
}

// evalText evaluates expression text to its text form (NULL: ok false).
func (x *plExec) evalText(text string) (string, bool, error) {
	v, err := x.evalValue(text)
	if err != nil || v.d.IsNull() {
		return "", false, err
	}
	return repr.FormatText(v.d, v.t, x.s.location()), true, nil
}

// query runs a SELECT (variables substituted) through the session's
// write set.
func (x *plExec) query(text string) ([]repr.Row, []planner.ResultColumn, error) {
	n, err := x.substitute(text)
	if err != nil {
		return nil, nil, err
	}
	return x.queryNode(n, text)
}

// queryNode runs a parsed, substituted SELECT.
func (x *plExec) queryNode(n *pg.Node, text string) ([]repr.Row, []planner.ResultColumn, error) {
	if n.GetSelectStmt() == nil {
		return nil, nil, repr.Errorf(repr.CodeSyntax, "query \"%s\" is not a SELECT", text)
	}
	if err := x.interrupted(); err != nil {
		return nil, nil, err
	}
	q, err := x.s.e.planQueryIn(n, planner.Options{TimeZone: x.s.settings.timeZone}, x.s.ws)
	if err != nil {
		return nil, nil, err
	}
	ectx := x.s.evalCtx()
	ectx.Interrupt = x.ctx.Done()
	rows, err := x.s.e.runQuery(q, ectx, x.s.ws)
	return rows, q.Columns, asCanceled(x.ctx, err)
}

// interrupted is 57014 once the statement's context ended.
func (x *plExec) interrupted() error {
	if x.ctx.Err() != nil {
		return canceled(x.ctx)
	}
	return nil
}

// substitute parses one statement and replaces each reference to a
// variable (or $n) by its value, a typed literal.
func (x *plExec) substitute(text string) (*pg.Node, error) {
	n, err := parseOne(text)
	if err != nil {
		return nil, err
	}
	var refs []*pg.Node
	walkProto(n, func(m proto.Message) {
		if nd, ok := m.(*pg.Node); ok && (nd.GetColumnRef() != nil || nd.GetParamRef() != nil) {
			refs = append(refs, nd)
		}
	})
	for _, r := range refs {
		if pr := r.GetParamRef(); pr != nil {
			lit, err := x.param(int(pr.Number))
			if err != nil {
				return nil, err
			}
			r.Node = lit.Node
		} else if lit, ok := x.valueOf(r.GetColumnRef()); ok {
			r.Node = lit.Node
		}
	}
	return n, nil
}

// param is $n: EXECUTE ... USING's n-th value, or the function's n-th
// parameter.
func (x *plExec) param(n int) (*pg.Node, error) {
	if x.using != nil {
		if n < 1 || n > len(x.using) {
			return nil, repr.Errorf("42P02", "there is no parameter $%d", n)
		}
		return literalOf(x.using[n-1].d, x.using[n-1].t, x.s), nil
	}
	if n < 1 || n > x.nparams {
		return nil, repr.Errorf("42P02", "there is no parameter $%d", n)
	}
	v := x.datums[n-1]
	return literalOf(v.v, v.t, x.s), nil
}

// valueOf is the literal a column reference naming a variable (or
// rec.field) stands for.
func (x *plExec) valueOf(ref *pg.ColumnRef) (*pg.Node, bool) {
	if x.using != nil {
		return nil, false // dynamic SQL sees no variables
	}
	if len(ref.Fields) == 0 || len(ref.Fields) > 2 {
		return nil, false
	}
	var names []string
	for _, f := range ref.Fields {
		if f.GetString_() == nil {
			return nil, false // rec.*, *
		}
		names = append(names, f.GetString_().Sval)
	}
	i, ok := x.vars[names[0]]
	if !ok {
		return nil, false
	}
	v := x.datums[i]
	if !v.rec {
		if len(names) != 1 {
			return nil, false
		}
		return literalOf(v.v, v.t, x.s), true
	}
	if len(names) != 2 || v.row == nil {
		return nil, false
	}
	for i, c := range v.cols {
		if c.Name == names[1] {
			return literalOf(v.row[i], c.Type, x.s), true
		}
	}
	return nil, false
}

// literalOf is d as a literal of type t: 'text'::t, or NULL::t.
func literalOf(d repr.Datum, t repr.T, s *Session) *pg.Node {
	c := &pg.A_Const{Isnull: true, Location: -1}
	if !d.IsNull() {
		c = &pg.A_Const{Val: &pg.A_Const_Sval{Sval: &pg.String{Sval: repr.FormatText(d, t, s.location())}}, Location: -1}
	}
	tn, err := typeNameNode(t)
	if err != nil {
		tn = &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode("text")}}
	}
	return &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{Arg: &pg.Node{Node: &pg.Node_AConst{AConst: c}}, TypeName: tn, Location: -1}}}
}

// convert casts d of type from to type to, as an assignment does.
func (x *plExec) convert(d repr.Datum, from, to repr.T) (repr.Datum, error) {
	if from == to || d.IsNull() {
		return d, nil
	}
	c := &expr.Cast{Arg: &expr.Lit{D: d, T: from}, To: to, Explicit: true}
	return c.Eval(x.s.evalCtx(), nil)
}

// setVar assigns value v to datum i (a scalar variable or a record's
// field).
func (x *plExec) setVar(i int, v plValue) error {
	if i < 0 || i >= len(x.datums) {
		return repr.Errorf(repr.CodeInternal, "PL/pgSQL datum %d out of range", i)
	}
	t := x.datums[i]
	switch {
	case t.isFld:
		return x.setField(t, v)
	case t.rec || t.isRow:
		return repr.Unsupported("assigning a scalar to the record %s", t.name)
	case t.isConst:
		return repr.Errorf("22005", "variable \"%s\" is declared CONSTANT", t.name)
	}
	d, err := x.convert(v.d, v.t, t.t)
	if err != nil {
		return err
	}
	if t.notNull && d.IsNull() {
		return repr.Errorf("22004", "null value cannot be assigned to variable \"%s\" declared NOT NULL", t.name)
	}
	t.v = d
	return nil
}

// setField assigns rec.field.
func (x *plExec) setField(f *plVar, v plValue) error {
	r := x.datums[f.parent]
	if r.row == nil {
		return repr.Errorf("55000", "record \"%s\" is not assigned yet", r.name)
	}
	for i, c := range r.cols {
		if c.Name == f.field {
			d, err := x.convert(v.d, v.t, c.Type)
			if err != nil {
				return err
			}
			r.row[i] = d
			return nil
		}
	}
	return repr.Errorf("42703", "record \"%s\" has no field \"%s\"", r.name, f.field)
}

// setFound sets the variable found.
func (x *plExec) setFound(b bool) {
	if i, ok := x.vars["found"]; ok {
		x.datums[i].v = repr.NewBool(b)
	}
}

// lookupObject is cat.lookup under the engine's read lock, released by
// defer (a panic in the lookup does not leave the engine locked).
func (e *Engine) lookupObject(schema, name string) *Object {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.cat.lookup(schema, name)
}
