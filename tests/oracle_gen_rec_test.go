package tests

import (
	"fmt"
	"strings"
)

// This file extends TestOracle's query generator with WITH RECURSIVE
// views (reachability over a table used as an edge list, walks with a
// bounded depth counter, and walks whose step ranks, groups or
// deduplicates each iteration's rows) and array constructs (array_agg with a total
// ORDER BY, cardinality, = ANY / <> ALL filters, unnest and
// generate_series in FROM). Every generated result is deterministic in
// PostgreSQL: array_agg orders by the aggregated value itself or by a
// key unique among the aggregated rows, and UNION (not UNION ALL)
// recursions, which terminate on cycles.

// edgeCols returns a random orientation of a table as an edge list: the
// column an edge starts from and the column it leads to (both integers).
func (g *qgen) edgeCols() (from, to string) {
	if g.pct(60) {
		return "a", "k"
	}
	return "k", "a"
}

// tableBind binds a random table to alias.
func (g *qgen) tableBind(alias string) (gbind, string) {
	tb := g.o.table()
	return gbind{alias: alias, rel: tableRel(tb)}, tb.name + " " + alias
}

// recursiveQ generates a WITH RECURSIVE view: a closure under UNION, a
// depth-bounded walk under UNION ALL, or a walk whose step PostgreSQL
// applies to each iteration's working table.
func (g *qgen) recursiveQ() gquery {
	switch r := g.rng.IntN(100); {
	case r < 45:
		return g.closureQ()
	case r < 65:
		return g.walkQ()
	case r < 82:
		return g.correlatedQ()
	}
	return g.perIterationQ()
}

// correlatedQ generates a view whose scalar subquery, EXISTS or LATERAL
// derived table holds a WITH RECURSIVE reading the outer row o (Eddy: the
// recursion runs over the outer values): reachability under UNION from
// o's edge end (or from the edges of a table s leaving it), or a walk of
// bounded depth under UNION ALL, the step sometimes skipping o's own key.
func (g *qgen) correlatedQ() gquery {
	from, to := g.edgeCols()
	o, oItem := g.tableBind("o")
	_, eItem := g.tableBind("e")
	walk := g.pct(40)
	cols, union, depth := "y", "UNION", ""
	step := fmt.Sprintf("SELECT e.%s FROM r JOIN %s ON e.%s = r.y", to, eItem, from)
	if walk {
		cols, union, depth = "y, d", "UNION ALL", ", 0"
		step = fmt.Sprintf("SELECT e.%s, r.d + 1 FROM r JOIN %s ON e.%s = r.y WHERE r.d < %d", to, eItem, from, 1+g.rng.IntN(3))
	}
	seed := "SELECT o." + to + depth
	if g.pct(40) {
		_, sItem := g.tableBind("s")
		seed = fmt.Sprintf("SELECT s.%s%s FROM %s WHERE s.%s = o.%s", to, depth, sItem, from, to)
	}
	if g.pct(50) {
		glue := " WHERE "
		if walk {
			glue = " AND "
		}
		step += glue + "e." + to + " IS DISTINCT FROM o.k"
	}
	with := fmt.Sprintf("WITH RECURSIVE r(%s) AS (%s %s %s) ", cols, seed, union, step)
	q := gquery{rows: 100}
	switch g.rng.IntN(3) {
	case 0:
		agg := pick(g, []string{"count(*)", "max(y)", "count(DISTINCT y)", "sum(y)"})
		q.sql = fmt.Sprintf("SELECT o.k AS x0, (%sSELECT %s FROM r) AS x1 FROM %s", with, agg, oItem)
		q.cols = []gcol{{"x0", 'i', 11}, {"x1", 'i', 10}}
	case 1:
		q.sql = fmt.Sprintf("SELECT o.k AS x0, o.a AS x1 FROM %s WHERE %sEXISTS (%sSELECT 1 FROM r WHERE r.y = o.k)",
			oItem, pick(g, []string{"", "NOT "}), with)
		q.cols = []gcol{{"x0", 'i', 11}, {"x1", 'i', 11}}
		if g.pct(50) {
			q.sql += " AND " + g.filter(o)
		}
	default:
		q.sql = fmt.Sprintf("SELECT o.k AS x0, s.y AS x1 FROM %s, LATERAL (%sSELECT y FROM r) s", oItem, with)
		q.cols = []gcol{{"x0", 'i', 11}, {"x1", 'i', 30}}
	}
	return q
}

