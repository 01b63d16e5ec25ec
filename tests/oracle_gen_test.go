package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// This file is TestOracle's query generator: random SELECTs over the
// oracle's tables, earlier grouped views and CTEs, with joins of 1-8 inputs
// (comma lists in random order with the predicates in WHERE, or explicit
// INNER/LEFT JOIN ... ON), subqueries (EXISTS, IN, NOT IN, scalar; correlated
// or not; nested one level; row IN, set operations, JOINs whose ON reads
// the outer query, and USING, NATURAL and LATERAL joins of derived tables
// that read it; constant select lists, whole rows), window functions, CTEs and set operations;
// oracle_gen_rec_test.go adds WITH RECURSIVE and array views.

// gcol is one column of a relation the generator can read.
type gcol struct {
	name string
	typ  byte    // 'i' integer, 'n' numeric, 't' text
	ndv  float64 // estimated number of distinct values (join-size estimate)
}

// grel is a relation the generator can name in a FROM list: a table, an
// earlier view or a CTE. A view's ref is a placeholder that renders as its
// name in the view's definition and as its inlined query ad hoc.
type grel struct {
	ref  string
	cols []gcol
	key  string  // a column known to be unique in the relation, or ""
	rows float64 // estimated number of rows
}

// gbind is a relation bound to an alias in some FROM list.
type gbind struct {
	alias string
	rel   grel
}

// gexpr is a generated scalar expression with its type class.
type gexpr struct {
	sql string
	typ byte
	ndv float64
}

// gquery is a generated query: its SQL (with view placeholders), its output
// columns and what is known about its rows.
type gquery struct {
	sql     string
	cols    []gcol
	key     string
	rows    float64
	grouped bool
}

// qgen generates one random view definition.
type qgen struct {
	o     *oracle
	rng   *rand.Rand
	alias int
	ctes  []grel // CTEs in scope of the query being generated
}

// oracleTableRows is the nominal size of a table in the join-size estimate.
const oracleTableRows = 30

// maxJoinRows bounds a generated join's estimated result, so an 8-way join
// of small tables stays small.
const maxJoinRows = 3000

// maxInlined bounds the ad hoc text of a view read by later views: ad hoc,
// each reference inlines it, and Eddy's plans of deeply nested inlined
// subqueries grow fast (seconds to plan a 5 KB query).
const maxInlined = 1200

// viewRef is the placeholder for view v in generated SQL.
func viewRef(v string) string { return "@" + v + "@" }

// render replaces view placeholders in sql: by the view's name (adhoc
// false) or by its inlined query in parentheses (adhoc true).
func (o *oracle) render(sql string, adhoc bool) string {
	var pairs []string
	for _, v := range o.views {
		if adhoc {
			pairs = append(pairs, viewRef(v.name), "("+v.adhoc+")")
		} else {
			pairs = append(pairs, viewRef(v.name), v.name)
		}
	}
	return strings.NewReplacer(pairs...).Replace(sql)
}

// tableRel describes table tb to the generator.
func tableRel(tb oracleTable) grel {
	r := grel{ref: tb.name, rows: oracleTableRows, cols: []gcol{
		{"k", 'i', oracleTableRows}, {"a", 'i', 11}, {"b", 't', 6}, {"c", 'n', 200},
	}}
	if tb.pk {
		r.key = "k"
	}
	return r
}

// newAlias returns a fresh alias, unique within the view definition.
func (g *qgen) newAlias() string {
	g.alias++
	return fmt.Sprintf("r%d", g.alias)
}

// pct reports true with probability p percent.
func (g *qgen) pct(p int) bool { return g.rng.IntN(100) < p }

// pick returns a random element of xs.
func pick[T any](g *qgen, xs []T) T { return xs[g.rng.IntN(len(xs))] }

