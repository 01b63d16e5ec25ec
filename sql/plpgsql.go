package sql

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// DO blocks: a small PL/pgSQL interpreter for the subset migrations use.
// pg_query parses the block (ParsePlPgSqlToJSON, PostgreSQL's own
// PL/pgSQL grammar) into a JSON tree, which plRun walks: DECLARE with
// defaults, nested BEGIN/END, IF/ELSIF/ELSE, RAISE (DEBUG to EXCEPTION,
// % parameters, ERRCODE/MESSAGE/DETAIL/HINT), PERFORM, EXECUTE of a
// computed string, FOR r IN SELECT ... LOOP, assignments and plain SQL
// statements. Variables are substituted into each statement as typed
// literals before it runs (a column reference naming a variable, or
// rec.field, is the variable: PostgreSQL's variable_conflict = error
// would refuse the ambiguous ones). Expressions run as SELECT through
// the session's write set; statements run as nested statements of the
// session, so they take its transaction: a DO outside a block runs in a
// block of its own (BEGIN ... COMMIT, ROLLBACK on error), atomic as
// PostgreSQL's. Anything else (exception handlers, other loops, SELECT
// INTO, EXECUTE ... INTO/USING, RETURN with a value) is 0A000 naming it.

// plNode is one node of the PL/pgSQL JSON tree: {"PLpgSQL_kind": {...}}.
type plNode map[string]json.RawMessage

// plVar is a variable: a scalar of type t, or a record (FOR's target).
type plVar struct {
	t    repr.T
	v    repr.Datum
	rec  bool
	cols []planner.ResultColumn
	row  repr.Row
}

// plExec runs one DO block.
type plExec struct {
	ctx  context.Context
	s    *Session
	vars map[string]*plVar
}

// errPlReturn ends the block (RETURN).
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
	fn, err := parsePlpgsql(body)
	if err != nil {
		return err
	}
	x := &plExec{ctx: ctx, s: p.st.s, vars: map[string]*plVar{}}
	return x.atomic(func() error { return x.function(fn) })
}

