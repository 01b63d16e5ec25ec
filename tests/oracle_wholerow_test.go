package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// TestOracleWholeRows is TestOracle over views whose whole-row references
// name FROM items that outer joins null-extend: random LEFT/RIGHT/FULL
// joins of 2-4 inputs (nested, USING, derived tables whose rows may be
// all NULL, joined on a NULL-safe equality so such rows match), with
// whole rows as text, tested for NULL, counted, converted to JSON,
// grouped and made distinct. Each view is created before the data and
// compared, after every random write step, with its query run ad hoc and
// on PostgreSQL.
func TestOracleWholeRows(t *testing.T) {
	seed := testSeed(t)
	o := &oracle{t: t, rng: rand.New(rand.NewPCG(uint64(seed), 19)), nextK: map[string]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	o.ctx = ctx
	s := harness.StartTarget(t)
	o.target, o.isPG = pgConnect(t, ctx, s.DSN()), s.Kind() == harness.Postgres
	if !o.isPG && harness.PostgresBinDir() != "" {
		o.mirror = pgConnect(t, ctx, harness.StartPostgres(t).DSN())
	}
	defer func() {
		if t.Failed() {
			t.Logf("seed %d; statement log:\n%s", seed, strings.Join(o.log, ";\n"))
		}
	}()
	for i := range 3 {
		tb := oracleTable{name: fmt.Sprintf("t%d", i), pk: i == 0}
		if i == 2 {
			tb.nulls = 'b'
		}
		key := "k int"
		if tb.pk {
			key = "k int PRIMARY KEY"
		}
		o.mustBoth(fmt.Sprintf("CREATE TABLE %s (%s, a int, b text, c numeric(6,2))", tb.name, key))
		o.tables = append(o.tables, tb)
	}
	for i := range 8 {
		g := &wholeGen{rng: o.rng, tables: o.tables}
		def := g.query()
		o.createView(oracleView{name: fmt.Sprintf("w%d", i), def: def, adhoc: def})
	}
	for _, tb := range o.tables {
		o.mustBoth(o.insert(tb, 3+o.rng.IntN(5), false))
	}
	for step := range oracleSteps() / 2 {
		o.step()
		if !o.check(step) {
			return
		}
	}
}

// wholeGen generates one query of TestOracleWholeRows.
type wholeGen struct {
	rng    *rand.Rand
	tables []oracleTable
	alias  int
	// items are the aliases of the FROM items joined so far.
	items []string
}

// item returns a FROM item: a table, or a derived table of its a and b
// only (whose rows may be all NULL), and its alias.
func (g *wholeGen) item() (string, string) {
	g.alias++
	alias := fmt.Sprintf("r%d", g.alias)
	g.items = append(g.items, alias)
	tb := g.tables[g.rng.IntN(len(g.tables))]
	if g.rng.IntN(3) == 0 {
		return fmt.Sprintf("(SELECT a, b FROM %s WHERE k %% 3 <> %d) %s", tb.name, g.rng.IntN(3), alias), alias
	}
	return tb.name + " " + alias, alias
}

// join returns left joined to a new item (or, now and then, to a nested
// join of two) by a random outer or inner join.
func (g *wholeGen) join(left, lalias string) string {
	right, ralias := g.item()
	if g.rng.IntN(4) == 0 {
		inner, ialias := g.item()
		k := g.kind()
		right = "(" + right + " " + k + " " + inner + " ON " + g.on(k, ralias, ialias) + ")"
	}
	k := g.kind()
	return left + " " + k + " " + right + " ON " + g.on(k, lalias, ralias)
}

// kind returns a join type, mostly outer.
func (g *wholeGen) kind() string {
	return []string{"LEFT JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "JOIN"}[g.rng.IntN(5)]
}

// on returns a join condition of kind between aliases x and y (both have
// a): for FULL JOIN an equality, which PostgreSQL can merge or hash.
func (g *wholeGen) on(kind, x, y string) string {
	cond := fmt.Sprintf("%s.a = %s.a", x, y)
	if kind == "FULL JOIN" {
		return cond
	}
	if g.rng.IntN(3) == 0 {
		cond = fmt.Sprintf("%s.a IS NOT DISTINCT FROM %s.a", x, y)
	}
	if g.rng.IntN(3) == 0 {
		cond += fmt.Sprintf(" AND %s.b <> 'p'", y)
	}
	return cond
}

// query returns a SELECT over 2-4 joined items reading whole rows.
func (g *wholeGen) query() string {
	from, first := g.item()
	for range 1 + g.rng.IntN(2) {
		from = g.join(from, first)
	}
	pick := func() string { return g.items[g.rng.IntN(len(g.items))] }
	switch g.rng.IntN(4) {
	case 0:
		x, y := pick(), pick()
		return fmt.Sprintf("SELECT %s::text AS g, count(*) AS n, count(%s) AS c FROM %s GROUP BY %s", x, y, from, x)
	case 1:
		x := pick()
		return fmt.Sprintf("SELECT DISTINCT %s::text AS d, %s IS NULL AS n FROM %s", x, x, from)
	}
	var items []string
	for i := range 2 + g.rng.IntN(3) {
		x := pick()
		e := []string{x + "::text", x + " IS NULL", x + " IS NOT NULL", "row_to_json(" + x + ")::text",
			"to_jsonb(" + x + ".*)", "count(" + x + ") OVER ()", "coalesce(" + x + "::text, 'none')"}[g.rng.IntN(7)]
		items = append(items, fmt.Sprintf("%s AS x%d", e, i))
	}
	return fmt.Sprintf("SELECT %s FROM %s", strings.Join(items, ", "), from)
}
