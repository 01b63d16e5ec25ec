package sql

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// The view deparser: pg_get_viewdef's text of a view, PostgreSQL's
// ruleutils.c form of the query (columns qualified by their FROM item, AS
// on every output column whose name is not the column's own, implicit
// coercions shown as ::type, keywords in upper case, PostgreSQL's line
// breaks and indentation). It prints the stored query's AST with what the
// planner resolved in it (planner.Trace): which FROM item each column
// comes from, each expression's type and the coercions around it. The
// stored query is the current one: RENAME TO rewrote the names it reads,
// and RENAME COLUMN wrapped the table in a derived table reading the new
// name under the old (alter.go renamedRef), which the deparser prints as
// the table itself with the new name, as PostgreSQL shows it.
//
// Constructs it does not print (errNoDeparse) leave the definition as
// written: VALUES lists whose columns mix types, FROM functions other
// than one-column set-returning ones, ROWS FROM and LATERAL, GROUPING
// SETS/ROLLUP/CUBE, record and array subscripts (field selection), IS
// DISTINCT FROM, the two-variable statistics aggregates (regr_*, corr,
// covar_*) with FILTER, and self-references that PostgreSQL would rename
// (orders_1). NATURAL joins print as USING their common columns; VALUES,
// functions in FROM (always with their alias and column names), COLLATE,
// named windows, row comparisons, the statistics aggregates (through
// their planned argument copies, planner.Trace.RegrArgs) and the
// SQL-syntax functions (EXTRACT, SUBSTRING, POSITION, TRIM, OVERLAY) as
// PostgreSQL prints them. VARIADIC calls are refused by the planner.

// errNoDeparse marks a construct the deparser does not print.
var errNoDeparse = errors.New("construct not deparsed")

// PostgreSQL's indentation steps (ruleutils.c PRETTYINDENT_*).
const (
	indentStd  = 8
	indentJoin = 4
	indentVar  = 4
)

// deparser prints one view's query. Its methods panic with errNoDeparse
// on a construct they do not print; deparseView recovers it (and any
// other panic) into the query as written.
type deparser struct {
	tr  *planner.Trace
	cat *Catalog
	// pretty is pg_get_viewdef's pretty flag: only the parentheses
	// precedence needs (PRETTYFLAG_PAREN); indentation is always on.
	pretty bool
	buf    []byte
	indent int
	// levels are the query levels being printed, innermost last.
	levels []*dlevel
	// consts, when not nil, records the type each literal was printed
	// as a constant of (enum_literals.go reads it).
	consts map[*pg.A_Const]repr.T
}

// dlevel is one query level's FROM qualifiers: for a renamed-column
// derived table, its old column names to the table's new ones (nil
// for every other FROM item); printed is the name each qualifier is
// printed as, unique among this level's and the enclosing levels' (as
// ruleutils.c's set_rtable_names makes them: orders, orders_1).
type dlevel struct {
	quals   map[string]map[string]string
	printed map[string]string
	ctes    map[string]bool
}

// deparseView returns o's definition as pg_get_viewdef prints it, or the
// query as written when it holds a construct the deparser does not print
// or no longer plans.
func deparseView(cat *Catalog, o *Object, pretty bool) string {
	text, err := deparseViewText(cat, o, pretty)
	if err != nil {
		return " " + strings.TrimSuffix(strings.TrimSpace(o.SQL), ";") + ";"
	}
	return text
}

// deparseViewText plans o's query with a trace and prints it.
func deparseViewText(cat *Catalog, o *Object, pretty bool) (text string, err error) {
	n, err := parseOne(o.SQL)
	if err != nil {
		return "", err
	}
	return deparseViewAST(cat, o, n, pretty, nil)
}

// deparseViewAST prints n, o's parsed query, recording in consts (when
// not nil) each literal's constant type.
func deparseViewAST(cat *Catalog, o *Object, n *pg.Node, pretty bool, consts map[*pg.A_Const]repr.T) (text string, err error) {
	tr := planner.NewTrace()
	if _, err := planner.PlanQuery(cat, n, planner.Options{TimeZone: o.TimeZone, Trace: tr}); err != nil {
		return "", err
	}
	sel := unwrapViewAliases(n.GetSelectStmt())
	names := make([]string, len(o.Columns))
	types := make([]repr.T, len(o.Columns))
	for i, c := range o.Columns {
		names[i], types[i] = c.Name, c.Type
	}
	d := &deparser{tr: tr, cat: cat, pretty: pretty, consts: consts}
	defer func() {
		// errNoDeparse, or a deparser bug: either way the query as
		// written is the answer, never a failed catalog read.
		if r := recover(); r != nil {
			err = fmt.Errorf("deparsing view %s: %v", o.Name, r)
		}
	}()
	d.query(sel, &outCols{names: names, types: types})
	return string(d.buf) + ";", nil
}

