package sql

import (
	"errors"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// indexKey is the key of an index or unique constraint compiled over its
// relation's rows: one scalar expression per key part (a *expr.Col for
// a column part), the conjuncts of a partial index's predicate, and
// whether NULLs are equal (NULLS NOT DISTINCT). Its parts and predicate
// are immutable (expr.IsImmutable), so a row's key never changes: the
// arrangement, the unique checks and the access paths may all recompute
// it. An indexKey is read-only once built.
type indexKey struct {
	parts []expr.Expr
	where []expr.Expr
	// cols are the parts' columns when every part is a column (nil
	// otherwise).
	cols       []int
	nullsEqual bool
	// names are the parts as PostgreSQL prints them in a key's DETAIL:
	// a column's name, a function-like expression as written, any other
	// expression in parentheses; whereText is the predicate's SQL.
	names     []string
	whereText string
	// termList are the parts' terms (terms), computed once.
	termList []string
}

// colsKey is the key of columns cols of rel.
func colsKey(rel *Object, cols []int, nullsEqual bool) *indexKey {
	k := &indexKey{cols: cols, nullsEqual: nullsEqual}
	for _, c := range cols {
		k.parts = append(k.parts, &expr.Col{Idx: c, T: rel.Columns[c].Type})
		k.names = append(k.names, rel.Columns[c].Name)
	}
	k.termList = k.terms()
	return k
}

// plain reports whether the key is a list of columns over every row
// (what the shared joins and the key counts of constraints can read).
func (k *indexKey) plain() bool { return k.cols != nil && k.where == nil }

// holds reports whether a row belongs to the key's rows (the partial
// index's predicate is true for it).
func (k *indexKey) holds(ctx *expr.Ctx, row repr.Row) (bool, error) {
	for _, w := range k.where {
		d, err := w.Eval(ctx, row)
		if err != nil || d.IsNull() || !d.Bool() {
			return false, err
		}
	}
	return true, nil
}

// encode appends row's key to dst; in is false when the row is not one
// of the key's rows.
func (k *indexKey) encode(ctx *expr.Ctx, dst []byte, row repr.Row) (key []byte, in bool, err error) {
	if k.cols != nil && k.where == nil {
		return repr.AppendColsKey(dst, row, k.cols), true, nil
	}
	if in, err = k.holds(ctx, row); !in || err != nil {
		return dst, false, err
	}
	for _, p := range k.parts {
		d, err := p.Eval(ctx, row)
		if err != nil {
			return dst, false, err
		}
		dst = repr.AppendKey(dst, d)
	}
	return dst, true, nil
}

// unique returns row's key for the unique checks: ok is false when the
// row cannot conflict (outside a partial index, or a NULL part while
// NULLs are distinct).
func (k *indexKey) unique(ctx *expr.Ctx, row repr.Row) (string, bool, error) {
	if k.cols != nil && k.where == nil && !k.nullsEqual {
		key, ok := keyOf(row, k.cols)
		return key, ok, nil
	}
	if in, err := k.holds(ctx, row); !in || err != nil {
		return "", false, err
	}
	var buf []byte
	for _, p := range k.parts {
		d, err := p.Eval(ctx, row)
		if err != nil {
			return "", false, err
		}
		if d.IsNull() && !k.nullsEqual {
			return "", false, nil
		}
		buf = repr.AppendKey(buf, d)
	}
	return string(buf), true, nil
}

// storageKey is the key as the collection's arrangement computes it. A
// row whose key fails to evaluate has no entry (a table's writes raise
// the error first, checkIndexExprs; a view's or a connector's row that
// fails stays out of the index: a read through it misses the row whose
// full scan would fail with that error).
func (k *indexKey) storageKey() storage.IndexKey {
	if k.plain() {
		return storage.ColsKey(k.cols)
	}
	return func(dst []byte, row repr.Row) ([]byte, bool) {
		key, in, err := k.encode(&expr.Ctx{}, dst, row)
		return key, in && err == nil
	}
}

// text prints row's key as PostgreSQL's DETAIL does: names and values.
func (k *indexKey) text(ctx *expr.Ctx, row repr.Row) (string, string) {
	vals := make([]string, len(k.parts))
	for i, p := range k.parts {
		d, err := p.Eval(ctx, row)
		switch {
		case err != nil:
			vals[i] = "?"
		case d.IsNull():
			vals[i] = "null"
		default:
			vals[i] = repr.FormatText(d, p.Type(), nil)
		}
	}
	return strings.Join(k.names, ", "), strings.Join(vals, ", ")
}

// terms are the parts printed for matching against a query's filter or
// an ON CONFLICT target (termOf).
func (k *indexKey) terms() []string {
	if k.termList != nil {
		return k.termList
	}
	out := make([]string, len(k.parts))
	for i, p := range k.parts {
		out[i] = termOf(p)
	}
	return out
}

// termOf identifies an expression for matching: equal terms are the same
// computation of the same type over the same columns (the optimizer's
// folding is applied to both sides first).
func termOf(e expr.Expr) string { return e.String() + " :: " + e.Type().String() }

// conjuncts flattens e's ANDs into their terms, adding the IS NOT NULL
// terms that each conjunct implies (notNullFacts): a filter is known to
// hold only where every conjunct is true.
func conjuncts(e expr.Expr, out map[string]bool) {
	if a, ok := e.(*expr.And); ok {
		for _, x := range a.Args {
			conjuncts(x, out)
		}
		return
	}
	out[termOf(e)] = true
	notNullFacts(e, out)
}

// notNullFacts records, for an expression known not to be NULL, the `x
// IS NOT NULL` terms of the subexpressions that must then be non-NULL:
// the arguments of a strict call (a comparison such as email = $1 among
// them) or of a cast, and of IS NOT NULL, recursively. Sound because a
// strict function of a NULL argument is NULL.
func notNullFacts(e expr.Expr, out map[string]bool) {
	var args []expr.Expr
	switch x := e.(type) {
	case *expr.Call:
		if !x.Fn.Strict {
			return
		}
		args = x.Args
	case *expr.Cast:
		args = []expr.Expr{x.Arg}
	case *expr.IsNull:
		if !x.Negate {
			return
		}
		args = []expr.Expr{x.Arg}
	}
	for _, a := range args {
		if isConstant(a) {
			continue
		}
		out[termOf(&expr.IsNull{Arg: a, Negate: true})] = true
		notNullFacts(a, out)
	}
}

// impliedBy reports whether the key's predicate follows from a filter
// with conjuncts conj (see conjuncts): every conjunct of the predicate is
// one of them, or an IS NOT NULL they imply (a simple, sound implication
// test; PostgreSQL's predicate_implied_by proves more).
func (k *indexKey) impliedBy(conj map[string]bool) bool {
	for _, w := range k.where {
		if !conj[termOf(w)] {
			return false
		}
	}
	return true
}

// stableFuncs are functions PostgreSQL marks STABLE (their result depends
// on settings such as DateStyle or extra_float_digits) that Eddy computes
// without a time zone and so does not flag: they may not appear in an
// index either. to_timestamp(double precision) is immutable; its text
// form is not.
var stableFuncs = map[string]bool{"concat": true, "concat_ws": true, "format": true, "to_char": true,
	"array_to_string": true, "to_date": true}

// immutable reports whether e may be an index expression or predicate.
func immutable(e expr.Expr) bool {
	if !expr.IsImmutable(e) {
		return false
	}
	ok := true
	var walk func(e expr.Expr)
	walk = func(e expr.Expr) {
		switch x := e.(type) {
		case *expr.Call:
			ok = ok && !stableFuncs[x.Fn.Name] && !(x.Fn.Name == "to_timestamp" && len(x.Args) == 2)
		case *expr.Cast:
			ok = ok && !stableCast(x.Arg.Type(), x.To)
		}
		for _, k := range expr.Children(e) {
			walk(k)
		}
	}
	walk(e)
	return ok
}

// stableCast reports whether a cast is STABLE in PostgreSQL though
// independent of the time zone: text to or from a date/time type, whose
// input and output follow DateStyle and IntervalStyle.
func stableCast(from, to repr.T) bool {
	datetime := func(t repr.T) bool {
		switch t.Family {
		case repr.FamDate, repr.FamTime, repr.FamTimestamp, repr.FamTimestampTZ, repr.FamInterval:
			return true
		}
		return false
	}
	text := func(t repr.T) bool { return t.Family == repr.FamText }
	return text(from) && datetime(to) || datetime(from) && text(to)
}

// compileIndexKey plans def's key parts and predicate over the rows of
// rel: PostgreSQL's errors for what an index may not compute (42P17 for
// a function that is not immutable).
func compileIndexKey(cat planner.Catalog, rel *Object, def *IndexDef) (*indexKey, error) {
	if rel.rel == nil { // a changed copy not yet in the catalog
		r, err := rel.relation()
		if err != nil {
			return nil, err
		}
		rel.rel = r
	}
	k := &indexKey{nullsEqual: def.NullsNotDistinct}
	plain := true
	for i, c := range def.Cols {
		if c >= 0 {
			if c >= len(rel.Columns) {
				return nil, repr.Errorf(repr.CodeUndefinedColumn, "index column %d does not exist", c)
			}
			k.parts = append(k.parts, &expr.Col{Idx: c, T: rel.Columns[c].Type})
			k.names = append(k.names, rel.Columns[c].Name)
			continue
		}
		plain = false
		n, err := parseExpr(def.Exprs[i])
		if err != nil {
			return nil, err
		}
		x, err := planIndexExpr(cat, rel, n, false)
		if err != nil {
			return nil, err
		}
		k.parts = append(k.parts, x)
		name, ok := keyPartName(x, rel)
		if !ok {
			name = exprName(n, def.Exprs[i])
		}
		k.names = append(k.names, name)
	}
	if plain {
		k.cols = def.Cols
	}
	if def.Where != "" {
		n, err := parseExpr(def.Where)
		if err != nil {
			return nil, err
		}
		w, err := planIndexExpr(cat, rel, n, true)
		if err != nil {
			return nil, err
		}
		k.where = splitAnd(w)
		k.whereText = def.Where
	}
	k.termList = k.terms()
	return k, nil
}

// splitAnd returns e's conjuncts.
func splitAnd(e expr.Expr) []expr.Expr {
	if a, ok := e.(*expr.And); ok {
		var out []expr.Expr
		for _, x := range a.Args {
			out = append(out, splitAnd(x)...)
		}
		return out
	}
	return []expr.Expr{e}
}

// planIndexExpr plans one expression (or predicate) and checks that it
// is immutable; it is folded as the optimizer folds a query's filter, so
// that equal computations print equal terms.
func planIndexExpr(cat planner.Catalog, rel *Object, n *pg.Node, predicate bool) (expr.Expr, error) {
	x, err := planner.PlanIndexExpr(cat, rel.rel, n, predicate)
	var pe *repr.Error
	if errors.As(err, &pe) && pe.Position != 0 {
		// The position is in the stored text, not the statement.
		return nil, pe.WithPosition(0)
	}
	if err != nil {
		return nil, err
	}
	if !immutable(x) {
		what := "expression"
		if predicate {
			what = "predicate"
		}
		return nil, repr.Errorf("42P17", "functions in index %s must be marked IMMUTABLE", what)
	}
	return expr.Fold(x), nil
}

// exprName is an expression key part as PostgreSQL prints it (its
// pg_get_indexdef): as written when it looks like a function call, else
// in parentheses.
func exprName(n *pg.Node, text string) string {
	switch n.Node.(type) {
	case *pg.Node_FuncCall, *pg.Node_CoalesceExpr, *pg.Node_MinMaxExpr, *pg.Node_SqlvalueFunction:
		return text
	}
	return "(" + text + ")"
}

// figureName is the name PostgreSQL gives an expression key part in a
// default index name (FigureIndexColname): a function's name, a cast's
// argument's (else its type's) name, "expr" otherwise.
func figureName(n *pg.Node) string {
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef:
		if f := x.ColumnRef.Fields; len(f) > 0 && f[len(f)-1].GetString_() != nil {
			return f[len(f)-1].GetString_().Sval
		}
	case *pg.Node_FuncCall:
		if f := x.FuncCall.Funcname; len(f) > 0 {
			return f[len(f)-1].GetString_().Sval
		}
	case *pg.Node_TypeCast:
		if name := figureName(x.TypeCast.Arg); name != "expr" {
			return name
		}
		if f := x.TypeCast.TypeName.GetNames(); len(f) > 0 {
			return f[len(f)-1].GetString_().Sval
		}
	case *pg.Node_CoalesceExpr:
		return "coalesce"
	case *pg.Node_CaseExpr:
		return "case"
	}
	return "expr"
}

