package sql

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// PL/pgSQL control flow: blocks (with their exception handlers), IF,
// CASE, the loops and EXIT/CONTINUE. EXIT and CONTINUE travel up as a
// *plExit error to the loop (or labelled block) they name; RETURN as
// errPlReturn to the function.

// plExit is EXIT (or CONTINUE) [label] on its way to its loop.
type plExit struct {
	label string
	cont  bool
}

func (e *plExit) Error() string { return "EXIT " + e.label }

// misplaced is the error of an EXIT or CONTINUE that found no loop.
func (e *plExit) misplaced() error {
	if e.cont {
		return repr.Errorf(repr.CodeSyntax, "CONTINUE cannot be used outside a loop")
	}
	return repr.Errorf(repr.CodeSyntax, "EXIT cannot be used outside a loop, unless it has a label")
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
		if run := plStmts[kind]; run != nil {
			return run(x, f)
		}
		return repr.Unsupported("PL/pgSQL statement %s", strings.ToUpper(strings.TrimPrefix(kind, "PLpgSQL_stmt_")))
	}
	return nil
}

// plStmts maps each statement kind the interpreter runs to its function.
var plStmts map[string]func(*plExec, map[string]json.RawMessage) error

func init() {
	plStmts = map[string]func(*plExec, map[string]json.RawMessage) error{
		"PLpgSQL_stmt_block":        (*plExec).block,
		"PLpgSQL_stmt_if":           (*plExec).ifStmt,
		"PLpgSQL_stmt_case":         (*plExec).caseStmt,
		"PLpgSQL_stmt_loop":         (*plExec).loop,
		"PLpgSQL_stmt_while":        (*plExec).while,
		"PLpgSQL_stmt_fori":         (*plExec).forInt,
		"PLpgSQL_stmt_fors":         (*plExec).forQuery,
		"PLpgSQL_stmt_dynfors":      (*plExec).forDynamic,
		"PLpgSQL_stmt_foreach_a":    (*plExec).forEach,
		"PLpgSQL_stmt_exit":         (*plExec).exit,
		"PLpgSQL_stmt_return":       (*plExec).ret,
		"PLpgSQL_stmt_return_next":  (*plExec).retNext,
		"PLpgSQL_stmt_return_query": (*plExec).retQuery,
		"PLpgSQL_stmt_raise":        (*plExec).raise,
		"PLpgSQL_stmt_assert":       (*plExec).assert,
		"PLpgSQL_stmt_perform":      (*plExec).perform,
		"PLpgSQL_stmt_assign":       (*plExec).assign,
		"PLpgSQL_stmt_execsql":      (*plExec).execSQL,
		"PLpgSQL_stmt_dynexecute":   (*plExec).dynExecute,
		"PLpgSQL_stmt_getdiag":      (*plExec).getDiag,
		"PLpgSQL_stmt_commit":       (*plExec).commit,
		"PLpgSQL_stmt_call":         (*plExec).callProc,
		"PLpgSQL_stmt_rollback":     (*plExec).rollback,
	}
}

// labelOf reads a statement's label ("" when none).
func labelOf(f map[string]json.RawMessage) string {
	var l string
	if f["label"] != nil {
		_ = json.Unmarshal(f["label"], &l)
	}
	return l
}