// unwrapViewAliases returns the query of CREATE VIEW v (a, b) AS q, which
// Eddy stores as SELECT * FROM (q) AS _view(a, b) (ddl.go): q, whose
// output columns the view's names rename.
func unwrapViewAliases(sel *pg.SelectStmt) *pg.SelectStmt {
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) != 1 || sel.WhereClause != nil {
		return sel
	}
	rs := sel.FromClause[0].GetRangeSubselect()
	if rs == nil || rs.Alias == nil || rs.Alias.Aliasname != "_view" {
		return sel
	}
	if f := sel.TargetList[0].GetResTarget().GetVal().GetColumnRef().GetFields(); len(f) != 1 || f[0].GetAStar() == nil {
		return sel
	}
	return rs.Subquery.GetSelectStmt()
}

// outCols are the names (and, for the view itself, types) a query level
// gives its output columns: the view's columns at the top, nil below
// (each select-list entry's own name).
type outCols struct {
	names []string
	types []repr.T
	// hidden marks a query whose column names nobody sees (a subquery
	// expression, a set operation's right side): a computed column then
	// shows AS only when it has a name of its own (colNamesVisible).
	hidden bool
}

// no reports a construct the deparser does not print.
func no() { panic(errNoDeparse) }

// write appends s.
func (d *deparser) write(s ...string) {
	for _, x := range s {
		d.buf = append(d.buf, x...)
	}
}

// trimSpaces removes trailing spaces (removeStringInfoSpaces).
func (d *deparser) trimSpaces() {
	for len(d.buf) > 0 && d.buf[len(d.buf)-1] == ' ' {
		d.buf = d.buf[:len(d.buf)-1]
	}
}

// keyword starts a new line for str: the indentation moves by before,
// the line is indented by it plus plus, and moves by after once str is
// written (appendContextKeyword).
func (d *deparser) keyword(str string, before, after, plus int) {
	d.indent += before
	d.trimSpaces()
	d.write("\n", strings.Repeat(" ", max(d.indent, 0)+plus), str)
	d.indent = max(d.indent+after, 0)
}

// sub prints f into a buffer of its own and returns the text.
func (d *deparser) sub(f func()) []byte {
	saved := d.buf
	d.buf = nil
	f()
	out := d.buf
	d.buf = saved
	return out
}

// query prints a query block at the current indentation (get_query_def),
// restoring the indentation after it.
func (d *deparser) query(sel *pg.SelectStmt, out *outCols) {
	start := d.indent
	defer func() { d.indent = start }()
	lv := &dlevel{quals: map[string]map[string]string{}, printed: map[string]string{}, ctes: map[string]bool{}}
	d.levels = append(d.levels, lv)
	defer func() { d.levels = d.levels[:len(d.levels)-1] }()
	// the level's names come first: its WITH queries and subqueries
	// avoid them
	d.nameItems(sel.FromClause)
	if sel.WithClause != nil {
		d.with(sel.WithClause, lv)
	}
	forceColno := false
	switch {
	case sel.IntoClause != nil || len(sel.LockingClause) > 0:
		no()
	case len(sel.ValuesLists) > 0:
		d.values(sel.ValuesLists)
	case sel.Op != pg.SetOperation_SETOP_NONE:
		d.setOp(sel, out)
		forceColno = true
	default:
		d.basicSelect(sel, out)
	}
	d.orderLimit(sel, forceColno)
}