// checkNewIndexKey refuses (42P17) what PostgreSQL does not let a new
// index compute but compileIndexKey accepts, because indexes holding it
// were created before Eddy refused it: a cast between an enum (or an
// array of one) and text, which goes through the enum's STABLE output
// or input function, and text || x with x an enum or a date/time value
// (PostgreSQL inlines it into a STABLE cast to text). It runs when an
// index is created, never when a data directory is opened, so such an
// existing index still loads. (A variable, so that a test can make such
// an index as an older Eddy did.)
var checkNewIndexKey = func(k *indexKey) error {
	for _, p := range k.parts {
		if enumTextCast(p) {
			return repr.Errorf("42P17", "functions in index expression must be marked IMMUTABLE")
		}
	}
	for _, w := range k.where {
		if enumTextCast(w) {
			return repr.Errorf("42P17", "functions in index predicate must be marked IMMUTABLE")
		}
	}
	return nil
}

// enumTextCast reports whether e casts an enum, or an array of one, to
// or from a text type anywhere (text to enum is a call of enum_in; an
// enum or date/time operand of text || x is cast to text, as PostgreSQL
// inlines it).
func enumTextCast(e expr.Expr) bool {
	if c, ok := e.(*expr.Cast); ok {
		from, to := c.Arg.Type(), c.To
		enum := func(t repr.T) bool {
			return t.Family == repr.FamEnum || t.Family == repr.FamArray && t.Elem == repr.FamEnum
		}
		text := func(t repr.T) bool {
			return t.Family == repr.FamText || t.Family == repr.FamArray && t.Elem == repr.FamText
		}
		if enum(from) && text(to) || text(from) && enum(to) {
			return true
		}
	}
	if c, ok := e.(*expr.Call); ok && c.Fn.Name == "enum_in" {
		return true
	}
	if c, ok := e.(*expr.Call); ok && c.Fn.Name == "||" && c.Fn.Ret.Family == repr.FamText {
		// text || anynonarray casts the other operand to text
		for _, a := range c.Args {
			if t := a.Type(); t.Family == repr.FamEnum || stableCast(t, repr.Text) {
				return true
			}
		}
	}
	for _, k := range expr.Children(e) {
		if enumTextCast(k) {
			return true
		}
	}
	return false
}
