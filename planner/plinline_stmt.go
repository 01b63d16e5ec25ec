package planner

import (
	"encoding/json"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// plStmts is a statement list of the PL/pgSQL tree.
type plStmts []map[string]json.RawMessage

// stmts translates a statement list in order.
func (t *plTrans) stmts(list plStmts, st *plSym) error {
	for _, s := range list {
		if err := t.stmt(s, st); err != nil {
			return err
		}
	}
	return nil
}

// stmt translates one statement; a statement after every path returned
// is unreachable and skipped.
func (t *plTrans) stmt(s map[string]json.RawMessage, st *plSym) error {
	if st.always {
		return nil
	}
	for kind, raw := range s {
		var f map[string]json.RawMessage
		if err := json.Unmarshal(raw, &f); err != nil {
			return err
		}
		if h := plStmtHandlers[kind]; h != nil {
			return h(t, f, st)
		}
		what := strings.ReplaceAll(strings.TrimPrefix(kind, "PLpgSQL_stmt_"), "_", " ")
		return plRefuse(t.fn, "its body has a "+strings.ToUpper(what)+" statement (loops, SQL statements and queries are not evaluated in a view)")
	}
	return nil
}

// plStmtHandlers translates each statement kind a view can evaluate; any
// other kind is refused.
var plStmtHandlers map[string]func(*plTrans, map[string]json.RawMessage, *plSym) error

func init() {
	plStmtHandlers = map[string]func(*plTrans, map[string]json.RawMessage, *plSym) error{
		"PLpgSQL_stmt_block":  (*plTrans).block,
		"PLpgSQL_stmt_assign": (*plTrans).assignStmt,
		"PLpgSQL_stmt_if":     (*plTrans).ifStmt,
		"PLpgSQL_stmt_case":   (*plTrans).caseStmt,
		"PLpgSQL_stmt_return": (*plTrans).returnStmt,
		"PLpgSQL_stmt_raise":  (*plTrans).raiseStmt,
		"PLpgSQL_stmt_assert": (*plTrans).assertStmt,
	}
}

// block translates BEGIN ... END (without exception handlers).
func (t *plTrans) block(f map[string]json.RawMessage, st *plSym) error {
	if f["exceptions"] != nil {
		return plRefuse(t.fn, "its body has an EXCEPTION block")
	}
	var body plStmts
	if err := json.Unmarshal(f["body"], &body); err != nil {
		return err
	}
	return t.stmts(body, st)
}

// plExprField reads a PLpgSQL_expr's query text.
func plExprField(raw json.RawMessage) (string, error) {
	var e struct {
		Expr struct {
			Query string `json:"query"`
		} `json:"PLpgSQL_expr"`
	}
	err := json.Unmarshal(raw, &e)
	return e.Expr.Query, err
}

// assignStmt translates var := expr.
func (t *plTrans) assignStmt(f map[string]json.RawMessage, st *plSym) error {
	q, err := plExprField(f["expr"])
	if err != nil {
		return err
	}
	var varno int
	_ = json.Unmarshal(f["varno"], &varno)
	_, rhs, ok := strings.Cut(q, ":=")
	if !ok {
		_, rhs, ok = strings.Cut(q, "=")
	}
	if !ok || varno >= len(st.env) || t.types[varno] == nil {
		return plRefuse(t.fn, "the assignment "+q)
	}
	v, err := t.expr(rhs, st)
	if err != nil {
		return err
	}
	t.assign(varno, v, st)
	return nil
}

// plBranch is one arm of an IF, CASE or ASSERT: its condition and
// statements, or the error it fails with (fail not nil).
type plBranch struct {
	cond  *pg_query.Node
	stmts plStmts
	fail  *pg_query.Node
}

// ifStmt translates IF ... ELSIF ... ELSE ... END IF.
func (t *plTrans) ifStmt(f map[string]json.RawMessage, st *plSym) error {
	var arms []plBranch
	var elsifs []struct {
		E struct {
			Cond  json.RawMessage `json:"cond"`
			Stmts plStmts         `json:"stmts"`
		} `json:"PLpgSQL_if_elsif"`
	}
	var then, els plStmts
	_ = json.Unmarshal(f["then_body"], &then)
	_ = json.Unmarshal(f["elsif_list"], &elsifs)
	_ = json.Unmarshal(f["else_body"], &els)
	conds := []json.RawMessage{f["cond"]}
	bodies := []plStmts{then}
	for _, e := range elsifs {
		conds, bodies = append(conds, e.E.Cond), append(bodies, e.E.Stmts)
	}
	for i, raw := range conds {
		q, err := plExprField(raw)
		if err != nil {
			return err
		}
		c, err := t.expr(q, st)
		if err != nil {
			return err
		}
		t.force(c, st)
		arms = append(arms, plBranch{cond: c, stmts: bodies[i]})
	}
	return t.branches(arms, els, nil, st)
}

// caseStmt translates CASE [t] WHEN ... THEN ... [ELSE ...] END CASE;
// with no ELSE, a value no arm matches is 20000 (case not found).
func (t *plTrans) caseStmt(f map[string]json.RawMessage, st *plSym) error {
	if f["t_expr"] != nil {
		q, err := plExprField(f["t_expr"])
		if err != nil {
			return err
		}
		var varno int
		_ = json.Unmarshal(f["t_varno"], &varno)
		v, err := t.expr(q, st)
		if err != nil {
			return err
		}
		t.force(v, st)
		st.env[varno] = v // the case variable takes t's own type
	}
	var whens []struct {
		W struct {
			Expr  json.RawMessage `json:"expr"`
			Stmts plStmts         `json:"stmts"`
		} `json:"PLpgSQL_case_when"`
	}
	_ = json.Unmarshal(f["case_when_list"], &whens)
	var arms []plBranch
	for _, w := range whens {
		q, err := plExprField(w.W.Expr)
		if err != nil {
			return err
		}
		c, err := t.expr(q, st)
		if err != nil {
			return err
		}
		t.force(c, st)
		arms = append(arms, plBranch{cond: c, stmts: w.W.Stmts})
	}
	var els plStmts
	var missing *pg_query.Node
	if string(f["have_else"]) == "true" {
		_ = json.Unmarshal(f["else_stmts"], &els)
	} else {
		missing = t.errorNode("20000", plText("case not found"), nil, plText("CASE statement is missing ELSE part."))
	}
	return t.branches(arms, els, missing, st)
}

// returnStmt translates RETURN expr.
func (t *plTrans) returnStmt(f map[string]json.RawMessage, st *plSym) error {
	if f["expr"] == nil { // the end of the body (PL/pgSQL adds a bare RETURN)
		t.returns(castTo(t.errorNode("2F005", plText("control reached end of function without RETURN"), nil, nil), t.fn.Ret), st)
		return nil
	}
	q, err := plExprField(f["expr"])
	if err != nil {
		return err
	}
	v, err := t.expr(q, st)
	if err != nil {
		return err
	}
	t.returns(castTo(v, t.fn.Ret), st)
	return nil
}

// returns records that the function returns ret at this point.
func (t *plTrans) returns(ret *pg_query.Node, st *plSym) {
	t.size[ret] = t.sizeOf(ret.GetTypeCast().GetArg()) + 16
	if st.done == nil {
		st.done, st.ret = plBool(true), ret
	} else {
		st.ret = t.caseOf([]*pg_query.Node{st.done}, []*pg_query.Node{st.ret}, ret)
		st.done = plBool(true)
	}
	st.always = true
}

// branches translates arms (then els, or the error missing when els is
// nil and missing is not) from st, and merges their states into st.
func (t *plTrans) branches(arms []plBranch, els plStmts, missing *pg_query.Node, st *plSym) error {
	var conds []*pg_query.Node
	var outs []*plSym
	var notYet *pg_query.Node // no earlier arm matched
	for _, a := range arms {
		s := st.clone()
		s.path = t.and(st.path, t.and(notYet, a.cond))
		if a.fail != nil {
			t.returns(castTo(a.fail, t.fn.Ret), s)
		} else if err := t.stmts(a.stmts, s); err != nil {
			return err
		}
		conds, outs = append(conds, a.cond), append(outs, s)
		notYet = t.and(notYet, t.isNotTrue(a.cond))
	}
	s := st.clone()
	s.path = t.and(st.path, notYet)
	if missing != nil {
		t.returns(castTo(missing, t.fn.Ret), s)
	} else if err := t.stmts(els, s); err != nil {
		return err
	}
	t.merge(conds, outs, s, st)
	return nil
}

// clone copies a state.
func (st *plSym) clone() *plSym {
	c := *st
	c.env = append([]*pg_query.Node(nil), st.env...)
	return &c
}

// merge makes st the state after the arms outs (taken under conds) and
// els: each value a CASE over the arms where they differ. What the
// function returned before st stays returned.
func (t *plTrans) merge(conds []*pg_query.Node, outs []*plSym, els, st *plSym) {
	all := append(append([]*plSym(nil), outs...), els)
	pick := func(get func(*plSym) *pg_query.Node) *pg_query.Node {
		vals := make([]*pg_query.Node, len(all))
		same := true
		for i, s := range all {
			vals[i] = get(s)
			same = same && vals[i] == vals[0]
		}
		if same {
			return vals[0]
		}
		return t.caseOf(conds, vals[:len(outs)], vals[len(outs)])
	}
	for i := range st.env {
		st.env[i] = pick(func(s *plSym) *pg_query.Node { return s.env[i] })
	}
	always := true
	for _, s := range all {
		always = always && s.always
	}
	prevDone, prevRet := st.done, st.ret
	done := pick(func(s *plSym) *pg_query.Node { return orFalse(s.done) })
	ret := pick(func(s *plSym) *pg_query.Node { return orNull(s.ret) })
	if prevDone != nil && done != prevDone {
		done = t.caseOf([]*pg_query.Node{prevDone}, []*pg_query.Node{plBool(true)}, done)
		ret = t.caseOf([]*pg_query.Node{prevDone}, []*pg_query.Node{prevRet}, ret)
	}
	if isFalse(done) {
		done, ret = nil, nil
	}
	st.done, st.ret, st.always = done, ret, always
}

// plFalse is the shared FALSE of states that have not returned.
var plFalse = plBool(false)

// orFalse is done, or FALSE for a state that has not returned.
func orFalse(n *pg_query.Node) *pg_query.Node {
	if n == nil {
		return plFalse
	}
	return n
}

// isFalse reports whether n is plFalse.
func isFalse(n *pg_query.Node) bool { return n == plFalse }

// plNull is the shared NULL of states that have not returned.
var plNull = &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}}