// values prints a VALUES list as get_values_def does: rows separated by
// ", ", a row's values by "," alone, each value a constant or
// expression of its column's type. The column's type is its values'
// one (a string literal's when all are literals, text when none types
// it); columns whose values have different types, which planning
// coerces to a common one, are not printed.
func (d *deparser) values(rows []*pg.Node) {
	types := make([]repr.T, len(rows[0].GetList().GetItems()))
	for _, r := range rows {
		for j, item := range r.GetList().GetItems() {
			t := d.typeOf(item)
			switch {
			case j >= len(types) || unknownLiteral(item) && t.Family == repr.FamUnknown:
			case types[j].Family == repr.FamUnknown:
				types[j] = t
			case !sameType(types[j], t):
				no()
			}
		}
	}
	d.write(" VALUES ")
	for i, r := range rows {
		if i > 0 {
			d.write(", ")
		}
		d.write("(")
		for j, item := range r.GetList().GetItems() {
			if j > 0 {
				d.write(",")
			}
			want := types[j]
			if want.Family == repr.FamUnknown {
				want = repr.Text
			}
			d.expr(item, want, pNone)
		}
		d.write(")")
	}
}

// with prints a WITH clause (get_with_clause).
func (d *deparser) with(w *pg.WithClause, lv *dlevel) {
	d.indent += indentStd
	d.write(" ")
	sep := "WITH "
	if w.Recursive {
		no()
	}
	for _, n := range w.Ctes {
		c := n.GetCommonTableExpr()
		if c.SearchClause != nil || c.CycleClause != nil {
			no()
		}
		d.write(sep, expr.QuoteIdent(c.Ctename))
		if len(c.Aliascolnames) > 0 {
			d.write("(", nameList(c.Aliascolnames), ")")
		}
		d.write(" AS ")
		switch c.Ctematerialized {
		case pg.CTEMaterialize_CTEMaterializeAlways:
			d.write("MATERIALIZED ")
		case pg.CTEMaterialize_CTEMaterializeNever:
			d.write("NOT MATERIALIZED ")
		}
		d.write("(")
		d.keyword("", 0, 0, 0)
		d.query(c.Ctequery.GetSelectStmt(), &outCols{})
		d.keyword("", 0, 0, 0)
		d.write(")")
		lv.ctes[c.Ctename] = true
		sep = ", "
	}
	d.indent -= indentStd
	d.keyword("", 0, 0, 0)
}

// nameList prints String nodes as quoted identifiers, comma-separated.
func nameList(ns []*pg.Node) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = expr.QuoteIdent(n.GetString_().GetSval())
	}
	return strings.Join(parts, ", ")
}

// setOp prints a UNION/INTERSECT/EXCEPT tree (get_setop_query); every
// leaf names its columns after out.
func (d *deparser) setOp(sel *pg.SelectStmt, out *outCols) {
	if sel.Op == pg.SetOperation_SETOP_NONE {
		paren := sel.WithClause != nil || len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil
		if paren {
			d.write("(")
		}
		d.query(sel, out)
		if paren {
			d.write(")")
		}
		return
	}
	sub := 0
	paren := sel.Larg.Op != pg.SetOperation_SETOP_NONE && (sel.Larg.Op != sel.Op || sel.Larg.All != sel.All)
	if paren {
		d.write("(")
		sub = indentStd
		d.keyword("", sub, 0, 0)
	}
	d.setOp(sel.Larg, out)
	if paren {
		d.keyword(") ", -sub, 0, 0)
	} else {
		d.keyword("", -sub, 0, 0)
	}
	d.write(map[pg.SetOperation]string{pg.SetOperation_SETOP_UNION: "UNION ",
		pg.SetOperation_SETOP_INTERSECT: "INTERSECT ", pg.SetOperation_SETOP_EXCEPT: "EXCEPT "}[sel.Op])
	if sel.All {
		d.write("ALL ")
	}
	sub = 0
	rparen := sel.Rarg.Op != pg.SetOperation_SETOP_NONE
	if rparen {
		d.write("(")
		sub = indentStd
	}
	d.keyword("", sub, 0, 0)
	right := *out
	right.hidden = true
	d.setOp(sel.Rarg, &right)
	d.indent -= sub
	if rparen {
		d.keyword(")", 0, 0, 0)
	}
}

