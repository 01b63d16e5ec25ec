package sql

import (
	"context"
	"errors"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// Procedures (CREATE PROCEDURE, CALL, DROP PROCEDURE). A procedure is a
// function object marked Proc (prokind 'p') whose body the PL/pgSQL
// interpreter runs: a LANGUAGE plpgsql body as a function's, a LANGUAGE
// sql body translated into PL/pgSQL statements (sqlProcSource). Its
// result is the row of its OUT and INOUT parameters, or none. CALL
// p(args) is planned as SELECT * FROM p(args') with the procedures, not
// the functions, in reach (planner.Options.CallProcedure), where args'
// leaves out the arguments written for OUT parameters (PostgreSQL 14+
// requires them and ignores their values); so describing, parameters,
// EXECUTE privileges and running are those of a query over a PL/pgSQL
// table function. A call of a procedure outside CALL is 42809.

// procObject builds the catalog entry CREATE PROCEDURE describes.
func (e *Engine) procObject(s *Session, cs *pg.CreateFunctionStmt, schema, name string) (*Object, error) {
	lang := functionLanguage(cs)
	if lang != "sql" && lang != "plpgsql" {
		return nil, repr.Unsupported("LANGUAGE %s", lang)
	}
	f := &FuncDef{Volatility: 'v', Lang: lang, Proc: true}
	if err := e.plParams(f, cs.Parameters); err != nil {
		return nil, err
	}
	if err := e.plResult(f, nil); err != nil {
		return nil, err
	}
	if _, err := readFunctionOptions(f, cs); err != nil {
		return nil, err
	}
	if lang == "sql" && cs.SqlBody != nil {
		body, err := atomicBody(cs.SqlBody)
		if err != nil {
			return nil, err
		}
		f.Body, f.Standard = body, true
	}
	if f.Src == "" && f.Body == "" && !f.Standard {
		return nil, repr.Errorf(codeInvalidFunctionDefinition, "no function body specified")
	}
	return &Object{Kind: relFunction, Schema: schema, Name: name, Function: f, Owner: s.newOwner()}, nil
}

// atomicBody is a BEGIN ATOMIC body's statements as SQL text, one per
// line, each ending in a semicolon.
func atomicBody(body *pg.Node) (string, error) {
	items := body.GetList().GetItems()
	if len(items) == 1 && items[0].GetList() != nil {
		items = items[0].GetList().Items
	}
	var b strings.Builder
	for _, n := range items {
		if n.GetNode() == nil {
			continue // BEGIN ATOMIC END: an empty body
		}
		text, err := parse.Deparse(n)
		if err != nil {
			return "", err
		}
		b.WriteString(text + ";\n")
	}
	return b.String(), nil
}

// plBody is the PL/pgSQL body the interpreter runs for f: its source,
// or a SQL procedure's statements translated.
func plBody(f *FuncDef) (string, error) {
	if f.Lang != "sql" {
		return f.Src, nil
	}
	return sqlProcSource(f)
}

// sqlProcSource translates a LANGUAGE sql procedure's statements into a
// PL/pgSQL block: a SELECT's rows are discarded (PERFORM) except the
// last statement's first row, which sets the OUT and INOUT parameters
// (XX000 when it returns none), as PostgreSQL's SQL procedures do; other
// statements run as written. Parameters are read by name or $n, as in
// the SQL body.
func sqlProcSource(f *FuncDef) (string, error) {
	src := f.Src
	if f.Standard {
		src = f.Body
	}
	stmts, err := parse.Parse(src)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("BEGIN\n")
	for i, st := range stmts {
		text := strings.TrimRight(strings.TrimSpace(st.SQL), ";")
		if st.AST.GetSelectStmt() == nil {
			b.WriteString(text + ";\n")
			continue
		}
		if i < len(stmts)-1 || len(f.OutArgs) == 0 {
			b.WriteString("PERFORM * FROM (" + text + ") AS eddy_proc_rows;\n")
			continue
		}
		targets := make([]string, len(f.OutArgs))
		for j, o := range f.OutArgs {
			if o.Name == "" {
				return "", repr.Unsupported("an unnamed OUT parameter of a SQL procedure")
			}
			targets[j] = pgQuoteIdent(o.Name)
		}
		b.WriteString("SELECT * INTO " + strings.Join(targets, ", ") + " FROM (" + text + ") AS eddy_proc_rows;\n")
		// PostgreSQL fails a SQL procedure whose last query has no row.
		b.WriteString("IF NOT FOUND THEN RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = 'procedure returned null record'; END IF;\n")
	}
	b.WriteString("END")
	return b.String(), nil
}

// callTemplate is the query a CALL runs, its function call replaced.
const callTemplate = "SELECT * FROM f()"

// procCall is what a CALL runs: the query, the procedure it calls (nil
// when no procedure of its name takes the arguments written: planning
// the query then reports the call as PostgreSQL does) and the
// procedures it cannot mean.
type procCall struct {
	q      *pg.Node
	proc   *FuncDef
	hidden []uint64
	// fn is a function of the name, when no procedure has it.
	fn *FuncDef
}

// plan plans the call's query with opts. A call that planning resolved
// to a built-in function (no procedure of the name takes its arguments)
// is PostgreSQL's 42809, as one of a SQL function.
func (c procCall) plan(opts planner.Options, plan func(*pg.Node, planner.Options) (*planner.Query, error)) (*planner.Query, error) {
	opts.CallProcedure, opts.CallHidden = true, c.hidden
	q, err := plan(c.q, opts)
	var e *repr.Error
	if c.fn != nil && errors.As(err, &e) && e.Code == repr.CodeUndefinedFunction {
		return nil, repr.Errorf(repr.CodeWrongObjectType, "%s(%s) is not a procedure", c.name(), typeNames(c.fn.Args)).
			WithHint("To call a function, use SELECT.").WithPosition(e.Position)
	}
	if err == nil && c.proc == nil && len(c.hidden) == 0 {
		return nil, repr.Errorf(repr.CodeWrongObjectType, "%s(%s) is not a procedure", c.name(), typeNames(c.argTypes(opts, plan))).
			WithHint("To call a function, use SELECT.")
	}
	return q, procedureError(err)
}

// argTypes are the types of the call's arguments, planned as the
// columns of a SELECT (nil when that fails).
func (c procCall) argTypes(opts planner.Options, plan func(*pg.Node, planner.Options) (*planner.Query, error)) []repr.T {
	fc := c.q.GetSelectStmt().FromClause[0].GetRangeFunction().Functions[0].GetList().Items[0].GetFuncCall()
	if len(fc.Args) == 0 {
		return nil
	}
	sel := &pg.SelectStmt{Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}
	for _, a := range fc.Args {
		sel.TargetList = append(sel.TargetList, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: a}}})
	}
	opts.CallProcedure, opts.Calls = false, nil
	q, err := plan(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, opts)
	if err != nil {
		return nil
	}
	ts := make([]repr.T, len(q.Columns))
	for i, col := range q.Columns {
		ts[i] = col.Type
	}
	return ts
}