// orNull is ret, or NULL for a state that has not returned.
func orNull(n *pg_query.Node) *pg_query.Node {
	if n == nil {
		return plNull
	}
	return n
}

// PLRaise is a PLpgSQL_stmt_raise: RAISE level 'message', params [USING
// option = expr, ...]. Level is elog.h's (INFO 17, NOTICE 18, WARNING 19,
// ERROR 21); an option's Type is 0 ERRCODE, 1 MESSAGE, 2 DETAIL, 3 HINT
// and higher for the others.
type PLRaise struct {
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

// DecodeRaise reads a RAISE statement's fields, as the PL/pgSQL tree
// gives them, for the interpreter and the view translation alike.
func DecodeRaise(f map[string]json.RawMessage) (PLRaise, error) {
	var r PLRaise
	b, err := json.Marshal(f)
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	return r, err
}

// raiseStmt translates RAISE: an EXCEPTION is a return of the error;
// lower levels (notices) have no effect in a view, which has no client.
func (t *plTrans) raiseStmt(f map[string]json.RawMessage, st *plSym) error {
	r, err := DecodeRaise(f)
	if err != nil {
		return err
	}
	if r.Level < 21 {
		return nil
	}
	if r.CondName != "" || (r.Message == "" && len(r.Options) == 0) {
		return plRefuse(t.fn, "RAISE of a condition name or a re-raise")
	}
	msg, err := t.format(r.Message, r.Params, st)
	if err != nil {
		return err
	}
	code := plText("P0001")
	var opts [4]*pg_query.Node
	for _, o := range r.Options {
		q, err := plExprField(o.O.Expr)
		if err != nil {
			return err
		}
		if o.O.Type > 3 {
			return plRefuse(t.fn, "a RAISE ... USING option other than ERRCODE, MESSAGE, DETAIL or HINT")
		}
		if o.O.Type == 0 {
			lit := strings.Trim(strings.TrimSpace(q), "'")
			if len(lit) != 5 || strings.ToUpper(lit) != lit {
				return plRefuse(t.fn, "RAISE ... USING ERRCODE other than a SQLSTATE literal")
			}
			code = plText(lit)
			continue
		}
		v, err := t.expr(q, st)
		if err != nil {
			return err
		}
		opts[o.O.Type] = castTo(v, repr.Text)
	}
	if opts[1] != nil {
		msg = opts[1]
	}
	t.returns(castTo(t.errorNode("", msg, opts[2], opts[3], code), t.fn.Ret), st)
	return nil
}

// format is RAISE's message: each % the text of the next parameter
// (NULL prints <NULL>), %% a percent sign.
func (t *plTrans) format(msg string, params []json.RawMessage, st *plSym) (*pg_query.Node, error) {
	var parts []*pg_query.Node
	lit := strings.Builder{}
	next := 0
	for i := 0; i < len(msg); i++ {
		switch {
		case msg[i] == '%' && i+1 < len(msg) && msg[i+1] == '%':
			lit.WriteByte('%')
			i++
		case msg[i] == '%' && next < len(params):
			q, err := plExprField(params[next])
			if err != nil {
				return nil, err
			}
			v, err := t.expr(q, st)
			if err != nil {
				return nil, err
			}
			next++
			parts = append(parts, plText(lit.String()), coalesceText(castTo(v, repr.Text)))
			lit.Reset()
		default:
			lit.WriteByte(msg[i])
		}
	}
	parts = append(parts, plText(lit.String()))
	return &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{
		Funcname: []*pg_query.Node{pg_query.MakeStrNode("concat")}, Args: parts, Location: -1}}}, nil
}

