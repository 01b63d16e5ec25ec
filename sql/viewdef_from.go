package sql

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// fromClause prints FROM and its items, one a line (get_from_clause).
func (d *deparser) fromClause(items []*pg.Node) {
	for i, n := range items {
		if i == 0 {
			d.keyword(" FROM ", -indentStd, indentStd, 2)
			d.fromItem(n)
			continue
		}
		d.write(", ")
		item := d.sub(func() { d.fromItem(n) })
		if len(item) > 0 && item[0] == '\n' {
			d.trimSpaces()
		} else {
			d.keyword("", -indentStd, indentStd, indentVar)
		}
		d.buf = append(d.buf, item...)
	}
}

// nameItems gives the qualifiers of a level's FROM items their printed
// names before any is printed: a name an enclosing level or an earlier
// item uses gets the first free suffix _1, _2, ...
func (d *deparser) nameItems(items []*pg.Node) {
	var quals []string
	for _, n := range items {
		collectQuals(n, &quals)
	}
	lv := d.level()
	for _, q := range quals {
		printed := q
		for i := 1; d.nameUsed(printed); i++ {
			printed = q + "_" + strconv.Itoa(i)
		}
		lv.printed[q] = printed
	}
}

// collectQuals appends the qualifiers a FROM item introduces.
func collectQuals(n *pg.Node, out *[]string) {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		if rv.Alias != nil {
			*out = append(*out, rv.Alias.Aliasname)
		} else {
			*out = append(*out, rv.Relname)
		}
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		if rs.Alias != nil {
			*out = append(*out, rs.Alias.Aliasname)
		}
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		collectQuals(j.Larg, out)
		collectQuals(j.Rarg, out)
		if j.Alias != nil {
			*out = append(*out, j.Alias.Aliasname)
		}
	}
}

// nameUsed reports whether a level being printed prints a qualifier as
// name.
func (d *deparser) nameUsed(name string) bool {
	for _, lv := range d.levels {
		for _, p := range lv.printed {
			if p == name {
				return true
			}
		}
	}
	return false
}

// printedQual is the name qualifier q of the innermost level that has it
// is printed as.
func (d *deparser) printedQual(q string) string {
	for i := len(d.levels) - 1; i >= 0; i-- {
		if p, ok := d.levels[i].printed[q]; ok {
			return p
		}
	}
	return q
}

// level is the innermost query level.
func (d *deparser) level() *dlevel { return d.levels[len(d.levels)-1] }

// fromItem prints one FROM item (get_from_clause_item) and registers its
// qualifier in the current level.
func (d *deparser) fromItem(n *pg.Node) {
	switch {
	case n.GetRangeVar() != nil:
		d.rangeVar(n.GetRangeVar())
	case n.GetRangeSubselect() != nil:
		d.rangeSubselect(n.GetRangeSubselect())
	case n.GetJoinExpr() != nil:
		d.join(n.GetJoinExpr())
	case n.GetRangeFunction() != nil:
		d.rangeFunction(n.GetRangeFunction())
	default:
		no()
	}
}

// tableCall prints a set-returning function's call, each argument
// coerced to the parameter type the call resolves to (the trace records
// the arguments' own types, not the table function's signature).
func (d *deparser) tableCall(name string, fc *pg.FuncCall) {
	if fc.AggStar || fc.AggDistinct || fc.FuncVariadic || fc.Over != nil || len(fc.AggOrder) > 0 || fc.AggFilter != nil {
		no()
	}
	own := make([]repr.T, len(fc.Args))
	for i, a := range fc.Args {
		if !unknownLiteral(a) {
			own[i] = d.typeOf(a)
		}
	}
	_, want, err := expr.ResolveTableFunc(name, own)
	if err != nil || len(want) != len(fc.Args) {
		no()
	}
	d.write(expr.QuoteIdent(name), "(")
	for i, a := range fc.Args {
		if i > 0 {
			d.write(", ")
		}
		d.expr(a, want[i], pNone)
	}
	d.write(")")
}

// oneColumnFuncs are the set-returning functions of one output column,
// which a FROM item prints as f(args) [WITH ORDINALITY] alias(col[,
// ordinality]).
var oneColumnFuncs = map[string]bool{"generate_series": true, "unnest": true, "regexp_split_to_table": true,
	"string_to_table": true, "jsonb_array_elements": true, "jsonb_array_elements_text": true,
	"json_array_elements": true, "json_array_elements_text": true, "jsonb_object_keys": true,
	"json_object_keys": true, "generate_subscripts": true}