// basicSelect prints SELECT ... FROM ... WHERE ... GROUP BY ... HAVING
// (get_basic_select_query).
func (d *deparser) basicSelect(sel *pg.SelectStmt, out *outCols) {
	if sel.GroupDistinct {
		no()
	}
	d.indent += indentStd
	d.write(" SELECT")
	d.distinct(sel)
	// FROM items first: the select list's column names depend on them.
	from := d.sub(func() { d.fromClause(sel.FromClause) })
	d.targetList(sel.TargetList, out)
	d.buf = append(d.buf, from...)
	if sel.WhereClause != nil {
		d.keyword(" WHERE ", -indentStd, indentStd, 1)
		d.expr(sel.WhereClause, repr.Bool, pNone)
	}
	if len(sel.GroupClause) > 0 {
		d.keyword(" GROUP BY ", -indentStd, indentStd, 1)
		for i, g := range sel.GroupClause {
			if i > 0 {
				d.write(", ")
			}
			if g.GetRowExpr() != nil {
				no() // a row-valued key: ROW(a, b)
			}
			d.groupItem(g, sel.TargetList, true)
		}
	}
	if sel.HavingClause != nil {
		d.keyword(" HAVING ", -indentStd, indentStd, 0)
		d.expr(sel.HavingClause, repr.Bool, pNone)
	}
	if len(sel.WindowClause) > 0 {
		d.windowClause(sel.WindowClause)
	}
}

// distinct prints DISTINCT [ON (...)].
func (d *deparser) distinct(sel *pg.SelectStmt) {
	switch {
	case len(sel.DistinctClause) == 0:
	case len(sel.DistinctClause) == 1 && sel.DistinctClause[0].Node == nil:
		d.write(" DISTINCT")
	default:
		d.write(" DISTINCT ON (")
		for i, n := range sel.DistinctClause {
			if i > 0 {
				d.write(", ")
			}
			d.sortGroupExpr(d.orderTarget(n, sel.TargetList), false)
		}
		d.write(")")
	}
}

// targetList prints the select list, one entry a line
// (get_target_list with wrapColumn 0).
func (d *deparser) targetList(list []*pg.Node, out *outCols) {
	colno := 0
	for _, n := range list {
		rt := n.GetResTarget()
		if ref := rt.Val.GetColumnRef(); ref != nil && isStar(ref) {
			cols, ok := d.tr.Stars[ref]
			if !ok {
				no()
			}
			for _, c := range cols {
				colno++
				attname := d.colName(c)
				d.targetEntry(colno, func() { d.write(d.qualified(c, attname)) }, attname, c.Name, out)
			}
			continue
		}
		colno++
		name := rt.Name
		if name == "" {
			name = planner.ColumnName(rt.Val)
		}
		attname := "" // a computed column shows its name...
		if out.hidden {
			attname = "?column?" // ...unless nobody sees it
		}
		print := func() { d.expr(rt.Val, out.want(colno), pNone) }
		if ref := rt.Val.GetColumnRef(); ref != nil {
			attname = d.colName(d.col(ref))
		}
		d.targetEntry(colno, print, attname, name, out)
	}
}

// want is the type the view gives output column colno (none below the
// top level).
func (o *outCols) want(colno int) repr.T {
	if colno <= len(o.types) {
		return o.types[colno-1]
	}
	return noWant
}

// targetEntry prints one select-list entry with its AS name, on a new line
// unless it is the first or starts one itself.
func (d *deparser) targetEntry(colno int, print func(), attname, name string, out *outCols) {
	if colno > 1 {
		d.write(", ")
	} else {
		d.write(" ")
	}
	if colno <= len(out.names) {
		name = out.names[colno-1]
	}
	item := d.sub(func() {
		print()
		if attname != name {
			d.write(" AS ", expr.QuoteIdent(name))
		}
	})
	if len(item) > 0 && item[0] == '\n' {
		d.trimSpaces()
	} else if colno > 1 {
		d.keyword("", -indentStd, indentStd, indentVar)
	}
	d.buf = append(d.buf, item...)
}

// isStar reports whether ref is * or t.*.
func isStar(ref *pg.ColumnRef) bool {
	return ref.Fields[len(ref.Fields)-1].GetAStar() != nil
}

// orderLimit prints ORDER BY, OFFSET and LIMIT (get_select_query_def);
// forceColno prints sort keys as output column numbers (set operations).
func (d *deparser) orderLimit(sel *pg.SelectStmt, forceColno bool) {
	if len(sel.SortClause) > 0 {
		d.keyword(" ORDER BY ", -indentStd, indentStd, 1)
		for i, n := range sel.SortClause {
			if i > 0 {
				d.write(", ")
			}
			d.sortBy(n.GetSortBy(), sel, forceColno)
		}
	}
	if sel.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		no()
	}
	if sel.LimitOffset != nil {
		d.keyword(" OFFSET ", -indentStd, indentStd, 0)
		d.expr(sel.LimitOffset, noWant, pNone)
	}
	if sel.LimitCount != nil {
		d.keyword(" LIMIT ", -indentStd, indentStd, 0)
		if c := sel.LimitCount.GetAConst(); c != nil && c.Isnull {
			d.write("ALL")
		} else {
			d.expr(sel.LimitCount, noWant, pNone)
		}
	}
}