// coalesceText is COALESCE(v, '<NULL>').
func coalesceText(v *pg_query.Node) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_CoalesceExpr{CoalesceExpr: &pg_query.CoalesceExpr{
		Args: []*pg_query.Node{v, plText("<NULL>")}, Location: -1}}}
}

// assertStmt translates ASSERT cond [, message]: P0004 unless cond is true.
func (t *plTrans) assertStmt(f map[string]json.RawMessage, st *plSym) error {
	q, err := plExprField(f["cond"])
	if err != nil {
		return err
	}
	c, err := t.expr(q, st)
	if err != nil {
		return err
	}
	msg := plText("assertion failed")
	if f["message"] != nil {
		mq, err := plExprField(f["message"])
		if err != nil {
			return err
		}
		m, err := t.expr(mq, st)
		if err != nil {
			return err
		}
		msg = &pg_query.Node{Node: &pg_query.Node_CoalesceExpr{CoalesceExpr: &pg_query.CoalesceExpr{
			Args: []*pg_query.Node{castTo(m, repr.Text), msg}, Location: -1}}}
	}
	fail := t.errorNode("P0004", msg, nil, nil)
	return t.branches([]plBranch{{cond: t.isNotTrue(c), fail: fail}}, nil, nil, st)
}

// errorNode is a call of eddy_plpgsql_raise (code "" : the given
// expression in codeNode[0]).
func (t *plTrans) errorNode(code string, msg, detail, hint *pg_query.Node, codeNode ...*pg_query.Node) *pg_query.Node {
	c := plText(code)
	if code == "" {
		c = codeNode[0]
	}
	args := []*pg_query.Node{c, msg, orNullText(detail), orNullText(hint)}
	n := &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{
		Funcname: []*pg_query.Node{pg_query.MakeStrNode("eddy_plpgsql_raise")}, Args: args, Location: -1}}}
	s := 16
	for _, a := range args {
		s += t.sizeOf(a)
	}
	t.size[n] = s
	return n
}