// block runs BEGIN ... [EXCEPTION ...] END; an EXIT naming its label
// leaves it.
func (x *plExec) block(f map[string]json.RawMessage) error {
	var err error
	if f["exceptions"] != nil {
		err = x.guarded(f)
	} else {
		err = x.stmts(f["body"])
	}
	if e, ok := err.(*plExit); ok && !e.cont && e.label != "" && e.label == labelOf(f) {
		return nil
	}
	return err
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

// caseStmt runs CASE [e] WHEN ... THEN ... [ELSE ...] END CASE: the
// searched form tests each WHEN; the simple form sets the hidden case
// variable (t_varno) to e first, which the WHENs compare.
func (x *plExec) caseStmt(f map[string]json.RawMessage) error {
	if f["t_expr"] != nil {
		q, err := exprOf(f["t_expr"])
		if err != nil {
			return err
		}
		v, err := x.evalValue(q)
		if err != nil {
			return err
		}
		var varno int
		_ = json.Unmarshal(f["t_varno"], &varno)
		cv := x.datums[varno]
		cv.t, cv.v = v.t, v.d
	}
	var whens []struct {
		W map[string]json.RawMessage `json:"PLpgSQL_case_when"`
	}
	if err := json.Unmarshal(f["case_when_list"], &whens); err != nil {
		return err
	}
	for _, w := range whens {
		ok, err := x.cond(w.W["expr"])
		if err != nil {
			return err
		}
		if ok {
			return x.stmts(w.W["stmts"])
		}
	}
	if string(f["have_else"]) != "true" {
		return repr.Errorf("20000", "case not found").WithHint("CASE statement is missing ELSE part.")
	}
	return x.stmts(f["else_stmts"])
}

// iterate runs a loop body once and says whether the loop goes on: an
// EXIT or CONTINUE for this loop (unlabelled, or naming label) is handled
// here, others travel on.
func (x *plExec) iterate(label string, body json.RawMessage) (bool, error) {
	if err := x.interrupted(); err != nil {
		return false, err
	}
	err := x.stmts(body)
	e, ok := err.(*plExit)
	if !ok {
		return err == nil, err
	}
	if e.label != "" && e.label != label {
		return false, err
	}
	return e.cont, nil
}

// loop runs LOOP ... END LOOP until EXIT.
func (x *plExec) loop(f map[string]json.RawMessage) error {
	for {
		more, err := x.iterate(labelOf(f), f["body"])
		if !more || err != nil {
			return err
		}
	}
}

// while runs WHILE cond LOOP ... END LOOP.
func (x *plExec) while(f map[string]json.RawMessage) error {
	for {
		ok, err := x.cond(f["cond"])
		if err != nil || !ok {
			return err
		}
		more, err := x.iterate(labelOf(f), f["body"])
		if !more || err != nil {
			return err
		}
	}
}

// forInt runs FOR i IN [REVERSE] lo .. hi [BY step] LOOP ... END LOOP.
func (x *plExec) forInt(f map[string]json.RawMessage) error {
	var target struct {
		Var *plVarDecl `json:"PLpgSQL_var"`
	}
	if err := json.Unmarshal(f["var"], &target); err != nil || target.Var == nil {
		return repr.Unsupported("FOR over an integer range into this target")
	}
	bound := func(key string, def int64) (int64, error) {
		if f[key] == nil {
			return def, nil
		}
		q, err := exprOf(f[key])
		if err != nil {
			return 0, err
		}
		d, err := x.evalAs(q, repr.Int8)
		if err != nil {
			return 0, err
		}
		if d.IsNull() {
			return 0, repr.Errorf("22004", "%s bound of FOR loop cannot be null", map[string]string{"lower": "lower", "upper": "upper", "step": "BY value"}[key])
		}
		return d.Int(), nil
	}
	lo, err := bound("lower", 0)
	if err != nil {
		return err
	}
	hi, err := bound("upper", 0)
	if err != nil {
		return err
	}
	step, err := bound("step", 1)
	if err != nil {
		return err
	}
	if step <= 0 {
		return repr.Errorf("22023", "BY value of FOR loop must be greater than zero")
	}
	reverse := string(f["reverse"]) == "true"
	v := x.datums[x.vars[target.Var.Refname]]
	found := false
	for i := lo; reverse && i >= hi || !reverse && i <= hi; {
		found = true
		d, err := x.convert(repr.NewInt(i), repr.Int8, v.t)
		if err != nil {
			return err
		}
		v.v = d
		more, err := x.iterate(labelOf(f), f["body"])
		if !more || err != nil {
			x.setFound(found)
			return err
		}
		if reverse {
			i -= step
		} else {
			i += step
		}
	}
	x.setFound(found)
	return nil
}

// exit runs EXIT/CONTINUE [label] [WHEN cond].
func (x *plExec) exit(f map[string]json.RawMessage) error {
	if f["cond"] != nil {
		ok, err := x.cond(f["cond"])
		if err != nil || !ok {
			return err
		}
	}
	return &plExit{label: labelOf(f), cont: string(f["is_exit"]) != "true"}
}

// guarded runs a block with exception handlers: its statements run after
// a savepoint, so a caught error rolls back the block's writes (as
// PostgreSQL's subtransaction does) before the first handler whose
// conditions match runs; SQLSTATE and SQLERRM hold the error there.
func (x *plExec) guarded(f map[string]json.RawMessage) error {
	if x.s.tx == txIdle {
		return repr.Unsupported("PL/pgSQL EXCEPTION handlers outside a transaction")
	}
	name := "eddy_pl_" + itoa(len(x.s.blk.savepoints))
	if err := x.inBlock(func() error { return x.s.savepoint(name) }); err != nil {
		return err
	}
	err := x.stmts(f["body"])
	var e *repr.Error
	if err == nil || !errors.As(err, &e) {
		if rerr := x.inBlock(func() error { return x.s.release(name) }); rerr != nil && err == nil {
			return rerr
		}
		return err
	}
	var exc struct {
		B struct {
			List []struct {
				E struct {
					Conds []struct {
						C struct {
							Name string `json:"condname"`
						} `json:"PLpgSQL_condition"`
					} `json:"conditions"`
					Action json.RawMessage `json:"action"`
				} `json:"PLpgSQL_exception"`
			} `json:"exc_list"`
		} `json:"PLpgSQL_exception_block"`
	}
	if err := json.Unmarshal(f["exceptions"], &exc); err != nil {
		return err
	}
	for _, h := range exc.B.List {
		for _, c := range h.E.Conds {
			if e.Unsupported || !conditionMatches(c.C.Name, e.Code) {
				continue
			}
			if rerr := x.inBlock(func() error { return x.s.rollbackTo(name) }); rerr != nil {
				return rerr
			}
			_ = x.inBlock(func() error { return x.s.release(name) })
			return x.handle(e, h.E.Action)
		}
	}
	return err
}

// inBlock runs a savepoint operation of an exception block: in an
// implicit block (several statements in one Query message), where a
// client's SAVEPOINT is refused, the block's own savepoints still work.
func (x *plExec) inBlock(fn func() error) error {
	implicit := x.s.blk.implicit
	x.s.blk.implicit = false
	defer func() { x.s.blk.implicit = implicit }()
	return fn()
}

// handle runs an exception handler's statements for error e.
func (x *plExec) handle(e *repr.Error, action json.RawMessage) error {
	for _, n := range []string{"sqlstate", "sqlerrm"} {
		if i, ok := x.vars[n]; ok {
			x.datums[i].t = repr.Text
			x.datums[i].v = repr.NewText(map[string]string{"sqlstate": e.Code, "sqlerrm": e.Message}[n])
		}
	}
	x.errs = append(x.errs, e)
	defer func() { x.errs = x.errs[:len(x.errs)-1] }()
	return x.stmts(action)
}

// conditionMatches reports whether an exception condition (a name,
// OTHERS, or a SQLSTATE) catches an error of SQLSTATE code. A class code
// (ending in 000) catches its whole class; OTHERS catches all but
// query_canceled and assert_failure, as in PostgreSQL.
func conditionMatches(cond, code string) bool {
	if cond == "others" {
		return code != repr.CodeQueryCanceled && code != "P0004"
	}
	c := cond
	if !(len(cond) == 5 && strings.ToUpper(cond) == cond) {
		var ok bool
		if c, ok = plConditions[cond]; !ok {
			return false
		}
	}
	if strings.HasSuffix(c, "000") {
		return strings.HasPrefix(code, c[:2])
	}
	return c == code
}
