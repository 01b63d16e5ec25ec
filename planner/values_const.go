package planner

import (
	"slices"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// constRows is insertSource's fast path for the shape of bulk inserts: a
// VALUES list whose entries are all plain literals (or bound parameters),
// assigned to plain columns. It converts each entry to its column type
// directly, as the general path's assignment cast and literal folding
// would (expr.FoldAssign), and returns the rows in table column order
// without building an expression per value: one allocation holds every
// row's datums. ok is false for any other statement and on any error (a
// failing cast, an entry of a type not assignable to its column): the
// general path then plans the statement and reports the error exactly as
// it always has.
func (b *builder) constRows(rel *Relation, cols []int, targets []*pg_query.Node, lists []*pg_query.Node) (rows []repr.Row, ok bool) {
	if b.opts.Trace != nil || len(lists) == 0 {
		return nil, false
	}
	n := len(lists[0].GetList().GetItems())
	if n > len(cols) || n < len(cols) && len(targets) > 0 {
		return nil, false
	}
	cols = cols[:n]
	b.slots = b.slots[:0]
	defer func() {
		if !ok {
			b.slots = nil
		}
	}()
	for _, t := range targets {
		if len(t.GetResTarget().Indirection) > 0 {
			return nil, false
		}
	}
	fill, ok := b.constDefaults(rel, cols)
	if !ok {
		return nil, false
	}
	loc := (&expr.Ctx{TimeZone: b.opts.TimeZone}).Location()
	width := len(rel.Columns)
	flat := make([]repr.Datum, len(lists)*width)
	rows = make([]repr.Row, len(lists))
	// noted holds, per entry, the types whose casts to the column are
	// recorded (Options.Calls): a bulk INSERT's rows repeat their types,
	// and one record per distinct cast is all its EXECUTE checks need.
	noted := make([][]repr.T, n)
	note := func(i int, t repr.T) {
		if !slices.Contains(noted[i], t) {
			b.noteCastTypes(t, rel.Columns[cols[i]].Type)
			noted[i] = append(noted[i], t)
		}
	}
	text := textColumns(rel, cols, loc)
	for r, l := range lists {
		items := l.GetList().GetItems()
		if len(items) != n {
			return nil, false
		}
		row := flat[r*width : (r+1)*width : (r+1)*width]
		copy(row, fill)
		for i, it := range items {
			if s, isText := textConst(it); isText && text[i].ok {
				// The column's type was checked once (textColumns).
				var err error
				if row[cols[i]], err = repr.ParseText(s, text[i].t, text[i].loc); err != nil {
					return nil, false
				}
				note(i, repr.Unknown)
				continue
			}
			ct := rel.Columns[cols[i]].Type
			d, t, ok := b.constItem(it)
			if !ok || isComposite(t, ct) || t.Family != repr.FamUnknown && t != ct && repr.CastContextOf(t, ct) < repr.CastAssignment {
				return nil, false
			}
			if row[cols[i]], ok = expr.FoldAssign(d, t, ct, loc); !ok {
				return nil, false
			}
			if it.GetParamRef() != nil {
				b.noteSlot(r*width+cols[i], int(it.GetParamRef().Number)-1, t, ct)
			}
			note(i, t)
		}
		rows[r] = row
	}
	return rows, true
}

// textColumn is how constRows converts an untyped string literal to its
// column: ok when that is repr.ParseText in time zone loc for every
// literal (expr.TextAssign), as FoldAssign would convert it.
type textColumn struct {
	ok  bool
	t   repr.T
	loc *time.Location
}

// textColumns returns the textColumn of each of cols, decided once per
// column instead of once per value.
func textColumns(rel *Relation, cols []int, loc *time.Location) []textColumn {
	out := make([]textColumn, len(cols))
	for i, c := range cols {
		t := rel.Columns[c].Type
		if l, ok := expr.TextAssign(t, loc); ok && !isComposite(repr.Unknown, t) {
			out[i] = textColumn{ok: true, t: t, loc: l}
		}
	}
	return out
}

// textConst returns the text of a VALUES entry that is a string constant
// ('...', untyped), the most common entry of a bulk INSERT.
func textConst(n *pg_query.Node) (string, bool) {
	a, ok := n.GetNode().(*pg_query.Node_AConst)
	if !ok || a.AConst == nil || a.AConst.Isnull {
		return "", false
	}
	s, ok := a.AConst.Val.(*pg_query.A_Const_Sval)
	if !ok || s.Sval == nil {
		return "", false
	}
	return s.Sval.Sval, true
}

// constDefaults returns a row of the values of rel's columns that cols
// does not name: their DEFAULT, each of which must plan to a literal
// (nextval(...) or now() must be evaluated per row: ok false). A column
// cols names must not be an identity column (OVERRIDING rules apply).
func (b *builder) constDefaults(rel *Relation, cols []int) (fill repr.Row, ok bool) {
	named := make([]bool, len(rel.Columns))
	for _, c := range cols {
		if named[c] || rel.Columns[c].Identity {
			return nil, false
		}
		named[c] = true
	}
	fill = make(repr.Row, len(rel.Columns))
	for c, col := range rel.Columns {
		if named[c] {
			continue
		}
		e, err := b.defaultValue(col)
		lit, isLit := e.(*expr.Lit)
		if err != nil || !isLit {
			return nil, false
		}
		if _, placeholder := b.placeholders[lit]; placeholder {
			return nil, false
		}
		fill[c] = lit.D
	}
	return fill, true
}

// constItem returns the value and type of a VALUES entry that is a
// literal or a bound parameter, as constant and param type them; ok is
// false for any other entry.
func (b *builder) constItem(n *pg_query.Node) (d repr.Datum, t repr.T, ok bool) {
	if p := n.GetParamRef(); p != nil {
		i := int(p.Number) - 1
		if b.opts.Params == nil || i < 0 || i >= len(b.opts.Params) || i >= len(b.paramTypes) {
			return repr.Null, repr.T{}, false
		}
		d, t = b.opts.Params[i], b.paramTypes[i]
		if t.Family == repr.FamUnknown && !d.IsNull() {
			d = repr.NewText(d.Text())
		}
		return d, t, true
	}
	a := n.GetAConst()
	switch {
	case a == nil:
		return repr.Null, repr.T{}, false
	case a.GetBsval() != nil:
		d, err := repr.ParseText(a.GetBsval().Bsval, repr.Bit, nil)
		return d, repr.Bit, err == nil
	case a.Isnull:
		return repr.Null, repr.Unknown, true
	case a.GetIval() != nil:
		return repr.NewInt(int64(a.GetIval().Ival)), repr.Int4, true
	case a.GetFval() != nil:
		d, t, err := numericDatum(a.GetFval().Fval)
		return d, t, err == nil
	case a.GetSval() != nil:
		return repr.NewText(a.GetSval().Sval), repr.Unknown, true
	case a.GetBoolval() != nil:
		return repr.NewBool(a.GetBoolval().Boolval), repr.Bool, true
	}
	return repr.NewInt(0), repr.Int4, true
}

// WithRel returns q with its relation: q itself, or, when its rows were
// evaluated at plan time, a copy whose Rel is the Values of their
// literals (EXPLAIN of such an INSERT).
func (q *Query) WithRel() *Query {
	if q.Rel != nil || q.Rows == nil {
		return q
	}
	c := *q
	ts := colTypes(q.Columns)
	vals := make([][]expr.Expr, len(q.Rows))
	for i, r := range q.Rows {
		vals[i] = make([]expr.Expr, len(r))
		for j, d := range r {
			vals[i][j] = &expr.Lit{D: d, T: ts[j]}
		}
	}
	c.Rel, c.Rows = &ir.Values{Rows: vals, Types: ts}, nil
	return &c
}