// rangeFunction prints a function in FROM as PostgreSQL does: the call,
// WITH ORDINALITY, and always its alias (the function's name when none
// is given) with its column names (a one-column function's column is
// named after the alias). Only one-column set-returning functions are
// printed (not ROWS FROM, LATERAL, record functions or several
// arguments of unnest).
func (d *deparser) rangeFunction(rf *pg.RangeFunction) {
	if rf.Lateral || rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
		no()
	}
	item := rf.Functions[0].GetList().GetItems()
	call := item[0]
	fc := call.GetFuncCall()
	if fc == nil || len(item) > 1 && len(item[1].GetList().GetItems()) > 0 || len(fc.Funcname) != 1 {
		no()
	}
	name := fc.Funcname[0].GetString_().GetSval()
	if !oneColumnFuncs[name] || name == "unnest" && len(fc.Args) != 1 {
		no()
	}
	d.tableCall(name, fc)
	if rf.Ordinality {
		d.write(" WITH ORDINALITY")
	}
	alias, cols := name, []string{}
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
		for _, c := range rf.Alias.Colnames {
			cols = append(cols, c.GetString_().GetSval())
		}
	}
	want := 1
	if rf.Ordinality {
		want = 2
	}
	if len(cols) > want {
		no()
	}
	if len(cols) == 0 {
		cols = append(cols, alias)
	}
	if len(cols) < want {
		cols = append(cols, "ordinality")
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = expr.QuoteIdent(c)
	}
	d.write(" ", expr.QuoteIdent(d.printedQual(alias)), "(", strings.Join(quoted, ", "), ")")
	d.level().quals[alias] = nil
}

// rangeVar prints a table, view or WITH query reference with its alias
// when it differs from the name.
func (d *deparser) rangeVar(rv *pg.RangeVar) {
	if !rv.Inh {
		no()
	}
	name := rv.Relname
	if rv.Schemaname == "" && d.cteInScope(rv.Relname) {
		d.write(expr.QuoteIdent(rv.Relname))
	} else {
		d.write(d.relationName(rv))
	}
	d.alias(rv.Alias, name, nil)
}

// alias prints " alias" when it differs from name, and its column list,
// and registers the qualifier with renamed (old column -> new) names.
func (d *deparser) alias(a *pg.Alias, name string, renamed map[string]string) {
	qual := name
	if a != nil {
		qual = a.Aliasname
	}
	if p := d.printedQual(qual); p != name {
		d.write(" ", expr.QuoteIdent(p))
	}
	if a != nil && len(a.Colnames) > 0 {
		d.write("(", nameList(a.Colnames), ")")
	}
	d.level().quals[qual] = renamed
}

// cteInScope reports whether a WITH query named name is visible.
func (d *deparser) cteInScope(name string) bool {
	for i := len(d.levels) - 1; i >= 0; i-- {
		if d.levels[i].ctes[name] {
			return true
		}
	}
	return false
}

// relationName prints a relation's name, schema-qualified unless the
// unqualified name finds the same relation (generate_relation_name).
func (d *deparser) relationName(rv *pg.RangeVar) string {
	name := expr.QuoteIdent(rv.Relname)
	if rv.Schemaname == "" {
		return name
	}
	if r := lookupSysRel(rv.Schemaname, rv.Relname); r != nil {
		if lookupSysRel("", rv.Relname) == r {
			return name
		}
		return expr.QuoteIdent(rv.Schemaname) + "." + name
	}
	if o := d.cat.lookup(rv.Schemaname, rv.Relname); o != nil && d.cat.lookup("", rv.Relname) == o {
		return name
	}
	return expr.QuoteIdent(rv.Schemaname) + "." + name
}

// rangeSubselect prints a derived table, or the table a RENAME COLUMN
// wrapped in one.
func (d *deparser) rangeSubselect(rs *pg.RangeSubselect) {
	sel := rs.Subquery.GetSelectStmt()
	if rs.Lateral {
		d.write("LATERAL ")
	}
	if rv, renamed := renameWrapper(sel); rv != nil {
		d.write(d.relationName(rv))
		alias := rs.Alias
		if alias != nil && alias.Aliasname == rv.Relname && len(alias.Colnames) == 0 {
			alias = nil
		}
		d.alias(alias, rv.Relname, renamed)
		return
	}
	d.write("(")
	d.query(sel, &outCols{})
	d.write(")")
	if rs.Alias == nil {
		d.level().quals[""] = nil
		return
	}
	d.write(" ", expr.QuoteIdent(d.printedQual(rs.Alias.Aliasname)))
	if len(rs.Alias.Colnames) > 0 {
		d.write("(", nameList(rs.Alias.Colnames), ")")
	}
	d.level().quals[rs.Alias.Aliasname] = nil
}

