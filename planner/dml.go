package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// PlanScalar plans a standalone expression with no columns (column
// DEFAULTs), assigned to type want.
func PlanScalar(cat Catalog, ex *pg_query.Node, want repr.T) (expr.Expr, error) {
	b := newBuilder(cat, Options{})
	ec := &ectx{b: b, sc: &scope{}, rel: unitRel(), clause: "DEFAULT", noSubquery: true}
	e, err := ec.expr(ex)
	if err != nil {
		return nil, err
	}
	return b.assign(e, want, "default")
}

// PlanRowExpr plans a boolean expression over a row of rel (CHECK
// constraints), with no subqueries.
func PlanRowExpr(cat Catalog, rel *Relation, ex *pg_query.Node) (expr.Expr, error) {
	b := newBuilder(cat, Options{})
	sc := &scope{}
	for i, c := range rel.Columns {
		sc.cols = append(sc.cols, scopeCol{table: rel.Name, name: c.Name, typ: c.Type, tableID: rel.ID, attr: int16(i + 1)})
	}
	ec := &ectx{b: b, sc: sc, rel: tableRel(rel), clause: "CHECK", noSubquery: true}
	return ec.predicate(ex)
}

// PlanRowValue plans an expression over a row of rel assigned to type
// want for column col (ALTER COLUMN ... TYPE ... USING), with no
// subqueries.
func PlanRowValue(cat Catalog, rel *Relation, ex *pg_query.Node, want repr.T, col string) (expr.Expr, error) {
	b := newBuilder(cat, Options{})
	sc := &scope{}
	for i, c := range rel.Columns {
		sc.cols = append(sc.cols, scopeCol{table: rel.Name, name: c.Name, typ: c.Type, tableID: rel.ID, attr: int16(i + 1)})
	}
	ec := &ectx{b: b, sc: sc, rel: tableRel(rel), clause: "USING", noSubquery: true}
	e, err := ec.expr(ex)
	if err != nil {
		return nil, err
	}
	return b.assign(e, want, col)
}

// target resolves the DML target table (tables only).
func (b *builder) targetTable(rv *pg_query.RangeVar) (*Relation, *scope, error) {
	rel, err := b.cat.Relation(rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, nil, withPos(err, rv.Location)
	}
	if rel.Kind != RelTable {
		return nil, nil, repr.Errorf(repr.CodeWrongObjectType, "cannot change relation %q", rel.Name).
			WithDetail("Only tables can be modified; views are computed from them.")
	}
	alias := rel.Name
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	sc := &scope{}
	for i, c := range rel.Columns {
		sc.cols = append(sc.cols, scopeCol{table: alias, name: c.Name, typ: c.Type, tableID: rel.ID, attr: int16(i + 1)})
	}
	return rel, sc, nil
}

// tableRel is the relation scanning table rel.
func tableRel(rel *Relation) ir.Rel {
	ts := make([]repr.T, len(rel.Columns))
	for i, c := range rel.Columns {
		ts[i] = c.Type
	}
	return &ir.Get{ID: rel.ID, Name: rel.Name, Types: ts}
}

// PlanInsert plans INSERT INTO t [(cols)] {VALUES ... | SELECT ... |
// DEFAULT VALUES} [RETURNING ...].
func PlanInsert(cat Catalog, stmt *pg_query.InsertStmt, opts Options) (*Insert, error) {
	return planOuterAggs(cat, opts, func(b *builder) (*Insert, error) { return b.planInsert(stmt) })
}

