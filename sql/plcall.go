package sql

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Calls of PL/pgSQL functions: the session's expr.Routines. A call binds
// the arguments to the parameters' datums, runs the body and returns the
// result rows (RETURN's value, the OUT parameters, or the rows RETURN
// NEXT and RETURN QUERY collected, materialized as PostgreSQL's
// tuplestore). A body that may write runs in the session's block, or in
// a block of its own when there is none (so an error undoes its writes).
// Calls nest at most plMaxDepth deep (54001, PostgreSQL's stack depth
// limit), and each polls the running statement's context.

// plMaxDepth bounds the nesting of PL/pgSQL calls (recursion).
const plMaxDepth = 200

// plCall is one call of a function.
type plCall struct {
	def  *FuncDef
	name string
	// rows are the result: one row for a function that is not
	// set-returning (once RETURN ran), the collected rows otherwise.
	rows     []repr.Row
	returned bool
}

// plParsed caches parsed bodies by their CREATE text: parsing is
// deterministic, and the tree is read-only once parsed. It is emptied
// once it holds plParsedMax bodies (replaced bodies stay until then).
var (
	plParsed     sync.Map
	plParsedSize atomic.Int64
)

// plParsedMax bounds the bodies plParsed holds.
const plParsedMax = 4096

// sessionRoutines is the session's expr.Routines.
type sessionRoutines struct{ s *Session }

// CallRoutine implements expr.Routines.
func (r sessionRoutines) CallRoutine(id uint64, args []repr.Datum) ([]repr.Row, error) {
	s := r.s
	o := s.e.objectByID(id)
	if o == nil || o.Kind != relFunction || o.Function.Lang == "" {
		return nil, repr.Errorf(repr.CodeUndefinedFunction, "function with OID %d does not exist", relOID(id))
	}
	if s.plDepth >= plMaxDepth {
		return nil, repr.Errorf("54001", "stack depth limit exceeded").
			WithHint("PL/pgSQL calls nest at most %d deep.", plMaxDepth)
	}
	s.plDepth++
	ctx := s.stmtCtx
	defer func() { s.plDepth--; s.stmtCtx = ctx }()
	return s.callPL(cmp.Or[context.Context](ctx, context.Background()), o, args)
}

// callPL runs one call of function o over args.
func (s *Session) callPL(ctx context.Context, o *Object, args []repr.Datum) ([]repr.Row, error) {
	f := o.Function
	head := plHead(o.Name, f)
	src, err := plBody(f)
	if err != nil {
		return nil, err
	}
	fn, ok := plParsed.Load(head + src)
	if !ok {
		parsed, err := parsePlpgsql(head, src)
		if err != nil {
			return nil, err
		}
		if plParsedSize.Add(1) > plParsedMax {
			plParsed.Clear()
			plParsedSize.Store(1)
		}
		fn, _ = plParsed.LoadOrStore(head+src, parsed)
	}
	tree := fn.(map[string]json.RawMessage)
	c := &plCall{def: f, name: o.Name}
	x := &plExec{ctx: ctx, s: s, vars: map[string]int{}, call: c, nparams: len(f.Modes)}
	vals := make([]plValue, len(args))
	for i, a := range args {
		vals[i] = plValue{a, f.Args[i]}
	}
	run := func() error { return x.function(tree, vals) }
	if plWrites(src) {
		run = func() error { return x.atomic(func() error { return x.function(tree, vals) }) }
	}
	if err := run(); err != nil {
		return nil, err
	}
	return c.result(x)
}