// closureQ generates reachability over an edge list: r(x, y) holds the
// pairs joined by a path of edges from the seed table, the step joining r
// with a (possibly different) table on its edge-start column. Now and then
// r carries the text column of the last edge too; the set of such rows is
// still finite, so the UNION recursion terminates on cycles.
func (g *qgen) closureQ() gquery {
	from, to := g.edgeCols()
	s, sItem := g.tableBind("s")
	e, eItem := g.tableBind("e")
	carry := g.pct(30)
	cols, seedB, stepB := "x, y", "", ""
	if carry {
		cols, seedB, stepB = "x, y, z", ", s.b", ", e.b"
	}
	seed := fmt.Sprintf("SELECT s.%s, s.%s%s FROM %s", from, to, seedB, sItem)
	if g.pct(60) {
		seed += " WHERE " + g.filter(s)
	}
	step := fmt.Sprintf("SELECT r.x, e.%s%s FROM r JOIN %s ON e.%s = r.y", to, stepB, eItem, from)
	if g.pct(30) {
		step += " WHERE " + g.filter(e)
	}
	with := fmt.Sprintf("WITH RECURSIVE r(%s) AS (%s UNION %s) ", cols, seed, step)
	return g.recursiveTail(with, carry, false)
}

// walkQ generates walks of bounded length over an edge list: r(x, y, d)
// with d the number of edges, the step stopping at depth 2-4. UNION ALL
// keeps one row per walk.
func (g *qgen) walkQ() gquery {
	from, to, seed, eItem := g.walkSeed()
	union := pick(g, []string{"UNION ALL", "UNION ALL", "UNION"})
	step := fmt.Sprintf("SELECT r.x, e.%s, r.d + 1 FROM r JOIN %s ON e.%s = r.y WHERE r.d < %d", to, eItem, from, 2+g.rng.IntN(3))
	with := fmt.Sprintf("WITH RECURSIVE r(x, y, d) AS (%s %s %s) ", seed, union, step)
	return g.recursiveTail(with, false, true)
}

// walkSeed returns the edge columns of a walk, its non-recursive term
// (the edges of a table s, depth 1, sometimes filtered) and the FROM item
// of the step's edge table e.
func (g *qgen) walkSeed() (from, to, seed, eItem string) {
	from, to = g.edgeCols()
	s, sItem := g.tableBind("s")
	_, eItem = g.tableBind("e")
	seed = fmt.Sprintf("SELECT s.%s, s.%s, 1 FROM %s", from, to, sItem)
	if g.pct(50) {
		seed += " WHERE " + g.filter(s)
	}
	return from, to, seed, eItem
}