// name is the name the call is of.
func (c procCall) name() string {
	names := stringList(c.q.GetSelectStmt().FromClause[0].GetRangeFunction().Functions[0].GetList().Items[0].GetFuncCall().Funcname)
	return names[len(names)-1]
}

// procedureError words a failed resolution as a procedure's.
func procedureError(err error) error {
	var e *repr.Error
	if !errors.As(err, &e) || e.Code != repr.CodeUndefinedFunction || !strings.HasPrefix(e.Message, "function ") {
		return err
	}
	c := *e
	c.Message = "procedure " + strings.TrimPrefix(e.Message, "function ")
	c.Hint = strings.Replace(e.Hint, "No function matches", "No procedure matches", 1)
	return &c
}

// callQuery is the query CALL cs runs, as a procCall.
func (e *Engine) callQuery(cs *pg.CallStmt) (procCall, error) {
	fc := cs.Funccall
	names := stringList(fc.Funcname)
	e.mu.RLock()
	procs := e.cat.functionsNamed(schemaOfNames(names), names[len(names)-1])
	e.mu.RUnlock()
	var c procCall
	args := fc.Args
	for _, o := range procs {
		f := o.Function
		if !f.Proc {
			c.fn = f
			continue
		}
		if kept, ok := callArgs(f, fc.Args); ok && c.proc == nil {
			c.proc, args = f, kept
		} else if !ok {
			c.hidden = append(c.hidden, o.ID)
		}
	}
	if c.proc != nil || len(c.hidden) > 0 {
		c.fn = nil
	}
	stmts, err := parseStmts(callTemplate)
	if err != nil {
		return c, err
	}
	c.q = stmts[0]
	call := c.q.GetSelectStmt().FromClause[0].GetRangeFunction().Functions[0].GetList().Items[0].GetFuncCall()
	call.Funcname, call.Args, call.Location = fc.Funcname, args, fc.Location
	return c, nil
}

