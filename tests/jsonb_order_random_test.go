package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestJSONBOrderRandom is a randomized differential test of jsonb's order
// and equality against PostgreSQL: random jsonb values (nested containers
// of every size including empty ones, numbers of differing scale, scalars
// that equal one-element arrays but for the raw-scalar flag, strings that
// share prefixes) are loaded into both, and ORDER BY (ties broken by id),
// DISTINCT, GROUP BY, a join on < and a top-N view kept through deletes
// must give PostgreSQL's answer. On a mismatch it reports the first pair
// of values the two order differently. Seed printed; -seed replays.
func TestJSONBOrderRandom(t *testing.T) {
	if harness.PostgresBinDir() == "" {
		t.Skip("no PostgreSQL")
	}
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 20))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	eddy := pgConnect(t, ctx, harness.StartEddy(t).DSN())
	pg := pgConnect(t, ctx, harness.StartPostgres(t).DSN())
	both := func(sql string) {
		for _, c := range []*pgconn.PgConn{eddy, pg} {
			if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
				t.Fatalf("seed %d: %s: %v", seed, sql, err)
			}
		}
	}
	both("CREATE TABLE jr (id int, v jsonb)")
	views := []string{
		"SELECT id FROM jr ORDER BY v DESC, id LIMIT 12",
		"SELECT v::text AS t, count(*) AS n, min(id) AS first FROM jr GROUP BY v",
		"SELECT count(*) AS n FROM jr a JOIN jr b ON a.v < b.v",
	}
	for i, q := range views {
		if _, err := eddy.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW jrv%d AS %s", i, q)).ReadAll(); err != nil {
			t.Fatal(err)
		}
	}
	const n = 300
	vals := make([]string, n)
	var rows []string
	for i := range vals {
		vals[i] = randJSON(rng, 0)
		rows = append(rows, fmt.Sprintf("(%d, '%s')", i, strings.ReplaceAll(vals[i], "'", "''")))
	}
	both("INSERT INTO jr VALUES " + strings.Join(rows, ", "))
	check := func(stage string) {
		t.Helper()
		order := "SELECT id FROM jr ORDER BY v, id"
		got, want := textRowsOrdered(t, ctx, eddy, order), textRowsOrdered(t, ctx, pg, order)
		if !slices.Equal(got, want) {
			reportJSONBOrder(t, ctx, eddy, pg, vals, got, want)
			t.Fatalf("seed %d, %s: ORDER BY v differs from PostgreSQL", seed, stage)
		}
		for _, q := range []string{
			"SELECT count(DISTINCT v) FROM jr",
			"SELECT count(*) FROM (SELECT DISTINCT v FROM jr) d",
			"SELECT min(id), count(*) FROM jr GROUP BY v",
			"SELECT a.id, b.id FROM jr a JOIN jr b ON a.v = b.v AND a.id < b.id",
			"SELECT count(*) FROM jr a JOIN jr b ON a.v < b.v",
			"SELECT count(*) FROM (SELECT v FROM jr WHERE id % 2 = 0 INTERSECT SELECT v FROM jr WHERE id % 2 = 1) x",
		} {
			g, err1 := queryRows(ctx, eddy, q)
			w, err2 := queryRows(ctx, pg, q)
			if err1 != nil || err2 != nil || !sameRows(g, w) {
				t.Fatalf("seed %d, %s: %s: Eddy %v (%v), PostgreSQL %v (%v)", seed, stage, q, g, err1, w, err2)
			}
		}
		for i, q := range views {
			g, err1 := queryRows(ctx, eddy, fmt.Sprintf("SELECT * FROM jrv%d", i))
			w, err2 := queryRows(ctx, pg, q)
			if q == views[1] { // the text a group shows is the first PostgreSQL reads
				g, w = dropFirstColumn(g), dropFirstColumn(w)
			}
			if err1 != nil || err2 != nil || !sameRows(g, w) {
				t.Fatalf("seed %d, %s: view %s: Eddy %v (%v), PostgreSQL %v (%v)", seed, stage, q, g, err1, w, err2)
			}
		}
	}
	check("after the load")
	for step := range 3 {
		both(fmt.Sprintf("DELETE FROM jr WHERE id %% 5 = %d", rng.IntN(5)))
		check(fmt.Sprintf("after delete %d", step+1))
	}
}