// sortBy prints one ORDER BY item with its direction and NULLS order.
func (d *deparser) sortBy(s *pg.SortBy, sel *pg.SelectStmt, forceColno bool) {
	if len(s.UseOp) > 0 {
		no()
	}
	if forceColno {
		d.write(strconv.Itoa(setOpColumn(s.Node, sel)))
	} else if sel == nil {
		d.sortGroupExpr(s.Node, false)
	} else {
		d.sortGroupExpr(d.orderTarget(s.Node, sel.TargetList), false)
	}
	desc := s.SortbyDir == pg.SortByDir_SORTBY_DESC
	if desc {
		d.write(" DESC")
	}
	switch {
	case !desc && s.SortbyNulls == pg.SortByNulls_SORTBY_NULLS_FIRST:
		d.write(" NULLS FIRST")
	case desc && s.SortbyNulls == pg.SortByNulls_SORTBY_NULLS_LAST:
		d.write(" NULLS LAST")
	}
}

// setOpColumn is the output column number an ORDER BY item of a set
// operation names: a number, or a name of the leftmost query's columns.
func setOpColumn(n *pg.Node, sel *pg.SelectStmt) int {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		return int(c.GetIval().Ival)
	}
	ref := n.GetColumnRef()
	if ref == nil || len(ref.Fields) != 1 || ref.Fields[0].GetString_() == nil {
		no()
	}
	left := sel
	for left.Op != pg.SetOperation_SETOP_NONE {
		left = left.Larg
	}
	for i, t := range left.TargetList {
		rt := t.GetResTarget()
		if v := rt.Val.GetColumnRef(); v != nil && isStar(v) {
			no()
		}
		if rt.Name == ref.Fields[0].GetString_().Sval || rt.Name == "" && planner.ColumnName(rt.Val) == ref.Fields[0].GetString_().Sval {
			return i + 1
		}
	}
	no()
	return 0
}

// orderTarget resolves an ORDER BY or DISTINCT ON item that names a
// select-list entry (by number, or by output name) to its expression.
func (d *deparser) orderTarget(n *pg.Node, targets []*pg.Node) *pg.Node {
	if t := targetByNumber(n, targets); t != nil {
		return t
	}
	if ref := n.GetColumnRef(); ref != nil && len(ref.Fields) == 1 {
		if _, traced := d.tr.Cols[ref]; !traced {
			name := ref.Fields[0].GetString_().GetSval()
			for _, t := range targets {
				rt := t.GetResTarget()
				if star := rt.Val.GetColumnRef(); star != nil && isStar(star) {
					for _, c := range d.tr.Stars[star] {
						if c.Name == name {
							d.tr.Cols[ref] = c // the output column * made
							return n
						}
					}
					continue
				}
				if rt.Name == name || rt.Name == "" && planner.ColumnName(rt.Val) == name {
					return rt.Val
				}
			}
		}
	}
	return n
}

// groupItem prints a GROUP BY item or an element of a grouping set
// (get_rule_groupingset): an expression (a number or an output name
// no FROM column has names a select-list entry), (a, b), (), ROLLUP(...),
// CUBE(...), GROUPING SETS (...); omitParens leaves a single expression
// bare (at the top and inside ROLLUP and CUBE).
func (d *deparser) groupItem(n *pg.Node, targets []*pg.Node, omitParens bool) {
	var items []*pg.Node
	switch {
	case n.GetGroupingSet() != nil:
		gs := n.GetGroupingSet()
		kw := map[pg.GroupingSetKind]string{pg.GroupingSetKind_GROUPING_SET_ROLLUP: "ROLLUP(",
			pg.GroupingSetKind_GROUPING_SET_CUBE: "CUBE(", pg.GroupingSetKind_GROUPING_SET_SETS: "GROUPING SETS ("}[gs.Kind]
		switch {
		case gs.Kind == pg.GroupingSetKind_GROUPING_SET_EMPTY:
			d.write("()")
		case kw == "":
			no()
		default:
			d.write(kw)
			for i, c := range gs.Content {
				if i > 0 {
					d.write(", ")
				}
				d.groupItem(c, targets, gs.Kind != pg.GroupingSetKind_GROUPING_SET_SETS)
			}
			d.write(")")
		}
		return
	case n.GetRowExpr() != nil && n.GetRowExpr().RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST:
		items = n.GetRowExpr().Args
	default:
		items = []*pg.Node{n}
	}
	paren := !omitParens || len(items) != 1
	if paren {
		d.write("(")
	}
	for i, it := range items {
		if i > 0 {
			d.write(", ")
		}
		d.sortGroupExpr(d.orderTarget(it, targets), false)
	}
	if paren {
		d.write(")")
	}
}

