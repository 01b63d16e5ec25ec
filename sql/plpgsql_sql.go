package sql

import (
	"encoding/json"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// PL/pgSQL statements that run SQL: assignments, PERFORM, SQL statements
// with or without INTO, EXECUTE, FOR over a query, GET DIAGNOSTICS,
// RAISE and ASSERT. Each sets FOUND and ROW_COUNT as PostgreSQL does.

// plResult is what one SQL statement of a block produced: its rows (a
// query's, or RETURNING's), their columns and the rows it processed.
type plResult struct {
	rows  []repr.Row
	cols  []planner.ResultColumn
	count int64
}

// assign runs var := expr.
func (x *plExec) assign(f map[string]json.RawMessage) error {
	q, err := exprOf(f["expr"])
	if err != nil {
		return err
	}
	var varno int
	_ = json.Unmarshal(f["varno"], &varno)
	lhs, rhs, ok := strings.Cut(q, ":=")
	if !ok {
		lhs, rhs, ok = strings.Cut(q, "=")
	}
	if !ok || strings.Contains(lhs, "[") {
		return repr.Unsupported("PL/pgSQL assignment %s", q)
	}
	if t := x.datums[varno]; !t.isFld && !t.rec && !t.isRow {
		d, err := x.evalAs(rhs, t.t)
		if err != nil {
			return err
		}
		return x.setVar(varno, plValue{d, t.t})
	}
	v, err := x.evalValue(rhs)
	if err != nil {
		return err
	}
	return x.setVar(varno, v)
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
	x.rowCount = int64(len(rows))
	x.setFound(len(rows) > 0)
	return nil
}

// execSQL runs a SQL statement of the block, with INTO its first row's
// values go to the target.
func (x *plExec) execSQL(f map[string]json.RawMessage) error {
	q, err := exprOf(f["sqlstmt"])
	if err != nil {
		return err
	}
	n, err := x.substitute(q)
	if err != nil {
		return err
	}
	into := string(f["into"]) == "true"
	if n.GetSelectStmt() != nil && !into {
		return repr.Errorf(repr.CodeSyntax, "query has no destination for result data").
			WithHint("If you want to discard the results of a SELECT, use PERFORM instead.")
	}
	res, err := x.runNode(n, q)
	if err != nil {
		return err
	}
	x.rowCount = res.count
	x.setFound(res.count > 0)
	if !into {
		return nil
	}
	return x.into(f, res, n.GetSelectStmt() != nil)
}

// into assigns a statement's first row to the INTO target: STRICT (and
// a DML statement's RETURNING) wants exactly one row (P0002, P0003); no
// row sets the target to NULLs.
func (x *plExec) into(f map[string]json.RawMessage, res plResult, query bool) error {
	strict := string(f["strict"]) == "true"
	switch {
	case len(res.rows) == 0 && strict:
		return repr.Errorf("P0002", "query returned no rows")
	case len(res.rows) > 1 && (strict || !query):
		return repr.Errorf("P0003", "query returned more than one row").
			WithHint("Make sure the query returns a single row, or use LIMIT 1.")
	}
	var row repr.Row
	if len(res.rows) > 0 {
		row = res.rows[0]
	}
	return x.assignRow(f["target"], res.cols, row)
}

// assignRow assigns row (nil: all NULL) of cols to a target: a record
// takes the row, a row of variables takes its columns in order.
func (x *plExec) assignRow(target json.RawMessage, cols []planner.ResultColumn, row repr.Row) error {
	var t struct {
		Rec *plVarDecl `json:"PLpgSQL_rec"`
		Row *plVarDecl `json:"PLpgSQL_row"`
		Var *plVarDecl `json:"PLpgSQL_var"`
	}
	if err := json.Unmarshal(target, &t); err != nil {
		return err
	}
	switch { // a table%ROWTYPE variable, which the parser takes for a scalar
	case t.Var != nil && x.datums[x.vars[t.Var.Refname]].rec:
		t.Rec, t.Var = &plVarDecl{Refname: t.Var.Refname, Dno: x.vars[t.Var.Refname]}, nil
	case t.Row != nil && len(t.Row.Fields) == 1 && x.datums[t.Row.Fields[0].Varno].rec:
		t.Rec, t.Row = &plVarDecl{Refname: t.Row.Fields[0].Name, Dno: t.Row.Fields[0].Varno}, nil
	}
	switch {
	case t.Rec != nil:
		r := x.datums[x.recDno(t.Rec)]
		r.cols = cols
		r.row = append(repr.Row(nil), row...)
		if row == nil {
			r.row = make(repr.Row, len(cols))
			for i := range r.row {
				r.row[i] = repr.Null
			}
		}
		return nil
	case t.Row != nil:
		for i, fld := range t.Row.Fields {
			v := plValue{repr.Null, repr.Text}
			if i < len(cols) {
				v.t = cols[i].Type
				if row != nil {
					v.d = row[i]
				}
			}
			if err := x.setVar(fld.Varno, v); err != nil {
				return err
			}
		}
		return nil
	case t.Var != nil:
		v := plValue{repr.Null, repr.Text}
		if len(cols) > 0 {
			v.t = cols[0].Type
			if row != nil {
				v.d = row[0]
			}
		}
		return x.setVar(x.vars[t.Var.Refname], v)
	}
	return repr.Unsupported("this PL/pgSQL INTO target")
}

// recDno is a record target's datum number (its dno, which the JSON
// leaves out when 0).
func (x *plExec) recDno(r *plVarDecl) int {
	if r.Dno != 0 {
		return r.Dno
	}
	return x.vars[r.Refname]
}

// runNode runs a parsed, substituted statement: a SELECT through
// queryNode, anything else as a nested statement of the session.
func (x *plExec) runNode(n *pg.Node, text string) (plResult, error) {
	if n.GetSelectStmt() != nil {
		rows, cols, err := x.queryNode(n, text)
		return plResult{rows, cols, int64(len(rows))}, err
	}
	sql, err := parse.Deparse(n)
	if err != nil {
		return plResult{}, err
	}
	return x.run(sql)
}

// dynExecute runs EXECUTE string-expression [INTO target] [USING ...].
func (x *plExec) dynExecute(f map[string]json.RawMessage) error {
	q, err := exprOf(f["query"])
	if err != nil {
		return err
	}
	res, err := x.dynamic(q, f["params"])
	if err != nil {
		return err
	}
	x.rowCount = res.count
	x.setFound(res.count > 0)
	if string(f["into"]) != "true" {
		return nil
	}
	return x.into(f, res, true)
}

// dynamic evaluates a query string and runs it, its $n the values of
// params (EXECUTE's USING).
func (x *plExec) dynamic(q string, params json.RawMessage) (plResult, error) {
	text, ok, err := x.evalText(q)
	if err != nil {
		return plResult{}, err
	}
	if !ok {
		return plResult{}, repr.Errorf("22004", "query string argument of EXECUTE is null")
	}
	var ps []json.RawMessage
	if params != nil {
		if err := json.Unmarshal(params, &ps); err != nil {
			return plResult{}, err
		}
	}
	if len(ps) == 0 {
		if n, err := parseOne(text); err == nil && n.GetSelectStmt() != nil {
			rows, cols, err := x.queryNode(n, text)
			return plResult{rows, cols, int64(len(rows))}, err
		}
		return x.run(text)
	}
	using := make([]plValue, len(ps))
	for i, p := range ps {
		pq, err := exprOf(p)
		if err != nil {
			return plResult{}, err
		}
		if using[i], err = x.evalValue(pq); err != nil {
			return plResult{}, err
		}
	}
	x.using = using
	n, err := x.substitute(text)
	x.using = nil
	if err != nil {
		return plResult{}, err
	}
	return x.runNode(n, text)
}

// forQuery runs FOR target IN query LOOP ... END LOOP over the query's
// rows, computed before the first iteration.
func (x *plExec) forQuery(f map[string]json.RawMessage) error {
	q, err := exprOf(f["query"])
	if err != nil {
		return err
	}
	rows, cols, err := x.query(q)
	if err != nil {
		return err
	}
	return x.forRows(f, plResult{rows: rows, cols: cols})
}

// forDynamic runs FOR target IN EXECUTE string [USING ...] LOOP ... END
// LOOP.
func (x *plExec) forDynamic(f map[string]json.RawMessage) error {
	q, err := exprOf(f["query"])
	if err != nil {
		return err
	}
	res, err := x.dynamic(q, f["params"])
	if err != nil {
		return err
	}
	return x.forRows(f, res)
}

// forRows runs a FOR loop's body once per row of res, assigned to its
// target; FOUND says whether it ran at all.
func (x *plExec) forRows(f map[string]json.RawMessage, res plResult) error {
	for _, r := range res.rows {
		if err := x.assignRow(f["var"], res.cols, r); err != nil {
			return err
		}
		more, err := x.iterate(labelOf(f), f["body"])
		if !more || err != nil {
			x.setFound(true)
			return err
		}
	}
	x.setFound(len(res.rows) > 0)
	return nil
}

// forEach runs FOREACH v IN ARRAY a LOOP ... END LOOP over a
// one-dimensional array's elements.
func (x *plExec) forEach(f map[string]json.RawMessage) error {
	var slice, varno int
	_ = json.Unmarshal(f["slice"], &slice)
	_ = json.Unmarshal(f["varno"], &varno)
	if slice != 0 {
		return repr.Unsupported("FOREACH ... SLICE")
	}
	q, err := exprOf(f["expr"])
	if err != nil {
		return err
	}
	arr, err := x.evalValue(q)
	if err != nil {
		return err
	}
	if arr.d.IsNull() {
		return repr.Errorf("22004", "FOREACH expression must not be null")
	}
	if arr.t.Family != repr.FamArray {
		return repr.Errorf(repr.CodeDatatypeMismatch, "FOREACH expression must yield an array, not type %s", arr.t.Name())
	}
	for _, e := range arr.d.Array() {
		if err := x.setVar(varno, plValue{e, arr.t.ElemType()}); err != nil {
			return err
		}
		more, err := x.iterate(labelOf(f), f["body"])
		if !more || err != nil {
			return err
		}
	}
	return nil
}

// getDiag runs GET DIAGNOSTICS v = ROW_COUNT.
func (x *plExec) getDiag(f map[string]json.RawMessage) error {
	var items []struct {
		I struct {
			Kind   string `json:"kind"`
			Target int    `json:"target"`
		} `json:"PLpgSQL_diag_item"`
	}
	if err := json.Unmarshal(f["diag_items"], &items); err != nil {
		return err
	}
	if string(f["is_stacked"]) == "true" {
		return repr.Unsupported("GET STACKED DIAGNOSTICS")
	}
	for _, it := range items {
		if it.I.Kind != "ROW_COUNT" {
			return repr.Unsupported("GET DIAGNOSTICS %s", it.I.Kind)
		}
		if err := x.setVar(it.I.Target, plValue{repr.NewInt(x.rowCount), repr.Int8}); err != nil {
			return err
		}
	}
	return nil
}

// run executes SQL text as nested statements of the session and returns
// the last one's RETURNING rows and processed count.
func (x *plExec) run(text string) (plResult, error) {
	if err := x.interrupted(); err != nil {
		return plResult{}, err
	}
	stmts, err := x.s.Prepare(x.ctx, text, nil)
	if err != nil {
		return plResult{}, err
	}
	var res plResult
	for _, st := range stmts {
		if st.stmt.AST != nil && st.stmt.AST.GetTransactionStmt() != nil {
			return plResult{}, repr.Errorf("2D000", "invalid transaction termination")
		}
		if res, err = x.runStatement(st); err != nil {
			return plResult{}, err
		}
	}
	return res, nil
}

// runStatement binds and executes one prepared statement.
func (x *plExec) runStatement(st *Statement) (plResult, error) {
	p, err := st.Bind(x.ctx, nil, nil, nil)
	if err != nil {
		return plResult{}, err
	}
	defer p.Close()
	tag, _, err := p.Execute(x.ctx, plDiscard{}, 0)
	if err != nil {
		return plResult{}, err
	}
	res := plResult{rows: p.rows}
	for _, c := range st.cols {
		res.cols = append(res.cols, planner.ResultColumn{Name: c.Name, Type: c.Type})
	}
	if i := strings.LastIndexByte(tag, ' '); i >= 0 {
		res.count, _ = strconv.ParseInt(tag[i+1:], 10, 64)
	}
	return res, nil
}

// exec runs SQL text as nested statements of the session (BEGIN, COMMIT
// and ROLLBACK too: atomic's own block).
func (x *plExec) exec(text string) error {
	stmts, err := x.s.Prepare(x.ctx, text, nil)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if _, err := x.runStatement(st); err != nil {
			return err
		}
	}
	return nil
}

// plDiscard drops the rows of a nested statement.
type plDiscard struct{}

// WriteRow implements RowWriter.
func (plDiscard) WriteRow([][]byte) error { return nil }