// perIterationQ generates a depth-bounded walk r(x, y, d) under UNION or
// UNION ALL whose step applies LIMIT, DISTINCT ON, an aggregate (also
// without GROUP BY over a join that may find nothing), DISTINCT
// (two FROM subqueries down, through *), a subquery's LIMIT or a
// row_number() bound to the previous iteration's rows, as PostgreSQL
// does (Eddy: the planner's iteration tag). Every row of an iteration has the same d, and each
// ORDER BY is total on the rows it ranks up to rows that print alike, so
// the result is deterministic.
func (g *qgen) perIterationQ() gquery {
	from, to, seed, eItem := g.walkSeed()
	join := fmt.Sprintf("FROM r JOIN %s ON e.%s = r.y WHERE r.d < %d", eItem, from, 2+g.rng.IntN(3))
	var step string
	union := pick(g, []string{"UNION ALL", "UNION"})
	switch g.rng.IntN(7) {
	case 0:
		step = fmt.Sprintf("(SELECT r.x, e.%s, r.d + 1 %s ORDER BY e.%s, r.x LIMIT %d)", to, join, to, 1+g.rng.IntN(3))
	case 1:
		step = fmt.Sprintf("(SELECT DISTINCT ON (r.x) r.x, e.%s, r.d + 1 %s ORDER BY r.x, e.%s DESC)", to, join, to)
	case 2:
		step = fmt.Sprintf("SELECT q.x, %s(q.y), q.d + 1 FROM (SELECT r.x, e.%s AS y, r.d %s) q GROUP BY q.x, q.d",
			pick(g, []string{"max", "min"}), to, join)
	case 3:
		step = fmt.Sprintf("SELECT q.x, q.y, q.d + 1 FROM (SELECT * FROM (SELECT DISTINCT r.x, e.%s AS y, r.d %s) p) q", to, join)
	case 4:
		step = fmt.Sprintf("SELECT q.x, q.y, q.d + 1 FROM (SELECT r.x, e.%s AS y, r.d %s ORDER BY e.%s, r.x LIMIT 3) q", to, join, to)
	case 5:
		// One row per working table, also when the join finds nothing
		// (then NULL, 0, NULL, which UNION's set semantics stop on).
		step = fmt.Sprintf("SELECT min(q.x), count(*)::int, max(q.d) + 1 FROM (SELECT r.x, e.%s AS y, r.d %s) q", to, join)
		union = "UNION"
	default:
		step = fmt.Sprintf("SELECT q.x, q.y, q.d + 1 FROM (SELECT r.x, e.%s AS y, r.d, row_number() OVER (PARTITION BY r.x ORDER BY e.%s DESC) AS rn %s) q WHERE q.rn = 1", to, to, join)
	}
	with := fmt.Sprintf("WITH RECURSIVE r(x, y, d) AS (%s %s %s) ", seed, union, step)
	return g.recursiveTail(with, false, true)
}

// recursiveTail returns the main query over recursive CTE r: its rows,
// filtered, grouped (with counts, extremes or an ordered array_agg), or
// joined with a table on the reached column. The view is never marked
// grouped nor keyed, so no later view reads it: ad hoc, PostgreSQL would rerun the
// inlined recursion for every row of a correlated subquery (a minute).
func (g *qgen) recursiveTail(with string, carry, depth bool) gquery {
	q := gquery{rows: 100}
	switch g.rng.IntN(5) {
	case 0, 1:
		q.sql = with + "SELECT x AS x0, y AS x1"
		q.cols = []gcol{{"x0", 'i', 11}, {"x1", 'i', 30}}
		if depth {
			q.sql += ", d AS x2"
			q.cols = append(q.cols, gcol{"x2", 'i', 4})
		}
		if carry {
			q.sql += ", z AS x3"
			q.cols = append(q.cols, gcol{"x3", 't', 6})
		}
		q.sql += " FROM r"
		if g.pct(40) {
			q.sql += pick(g, []string{" WHERE x <> y", " WHERE y > 3", " WHERE x IS NOT NULL"})
		}
	case 2:
		agg := pick(g, []string{"count(*)", "max(y)", "min(y)", "count(DISTINCT y)"})
		if depth {
			agg = pick(g, []string{agg, "max(d)", "min(d)"})
		}
		q.sql = with + "SELECT x AS x0, " + agg + " AS x1 FROM r GROUP BY x"
		q.cols, q.rows = []gcol{{"x0", 'i', 11}, {"x1", 'i', 10}}, 11
	case 3:
		order := pick(g, []string{"y", "y DESC", "y NULLS FIRST"})
		q.sql = with + "SELECT x AS x0, array_agg(y ORDER BY " + order + ") AS x1, cardinality(array_agg(y)) AS x2 FROM r GROUP BY x"
		if depth {
			q.sql = with + "SELECT d AS x0, array_agg(DISTINCT y ORDER BY y) AS x1, count(*) AS x2 FROM r GROUP BY d"
		}
		q.cols, q.rows = []gcol{{"x0", 'i', 11}, {"x2", 'i', 10}}, 11
	default:
		t, item := g.tableBind("t")
		c, _ := g.colOf(t, 0)
		q.sql = with + fmt.Sprintf("SELECT r.x AS x0, %s AS x1 FROM r JOIN %s ON t.k = r.y", c.sql, item)
		q.cols = []gcol{{"x0", 'i', 11}, {"x1", c.typ, c.ndv}}
	}
	return q
}