// randJSON returns random JSON text: small containers, numbers whose
// scales differ while their values collide, short strings.
func randJSON(rng *rand.Rand, depth int) string {
	k := rng.IntN(10)
	if depth >= 3 && k >= 7 {
		k = rng.IntN(7)
	}
	switch k {
	case 0:
		return "null"
	case 1:
		return []string{"true", "false"}[rng.IntN(2)]
	case 2, 3:
		nums := []string{"0", "-0", "0.0", "1", "1.0", "1.00", "-1", "-1.5", "-1.50", "2", "10", "1e1", "100",
			"0.01", "0.010", "-0.01", "123456789012345678901234567890", "1e-3", "3.14159", "-2.5e2"}
		return nums[rng.IntN(len(nums))]
	case 4, 5:
		strs := []string{`""`, `"a"`, `"A"`, `"ab"`, `"b"`, `"aa"`, `"a b"`, `"\u00e9"`, `"z"`, `"\n"`, `"\"q"`, `"1"`}
		return strs[rng.IntN(len(strs))]
	case 6, 7:
		var elems []string
		for range rng.IntN(4) {
			elems = append(elems, randJSON(rng, depth+1))
		}
		return "[" + strings.Join(elems, ", ") + "]"
	}
	keys := []string{"a", "b", "aa", "ab", "c", "p", "bb", ""}
	var pairs []string
	for range rng.IntN(4) {
		pairs = append(pairs, fmt.Sprintf("%q: %s", keys[rng.IntN(len(keys))], randJSON(rng, depth+1)))
	}
	return "{" + strings.Join(pairs, ", ") + "}"
}

// textRowsOrdered returns the rows of sql in the order sent.
func textRowsOrdered(t *testing.T, ctx context.Context, c *pgconn.PgConn, sql string) []string {
	t.Helper()
	rows, err := harness.TextRows(ctx, c, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return rows
}

// reportJSONBOrder shrinks an ORDER BY mismatch to the first pair of
// values the two engines order differently, and logs how each compares
// them.
func reportJSONBOrder(t *testing.T, ctx context.Context, eddy, pg *pgconn.PgConn, vals, got, want []string) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if got[i] == want[i] {
			continue
		}
		var a, b int
		fmt.Sscan(got[i], &a)
		fmt.Sscan(want[i], &b)
		q := fmt.Sprintf("SELECT '%s'::jsonb < '%s'::jsonb, '%s'::jsonb = '%s'::jsonb",
			strings.ReplaceAll(vals[a], "'", "''"), strings.ReplaceAll(vals[b], "'", "''"),
			strings.ReplaceAll(vals[a], "'", "''"), strings.ReplaceAll(vals[b], "'", "''"))
		e, _ := harness.TextRows(ctx, eddy, q)
		p, _ := harness.TextRows(ctx, pg, q)
		t.Errorf("position %d: Eddy puts %s, PostgreSQL %s; %s: Eddy %v, PostgreSQL %v", i, vals[a], vals[b], q, e, p)
		return
	}
	t.Errorf("Eddy %d rows, PostgreSQL %d", len(got), len(want))
}

// dropFirstColumn removes the first |-separated field of each row.
func dropFirstColumn(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		_, out[i], _ = strings.Cut(r, "|")
		if strings.Count(r, "|") > 2 { // a shown text holding "|": keep the last two fields
			f := strings.Split(r, "|")
			out[i] = strings.Join(f[len(f)-2:], "|")
		}
	}
	slices.Sort(out)
	return out
}