// callArgs are the arguments of a CALL of f without those written for
// its OUT parameters (ok false: the arguments cannot be f's). Arguments
// written for OUT parameters are positional, or named by the parameter.
func callArgs(f *FuncDef, args []*pg.Node) ([]*pg.Node, bool) {
	var outNames []string
	nout := 0
	for i, m := range f.Modes {
		if m == 'o' {
			outNames = append(outNames, f.OutArgs[outIndex(f.Modes, i)].Name)
			nout++
		}
	}
	if nout == 0 {
		return args, true
	}
	var kept []*pg.Node
	pos := 0
	for _, a := range args {
		if na := a.GetNamedArgExpr(); na != nil {
			if !containsString(outNames, na.Name) {
				kept = append(kept, a)
			}
			continue
		}
		if pos < len(f.Modes) && f.Modes[pos] == 'o' {
			pos++
			continue
		}
		kept = append(kept, a)
		pos++
	}
	// Every OUT parameter needs an argument (PostgreSQL has no defaults
	// for them), and the IN ones what the planner checks.
	if len(args)-len(kept) != nout || len(kept) > len(f.Args) {
		return nil, false
	}
	return kept, true
}

// outIndex is the index in OutArgs of the parameter at mode position i.
func outIndex(modes string, i int) int {
	n := 0
	for _, m := range modes[:i] {
		if m == 'o' || m == 'b' {
			n++
		}
	}
	return n
}

// containsString reports whether list holds s.
func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// describeCall is the result columns and parameter types of CALL cs:
// the OUT and INOUT parameters (none for a procedure without them).
func (st *Statement) describeCall(cs *pg.CallStmt, opts planner.Options) error {
	e := st.s.e
	c, err := e.callQuery(cs)
	if err != nil {
		return err
	}
	var calls []planner.Call
	opts.Calls = &calls
	q, err := c.plan(opts, e.planQuery)
	if err != nil {
		return err
	}
	st.needs, st.needsVersion = callNeeds(st.needs, calls), st.catVersion
	st.paramTypes = q.ParamTypes
	st.cols = nil
	if c.proc != nil && len(c.proc.OutArgs) > 0 {
		st.cols = queryColumns(q.Columns)
	}
	return nil
}

// execCall executes CALL: the procedure's row of OUT and INOUT
// parameters, if it has any.
func (p *Portal) execCall(ctx context.Context, cs *pg.CallStmt) error {
	p.tag = "CALL"
	s := p.st.s
	c, err := s.e.callQuery(cs)
	if err != nil {
		return err
	}
	ectx := s.evalCtx()
	q, err := c.plan(planner.Options{ParamTypes: p.st.paramTypes, Params: p.params, TimeZone: s.settings.timeZone},
		func(n *pg.Node, opts planner.Options) (*planner.Query, error) {
			return s.e.planLockingQuery(n, opts, ectx, s.ws)
		})
	if err != nil {
		return err
	}
	plan, _, err := compile(q.Rel)
	if err != nil {
		return err
	}
	defer s.txnControl()()
	rows, err := s.e.runPlan(q, plan, pointInputs(plan), ectx, s.ws)
	if err != nil {
		return err
	}
	if c.proc != nil && len(c.proc.OutArgs) > 0 {
		p.rows = rows
	}
	return nil
}