// orNullText is n, or NULL::text.
func orNullText(n *pg_query.Node) *pg_query.Node {
	if n == nil {
		return castTo(&pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}}, repr.Text)
	}
	return n
}

// plText is a string literal.
func plText(s string) *pg_query.Node { return pg_query.MakeAConstStrNode(s, -1) }

// expr translates expression text: each variable (or $n, or
// function.parameter) becomes its current value. A query (FROM, a
// subquery, an aggregate) is refused: it may read tables.
func (t *plTrans) expr(text string, st *plSym) (*pg_query.Node, error) {
	tree, err := pg_query.Parse("SELECT " + text)
	if err != nil {
		return nil, repr.Errorf(repr.CodeSyntax, "%s", err.Error())
	}
	if len(tree.Stmts) != 1 {
		return nil, plRefuse(t.fn, "the expression "+text)
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	e := bodyExpr(sel)
	if e == nil {
		return nil, plRefuse(t.fn, "its body runs a query ("+strings.TrimSpace(text)+"), which may read tables")
	}
	if err := t.checkClock(e); err != nil {
		return nil, err
	}
	size := proto.Size(e)
	var refs []*pg_query.Node
	walkMessages(e.ProtoReflect(), func(m proto.Message) {
		if n, ok := m.(*pg_query.Node); ok && (n.GetColumnRef() != nil || n.GetParamRef() != nil) {
			refs = append(refs, n)
		}
	})
	for _, r := range refs {
		v, err := t.ref(r, st)
		if err != nil {
			return nil, err
		}
		r.Node = v.Node
		size += t.sizeOf(v)
	}
	if size > plMaxInline {
		return nil, plRefuse(t.fn, "its body is too large to evaluate as one expression")
	}
	t.size[e] = size
	return e, nil
}

// ref is the value a variable reference stands for.
func (t *plTrans) ref(r *pg_query.Node, st *plSym) (*pg_query.Node, error) {
	if p := r.GetParamRef(); p != nil {
		if p.Number < 1 || int(p.Number) > len(t.fn.Args) {
			return nil, repr.Errorf(repr.CodeUndefinedParameter, "there is no parameter $%d", p.Number)
		}
		return st.env[p.Number-1], nil
	}
	var names []string
	for _, f := range r.GetColumnRef().Fields {
		if f.GetString_() == nil {
			return nil, plRefuse(t.fn, "a reference to *")
		}
		names = append(names, f.GetString_().Sval)
	}
	if len(names) == 2 && names[0] == t.fn.Name {
		for i, n := range t.fn.ArgNames {
			if n == names[1] {
				return st.env[i], nil
			}
		}
	}
	if i, ok := t.names[names[0]]; ok && len(names) == 1 {
		return st.env[i], nil
	}
	return nil, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" does not exist", strings.Join(names, "."))
}

// plBool is a boolean literal.
func plBool(b bool) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: b}}, Location: -1}}}
}

// plClockFuncs are the functions of the current time: a view's rows
// cannot depend on when they were computed.
var plClockFuncs = map[string]bool{"now": true, "statement_timestamp": true, "transaction_timestamp": true,
	"clock_timestamp": true, "timeofday": true, "proctime": true}

// checkClock refuses an expression reading the current time (now(),
// CURRENT_TIMESTAMP, ...) or the session (CURRENT_USER, ...).
func (t *plTrans) checkClock(e *pg_query.Node) error {
	var err error
	walkMessages(e.ProtoReflect(), func(m proto.Message) {
		switch m := m.(type) {
		case *pg_query.SQLValueFunction:
			err = plRefuse(t.fn, "it reads the current time or session (SQL value function)")
		case *pg_query.FuncCall:
			if n := m.Funcname[len(m.Funcname)-1].GetString_(); n != nil && plClockFuncs[n.Sval] {
				err = plRefuse(t.fn, "it calls "+n.Sval+"(), the current time")
			}
		}
	})
	return err
}