// targetByNumber returns the select-list entry n numbers, if n is an
// integer constant.
func targetByNumber(n *pg.Node, targets []*pg.Node) *pg.Node {
	c := n.GetAConst()
	if c == nil || c.GetIval() == nil {
		return nil
	}
	i := int(c.GetIval().Ival)
	if i < 1 || i > len(targets) {
		no()
	}
	val := targets[i-1].GetResTarget().GetVal()
	if ref := val.GetColumnRef(); ref != nil && isStar(ref) {
		no()
	}
	return val
}

// castByFunction reports whether n is a cast PostgreSQL makes with a cast
// function (a FuncExpr: between numeric types, or date and time types)
// rather than through text or as a relabeling.
func (d *deparser) castByFunction(n *pg.Node) bool {
	tc := n.GetTypeCast()
	if tc == nil || unknownLiteral(tc.Arg) {
		return false
	}
	from, to := d.ownType(tc.Arg), d.typeOf(n)
	num := func(f repr.Family) bool {
		return f == repr.FamInt || f == repr.FamFloat || f == repr.FamNumeric
	}
	return !sameType(from, to) && (num(from.Family) && num(to.Family) || timeFamily(from.Family) && timeFamily(to.Family))
}

// sortGroupExpr prints a sort or grouping key (get_rule_sortgroupclause):
// columns and constants as they are, function calls (and in pretty mode
// everything else) in parentheses.
func (d *deparser) sortGroupExpr(n *pg.Node, _ bool) {
	if c := n.GetAConst(); c != nil {
		d.constant(c, d.typeOf(n), 1)
		return
	}
	if n.GetColumnRef() != nil {
		d.expr(n, noWant, pNone)
		return
	}
	paren := d.pretty || n.GetFuncCall() != nil || d.castByFunction(n)
	if paren {
		d.write("(")
	}
	d.expr(n, noWant, pNone)
	if paren {
		d.write(")")
	}
}

// deparseExpr returns the expression text (a column DEFAULT, CHECK
// constraint or index predicate, over a row of rel; nil: no columns) as
// pg_get_expr prints it: columns unqualified, an unknown-typed literal
// at the top a constant of want (a text column's DEFAULT 'x' is
// 'x'::text), implicit coercions at the top not shown. ok is false when
// the deparser does not print it.
func deparseExpr(cat *Catalog, rel *planner.Relation, text string, want repr.T, pretty bool) (out string, ok bool) {
	n, err := parseExpr(text)
	if err != nil {
		return "", false
	}
	return deparseExprAST(cat, rel, n, want, pretty, nil)
}

// deparseExprAST prints n, a parsed expression, recording in consts
// (when not nil) each literal's constant type.
func deparseExprAST(cat *Catalog, rel *planner.Relation, n *pg.Node, want repr.T, pretty bool, consts map[*pg.A_Const]repr.T) (out string, ok bool) {
	tr := planner.NewTrace()
	if err := planner.TraceScalar(cat, rel, n, tr); err != nil {
		return "", false
	}
	d := &deparser{tr: tr, cat: cat, pretty: pretty, consts: consts}
	d.levels = []*dlevel{{quals: map[string]map[string]string{"": nil}, printed: map[string]string{}}}
	defer func() {
		if r := recover(); r != nil { // errNoDeparse or a deparser bug: as written
			ok = false
		}
	}()
	if !unknownLiteral(n) {
		want = noWant
	}
	d.expr(n, want, pNone)
	return string(d.buf), true
}