// parsePlpgsql parses a DO body into its function node.
func parsePlpgsql(body string) (map[string]json.RawMessage, error) {
	tag := "$eddy_do$"
	for strings.Contains(body, tag) {
		tag = "$eddy_do_" + tag[1:]
	}
	js, err := pg.ParsePlPgSqlToJSON("CREATE FUNCTION eddy_do() RETURNS void LANGUAGE plpgsql AS " + tag + body + tag)
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

// function declares the block's variables and runs its action.
func (x *plExec) function(fn map[string]json.RawMessage) error {
	var datums []plNode
	if err := json.Unmarshal(fn["datums"], &datums); err != nil {
		return err
	}
	for _, d := range datums {
		if err := x.declare(d); err != nil {
			return err
		}
	}
	var action plNode
	if err := json.Unmarshal(fn["action"], &action); err != nil {
		return err
	}
	if err := x.stmt(action); err != nil && err != errPlReturn {
		return err
	}
	return nil
}

// plVarDecl is a PLpgSQL_var or PLpgSQL_rec datum.
type plVarDecl struct {
	Refname  string `json:"refname"`
	Datatype struct {
		Type struct {
			Typname string `json:"typname"`
		} `json:"PLpgSQL_type"`
	} `json:"datatype"`
	Default  *plExpr `json:"default_val"`
	Constant bool    `json:"isconst"`
	NotNull  bool    `json:"notnull"`
}

// plExpr is a PLpgSQL_expr.
type plExpr struct {
	Expr struct {
		Query string `json:"query"`
	} `json:"PLpgSQL_expr"`
}

// declare makes one datum's variable (found and record fields need
// none).
func (x *plExec) declare(d plNode) error {
	var decl plVarDecl
	switch {
	case d["PLpgSQL_var"] != nil:
		if err := json.Unmarshal(d["PLpgSQL_var"], &decl); err != nil {
			return err
		}
		if decl.Refname == "found" {
			x.vars["found"] = &plVar{t: repr.Bool, v: repr.NewBool(false)}
			return nil
		}
		t, err := x.typeNamed(decl.Datatype.Type.Typname)
		if err != nil {
			return err
		}
		v := &plVar{t: t, v: repr.Null}
		if decl.Default != nil {
			if v.v, err = x.evalAs(decl.Default.Expr.Query, t); err != nil {
				return err
			}
		}
		x.vars[strings.ToLower(decl.Refname)] = v
	case d["PLpgSQL_rec"] != nil:
		if err := json.Unmarshal(d["PLpgSQL_rec"], &decl); err != nil {
			return err
		}
		x.vars[strings.ToLower(decl.Refname)] = &plVar{rec: true}
	case d["PLpgSQL_recfield"] != nil:
	default:
		for k := range d {
			return repr.Unsupported("PL/pgSQL declaration %s", strings.TrimPrefix(k, "PLpgSQL_"))
		}
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

// stmts runs a statement list.
func (x *plExec) stmts(raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	var list []plNode
	if err := json.Unmarshal(raw, &list); err != nil {
		return err
	}
	for _, st := range list {
		if err := x.stmt(st); err != nil {
			return err
		}
	}
	return nil
}

// stmt runs one statement.
func (x *plExec) stmt(st plNode) error {
	for kind, raw := range st {
		var f map[string]json.RawMessage
		if err := json.Unmarshal(raw, &f); err != nil {
			return err
		}
		switch kind {
		case "PLpgSQL_stmt_block":
			if f["exceptions"] != nil {
				return repr.Unsupported("PL/pgSQL EXCEPTION handlers")
			}
			return x.stmts(f["body"])
		case "PLpgSQL_stmt_if":
			return x.ifStmt(f)
		case "PLpgSQL_stmt_raise":
			return x.raise(f)
		case "PLpgSQL_stmt_perform":
			return x.perform(f)
		case "PLpgSQL_stmt_assign":
			return x.assign(f)
		case "PLpgSQL_stmt_execsql":
			return x.execSQL(f)
		case "PLpgSQL_stmt_dynexecute":
			return x.dynExecute(f)
		case "PLpgSQL_stmt_fors":
			return x.forQuery(f)
		case "PLpgSQL_stmt_return":
			if f["expr"] != nil {
				return repr.Unsupported("RETURN with a value in a DO block")
			}
			return errPlReturn
		default:
			return repr.Unsupported("PL/pgSQL statement %s", strings.ToUpper(strings.TrimPrefix(kind, "PLpgSQL_stmt_")))
		}
	}
	return nil
}

// exprOf reads a PLpgSQL_expr field's query text.
func exprOf(raw json.RawMessage) (string, error) {
	var e plExpr
	if err := json.Unmarshal(raw, &e); err != nil {
		return "", err
	}
	return e.Expr.Query, nil
}

// ifStmt runs IF cond THEN ... [ELSIF ...] [ELSE ...] END IF.
func (x *plExec) ifStmt(f map[string]json.RawMessage) error {
	ok, err := x.cond(f["cond"])
	if err != nil || ok {
		if err != nil {
			return err
		}
		return x.stmts(f["then_body"])
	}
	var elsifs []struct {
		E map[string]json.RawMessage `json:"PLpgSQL_if_elsif"`
	}
	if f["elsif_list"] != nil {
		if err := json.Unmarshal(f["elsif_list"], &elsifs); err != nil {
			return err
		}
	}
	for _, ei := range elsifs {
		ok, err := x.cond(ei.E["cond"])
		if err != nil {
			return err
		}
		if ok {
			return x.stmts(ei.E["stmts"])
		}
	}
	return x.stmts(f["else_body"])
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
	if len(cols) != 1 || len(rows) != 1 {
		return repr.Null, repr.Errorf("21000", "query \"%s\" returned %d rows", text, len(rows))
	}
	return rows[0][0], nil
}

// evalText evaluates expression text to its text form (NULL: ok false).
func (x *plExec) evalText(text string) (string, bool, error) {
	rows, cols, err := x.query("SELECT " + text)
	if err != nil {
		return "", false, err
	}
	if len(cols) != 1 || len(rows) != 1 {
		return "", false, repr.Errorf("42601", "query \"%s\" returned %d columns", text, len(cols))
	}
	if rows[0][0].IsNull() {
		return "", false, nil
	}
	return repr.FormatText(rows[0][0], cols[0].Type, x.s.location()), true, nil
}

// query runs a SELECT (variables substituted) through the session's
// write set.
func (x *plExec) query(text string) ([]repr.Row, []planner.ResultColumn, error) {
	n, err := x.substitute(text)
	if err != nil {
		return nil, nil, err
	}
	if n.GetSelectStmt() == nil {
		return nil, nil, repr.Errorf(repr.CodeSyntax, "query \"%s\" is not a SELECT", text)
	}
	q, err := x.s.e.planQuery(n, planner.Options{TimeZone: x.s.settings.timeZone})
	if err != nil {
		return nil, nil, err
	}
	rows, err := x.s.e.runQuery(q, x.s.evalCtx(), x.s.ws)
	return rows, q.Columns, err
}

// substitute parses one statement and replaces each reference to a
// variable by its value, a typed literal.
func (x *plExec) substitute(text string) (*pg.Node, error) {
	n, err := parseOne(text)
	if err != nil {
		return nil, err
	}
	var refs []*pg.Node
	walkProto(n, func(m proto.Message) {
		if nd, ok := m.(*pg.Node); ok && nd.GetColumnRef() != nil {
			refs = append(refs, nd)
		}
	})
	for _, r := range refs {
		if lit, ok := x.valueOf(r.GetColumnRef()); ok {
			r.Node = lit.Node
		}
	}
	return n, nil
}

// valueOf is the literal a column reference naming a variable (or
// rec.field) stands for.
func (x *plExec) valueOf(ref *pg.ColumnRef) (*pg.Node, bool) {
	names := stringList(ref.Fields)
	if len(names) != len(ref.Fields) || len(names) == 0 || len(names) > 2 {
		return nil, false
	}
	v := x.vars[names[0]]
	if v == nil {
		return nil, false
	}
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

// raise runs RAISE level 'format', params [USING option = expr, ...].
func (x *plExec) raise(f map[string]json.RawMessage) error {
	var r struct {
		Level    int               `json:"elog_level"`
		CondName string            `json:"condname"`
		Message  string            `json:"message"`
		Params   []json.RawMessage `json:"params"`
		Options  []struct {
			O struct {
				Type int             `json:"opt_type"`
				Expr json.RawMessage `json:"expr"`
			} `json:"PLpgSQL_raise_option"`
		} `json:"options"`
	}
	b, _ := json.Marshal(f)
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	msg, err := x.format(r.Message, r.Params)
	if err != nil {
		return err
	}
	e := &repr.Error{Code: "P0001", Message: msg}
	if r.Level < 21 {
		e.Code = "00000"
	}
	if r.CondName != "" {
		e.Code = sqlstateOf(r.CondName)
		if r.Message == "" {
			e.Message = r.CondName
		}
	}
	for _, o := range r.Options {
		q, err := exprOf(o.O.Expr)
		if err != nil {
			return err
		}
		v, _, err := x.evalText(q)
		if err != nil {
			return err
		}
		switch o.O.Type {
		case 0:
			e.Code = sqlstateOf(v)
		case 1:
			e.Message = v
		case 2:
			e.Detail = v
		case 3:
			e.Hint = v
		default:
			return repr.Unsupported("RAISE ... USING option %d", o.O.Type)
		}
	}
	// PostgreSQL's elog.h levels: INFO 17, NOTICE 18, WARNING 19, ERROR
	// 21; DEBUG and LOG do not reach the client (client_min_messages).
	sev := map[int]string{17: "INFO", 18: "NOTICE", 19: "WARNING"}[r.Level]
	switch {
	case r.Level >= 21:
		return e
	case sev != "":
		x.s.notices = append(x.s.notices, Notice{Severity: sev, Err: e})
	}
	return nil
}

// sqlstateOf is RAISE's ERRCODE: a five-character SQLSTATE, or one of
// the condition names migrations use (others: P0001).
func sqlstateOf(s string) string {
	if len(s) == 5 && strings.ToUpper(s) == s {
		return s
	}
	names := map[string]string{"unique_violation": "23505", "foreign_key_violation": "23503", "check_violation": "23514",
		"not_null_violation": "23502", "division_by_zero": "22012", "raise_exception": "P0001", "undefined_table": "42P01",
		"undefined_column": "42703", "duplicate_table": "42P07", "duplicate_object": "42710", "invalid_parameter_value": "22023",
		"feature_not_supported": "0A000", "insufficient_privilege": "42501", "data_exception": "22000"}
	if c, ok := names[strings.ToLower(s)]; ok {
		return c
	}
	return "P0001"
}

// format replaces each % of a RAISE message by the next parameter (%%
// is a %).
func (x *plExec) format(msg string, params []json.RawMessage) (string, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(msg); i++ {
		if msg[i] != '%' {
			b.WriteByte(msg[i])
			continue
		}
		if i+1 < len(msg) && msg[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if next >= len(params) {
			return "", repr.Errorf(repr.CodeSyntax, "too few parameters specified for RAISE")
		}
		q, err := exprOf(params[next])
		if err != nil {
			return "", err
		}
		next++
		v, ok, err := x.evalText(q)
		if err != nil {
			return "", err
		}
		if !ok {
			v = "<NULL>"
		}
		b.WriteString(v)
	}
	if next < len(params) {
		return "", repr.Errorf(repr.CodeSyntax, "too many parameters specified for RAISE")
	}
	return b.String(), nil
}

// perform runs PERFORM query, setting found.
func (x *plExec) perform(f map[string]json.RawMessage) error {
	q, err := exprOf(f["expr"])
	if err != nil {
		return err
	}
	rows, _, err := x.query(q)
	if err != nil {
		return err
	}
	x.setFound(len(rows) > 0)
	return nil
}

// setFound sets the variable found.
func (x *plExec) setFound(b bool) {
	if v := x.vars["found"]; v != nil {
		v.v = repr.NewBool(b)
	}
}

// assign runs var := expr.
func (x *plExec) assign(f map[string]json.RawMessage) error {
	q, err := exprOf(f["expr"])
	if err != nil {
		return err
	}
	name, rhs, ok := strings.Cut(q, ":=")
	if !ok {
		name, rhs, ok = strings.Cut(q, "=")
	}
	v := x.vars[strings.ToLower(strings.TrimSpace(name))]
	if !ok || v == nil || v.rec {
		return repr.Unsupported("PL/pgSQL assignment %s", q)
	}
	d, err := x.evalAs(rhs, v.t)
	if err != nil {
		return err
	}
	v.v = d
	return nil
}

// execSQL runs a plain SQL statement of the block.
func (x *plExec) execSQL(f map[string]json.RawMessage) error {
	if string(f["into"]) == "true" {
		return repr.Unsupported("SELECT ... INTO in a DO block")
	}
	q, err := exprOf(f["sqlstmt"])
	if err != nil {
		return err
	}
	n, err := x.substitute(q)
	if err != nil {
		return err
	}
	text, err := parse.Deparse(n)
	if err != nil {
		return err
	}
	return x.exec(text)
}

// dynExecute runs EXECUTE string-expression.
func (x *plExec) dynExecute(f map[string]json.RawMessage) error {
	if string(f["into"]) == "true" || f["params"] != nil {
		return repr.Unsupported("EXECUTE ... INTO or USING in a DO block")
	}
	q, err := exprOf(f["query"])
	if err != nil {
		return err
	}
	text, ok, err := x.evalText(q)
	if err != nil {
		return err
	}
	if !ok {
		return repr.Errorf("22004", "query string argument of EXECUTE is null")
	}
	return x.exec(text)
}

// forQuery runs FOR rec IN query LOOP body END LOOP.
func (x *plExec) forQuery(f map[string]json.RawMessage) error {
	var target struct {
		Rec *plVarDecl `json:"PLpgSQL_rec"`
	}
	if err := json.Unmarshal(f["var"], &target); err != nil || target.Rec == nil {
		return repr.Unsupported("FOR over a query into scalar variables")
	}
	q, err := exprOf(f["query"])
	if err != nil {
		return err
	}
	rows, cols, err := x.query(q)
	if err != nil {
		return err
	}
	v := x.vars[strings.ToLower(target.Rec.Refname)]
	v.cols = cols
	for _, r := range rows {
		v.row = r
		if err := x.stmts(f["body"]); err != nil {
			return err
		}
	}
	x.setFound(len(rows) > 0)
	return nil
}

// exec runs SQL text as nested statements of the session.
func (x *plExec) exec(text string) error {
	stmts, err := x.s.Prepare(x.ctx, text, nil)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if st.stmt.AST != nil && st.stmt.AST.GetTransactionStmt() != nil && x.s.tx != txIdle && text != "COMMIT" && text != "ROLLBACK" {
			return repr.Errorf("2D000", "invalid transaction termination")
		}
		p, err := st.Bind(x.ctx, nil, nil, nil)
		if err != nil {
			return err
		}
		if _, _, err := p.Execute(x.ctx, plDiscard{}, 0); err != nil {
			return err
		}
	}
	return nil
}

// plDiscard drops the rows of a nested statement.
type plDiscard struct{}

// WriteRow implements RowWriter.
func (plDiscard) WriteRow([][]byte) error { return nil }
