package planner

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Set-returning functions in FROM (generate_series(1, 10) AS g(i),
// jsonb_each(t.doc), ROWS FROM (f(...), g(...)) WITH ORDINALITY) are
// planned as an ir.FlatMap over the FROM items before them: its arguments
// may read those items' columns (a function in FROM is implicitly
// LATERAL), and over each of their rows it yields the function's rows.
// That is the cross join of the items with the function (a comma or CROSS
// JOIN), an inner join when a Filter of the ON condition follows, and
// LEFT JOIN LATERAL f(...) ON c when the FlatMap is Outer with On = c.
// The first FROM item maps over the one-row unit relation, which the
// optimizer folds into Values when the arguments are constant. Since a
// FlatMap is linear, none of this keeps state.

// windowTVFs are the window table functions (window.go, session.go), not
// set-returning functions.
var windowTVFs = map[string]bool{"tumble": true, "hop": true, "cumulate": true, "session": true}

// isTableFunc reports whether a FROM item is a set-returning function call
// (not a window table function).
func isTableFunc(rf *pg_query.RangeFunction) bool {
	for _, f := range rf.Functions {
		items := f.GetList().GetItems()
		if len(items) > 0 && items[0].GetFuncCall() != nil && windowTVFs[funcName(items[0].GetFuncCall())] {
			return false
		}
	}
	return true
}

// tableFuncItem plans a function in FROM over left (nil: none), whose
// scope columns are lcols: kind is JoinCross (a comma or CROSS JOIN),
// JoinInner or JoinLeft (with the ON condition on). It returns the joined
// relation and lcols followed by the function's columns.
func (b *builder) tableFuncItem(rf *pg_query.RangeFunction, left ir.Rel, lcols []scopeCol, parent *scope, kind ir.JoinKind, on *pg_query.Node) (ir.Rel, []scopeCol, error) {
	if left == nil {
		left = unitRel()
	}
	prev := b.naturalPrev // before planning the arguments' subqueries
	ec := &ectx{b: b, sc: &scope{cols: lcols, parent: parent}, rel: left, clause: "functions in FROM"}
	calls, fcols, err := b.tableCalls(rf, ec)
	if err != nil {
		return nil, nil, err
	}
	if err := checkDuplicateAliases(lcols, fcols); err != nil {
		return nil, nil, err
	}
	fm := &ir.FlatMap{Input: ec.rel, Funcs: calls, Ordinality: rf.Ordinality, Outer: kind == ir.JoinLeft}
	lkey, chain := 0, len(lcols) > 0 && prev[0] < prev[1] // a later item of a FROM list or join
	if b.natural[rf] && chain {
		lkey = lateralNatural(lcols, calls, prev)
	}
	if lkey > 0 {
		if !rf.Ordinality {
			fm.Ordinality = true
			fcols = append(fcols, scopeCol{table: fcols[0].table, name: naturalName, typ: repr.Int8, system: true})
		}
		fcols[len(fcols)-1].naturalKey = lkey
	} else if b.natural[rf] && !chain {
		if rf.Ordinality {
			fcols[len(fcols)-1].naturalKey = 1
		} else {
			fm.Ordinality = true
			fcols = append(fcols, scopeCol{table: fcols[0].table, name: naturalName, typ: repr.Int8, system: true, naturalKey: 1})
		}
	}
	nl := ir.Arity(ec.rel)
	// The FlatMap's row is left (widened by decorrelated subqueries in the
	// arguments), then the function's columns.
	if b.natural[rf] && chain && lkey == 0 {
		// The order of the rows joined is PostgreSQL's plan's: none.
		lcols = slices.Clone(lcols)
		for i := range lcols {
			lcols[i].naturalKey = 0
		}
	}
	wide := append(append([]scopeCol(nil), lcols...), make([]scopeCol, nl-len(lcols))...)
	for i := len(lcols); i < nl; i++ {
		wide[i] = scopeCol{hidden: true, typ: ec.rel.ColTypes()[i]}
	}
	wide = append(wide, fcols...)
	var rel ir.Rel = fm
	if on != nil {
		oc := &ectx{b: b, sc: &scope{cols: wide, parent: parent}, rel: fm, clause: "JOIN/ON", noSubquery: true}
		pred, err := oc.predicate(on)
		if err != nil {
			return nil, nil, err
		}
		if kind == ir.JoinLeft {
			fm.On = []expr.Expr{pred}
		} else {
			rel = ir.NewFilter(fm, pred)
		}
	}
	proj := identityCols(len(lcols))
	for i := range fcols {
		proj = append(proj, nl+i)
	}
	if m, mc := b.markFlatMap(fm, nl, fcols); m >= 0 {
		proj, fcols = append(proj, m), append(fcols[:len(fcols):len(fcols)], mc)
	}
	return ir.NewProject(rel, proj...), append(append([]scopeCol(nil), lcols...), fcols...), nil
}

// tableCalls builds the calls of a function item and names their columns
// (with the alias's table and column names, and ordinality). Arguments are
// built in ec, whose relation decorrelated subqueries may widen. A
// record-returning function takes its columns from its column definition
// list: the item's (`f(...) AS x(a int)`) or, in ROWS FROM, its own.
func (b *builder) tableCalls(rf *pg_query.RangeFunction, ec *ectx) ([]expr.TableCall, []scopeCol, error) {
	var calls []expr.TableCall
	var cols []scopeCol
	for _, f := range rf.Functions {
		items := f.GetList().GetItems()
		fc := items[0].GetFuncCall()
		if fc == nil {
			return nil, nil, repr.Unsupported("FROM item %s", nodeName(items[0]))
		}
		var defs []*pg_query.Node
		if len(items) > 1 {
			defs = items[1].GetList().GetItems()
		}
		split := splitUnnest(fc)
		if err := checkItemColumnDefs(rf, len(split)); err != nil {
			return nil, nil, err
		}
		if len(rf.Coldeflist) > 0 {
			defs = rf.Coldeflist
		}
		for _, fc := range split {
			call, err := ec.tableCall(fc, defs)
			if err != nil {
				return nil, nil, err
			}
			calls = append(calls, call)
			for _, c := range call.Func.Cols {
				name := c.Name
				if name == "" {
					name = call.Func.Name
				}
				cols = append(cols, scopeCol{name: name, typ: c.T})
			}
		}
	}
	if rf.Ordinality {
		cols = append(cols, scopeCol{name: "ordinality", typ: repr.Int8})
	}
	return calls, cols, nameFuncCols(rf, calls, cols)
}

// checkItemColumnDefs applies PostgreSQL's checks of a FROM item's own
// column definition list (42601): it needs exactly one function (n calls
// after unnest's expansion) and no WITH ORDINALITY.
func checkItemColumnDefs(rf *pg_query.RangeFunction, n int) error {
	if len(rf.Coldeflist) == 0 {
		return nil
	}
	pos := rf.Coldeflist[0].GetColumnDef().GetLocation() + 1
	switch {
	case len(rf.Functions) > 1 || n > 1 && rf.IsRowsfrom:
		return repr.Errorf(repr.CodeSyntax, "ROWS FROM() with multiple functions cannot have a column definition list").
			WithHint("Put a separate column definition list for each function inside ROWS FROM().").WithPosition(pos)
	case n > 1:
		return repr.Errorf(repr.CodeSyntax, "UNNEST() with multiple arguments cannot have a column definition list").
			WithHint("Use separate UNNEST() calls inside ROWS FROM(), and attach a column definition list to each one.").WithPosition(pos)
	case rf.Ordinality:
		return repr.Errorf(repr.CodeSyntax, "WITH ORDINALITY cannot be used with a column definition list").
			WithHint("Put the column definition list inside ROWS FROM().").WithPosition(pos)
	}
	return nil
}

// columnDefs resolves a column definition list (ColumnDef nodes): names
// and types, 42701 for a repeated name.
func columnDefs(defs []*pg_query.Node) ([]expr.TableCol, error) {
	cols := make([]expr.TableCol, len(defs))
	seen := map[string]bool{}
	for i, n := range defs {
		cd := n.GetColumnDef()
		if cd.TypeName.GetSetof() {
			return nil, repr.Errorf("42P16", "column %q cannot be declared SETOF", cd.Colname).WithPosition(cd.TypeName.Location + 1)
		}
		if cd.CollClause != nil {
			return nil, repr.Unsupported("COLLATE in a column definition list").WithPosition(cd.CollClause.Location + 1)
		}
		t, err := resolveType(cd.TypeName)
		if err != nil {
			return nil, err
		}
		if seen[cd.Colname] {
			return nil, repr.Errorf(repr.CodeDuplicateColumn, "column name %q specified more than once", cd.Colname)
		}
		seen[cd.Colname] = true
		cols[i] = expr.TableCol{Name: cd.Colname, T: t}
	}
	return cols, nil
}

// withColumnDefs gives a record-returning function f its column
// definition list defs (ColumnDef nodes), with PostgreSQL's 42601 errors
// when f needs a list and has none or has one and returns no record (a
// function with named columns has OUT parameters in PostgreSQL).
func withColumnDefs(f *expr.TableFunc, defs []*pg_query.Node, fc *pg_query.FuncCall) (*expr.TableFunc, error) {
	switch {
	case len(defs) > 0 && !f.NeedsColumns():
		msg := `a column definition list is only allowed for functions returning "record"`
		if f.Cols[0].Name != "" {
			msg = "a column definition list is redundant for a function with OUT parameters"
		}
		return nil, repr.Errorf(repr.CodeSyntax, "%s", msg).WithPosition(defs[0].GetColumnDef().GetLocation() + 1)
	case len(defs) == 0 && f.NeedsColumns():
		return nil, repr.Errorf(repr.CodeSyntax, `a column definition list is required for functions returning "record"`).
			WithPosition(fc.Location + 1)
	case len(defs) == 0:
		return f, nil
	}
	cols, err := columnDefs(defs)
	if err != nil {
		return nil, err
	}
	return f.WithColumns(cols), nil
}

// splitUnnest expands unnest(a, b, ...) in FROM into ROWS FROM (unnest(a),
// unnest(b), ...), as PostgreSQL defines it; other calls stay as they are.
func splitUnnest(fc *pg_query.FuncCall) []*pg_query.FuncCall {
	if funcName(fc) != "unnest" || len(fc.Args) < 2 {
		return []*pg_query.FuncCall{fc}
	}
	out := make([]*pg_query.FuncCall, len(fc.Args))
	for i, a := range fc.Args {
		out[i] = &pg_query.FuncCall{Funcname: fc.Funcname, Args: []*pg_query.Node{a}, Location: fc.Location, Funcformat: fc.Funcformat}
	}
	return out
}

// nameFuncCols applies PostgreSQL's naming of a function item's columns:
// the table is the alias or the (single) function's name; a single
// function returning a scalar takes the alias as its column name; an
// alias's column list renames columns in order.
func nameFuncCols(rf *pg_query.RangeFunction, calls []expr.TableCall, cols []scopeCol) error {
	table := ""
	if len(calls) == 1 {
		table = calls[0].Func.Name
	}
	var colAliases []*pg_query.Node
	if rf.Alias != nil {
		table, colAliases = rf.Alias.Aliasname, rf.Alias.Colnames
		if len(calls) == 1 && len(calls[0].Func.Cols) == 1 && calls[0].Func.Cols[0].Name == "" {
			cols[0].name = table
		}
	}
	for i := range cols {
		cols[i].table = table
	}
	cols[0].wholeRow = len(cols) == 1
	return renameColumns(cols, colAliases, table)
}

// tableCall resolves one set-returning function call with its arguments
// built in c and coerced to the chosen overload's parameters, and its
// column definition list defs (nil: none; see withColumnDefs).
func (c *ectx) tableCall(fc *pg_query.FuncCall, defs []*pg_query.Node) (expr.TableCall, error) {
	name := funcName(fc)
	if fc.Over != nil || fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.AggWithinGroup {
		return expr.TableCall{}, repr.Unsupported("%s with aggregate or window syntax", name).WithPosition(fc.Location + 1)
	}
	if call, ok, err := c.routineTableCall(fc, defs); ok {
		return call, err
	}
	if _, ok := namedParams[name]; ok {
		var err error
		if fc, err = c.positionalCall(fc); err != nil {
			return expr.TableCall{}, err
		}
	}
	// VARIADIC arr passes arr as the last argument: no set-returning
	// function has a VARIADIC parameter (variadic.go).
	argNodes := fc.Args
	pname, pargs, pcols, populate, err := c.populateCall(fc)
	if err != nil {
		return expr.TableCall{}, err
	}
	if populate {
		if len(defs) > 0 {
			return expr.TableCall{}, repr.Errorf(repr.CodeSyntax, "a column definition list is only allowed for functions returning \"record\"").
				WithPosition(defs[0].GetColumnDef().GetLocation() + 1)
		}
		name, argNodes = pname, pargs
	}
	args, err := c.exprs(argNodes)
	if err != nil {
		return expr.TableCall{}, err
	}
	if len(args) > 0 && isVector(args[0]) {
		args[0] = plainArray(args[0]) // generate_subscripts(indkey, 1) counts from 0
	}
	ts := make([]repr.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	f, want, err := expr.ResolveTableFunc(name, ts)
	if err != nil {
		return expr.TableCall{}, withPos(err, fc.Location)
	}
	if populate {
		f = f.WithColumns(pcols)
	} else if f, err = withColumnDefs(f, defs, fc); err != nil {
		return expr.TableCall{}, err
	}
	if f.Scalar != nil && f.Scalar.Volatile && c.b.opts.MaterializedView {
		return expr.TableCall{}, repr.Unsupported("calling %s() in a materialized view", f.Name)
	}
	for i, a := range args {
		if args[i], err = c.b.coerce(a, want[i]); err != nil {
			return expr.TableCall{}, err
		}
	}
	return expr.TableCall{Func: f, Args: args}, nil
}