// arrayQ generates a view over arrays: a grouped query with array_agg, or
// a query with unnest or generate_series in FROM.
func (g *qgen) arrayQ() gquery {
	switch g.rng.IntN(5) {
	case 0, 1:
		return g.arrayAggQ()
	case 2, 3:
		return g.unnestQ()
	}
	return g.seriesQ()
}

// arrayAggQ generates a grouped query with array_agg ordered by the
// aggregated value (a total order: equal values print alike) or, over a
// single keyed input, by its key, and cardinality of an array_agg.
func (g *qgen) arrayAggQ() gquery {
	opt := selOpts{maxIn: 3, filters: 1}
	fc := g.from(g.inputCount(1, opt.maxIn), opt)
	where := fc.where
	if g.pct(50) {
		where = append(where, g.filter(pick(g, fc.binds)))
	}
	key := g.colTyped(fc.binds, pick(g, []byte("iit")))
	if key.typ == 'i' && g.pct(30) {
		key.sql = key.sql + " % 3"
	}
	v := g.anyCol(fc.binds)
	order := v.sql + pick(g, []string{"", " DESC", " NULLS FIRST", " DESC NULLS LAST", " USING >", " USING < NULLS FIRST"})
	if b := fc.binds[0]; len(fc.binds) == 1 && b.rel.key != "" && g.pct(50) {
		order = b.alias + "." + b.rel.key
	}
	agg := "array_agg(" + v.sql + " ORDER BY " + order + ")"
	if g.pct(15) {
		agg = "array_agg(DISTINCT " + v.sql + " ORDER BY " + v.sql + ")"
	}
	items := []string{key.sql + " AS x0", agg + " AS x1"}
	cols := []gcol{{"x0", key.typ, key.ndv}}
	if g.pct(60) {
		items = append(items, "cardinality(array_agg("+g.anyCol(fc.binds).sql+")) AS x2")
		cols = append(cols, gcol{"x2", 'i', 5})
	}
	sql := "SELECT " + strings.Join(items, ", ") + " FROM " + fc.sql
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	sql += " GROUP BY " + key.sql
	if g.pct(20) {
		sql += " HAVING cardinality(array_agg(" + v.sql + ")) > 1"
	}
	return gquery{sql: sql, cols: cols, key: "x0", rows: min(key.ndv, oracleTableRows), grouped: true}
}

// arrayOf returns an ARRAY[...] constructor over columns of b and a
// literal, of type class 'i' or 't', with its type.
func (g *qgen) arrayOf(b gbind) (string, byte) {
	if g.pct(25) {
		return fmt.Sprintf("ARRAY[%s.b, %s, %s.b || 'x']", b.alias, g.literal('t').sql, b.alias), 't'
	}
	elems := []string{b.alias + ".a", b.alias + ".k"}
	if g.pct(40) {
		elems = append(elems, g.literal('i').sql)
	}
	if g.pct(20) {
		elems = append(elems, "NULL")
	}
	return "ARRAY[" + strings.Join(elems, ", ") + "]", 'i'
}