// planInsert is PlanInsert with builder b.
func (b *builder) planInsert(stmt *pg_query.InsertStmt) (*Insert, error) {
	rel, sc, err := b.targetTable(stmt.Relation)
	if err != nil {
		return nil, err
	}
	cols, err := insertColumns(rel, stmt.Cols)
	if err != nil {
		return nil, err
	}
	var src *Query
	err = b.withDML(stmt.WithClause, func() error {
		src, err = b.insertSource(rel, cols, stmt.Cols, stmt.SelectStmt, stmt.Override)
		return err
	})
	if err != nil {
		return nil, err
	}
	ret, rcols, err := b.returningOver(stmt.ReturningList, sc, tableRel(rel))
	if err != nil {
		return nil, err
	}
	oc, err := b.onConflict(rel, stmt.Relation, stmt.OnConflictClause)
	if err != nil {
		return nil, err
	}
	src.ParamTypes = b.finalParamTypes()
	ins := &Insert{Table: rel, Source: src, Returning: ret, ReturningColumns: rcols, OnConflict: oc}
	if stmt.WithClause == nil && src.Rows != nil && b.opts.Params != nil {
		ins.Template = b.insertTemplate(src.Rows, len(rel.Columns))
	}
	return ins, nil
}

// onConflict plans ON CONFLICT: the conflict target and, for DO UPDATE,
// the SET list and WHERE over the existing row followed by EXCLUDED.
func (b *builder) onConflict(rel *Relation, rv *pg_query.RangeVar, oc *pg_query.OnConflictClause) (*OnConflict, error) {
	if oc == nil {
		return nil, nil
	}
	out := &OnConflict{DoUpdate: oc.Action == pg_query.OnConflictAction_ONCONFLICT_UPDATE}
	if inf := oc.Infer; inf != nil {
		if err := b.inferTarget(rel, inf, out); err != nil {
			return nil, err
		}
	} else if out.DoUpdate {
		return nil, repr.Errorf(repr.CodeSyntax, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
			WithHint("For example, ON CONFLICT (column_name).")
	}
	if !out.DoUpdate {
		return out, nil
	}
	alias := rel.Name
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	sc := &scope{}
	ts := make([]repr.T, 0, 2*len(rel.Columns))
	for _, q := range []string{alias, "excluded"} {
		for i, c := range rel.Columns {
			sc.cols = append(sc.cols, scopeCol{table: q, name: c.Name, typ: c.Type, tableID: rel.ID, attr: int16(i + 1)})
			ts = append(ts, c.Type)
		}
	}
	both := &ir.Get{ID: rel.ID, Name: rel.Name, Types: ts}
	list, err := expandMultiAssign(oc.TargetList)
	if err != nil {
		return nil, err
	}
	set, err := b.setListOver(rel, sc, both, list)
	if err != nil {
		return nil, err
	}
	out.Set = set
	if oc.WhereClause != nil {
		ec := &ectx{b: b, sc: sc, rel: both, clause: "WHERE", noSubquery: true}
		if out.Where, err = ec.predicate(oc.WhereClause); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inferTarget plans ON CONFLICT's conflict target: ON CONSTRAINT, or
// index elements (columns or expressions over the table's row) with an
// optional WHERE, which the statement layer matches against the table's
// unique keys as PostgreSQL's infer_arbiter_indexes does.
func (b *builder) inferTarget(rel *Relation, inf *pg_query.InferClause, out *OnConflict) error {
	out.Constraint = inf.Conname
	plain := true
	for _, n := range inf.IndexElems {
		ie := n.GetIndexElem()
		if ie == nil {
			return repr.Unsupported("ON CONFLICT target %T", n.Node)
		}
		if ie.Name != "" {
			i := columnIndex(rel, ie.Name)
			if i < 0 {
				return repr.Errorf(repr.CodeUndefinedColumn, "column %q does not exist", ie.Name)
			}
			out.Cols = append(out.Cols, i)
			out.Exprs = append(out.Exprs, &expr.Col{Idx: i, T: rel.Columns[i].Type})
			continue
		}
		x, err := PlanIndexExpr(b.cat, rel, ie.Expr, false)
		if err != nil {
			return err
		}
		if c, ok := x.(*expr.Col); ok {
			out.Cols = append(out.Cols, c.Idx)
		} else {
			plain = false
		}
		out.Exprs = append(out.Exprs, x)
	}
	if !plain {
		out.Cols = nil
	}
	if inf.WhereClause != nil {
		w, err := PlanIndexExpr(b.cat, rel, inf.WhereClause, true)
		if err != nil {
			return err
		}
		out.InferWhere = w
	}
	return nil
}

// insertColumns maps the target list to table column indices.
func insertColumns(rel *Relation, list []*pg_query.Node) ([]int, error) {
	if len(list) == 0 {
		return identityCols(len(rel.Columns)), nil
	}
	seen, subscripted := map[int]bool{}, map[int]bool{}
	var out []int
	for _, n := range list {
		rt := n.GetResTarget()
		i := columnIndex(rel, rt.Name)
		if i < 0 {
			return nil, repr.Errorf(repr.CodeUndefinedColumn, "column %q of relation %q does not exist", rt.Name, rel.Name).WithPosition(rt.Location + 1)
		}
		if seen[i] && (len(rt.Indirection) == 0 || !subscripted[i]) {
			return nil, repr.Errorf(repr.CodeDuplicateColumn, "column %q specified more than once", rt.Name).WithPosition(rt.Location + 1)
		}
		seen[i], subscripted[i] = true, len(rt.Indirection) > 0
		out = append(out, i)
	}
	return out, nil
}

func columnIndex(rel *Relation, name string) int {
	for i, c := range rel.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// srfValuesRow reports an INSERT source that is a plain one-row VALUES
// list calling a set-returning function (and no DEFAULT).
func (b *builder) srfValuesRow(sel *pg_query.SelectStmt) bool {
	if len(sel.ValuesLists) != 1 || sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.SortClause) > 0 ||
		sel.LimitCount != nil || sel.LimitOffset != nil || sel.WithClause != nil {
		return false
	}
	var calls []*pg_query.FuncCall
	levels := map[*pg_query.FuncCall]int{}
	for _, v := range sel.ValuesLists[0].GetList().GetItems() {
		if v.GetSetToDefault() != nil {
			return false
		}
		if _, err := collectSRFs(v, "", nil, b.sqlSetFunc, &calls, levels); err != nil {
			return false
		}
	}
	return len(calls) > 0
}

// noteInsertTypes records the column type each select-list entry of list
// (ResTargets) inserts into (insertTypes).
func (b *builder) noteInsertTypes(rel *Relation, cols []int, list []*pg_query.Node) {
	if b.insertTypes == nil {
		b.insertTypes = map[*pg_query.Node]repr.T{}
	}
	for i, n := range list {
		if rt := n.GetResTarget(); rt != nil && rt.Val != nil && i < len(cols) && cols[i] < len(rel.Columns) {
			b.insertTypes[rt.Val] = rel.Columns[cols[i]].Type
		}
	}
}

// valuesTargets turns a VALUES row into select-list entries.
func valuesTargets(row *pg_query.Node) []*pg_query.Node {
	var out []*pg_query.Node
	for _, v := range row.GetList().GetItems() {
		out = append(out, pg_query.MakeResTargetNodeWithVal(v, -1))
	}
	return out
}

// insertSource plans the inserted rows in table column order.
// Without a column list, fewer expressions than columns fill the leading
// columns (the others take their defaults), as in PostgreSQL.
func (b *builder) insertSource(rel *Relation, cols []int, targets []*pg_query.Node, src *pg_query.Node, override pg_query.OverridingKind) (*Query, error) {
	explicit := len(targets) > 0
	sel := src.GetSelectStmt()
	var rows [][]expr.Expr // per source row, per entry of cols (nil = DEFAULT)
	var query ir.Rel
	var rowRels []ir.Rel // per VALUES row with subqueries, the relation its entries read
	switch {
	case src == nil:
		rows, cols = [][]expr.Expr{{}}, nil
	case sel != nil && b.srfValuesRow(sel):
		// PostgreSQL plans a one-row VALUES list as a select list, where
		// set-returning calls expand the row.
		list := valuesTargets(sel.ValuesLists[0])
		b.noteInsertTypes(rel, cols, list)
		p, err := b.planQuery(&pg_query.SelectStmt{TargetList: list, Op: pg_query.SetOperation_SETOP_NONE,
			LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}, nil, nil)
		if err != nil {
			return nil, err
		}
		query, rows = b.subqueryRel(p), queryRow(p)
	case sel != nil && len(sel.ValuesLists) > 0 && sel.Op == pg_query.SetOperation_SETOP_NONE && len(sel.SortClause) == 0 && sel.LimitCount == nil:
		if consts, ok := b.constRows(rel, cols, targets, sel.ValuesLists); ok {
			q := insertQuery(rel)
			q.Rows = consts
			return q, nil
		}
		want := make([]repr.T, len(cols))
		var err error
		if rows, rowRels, err = b.valuesRows(sel.ValuesLists, &scope{}, unitRel(), want); err != nil {
			return nil, err
		}
	case sel != nil:
		if sel.Op == pg_query.SetOperation_SETOP_NONE {
			b.noteInsertTypes(rel, cols, sel.TargetList)
		}
		p, err := b.planQuery(sel, nil, nil)
		if err != nil {
			return nil, err
		}
		query, rows = b.subqueryRel(p), queryRow(p)
	default:
		return nil, repr.Unsupported("INSERT source %s", nodeName(src))
	}
	if len(rows[0]) > len(cols) {
		return nil, repr.Errorf(repr.CodeSyntax, "INSERT has more expressions than target columns")
	}
	if len(rows[0]) < len(cols) && src != nil && !explicit {
		cols = cols[:len(rows[0])]
	}
	if len(rows[0]) < len(cols) && src != nil {
		return nil, repr.Errorf(repr.CodeSyntax, "INSERT has more target columns than expressions")
	}
	full, err := b.fullRows(rel, cols, targets, rows, override)
	if err != nil {
		return nil, err
	}
	q := insertQuery(rel)
	switch {
	case query != nil:
		q.Rel = projectExprs(query, 0, full[0])
	case rowRels != nil:
		q.Rel = valuesRel(full, rowRels, colTypes(q.Columns), unitRel(), 0)
	default:
		q.Rel = &ir.Values{Rows: full, Types: colTypes(q.Columns)}
	}
	return q, nil
}

// insertQuery is the Query of an INSERT's rows, without its relation:
// one column per column of table rel.
func insertQuery(rel *Relation) *Query {
	q := &Query{Limit: -1}
	for i, c := range rel.Columns {
		q.Columns = append(q.Columns, ResultColumn{Name: c.Name, Type: c.Type, TableID: rel.ID, ColumnAttr: int16(i + 1)})
	}
	return q
}

// insertValue assigns v, the value of target i, to column col: directly,
// or through the target's subscripts (INSERT INTO t (a[1], a[2]) ...)
// into the column's value so far, which starts NULL as in PostgreSQL.
func (b *builder) insertValue(col Column, sofar expr.Expr, targets []*pg_query.Node, i int, v expr.Expr) (expr.Expr, error) {
	if i >= len(targets) || len(targets[i].GetResTarget().Indirection) == 0 {
		return b.assign(v, col.Type, col.Name)
	}
	if sofar == nil {
		sofar = &expr.Lit{D: repr.Null, T: col.Type}
	}
	ec := &ectx{b: b, sc: &scope{}, clause: "INSERT", noSubquery: true}
	return ec.assignInto(sofar, col.Type, targets[i].GetResTarget(), v)
}

// fullRows orders each row's entries by table column, assigning them to
// the column types and filling missing and DEFAULT entries.
func (b *builder) fullRows(rel *Relation, cols []int, targets []*pg_query.Node, rows [][]expr.Expr, override pg_query.OverridingKind) ([][]expr.Expr, error) {
	out := make([][]expr.Expr, len(rows))
	for r, row := range rows {
		full := make([]expr.Expr, len(rel.Columns))
		for i, c := range cols {
			if row[i] == nil {
				continue
			}
			if col := rel.Columns[c]; col.Identity {
				switch override {
				case pg_query.OverridingKind_OVERRIDING_USER_VALUE:
					continue
				case pg_query.OverridingKind_OVERRIDING_SYSTEM_VALUE:
				default:
					if col.IdentityAlways {
						return nil, repr.Errorf("428C9", "cannot insert a non-DEFAULT value into column %q", col.Name).
							WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", col.Name).
							WithHint("Use OVERRIDING SYSTEM VALUE to override.")
					}
				}
			}
			e, err := b.insertValue(rel.Columns[c], full[c], targets, i, row[i])
			if err != nil {
				return nil, err
			}
			full[c] = e
		}
		for c := range full {
			if full[c] != nil {
				continue
			}
			e, err := b.defaultValue(rel.Columns[c])
			if err != nil {
				return nil, err
			}
			full[c] = e
		}
		out[r] = full
	}
	return out, nil
}

// defaultValue plans a column's DEFAULT (NULL when it has none).
func (b *builder) defaultValue(c Column) (expr.Expr, error) {
	if c.Default == nil {
		return &expr.Lit{D: repr.Null, T: c.Type}, nil
	}
	ec := &ectx{b: b, sc: &scope{}, rel: unitRel(), clause: "DEFAULT", noSubquery: true}
	e, err := ec.expr(c.Default)
	if err != nil {
		return nil, err
	}
	return b.assign(e, c.Type, c.Name)
}

// PlanUpdate plans UPDATE t SET col = expr, ... [FROM ...] [WHERE ...]
// [RETURNING ...].
func PlanUpdate(cat Catalog, stmt *pg_query.UpdateStmt, opts Options) (*Update, error) {
	return planOuterAggs(cat, opts, func(b *builder) (*Update, error) { return b.planUpdate(stmt) })
}

// planUpdate is PlanUpdate with builder b.
func (b *builder) planUpdate(stmt *pg_query.UpdateStmt) (*Update, error) {
	b.noteWholeRefs(stmt)
	rel, sc, err := b.targetTable(stmt.Relation)
	if err != nil {
		return nil, err
	}
	u := &Update{Table: rel}
	list, err := expandMultiAssign(stmt.TargetList)
	if err != nil {
		return nil, err
	}
	if !joinsOthers(stmt.FromClause, stmt.WhereClause, stmt.WithClause) && !setHasSubLink(list) && !listHasSubLink(stmt.ReturningList) {
		u.Filter, err = b.dmlFilter(rel, sc, stmt.WhereClause)
		if err == nil {
			u.Set, err = b.setList(rel, sc, list)
		}
		if err == nil {
			u.Returning, u.ReturningColumns, err = b.returningOver(stmt.ReturningList, sc, tableRel(rel))
		}
	} else {
		err = b.withDML(stmt.WithClause, func() error {
			var err error
			if u.From, sc, err = b.joinedTarget(rel, stmt.Relation, stmt.FromClause, stmt.WhereClause); err != nil {
				return err
			}
			if u.Set, err = b.joinedSetList(rel, sc, u.From, list); err != nil {
				return err
			}
			u.Returning, u.ReturningColumns, err = b.joinedReturning(stmt.ReturningList, sc, u.From, u.Set)
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	u.ParamTypes = b.finalParamTypes()
	return u, nil
}

// setList builds the new row: assigned columns from their expressions
// (over the old row), the others unchanged.
func (b *builder) setList(rel *Relation, sc *scope, list []*pg_query.Node) ([]expr.Expr, error) {
	return b.setListOver(rel, sc, tableRel(rel), list)
}

// setListOver is setList over input relation in (the table row, or the
// existing and excluded rows of ON CONFLICT DO UPDATE).
func (b *builder) setListOver(rel *Relation, sc *scope, in ir.Rel, list []*pg_query.Node) ([]expr.Expr, error) {
	return (&ectx{b: b, sc: sc, rel: in, clause: "UPDATE", noSubquery: true}).setList(rel, list)
}

// setList builds the new row of table rel over c's relation; with
// subqueries allowed, their decorrelated values widen c.rel.
func (c *ectx) setList(rel *Relation, list []*pg_query.Node) ([]expr.Expr, error) {
	b, ec := c.b, c
	set := make([]expr.Expr, len(rel.Columns))
	for _, n := range list {
		rt := n.GetResTarget()
		i := columnIndex(rel, rt.Name)
		if i < 0 {
			return nil, repr.Errorf(repr.CodeUndefinedColumn, "column %q of relation %q does not exist", rt.Name, rel.Name).WithPosition(rt.Location + 1)
		}
		if len(rt.Indirection) > 0 {
			e, err := ec.elementAssignment(rel, set, i, rt)
			if err != nil {
				return nil, err
			}
			set[i] = e
			continue
		}
		if set[i] != nil {
			return nil, repr.Errorf(repr.CodeDuplicateColumn, "multiple assignments to same column %q", rt.Name)
		}
		var e expr.Expr
		var err error
		if rel.Columns[i].IdentityAlways && rt.Val.GetSetToDefault() == nil {
			return nil, repr.Errorf("428C9", "column %q can only be updated to DEFAULT", rt.Name).
				WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", rt.Name)
		}
		if rt.Val.GetSetToDefault() != nil {
			e, err = b.defaultValue(rel.Columns[i])
		} else if e, err = ec.expr(rt.Val); err == nil {
			e, err = b.assign(e, rel.Columns[i].Type, rt.Name)
		}
		if err != nil {
			return nil, err
		}
		set[i] = e
	}
	for i, e := range set {
		if e == nil {
			set[i] = &expr.Col{Idx: i, T: rel.Columns[i].Type}
		}
	}
	return set, nil
}

// dmlFilter builds a WHERE over the table row (nil when absent).
func (b *builder) dmlFilter(rel *Relation, sc *scope, where *pg_query.Node) (expr.Expr, error) {
	if where == nil {
		return nil, nil
	}
	ec := &ectx{b: b, sc: sc, rel: tableRel(rel), clause: "WHERE", noSubquery: true}
	return ec.predicate(where)
}

// PlanDelete plans DELETE FROM t [USING ...] [WHERE ...] [RETURNING ...].
func PlanDelete(cat Catalog, stmt *pg_query.DeleteStmt, opts Options) (*Delete, error) {
	return planOuterAggs(cat, opts, func(b *builder) (*Delete, error) { return b.planDelete(stmt) })
}

// planDelete is PlanDelete with builder b.
func (b *builder) planDelete(stmt *pg_query.DeleteStmt) (*Delete, error) {
	b.noteWholeRefs(stmt)
	rel, sc, err := b.targetTable(stmt.Relation)
	if err != nil {
		return nil, err
	}
	d := &Delete{Table: rel}
	if !joinsOthers(stmt.UsingClause, stmt.WhereClause, stmt.WithClause) && !listHasSubLink(stmt.ReturningList) {
		d.Filter, err = b.dmlFilter(rel, sc, stmt.WhereClause)
		if err == nil {
			d.Returning, d.ReturningColumns, err = b.returningOver(stmt.ReturningList, sc, tableRel(rel))
		}
	} else {
		err = b.withDML(stmt.WithClause, func() error {
			var err error
			if d.From, sc, err = b.joinedTarget(rel, stmt.Relation, stmt.UsingClause, stmt.WhereClause); err != nil {
				return err
			}
			d.Returning, d.ReturningColumns, err = b.joinedReturning(stmt.ReturningList, sc, d.From, nil)
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	d.ParamTypes = b.finalParamTypes()
	return d, nil
}

// queryRow is the one row template of an INSERT whose rows come from the
// planned query p: each target value its column of p.
func queryRow(p *planned) [][]expr.Expr {
	row := make([]expr.Expr, len(p.cols))
	for i, c := range p.cols {
		row[i] = &expr.Col{Idx: i, T: c.Type}
	}
	return [][]expr.Expr{row}
}