// renameWrapper recognizes the derived table RENAME COLUMN reads a table
// through, (SELECT c1, new AS old, ... FROM ONLY t): it returns t and
// each old column name's new one.
func renameWrapper(sel *pg.SelectStmt) (*pg.RangeVar, map[string]string) {
	if sel == nil || len(sel.FromClause) != 1 || sel.WhereClause != nil || len(sel.GroupClause) > 0 ||
		len(sel.DistinctClause) > 0 || sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil {
		return nil, nil
	}
	rv := sel.FromClause[0].GetRangeVar()
	if rv == nil || rv.Inh || rv.Alias != nil {
		return nil, nil
	}
	renamed := map[string]string{}
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		f := rt.GetVal().GetColumnRef().GetFields()
		if len(f) != 1 || f[0].GetString_() == nil {
			return nil, nil
		}
		col := f[0].GetString_().Sval
		if rt.Name != "" {
			renamed[rt.Name] = col
		} else {
			renamed[col] = col
		}
	}
	return &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Inh: true}, renamed
}

// join prints a JOIN tree item.
func (d *deparser) join(j *pg.JoinExpr) {
	if j.JoinUsingAlias != nil {
		no()
	}
	using := nameList(j.UsingClause)
	if j.IsNatural {
		// PostgreSQL prints a NATURAL join as USING its common columns.
		names, ok := d.tr.Natural[j]
		if !ok || len(names) == 0 {
			no()
		}
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = expr.QuoteIdent(n)
		}
		using = strings.Join(quoted, ", ")
	}
	rightParen := d.pretty && j.Rarg.GetRangeVar() == nil && j.Rarg.GetRangeSubselect() == nil &&
		!(j.Rarg.GetJoinExpr() != nil && j.Rarg.GetJoinExpr().Alias != nil)
	if !d.pretty || j.Alias != nil {
		d.write("(")
	}
	d.fromItem(j.Larg)
	kw := map[pg.JoinType]string{pg.JoinType_JOIN_INNER: " JOIN ", pg.JoinType_JOIN_LEFT: " LEFT JOIN ",
		pg.JoinType_JOIN_RIGHT: " RIGHT JOIN ", pg.JoinType_JOIN_FULL: " FULL JOIN "}[j.Jointype]
	if kw == "" {
		no()
	}
	if j.Jointype == pg.JoinType_JOIN_INNER && j.Quals == nil && using == "" {
		kw = " CROSS JOIN "
	}
	d.keyword(kw, -indentStd, indentStd, indentJoin)
	if rightParen {
		d.write("(")
	}
	d.fromItem(j.Rarg)
	if rightParen {
		d.write(")")
	}
	switch {
	case using != "":
		d.write(" USING (", using, ")")
	case j.Quals != nil:
		d.write(" ON ")
		d.parenUnlessPretty(func() { d.expr(j.Quals, repr.Bool, pNone) })
	case j.Jointype != pg.JoinType_JOIN_INNER:
		d.write(" ON TRUE")
	}
	if !d.pretty || j.Alias != nil {
		d.write(")")
	}
	if j.Alias != nil {
		d.write(" ", expr.QuoteIdent(d.printedQual(j.Alias.Aliasname)))
		if len(j.Alias.Colnames) > 0 {
			no()
		}
		d.level().quals[j.Alias.Aliasname] = nil
	}
}

// parenUnlessPretty prints f in parentheses outside pretty mode.
func (d *deparser) parenUnlessPretty(f func()) {
	if !d.pretty {
		d.write("(")
	}
	f()
	if !d.pretty {
		d.write(")")
	}
}

// col returns the FROM column a column reference names.
func (d *deparser) col(ref *pg.ColumnRef) planner.TraceCol {
	c, ok := d.tr.Cols[ref]
	if !ok {
		no()
	}
	return c
}

// colName is c's name as the FROM item has it now: the table's new name
// for a column RENAME COLUMN renamed.
func (d *deparser) colName(c planner.TraceCol) string {
	for i := len(d.levels) - 1; i >= 0; i-- {
		if renamed, ok := d.levels[i].quals[c.Table]; ok {
			if nu, ok := renamed[c.Name]; ok {
				return nu
			}
			return c.Name
		}
	}
	return c.Name
}

// qualified prints a column as qualifier.name (name alone without one).
func (d *deparser) qualified(c planner.TraceCol, name string) string {
	if c.Table == "" {
		return expr.QuoteIdent(name)
	}
	return expr.QuoteIdent(d.printedQual(c.Table)) + "." + expr.QuoteIdent(name)
}