// unnestQ generates a query over a table and unnest of an array built
// from its columns (FROM t, unnest(ARRAY[t.a, t.k]) AS u(v)), sometimes
// WITH ORDINALITY, plain or grouped on the element.
func (g *qgen) unnestQ() gquery {
	b, item := g.tableBind(g.newAlias())
	arr, typ := g.arrayOf(b)
	from := item + ", unnest(" + arr + ") AS u(v)"
	ord := g.pct(25)
	if ord {
		from = item + ", unnest(" + arr + ") WITH ORDINALITY AS u(v, n)"
	}
	var where []string
	if g.pct(40) {
		where = append(where, g.filter(b))
	}
	if g.pct(30) {
		where = append(where, g.anyFilter(gexpr{"u.v", typ, 10}))
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	if g.pct(50) {
		sql := "SELECT u.v AS x0, count(*) AS x1, max(" + b.alias + ".k) AS x2 FROM " + from + cond + " GROUP BY u.v"
		return gquery{sql: sql, cols: []gcol{{"x0", typ, 10}, {"x1", 'i', 5}, {"x2", 'i', 30}}, key: "x0", rows: 20, grouped: true}
	}
	if ord {
		sql := "SELECT " + b.alias + ".k AS x0, u.v AS x1, u.n AS x2 FROM " + from + cond
		return gquery{sql: sql, cols: []gcol{{"x0", 'i', 30}, {"x1", typ, 10}, {"x2", 'i', 3}}, rows: 90}
	}
	sql := "SELECT " + b.alias + ".k AS x0, u.v AS x1 FROM " + from + cond
	return gquery{sql: sql, cols: []gcol{{"x0", 'i', 30}, {"x1", typ, 10}}, rows: 90}
}

// seriesQ generates a query over a table and generate_series bounded by
// its columns; least ignores a NULL a, a NULL bound yields no rows, and a
// bound below the start yields none either.
func (g *qgen) seriesQ() gquery {
	b, item := g.tableBind(g.newAlias())
	bound := pick(g, []string{
		"least(%[1]s.a, 3)", "%[1]s.a", "least(%[1]s.a, %[1]s.k, 2)", "greatest(%[1]s.a, 0) %% 4",
	})
	series := fmt.Sprintf("generate_series(1, "+bound+")", b.alias)
	from := item + ", " + series + " AS s(i)"
	cond := ""
	if g.pct(40) {
		cond = " WHERE " + g.filter(b)
	}
	if g.pct(40) {
		sql := "SELECT s.i AS x0, count(*) AS x1, sum(" + b.alias + ".c) AS x2 FROM " + from + cond + " GROUP BY s.i"
		return gquery{sql: sql, cols: []gcol{{"x0", 'i', 9}, {"x1", 'i', 5}, {"x2", 'n', 50}}, key: "x0", rows: 9, grouped: true}
	}
	sql := "SELECT " + b.alias + ".k AS x0, s.i AS x1, " + b.alias + ".b AS x2 FROM " + from + cond
	return gquery{sql: sql, cols: []gcol{{"x0", 'i', 30}, {"x1", 'i', 9}, {"x2", 't', 6}}, rows: 90}
}

// anyFilter returns an array membership predicate on e: = ANY or <> ALL
// over an ARRAY of literals (sometimes with a NULL element).
func (g *qgen) anyFilter(e gexpr) string {
	elems := []string{g.literal(e.typ).sql, g.literal(e.typ).sql}
	if g.pct(30) {
		elems = append(elems, g.literal(e.typ).sql)
	}
	if g.pct(15) {
		elems = append(elems, "NULL")
	}
	arr := "ARRAY[" + strings.Join(elems, ", ") + "]"
	if g.pct(70) {
		return e.sql + " = ANY(" + arr + ")"
	}
	return e.sql + " <> ALL(" + arr + ")"
}