// source picks a relation for a FROM list: a table, a grouped view, a CTE
// in scope, or (with derived) a grouped derived table.
func (g *qgen) source(derived bool) (grel, string) {
	switch r := g.rng.IntN(20); {
	case r < 4 && len(g.ctes) > 0:
		c := pick(g, g.ctes)
		return c, c.ref
	case r < 7:
		var vs []oracleView
		for _, v := range g.o.views {
			if v.agg && v.cols != nil && len(v.adhoc) < maxInlined {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			v := pick(g, vs)
			return v.rel(), viewRef(v.name)
		}
	case r < 8 && derived:
		q := g.selectQ(selOpts{grouped: true, maxIn: 2, depth: 1})
		return grel{ref: "(" + q.sql + ")", cols: q.cols, key: q.key, rows: q.rows}, "(" + q.sql + ")"
	}
	tb := tableRel(g.o.table())
	return tb, tb.ref
}

// bind binds a source to a fresh alias; from is the FROM-list item.
func (g *qgen) bind(derived bool) (gbind, string) {
	r, ref := g.source(derived)
	b := gbind{alias: g.newAlias(), rel: r}
	return b, ref + " " + b.alias
}

// colOf returns a random column of b of type class typ (any if 0), and
// whether there is one.
func (g *qgen) colOf(b gbind, typ byte) (gexpr, bool) {
	var cs []gcol
	for _, c := range b.rel.cols {
		if typ == 0 || c.typ == typ || (typ != 't' && c.typ != 't' && g.pct(30)) {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return gexpr{}, false
	}
	c := pick(g, cs)
	return gexpr{b.alias + "." + c.name, c.typ, c.ndv}, true
}

// anyCol returns a random column of one of binds.
func (g *qgen) anyCol(binds []gbind) gexpr {
	c, _ := g.colOf(pick(g, binds), 0)
	return c
}

// colTyped returns a column of type class typ from one of binds, or if
// none has one an expression of that type over some column.
func (g *qgen) colTyped(binds []gbind, typ byte) gexpr {
	for _, i := range g.rng.Perm(len(binds)) {
		if c, ok := g.colOf(binds[i], typ); ok && compatible(c.typ, typ) {
			return c
		}
	}
	c := g.anyCol(binds)
	switch {
	case typ == 't':
		return gexpr{"(" + c.sql + ")::text", 't', c.ndv}
	case c.typ == 't' && typ == 'i':
		return gexpr{"length(" + c.sql + ")", 'i', 2}
	case c.typ == 't':
		return gexpr{"length(" + c.sql + ") * 1.5", 'n', 2}
	}
	return c
}

// literal returns a random literal of type class typ.
func (g *qgen) literal(typ byte) gexpr {
	switch typ {
	case 'i':
		return gexpr{fmt.Sprint(g.rng.IntN(12) - 2), 'i', 0}
	case 't':
		return gexpr{fmt.Sprintf("'%c'", 'p'+rune(g.rng.IntN(5))), 't', 0}
	}
	return gexpr{fmt.Sprintf("%d.%d", g.rng.IntN(12)-3, g.rng.IntN(10)), 'n', 0}
}

// constant returns a select-list constant of type class typ: a literal,
// a typed NULL, or an expression over literals only.
func (g *qgen) constant(typ byte) gexpr {
	name := map[byte]string{'i': "int", 't': "text", 'n': "numeric"}[typ]
	switch g.rng.IntN(4) {
	case 0:
		return gexpr{"NULL::" + name, typ, 1}
	case 1:
		return gexpr{"(" + g.literal(typ).sql + ")::" + name, typ, 1}
	case 2:
		if typ == 't' {
			return gexpr{"'k' || " + g.literal(typ).sql, typ, 1}
		}
		return gexpr{"(" + g.literal(typ).sql + " + 1)", typ, 1}
	}
	e := g.literal(typ)
	if typ == 'i' && strings.HasPrefix(e.sql, "-") {
		e.sql = "(" + e.sql + ")"
	}
	e.ndv = 1
	return e
}

// compatible reports whether columns of type classes x and y compare.
func compatible(x, y byte) bool { return (x == 't') == (y == 't') }

// filter returns a single-table predicate on b.
func (g *qgen) filter(b gbind) string {
	c := g.anyCol([]gbind{b})
	switch g.rng.IntN(11) {
	case 10:
		return g.anyFilter(c)
	case 0:
		return c.sql + " IS NULL"
	case 1, 2:
		return c.sql + " IS NOT NULL"
	case 3:
		return fmt.Sprintf("%s IN (%s, %s, %s)", c.sql, g.literal(c.typ).sql, g.literal(c.typ).sql, g.literal(c.typ).sql)
	case 4, 5:
		return fmt.Sprintf("(%s < %s OR %s IS NULL)", c.sql, g.literal(c.typ).sql, c.sql)
	}
	return fmt.Sprintf("%s %s %s", c.sql, pick(g, []string{"<", "<=", ">", ">=", "<>", "<>"}), g.literal(c.typ).sql)
}

// selOpts shapes a generated SELECT.
type selOpts struct {
	grouped  bool
	distinct bool
	sig      []byte // wanted output type classes, nil for any
	minIn    int    // fewest FROM inputs (default 1)
	maxIn    int    // most FROM inputs
	depth    int    // subquery nesting depth
	subs     int    // subquery predicates in WHERE
	scalar   bool   // scalar subqueries in the select list and HAVING
	filters  int    // at most this many single-table filters
	twice    string // a CTE name to reference twice, if any
	cteFirst bool   // the first input is a CTE
}

// joinEdge is one equality predicate between two bindings.
type joinEdge struct {
	i, j int // positions in the tree order, i < j
	x, y gexpr
}

// inputCount returns a random number of FROM inputs in [lo, hi], smaller
// counts more likely.
func (g *qgen) inputCount(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	weights := []int{0, 14, 24, 18, 14, 10, 8, 6, 6}
	total := 0
	for n := lo; n <= hi; n++ {
		total += weights[n]
	}
	r := g.rng.IntN(total)
	for n := lo; n <= hi; n++ {
		if r -= weights[n]; r < 0 {
			return n
		}
	}
	return hi
}

// fromClause is a generated FROM list with the conjuncts that belong in WHERE.
type fromClause struct {
	binds []gbind // in tree order
	sql   string
	where []string
	rows  float64
}

// from generates n inputs joined by a random graph (chain, star, cycle or
// tree), written as a comma list with the predicates in WHERE or as
// explicit INNER/LEFT JOINs.
func (g *qgen) from(n int, opt selOpts) fromClause {
	var fc fromClause
	var items []string
	for i := range n {
		derived := opt.depth == 0 && i > 0
		b, item := g.bind(derived)
		if cte := opt.twice; (cte != "" && i < 2) || (opt.cteFirst && i == 0) {
			if cte == "" {
				cte = pick(g, g.ctes).ref
			}
			for _, c := range g.ctes {
				if c.ref == cte {
					b = gbind{alias: g.newAlias(), rel: c}
					item = c.ref + " " + b.alias
				}
			}
		}
		fc.binds, items = append(fc.binds, b), append(items, item)
	}
	edges := g.edges(fc.binds)
	fc.rows = g.estimate(fc.binds, edges)
	for fc.rows > maxJoinRows && g.tighten(fc.binds, edges) {
		fc.rows = g.estimate(fc.binds, edges)
	}
	if n > 1 && g.pct(35) {
		g.explicitJoins(&fc, items, edges)
		return fc
	}
	for _, e := range edges {
		fc.where = append(fc.where, e.x.sql+" = "+e.y.sql)
	}
	g.rewriteChains(&fc, edges)
	g.rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	fc.sql = strings.Join(items, ", ")
	return fc
}

// edges returns a random connected join graph over binds: a spanning
// chain, star or random tree, sometimes closed into a cycle or given an
// extra edge. Now and then an edge reuses the column its parent joins on,
// making an equality chain a = b AND b = c.
func (g *qgen) edges(binds []gbind) []joinEdge {
	n := len(binds)
	shape := g.rng.IntN(4) // 0 chain, 1 star, 2 tree, 3 cycle
	var edges []joinEdge
	via := make([]gexpr, n) // the column each node joins its parent on
	for j := 1; j < n; j++ {
		i := j - 1
		switch shape {
		case 1:
			i = 0
		case 2:
			i = g.rng.IntN(j)
		}
		e := g.edge(binds, i, j, via[i])
		via[j] = e.y
		edges = append(edges, e)
	}
	if n >= 3 && (shape == 3 || g.pct(20)) {
		edges = append(edges, g.edge(binds, 0, n-1, gexpr{}))
	}
	return edges
}

// edge returns an equality between a column of binds[i] (reuse, if set and
// the coin says so) and a compatible column of binds[j].
func (g *qgen) edge(binds []gbind, i, j int, reuse gexpr) joinEdge {
	for range 10 {
		x := reuse
		if x.sql == "" || g.pct(60) {
			x, _ = g.colOf(binds[i], 0)
		}
		if y, ok := g.colOf(binds[j], x.typ); ok && compatible(x.typ, y.typ) {
			return joinEdge{i, j, x, y}
		}
	}
	x, _ := g.colOf(binds[i], 0)
	return joinEdge{i, j, x, g.colTyped(binds[j:j+1], x.typ)}
}

// estimate returns the estimated size of the join: the product of the
// inputs' sizes and of each equality's selectivity 1/max(ndv).
func (g *qgen) estimate(binds []gbind, edges []joinEdge) float64 {
	est := 1.0
	for _, b := range binds {
		est *= max(b.rel.rows, 1)
	}
	for _, e := range edges {
		est /= max(e.x.ndv, e.y.ndv, 1)
	}
	return est
}

// tighten replaces the least selective edge with one on the most distinct
// columns of its two sides; it reports false when nothing changed.
func (g *qgen) tighten(binds []gbind, edges []joinEdge) bool {
	worst, sel := -1, 1e18
	for k, e := range edges {
		if s := max(e.x.ndv, e.y.ndv); s < sel {
			worst, sel = k, s
		}
	}
	if worst < 0 {
		return false
	}
	e := &edges[worst]
	bi, bj := binds[e.i], binds[e.j]
	best := *e
	for _, x := range bi.rel.cols {
		for _, y := range bj.rel.cols {
			if compatible(x.typ, y.typ) && max(x.ndv, y.ndv) > max(best.x.ndv, best.y.ndv) {
				best.x = gexpr{bi.alias + "." + x.name, x.typ, x.ndv}
				best.y = gexpr{bj.alias + "." + y.name, y.typ, y.ndv}
			}
		}
	}
	if best == *e {
		return false
	}
	*e = best
	return true
}

// rewriteChains rewrites, now and then, x = y AND y = z into the
// equivalent x = y AND x = z, so the written predicates skip a pair the
// equivalence class still links.
func (g *qgen) rewriteChains(fc *fromClause, edges []joinEdge) {
	for k, e := range edges {
		for l, f := range edges {
			if l == k || f.x.sql != e.y.sql || !g.pct(50) {
				continue
			}
			fc.where[l] = e.x.sql + " = " + f.y.sql
		}
	}
}

// explicitJoins writes the FROM list as INNER and LEFT JOINs in tree
// order, each with the edges to earlier inputs (and sometimes a filter on
// the new input) in its ON.
func (g *qgen) explicitJoins(fc *fromClause, items []string, edges []joinEdge) {
	var sb strings.Builder
	sb.WriteString(items[0])
	for j := 1; j < len(items); j++ {
		var on []string
		for _, e := range edges {
			if e.j == j {
				on = append(on, e.x.sql+" = "+e.y.sql)
			}
		}
		if g.pct(25) {
			on = append(on, g.filter(fc.binds[j]))
		}
		kind := "JOIN"
		switch g.rng.IntN(6) {
		case 0, 1:
			kind = "LEFT JOIN"
		case 2:
			kind = "INNER JOIN"
		}
		if kind != "LEFT JOIN" && len(on) > 0 && g.pct(15) {
			on[0] = g.orEdge(fc.binds, edges, j, on[0])
		}
		fmt.Fprintf(&sb, " %s %s ON %s", kind, items[j], strings.Join(on, " AND "))
	}
	fc.sql = sb.String()
}

// orEdge widens first, input j's first edge, into a disjunction with a
// second equality between the same two inputs (an OR join, planned as a
// union of hash joins).
func (g *qgen) orEdge(binds []gbind, edges []joinEdge, j int, first string) string {
	for _, e := range edges {
		if e.j == j {
			e2 := g.edge(binds, e.i, j, gexpr{})
			return "(" + first + " OR " + e2.x.sql + " = " + e2.y.sql + ")"
		}
	}
	return first
}

// selectQ generates a SELECT.
func (g *qgen) selectQ(opt selOpts) gquery {
	if opt.minIn == 0 {
		opt.minIn = 1
	}
	fc := g.from(g.inputCount(opt.minIn, opt.maxIn), opt)
	where := fc.where
	for range g.rng.IntN(opt.filters + 1) {
		where = append(where, g.filter(pick(g, fc.binds)))
		fc.rows /= 2
	}
	for range opt.subs {
		where = append(where, g.subPred(fc.binds, 0))
	}
	var q gquery
	var items []string
	var tail string
	if opt.grouped {
		items, q, tail = g.groupedList(fc.binds, opt)
	} else {
		items, q = g.plainList(fc.binds, opt)
		q.rows = fc.rows
	}
	g.rng.Shuffle(len(where), func(i, j int) { where[i], where[j] = where[j], where[i] })
	sel := "SELECT "
	if opt.distinct || (!opt.grouped && g.pct(15)) {
		sel = "SELECT DISTINCT "
	}
	q.sql = sel + strings.Join(items, ", ") + " FROM " + fc.sql
	if len(where) > 0 {
		q.sql += " WHERE " + strings.Join(where, " AND ")
	}
	q.sql += tail
	return q
}

// plainList returns the select list of an ungrouped query.
func (g *qgen) plainList(binds []gbind, opt selOpts) ([]string, gquery) {
	var q gquery
	sig := opt.sig
	if sig == nil {
		for range 1 + g.rng.IntN(4) {
			sig = append(sig, pick(g, []byte("iint")))
		}
	}
	// Now and then the list reads no column (SELECT 1 FROM t): one row
	// per input row, or one in all with DISTINCT.
	constOnly := g.pct(8)
	var items []string
	for k, typ := range sig {
		e := g.colTyped(binds, typ)
		switch r := g.rng.IntN(12); {
		case r == 0 && typ == 'i':
			e.sql = e.sql + " + 1"
		case r == 0 && typ == 't':
			e.sql = "coalesce(" + e.sql + ", 'z')"
		case r == 1 && typ == 'n':
			e.sql = e.sql + " * 2"
		case r < 4 && opt.scalar:
			if s, ok := g.scalarSub(binds, typ); ok {
				e = s
			}
		case r == 4 && typ != 't':
			e = g.window(binds, typ)
		case r == 5 || constOnly:
			e = g.constant(typ)
		case r == 6 && typ == 't':
			// A whole row as text: NULL where an outer join
			// null-extends it.
			e = gexpr{pick(g, binds).alias + "::text", 't', 30}
		}
		name := fmt.Sprintf("x%d", k)
		items = append(items, e.sql+" AS "+name)
		q.cols = append(q.cols, gcol{name, e.typ, e.ndv})
	}
	return items, q
}

// groupedList returns the select list of a grouped query (group columns,
// then aggregates) and its GROUP BY/HAVING tail.
func (g *qgen) groupedList(binds []gbind, opt selOpts) ([]string, gquery, string) {
	var q gquery
	q.grouped = true
	sig := opt.sig
	if sig == nil {
		sig = []byte{pick(g, []byte("iit"))}
		for range 1 + g.rng.IntN(3) {
			sig = append(sig, 0)
		}
	}
	var items, keys []string
	q.rows = 1
	// Now and then no GROUP BY at all (one row, even over no rows:
	// SELECT 'k', count(*) FROM t), or constants beside the aggregates.
	global := opt.sig == nil && g.pct(12)
	for k, typ := range sig {
		name := fmt.Sprintf("x%d", k)
		var e gexpr
		switch {
		case global && k == 0 && typ != 0:
			e = g.constant(typ)
		case global:
			e = g.aggregate(binds, typ)
		case k > 0 && g.pct(10):
			if typ == 0 {
				typ = pick(g, []byte("iint"))
			}
			e = g.constant(typ)
		case k == 0 || (k == 1 && g.pct(30)):
			if typ == 0 {
				typ = pick(g, []byte("iit"))
			}
			e = g.colTyped(binds, typ)
			if e.typ == 'i' && g.pct(30) {
				e.sql, e.ndv = e.sql+" % 3", 5
			}
			keys = append(keys, e.sql)
			q.rows *= e.ndv
		default:
			e = g.aggregate(binds, typ)
		}
		items = append(items, e.sql+" AS "+name)
		q.cols = append(q.cols, gcol{name, e.typ, e.ndv})
	}
	if len(keys) == 1 {
		q.key = q.cols[0].name
	}
	if g.pct(8) && len(keys) > 0 {
		// A constant grouping expression splits nothing.
		// Cast, as PostgreSQL reads a bare integer as a position and
		// refuses other bare constants there.
		typ := pick(g, []byte("it"))
		keys = append(keys, fmt.Sprintf("(%s)::%s", g.literal(typ).sql, map[byte]string{'i': "int", 't': "text"}[typ]))
	}
	tail := ""
	if len(keys) > 0 {
		tail = " GROUP BY " + strings.Join(keys, ", ")
	}
	if g.pct(25) {
		tail += " HAVING " + g.having(binds, keys, opt)
	}
	return items, q, tail
}

// aggregate returns a random aggregate over binds of type class typ (any
// if 0).
func (g *qgen) aggregate(binds []gbind, typ byte) gexpr {
	if typ == 0 {
		typ = pick(g, []byte("iint"))
	}
	switch typ {
	case 'i':
		switch g.rng.IntN(4) {
		case 0:
			return gexpr{"count(*)", 'i', 5}
		case 1:
			if g.pct(30) {
				// A whole row: not counted where an outer join
				// null-extends it, counted where all its columns are NULL.
				return gexpr{"count(" + pick(g, binds).alias + ")", 'i', 5}
			}
			return gexpr{"count(" + g.anyCol(binds).sql + ")", 'i', 5}
		case 2:
			c := g.colTyped(binds, 'i')
			return gexpr{"count(DISTINCT " + c.sql + ")", 'i', 5}
		}
		return gexpr{g.intAggregate(binds, "sum", "sum", "sum", "bit_xor", "bit_or"), 'i', 20}
	case 't':
		c := g.colTyped(binds, 't')
		return gexpr{pick(g, []string{"min", "max"}) + "(" + c.sql + ")", 't', c.ndv}
	}
	c := g.colTyped(binds, 'n')
	f := pick(g, []string{"sum", "min", "max", "avg"})
	return gexpr{f + "(" + c.sql + ")", 'n', 50}
}

// intAggregate returns one of fns applied to an integer-class column of
// binds. colTyped may return a numeric column for the integer class, which
// only sum accepts (bit_xor and bit_or take integers), so such a column is
// always summed.
func (g *qgen) intAggregate(binds []gbind, fns ...string) string {
	c := g.colTyped(binds, 'i')
	if c.typ != 'i' {
		return "sum(" + c.sql + ")"
	}
	return pick(g, fns) + "(" + c.sql + ")"
}

// window returns a window function call of type class typ ('i' or 'n')
// whose value does not depend on how the order ranks peers (rows equal in
// the ORDER BY columns), since PostgreSQL leaves that order unspecified:
// ranks, and aggregates over the whole partition or over the default
// frame (which always includes every peer of the current row).
func (g *qgen) window(binds []gbind, typ byte) gexpr {
	var over []string
	if g.pct(70) {
		over = append(over, "PARTITION BY "+g.anyCol(binds).sql)
	}
	ordered := g.pct(70)
	if ordered {
		o := g.anyCol(binds).sql + pick(g, []string{"", " DESC", " NULLS FIRST", " DESC NULLS LAST",
			" USING <", " USING > NULLS LAST"})
		over = append(over, "ORDER BY "+o)
	}
	spec := " OVER (" + strings.Join(over, " ") + ")"
	if typ == 'i' && ordered && g.pct(40) {
		return gexpr{pick(g, []string{"rank()", "dense_rank()"}) + spec, 'i', 5}
	}
	if typ == 'i' {
		if g.pct(50) {
			return gexpr{"count(*)" + spec, 'i', 5}
		}
		return gexpr{g.intAggregate(binds, "sum", "sum", "bit_xor") + spec, 'i', 20}
	}
	f := pick(g, []string{"sum", "min", "max", "avg"})
	return gexpr{f + "(" + g.colTyped(binds, 'n').sql + ")" + spec, 'n', 50}
}

// having returns a HAVING condition: on an aggregate, or comparing one
// with a subquery (correlated on a plain group column when there is one).
func (g *qgen) having(binds []gbind, keys []string, opt selOpts) string {
	agg := g.aggregate(binds, pick(g, []byte("in")))
	if !opt.scalar || g.pct(50) {
		return fmt.Sprintf("%s > %d", agg.sql, g.rng.IntN(3))
	}
	rel, ref := g.source(false)
	s := gbind{g.newAlias(), rel}
	inner := g.aggregate([]gbind{s}, agg.typ)
	where := ""
	for _, k := range keys {
		if strings.Contains(k, "%") {
			continue
		}
		for _, b := range binds {
			for _, c := range b.rel.cols {
				if b.alias+"."+c.name != k {
					continue
				}
				if y, ok := g.colOf(s, c.typ); ok && compatible(y.typ, c.typ) {
					where = " WHERE " + y.sql + " = " + k
				}
			}
		}
	}
	return fmt.Sprintf("%s >= (SELECT %s FROM %s %s%s)", agg.sql, inner.sql, ref, s.alias, where)
}

// correlate returns a predicate equating a column of s with a compatible
// column of one of outer, or "" if the coin or the types say no.
func (g *qgen) correlate(s gbind, outer []gbind) string {
	for range 4 {
		o := g.anyCol(outer)
		if y, ok := g.colOf(s, o.typ); ok && compatible(y.typ, o.typ) {
			return y.sql + " = " + o.sql
		}
	}
	return ""
}

// subFrom returns the FROM list and bindings of a subquery: one input,
// sometimes two joined.
func (g *qgen) subFrom() (string, []gbind, []string) {
	b, item := g.bind(false)
	if !g.pct(20) {
		return item, []gbind{b}, nil
	}
	c, item2 := g.bind(false)
	e := g.edge([]gbind{b, c}, 0, 1, gexpr{})
	return item + ", " + item2, []gbind{b, c}, []string{e.x.sql + " = " + e.y.sql}
}

// subWhere returns the WHERE clause of a subquery over binds: correlation
// with outer (if corr), filters, and at depth 0 sometimes a nested
// subquery predicate.
func (g *qgen) subWhere(binds, outer []gbind, conj []string, corr bool, depth int) string {
	if corr {
		if c := g.correlate(pick(g, binds), outer); c != "" {
			conj = append(conj, c)
		}
	}
	if g.pct(25) {
		conj = append(conj, g.filter(pick(g, binds)))
	}
	if depth == 0 && g.pct(25) {
		conj = append(conj, g.subPred(append(slices.Clone(binds), outer...), depth+1))
	}
	if len(conj) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conj, " AND ")
}

// subPred returns a subquery predicate over outer: [NOT] EXISTS, [NOT] IN
// (correlated or not; of a row too), EXISTS over a set operation or a
// JOIN whose ON reads outer, or a comparison with a scalar subquery.
func (g *qgen) subPred(outer []gbind, depth int) string {
	switch g.rng.IntN(9) {
	case 8:
		return g.joinUsingOuter(outer, depth)
	case 5:
		return g.rowIn(outer, depth)
	case 6:
		return g.existsSetOp(outer, depth)
	case 7:
		return g.joinOnOuter(outer, depth)
	case 0, 1:
		from, binds, conj := g.subFrom()
		not := pick(g, []string{"", "NOT "})
		return fmt.Sprintf("%sEXISTS (SELECT 1 FROM %s%s)", not, from, g.subWhere(binds, outer, conj, true, depth))
	case 2, 3:
		o := g.anyCol(outer)
		from, binds, conj := g.subFrom()
		y := g.colTyped(binds, o.typ)
		not := pick(g, []string{"", "NOT "})
		return fmt.Sprintf("%s %sIN (SELECT %s FROM %s%s)", o.sql, not, y.sql, from, g.subWhere(binds, outer, conj, g.pct(50), depth))
	}
	o := g.anyCol(outer)
	s, ok := g.scalarSub(outer, o.typ)
	if !ok {
		return g.filter(pick(g, outer))
	}
	return fmt.Sprintf("%s %s %s", o.sql, pick(g, []string{"<", ">=", "=", "<>"}), s.sql)
}

// rowIn returns (a, b) [NOT] IN (SELECT x, y ...), correlated or not.
func (g *qgen) rowIn(outer []gbind, depth int) string {
	o1, o2 := g.anyCol(outer), g.anyCol(outer)
	from, binds, conj := g.subFrom()
	y1, y2 := g.colTyped(binds, o1.typ), g.colTyped(binds, o2.typ)
	not := pick(g, []string{"", "NOT "})
	return fmt.Sprintf("(%s, %s) %sIN (SELECT %s, %s FROM %s%s)", o1.sql, o2.sql, not, y1.sql, y2.sql,
		from, g.subWhere(binds, outer, conj, g.pct(50), depth))
}

// existsSetOp returns [NOT] EXISTS over a UNION, INTERSECT or EXCEPT (ALL
// or not) of two subqueries correlated with outer.
func (g *qgen) existsSetOp(outer []gbind, depth int) string {
	o := g.anyCol(outer)
	var sides []string
	for range 2 {
		from, binds, conj := g.subFrom()
		y := g.colTyped(binds, o.typ)
		sides = append(sides, fmt.Sprintf("SELECT %s FROM %s%s", y.sql, from, g.subWhere(binds, outer, conj, true, depth)))
	}
	op := pick(g, []string{"UNION", "INTERSECT", "EXCEPT"}) + pick(g, []string{"", " ALL"})
	not := pick(g, []string{"", "NOT "})
	return fmt.Sprintf("%sEXISTS (%s %s %s)", not, sides[0], op, sides[1])
}

// joinOnOuter returns EXISTS over an inner JOIN whose ON condition reads
// outer, or a bound on a count over such a LEFT JOIN.
func (g *qgen) joinOnOuter(outer []gbind, depth int) string {
	a, item := g.bind(false)
	b, item2 := g.bind(false)
	e := g.edge([]gbind{a, b}, 0, 1, gexpr{})
	on := e.x.sql + " = " + e.y.sql
	if c := g.correlate(b, outer); c != "" {
		on += " AND " + c
	}
	where := g.subWhere([]gbind{a}, outer, nil, g.pct(50), depth)
	if g.pct(50) {
		return fmt.Sprintf("EXISTS (SELECT 1 FROM %s JOIN %s ON %s%s)", item, item2, on, where)
	}
	return fmt.Sprintf("%d <= (SELECT count(%s) FROM %s LEFT JOIN %s ON %s%s)", g.rng.IntN(3), e.y.sql, item, item2, on, where)
}

// joinUsingOuter returns EXISTS over, or a bound on a count over, a
// table joined USING one column (or NATURAL, or LATERAL) to a derived
// table that reads outer: INNER, LEFT, RIGHT or FULL.
func (g *qgen) joinUsingOuter(outer []gbind, depth int) string {
	a := gbind{g.newAlias(), tableRel(g.o.table())}
	inner := gbind{g.newAlias(), tableRel(g.o.table())}
	alias := g.newAlias()
	col := pick(g, a.rel.cols).name
	var conj []string
	if c := g.correlate(inner, outer); c != "" {
		conj = append(conj, c)
	}
	kind := pick(g, []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"})
	join := " USING (" + col + ")"
	switch {
	case g.pct(15):
		kind, join = "NATURAL "+kind, ""
	case g.pct(25):
		// LATERAL: the derived table reads the left side too.
		kind, join = pick(g, []string{"JOIN", "LEFT JOIN"})+" LATERAL", " ON true"
		conj = append(conj, fmt.Sprintf("%s.%s = %s.%s", inner.alias, col, a.alias, col))
	}
	where := ""
	if len(conj) > 0 {
		where = " WHERE " + strings.Join(conj, " AND ")
	}
	from := fmt.Sprintf("%s %s %s (SELECT * FROM %s %s%s) %s%s", a.rel.ref, a.alias, kind, inner.rel.ref, inner.alias, where, alias, join)
	if g.pct(40) {
		return fmt.Sprintf("EXISTS (SELECT 1 FROM %s%s)", from, g.subWhere([]gbind{a}, outer, nil, false, depth))
	}
	return fmt.Sprintf("%d <= (SELECT count(%s.k) FROM %s)", g.rng.IntN(3), alias, from)
}

// scalarSub returns a scalar subquery of type class typ that yields at
// most one row: an aggregate (correlated with outer or not; count(*)
// included, which yields 0, not NULL, for no rows), or a correlated
// lookup on a unique key.
func (g *qgen) scalarSub(outer []gbind, typ byte) (gexpr, bool) {
	if g.pct(35) {
		if e, ok := g.keyLookup(outer, typ); ok {
			return e, true
		}
	}
	b, item := g.bind(false)
	agg := g.aggregate([]gbind{b}, typ)
	where := g.subWhere([]gbind{b}, outer, nil, g.pct(70), 1)
	return gexpr{fmt.Sprintf("(SELECT %s FROM %s%s)", agg.sql, item, where), agg.typ, 5}, true
}

// keyLookup returns (SELECT s.col FROM rel s WHERE s.key = outer.col) for a
// relation with a unique key, so the subquery yields at most one row.
func (g *qgen) keyLookup(outer []gbind, typ byte) (gexpr, bool) {
	var keyed []grel
	var refs []string
	for _, tb := range g.o.tables {
		if tb.pk {
			keyed, refs = append(keyed, tableRel(tb)), append(refs, tb.name)
		}
	}
	for _, v := range g.o.views {
		if v.cols != nil && v.key != "" && len(v.adhoc) < maxInlined {
			keyed, refs = append(keyed, v.rel()), append(refs, viewRef(v.name))
		}
	}
	if len(keyed) == 0 {
		return gexpr{}, false
	}
	k := g.rng.IntN(len(keyed))
	s := gbind{g.newAlias(), keyed[k]}
	var key gcol
	for _, c := range s.rel.cols {
		if c.name == s.rel.key {
			key = c
		}
	}
	o := g.colTyped(outer, key.typ)
	y, ok := g.colOf(s, typ)
	if !ok || !compatible(y.typ, typ) || o.ndv == 0 {
		return gexpr{}, false
	}
	return gexpr{fmt.Sprintf("(SELECT %s FROM %s %s WHERE %s.%s = %s)", y.sql, refs[k], s.alias, s.alias, key.name, o.sql), y.typ, y.ndv}, true
}

// withQ generates WITH c1 AS (...), ... SELECT ..., the main query
// referencing one CTE twice now and then.
func (g *qgen) withQ(grouped bool) gquery {
	var defs []string
	for i := range 1 + g.rng.IntN(2) {
		opt := g.theme()
		opt.grouped, opt.maxIn = g.pct(50), min(opt.maxIn, 3)
		q := g.selectQ(opt)
		name := fmt.Sprintf("w%d", i)
		defs = append(defs, name+" AS ("+q.sql+")")
		g.ctes = append(g.ctes, grel{ref: name, cols: q.cols, key: q.key, rows: max(min(q.rows, oracleTableRows), 1)})
	}
	opt := g.theme()
	opt.grouped, opt.maxIn, opt.cteFirst = grouped, min(opt.maxIn, 4), true
	if g.pct(50) {
		opt.twice, opt.minIn = pick(g, g.ctes).ref, 2
	}
	q := g.selectQ(opt)
	q.sql = "WITH " + strings.Join(defs, ", ") + " " + q.sql
	g.ctes = nil
	return q
}

// setOpQ generates two or three SELECTs of one signature combined with
// UNION, INTERSECT or EXCEPT, with or without ALL.
func (g *qgen) setOpQ() gquery {
	var sig []byte
	for range 1 + g.rng.IntN(3) {
		sig = append(sig, pick(g, []byte("iitn")))
	}
	branch := func() gquery {
		opt := g.theme()
		opt.sig, opt.maxIn, opt.grouped = sig, min(opt.maxIn, 3), g.pct(25)
		return g.selectQ(opt)
	}
	op := func() string {
		return pick(g, []string{"UNION", "INTERSECT", "EXCEPT"}) + pick(g, []string{"", " ALL"})
	}
	q := branch()
	q.sql = fmt.Sprintf("(%s) %s (%s)", q.sql, op(), branch().sql)
	if g.pct(30) {
		q.sql = fmt.Sprintf("(%s) %s (%s)", q.sql, op(), branch().sql)
	}
	q.grouped, q.key = false, ""
	return q
}

// genView returns a random view definition (with view placeholders), its
// output columns, key and whether it is grouped (usable as a later input).
// Each view stresses one or two things (a many-way join, subqueries, CTEs,
// set operations), since a query with everything at once is mostly empty.
func (g *qgen) genView() gquery {
	opt := g.theme()
	switch r := g.rng.IntN(26); {
	case r >= 23:
		return g.arrayQ()
	case r >= 20:
		return g.recursiveQ()
	case r < 7:
		return g.selectQ(opt)
	case r < 13:
		opt.grouped = true
		q := g.selectQ(opt)
		q.rows = min(q.rows, oracleTableRows)
		return q
	case r < 16:
		q := g.withQ(g.pct(50))
		q.rows = min(q.rows, oracleTableRows)
		return q
	}
	return g.setOpQ()
}

// theme returns the options of a view's main SELECT: a join of up to 8
// inputs, or subqueries over 1-2 inputs, or a bit of both.
func (g *qgen) theme() selOpts {
	switch g.rng.IntN(10) {
	case 0, 1, 2, 3:
		return selOpts{maxIn: 8, filters: 1}
	case 4, 5, 6, 7:
		return selOpts{maxIn: 2, filters: 1, subs: 1 + g.rng.IntN(2), scalar: true}
	}
	return selOpts{maxIn: 4, filters: 2, subs: g.rng.IntN(2), scalar: g.pct(50)}
}

// rel describes view v as an input of later views.
func (v oracleView) rel() grel {
	return grel{ref: viewRef(v.name), cols: v.cols, key: v.key, rows: v.rows}
}