// plWrites reports whether a body may write (or needs a savepoint): it
// runs SQL statements, dynamic SQL or has exception handlers.
func plWrites(src string) bool {
	l := strings.ToLower(src)
	for _, w := range []string{"insert", "update", "delete", "execute", "exception", "perform", "create", "drop", "alter", "truncate", "copy", "grant", "revoke", "nextval", "setval", "commit", "rollback"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// result is the call's rows once the body ended: a scalar function that
// never ran RETURN is 2F005; the OUT parameters' values make the row of
// a function with OUT parameters.
func (c *plCall) result(x *plExec) ([]repr.Row, error) {
	f := c.def
	switch {
	case f.RetSet:
		return c.rows, nil
	case c.returned:
		return c.rows, nil
	case f.Void:
		return []repr.Row{{repr.NewText("")}}, nil
	case len(f.OutArgs) > 0:
		return []repr.Row{x.outRow()}, nil
	}
	return nil, repr.Errorf("2F005", "control reached end of function without RETURN")
}

// bindParam types parameter datum i and gives an IN or INOUT parameter
// its argument (an OUT one starts NULL).
func (c *plCall) bindParam(x *plExec, i int, v *plVar, args []plValue) error {
	in, out, tab := 0, 0, 0
	for _, m := range c.def.Modes[:i] {
		switch m {
		case 'i':
			in++
		case 'b':
			in, out = in+1, out+1
		case 'o':
			out++
		case 't':
			tab++
		}
	}
	switch c.def.Modes[i] {
	case 'i', 'b':
		v.t, v.v = args[in].t, args[in].d
	case 'o':
		v.t = c.def.OutArgs[out].Type
	case 't':
		v.t = c.def.RetCols[tab].Type
	}
	return nil
}

// outRow is the row of the OUT (and INOUT, TABLE) parameters' values.
func (x *plExec) outRow() repr.Row {
	var row repr.Row
	for i, m := range x.call.def.Modes {
		if m != 'i' {
			row = append(row, x.datums[i].v)
		}
	}
	return row
}

// ret runs RETURN [expr]: a scalar function's value (of a variable when
// the parser made it retvarno), the end of a set-returning one, the OUT
// parameters' row; in a DO block it just ends the block.
func (x *plExec) ret(f map[string]json.RawMessage) error {
	c := x.call
	if c == nil {
		if f["expr"] != nil {
			return repr.Errorf(repr.CodeDatatypeMismatch, "RETURN cannot have a parameter in function returning void")
		}
		return errPlReturn
	}
	d := c.def
	switch {
	case f["lineno"] == nil:
		return errPlReturn // the parser's RETURN at the end: fell off the end
	case d.RetSet:
	case d.Void:
		c.rows = []repr.Row{{repr.NewText("")}}
	case len(d.OutArgs) > 0:
		c.rows = []repr.Row{x.outRow()}
	default:
		v, err := x.retValue(f, d.Ret)
		if err != nil {
			return err
		}
		c.rows = []repr.Row{{v}}
	}
	c.returned = true
	return errPlReturn
}

// retValue is RETURN's (or RETURN NEXT's) value as type t: its
// expression, or the variable retvarno names.
func (x *plExec) retValue(f map[string]json.RawMessage, t repr.T) (repr.Datum, error) {
	if f["expr"] != nil {
		q, err := exprOf(f["expr"])
		if err != nil {
			return repr.Null, err
		}
		return x.evalAs(q, t)
	}
	var varno int
	_ = json.Unmarshal(f["retvarno"], &varno)
	v := x.datums[varno]
	if v.rec || v.isRow {
		return repr.Null, repr.Unsupported("returning the record %s", v.name)
	}
	return x.convert(v.v, v.t, t)
}

// retNext runs RETURN NEXT [expr]: one more row of a set-returning
// function (a record variable's row, the value, or the OUT parameters).
func (x *plExec) retNext(f map[string]json.RawMessage) error {
	c := x.call
	if c == nil || !c.def.RetSet {
		return repr.Errorf(repr.CodeSyntax, "cannot use RETURN NEXT in a non-SETOF function")
	}
	if err := x.interrupted(); err != nil {
		return err
	}
	d := c.def
	if len(d.OutArgs) > 0 || d.Modes != "" && strings.ContainsRune(d.Modes, 't') {
		c.rows = append(c.rows, x.outRow())
		return nil
	}
	if q, err := exprOf(f["expr"]); err == nil && strings.HasPrefix(q, "(") && strings.HasSuffix(q, ")") {
		if i, ok := x.vars[strings.ToLower(q[1:len(q)-1])]; ok && x.datums[i].rec {
			v := x.datums[i]
			return x.appendRows([]repr.Row{v.row}, v.cols)
		}
	}
	if len(d.RetCols) > 1 {
		return repr.Unsupported("RETURN NEXT of an expression in a function returning rows")
	}
	v, err := x.retValue(f, d.RetCols[0].Type)
	if err != nil {
		return err
	}
	c.rows = append(c.rows, repr.Row{v})
	return nil
}

// retQuery runs RETURN QUERY query (or EXECUTE string [USING ...]): its
// rows are added to the result, cast to the result columns' types.
func (x *plExec) retQuery(f map[string]json.RawMessage) error {
	c := x.call
	if c == nil || !c.def.RetSet {
		return repr.Errorf(repr.CodeSyntax, "cannot use RETURN QUERY in a non-SETOF function")
	}
	var res plResult
	var err error
	if f["dynquery"] != nil {
		var q string
		if q, err = exprOf(f["dynquery"]); err == nil {
			res, err = x.dynamic(q, f["params"])
		}
	} else {
		var q string
		if q, err = exprOf(f["query"]); err == nil {
			res.rows, res.cols, err = x.query(q)
		}
	}
	if err != nil {
		return err
	}
	x.rowCount = int64(len(res.rows))
	x.setFound(len(res.rows) > 0)
	return x.appendRows(res.rows, res.cols)
}

// appendRows adds rows of cols to the result, cast to its columns (42804
// when the shapes differ).
func (x *plExec) appendRows(rows []repr.Row, cols []planner.ResultColumn) error {
	want := x.call.def.RetCols
	if len(cols) != len(want) {
		return repr.Errorf(repr.CodeDatatypeMismatch, "structure of query does not match function result type").
			WithDetail("Number of returned columns (%d) does not match expected column count (%d).", len(cols), len(want))
	}
	for _, r := range rows {
		out := make(repr.Row, len(r))
		for i := range r {
			d, err := x.convert(r[i], cols[i].Type, want[i].Type)
			if err != nil {
				return err
			}
			out[i] = d
		}
		x.call.rows = append(x.call.rows, out)
	}
	return nil
}

// objectByID returns the catalog object id (nil if none) under the
// engine's read lock, released by defer.
func (e *Engine) objectByID(id uint64) *Object {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.cat.byID[id]
}
