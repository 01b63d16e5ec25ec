package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// Values equal under = that print differently: numeric scales and -0,
// float -0 and 0 (and NaN, equal to itself in PostgreSQL), intervals
// '1 day' and '24 hours', '1 mon' and '30 days', jsonb numbers 1.0 and 1.
var (
	repNumerics  = []string{"2", "2.0", "2.00", "0", "0.000", "-0.0", "1.5", "1.50", "NULL"}
	repFloats    = []string{"0", "'-0'", "1.5", "'NaN'", "NULL"}
	repIntervals = []string{"'1 day'", "'24 hours'", "'1 mon'", "'30 days'", "'0'", "'1 day 00:00:00.000'", "NULL"}
	repJSONB     = []string{`'{"a": 1.0}'`, `'{"a": 1}'`, `'{"a": 1.00}'`, "'[1.50]'", "'[1.5]'", "'[-0.0]'", "'[0]'", "NULL"}
)

// repViews are views of every operator kind that compares or keys rows
// (rows kept as written, GROUP BY, DISTINCT, min/max, joins, IN, set
// operations with and without ALL, window partitions, count(DISTINCT)).
var repViews = []string{
	"SELECT id, v, f, i FROM rr",
	"SELECT v, count(*) AS n, sum(id) AS s FROM rr GROUP BY v",
	"SELECT DISTINCT v, i FROM rr",
	"SELECT f, count(*) AS n, min(v) AS mn, max(i) AS mx FROM rr GROUP BY f",
	"SELECT i, count(*) AS n FROM rr GROUP BY i",
	"SELECT v FROM rr UNION SELECT v FROM rs",
	"SELECT v, i FROM rr INTERSECT SELECT v, i FROM rs",
	"SELECT v FROM rr EXCEPT SELECT v FROM rs",
	"SELECT v FROM rr EXCEPT ALL SELECT v FROM rs",
	"SELECT v FROM rr INTERSECT ALL SELECT v FROM rs",
	"SELECT a.id, b.id AS bid, a.v, b.v AS bv, a.i, b.i AS bi FROM rr a JOIN rs b ON a.v = b.v AND a.i = b.i",
	"SELECT id, v FROM rr WHERE v IN (SELECT v FROM rs)",
	"SELECT id, count(*) OVER (PARTITION BY v) AS c, count(*) OVER (PARTITION BY i) AS ci FROM rr",
	"SELECT count(DISTINCT v) AS dv, count(DISTINCT f) AS df, count(DISTINCT i) AS di, min(f) AS mf FROM rr",
	"SELECT v, i, count(*) AS n FROM (SELECT v, i FROM rr UNION ALL SELECT v, i FROM rs) u GROUP BY v, i",
	"SELECT j, count(*) AS n, min(v) AS mv FROM rr GROUP BY j",
	"SELECT DISTINCT j, ARRAY[v] AS av FROM rr",
	"SELECT ARRAY[v, 1] AS av, count(*) AS n FROM rr GROUP BY ARRAY[v, 1]",
	"SELECT a.id, b.id AS bid FROM rr a JOIN rr b ON a.j = b.j AND a.id < b.id",
	"SELECT j FROM rr EXCEPT ALL SELECT j FROM rr WHERE id % 2 = 0",
}

// TestEqualRepresentations is a randomized differential test: random
// writes of values equal under = but printed differently, through views
// created before the data, each compared after every step with its query
// recomputed (exactly: a group's shown value is a function of its rows)
// and with PostgreSQL (up to the representation, which PostgreSQL picks
// by the order it reads rows in). Seed printed; -seed replays.
func TestEqualRepresentations(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 16))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s := harness.StartTarget(t)
	target, isPG := pgConnect(t, ctx, s.DSN()), s.Kind() == harness.Postgres
	var mirror *pgconn.PgConn
	if !isPG && harness.PostgresBinDir() != "" {
		mirror = pgConnect(t, ctx, harness.StartPostgres(t).DSN())
	}
	var log []string
	defer func() {
		if t.Failed() {
			t.Logf("seed %d; statement log:\n%s", seed, strings.Join(log, ";\n"))
		}
	}()
	both := func(sql string) {
		log = append(log, sql)
		for _, c := range []*pgconn.PgConn{target, mirror} {
			if c == nil {
				continue
			}
			if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	both("CREATE TABLE rr (id int, v numeric, f float8, i interval, j jsonb)")
	both("CREATE TABLE rs (id int, v numeric, i interval)")
	for i, def := range repViews {
		both(fmt.Sprintf("CREATE MATERIALIZED VIEW rv%d AS %s", i, def))
	}
	pick := func(vs []string) string { return vs[rng.IntN(len(vs))] }
	nextID := 0
	write := func() string {
		switch rng.IntN(7) {
		case 0, 1, 2:
			tb, rows := "rr", []string{}
			if rng.IntN(3) == 0 {
				tb = "rs"
			}
			for range 1 + rng.IntN(3) {
				nextID++
				if tb == "rr" {
					rows = append(rows, fmt.Sprintf("(%d, %s, %s, %s, %s)", nextID, pick(repNumerics), pick(repFloats), pick(repIntervals), pick(repJSONB)))
				} else {
					rows = append(rows, fmt.Sprintf("(%d, %s, %s)", nextID, pick(repNumerics), pick(repIntervals)))
				}
			}
			return fmt.Sprintf("INSERT INTO %s VALUES %s", tb, strings.Join(rows, ", "))
		case 3:
			return fmt.Sprintf("DELETE FROM %s WHERE id %% 4 = %d", []string{"rr", "rs"}[rng.IntN(2)], rng.IntN(4))
		case 4:
			return fmt.Sprintf("DELETE FROM rr WHERE v = %s OR i = %s", pick(repNumerics), pick(repIntervals))
		case 5:
			return fmt.Sprintf("UPDATE rr SET v = %s, f = %s, j = %s WHERE id %% 3 = %d", pick(repNumerics), pick(repFloats), pick(repJSONB), rng.IntN(3))
		}
		return fmt.Sprintf("UPDATE rs SET i = %s WHERE v = %s", pick(repIntervals), pick(repNumerics))
	}
	steps := 30
	if n, err := strconv.Atoi(os.Getenv("EDDY_ORACLE_STEPS")); err == nil && n > 0 {
		steps = n
	}
	for step := range steps {
		if rng.IntN(3) == 0 {
			both("BEGIN")
			for range 2 + rng.IntN(3) {
				both(write())
			}
			both("COMMIT")
		} else {
			both(write())
		}
		if err := refreshIfPostgres(ctx, target, isPG); err != nil {
			t.Fatal(err)
		}
		for i, def := range repViews {
			got, err := queryRows(ctx, target, fmt.Sprintf("SELECT * FROM rv%d", i))
			if err != nil {
				t.Fatal(err)
			}
			want, err := queryRows(ctx, target, def)
			if err != nil {
				t.Fatal(err)
			}
			if !sameRows(got, want) {
				t.Fatalf("step %d: view rv%d (%s) differs from its query:\nview:  %v\nquery: %v", step, i, def, got, want)
			}
			if mirror == nil {
				continue
			}
			pg, err := queryRows(ctx, mirror, def)
			if err != nil {
				t.Fatal(err)
			}
			if g, p := canonRows(got), canonRows(pg); !sameRows(g, p) {
				t.Fatalf("step %d: view rv%d (%s) differs from PostgreSQL:\nview:     %v\npostgres: %v", step, i, def, got, pg)
			}
		}
	}
}

// canonRows maps each field of rows (fields separated by |) to its
// class under =: a number without trailing zeros or sign of zero, an
// interval of 1 day or 1 month by one name; sorted again.
func canonRows(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		fs := strings.Split(r, "|")
		for j, f := range fs {
			fs[j] = canonField(f)
		}
		out[i] = strings.Join(fs, "|")
	}
	sort.Strings(out)
	return out
}

func canonField(f string) string {
	switch f {
	case "1 day", "24:00:00":
		return "1 day"
	case "1 mon", "30 days":
		return "1 mon"
	case "00:00:00", "-0":
		return "0"
	case `{"a": 1.0}`, `{"a": 1.00}`:
		return `{"a": 1}`
	case "[1.50]":
		return "[1.5]"
	case "[0.0]":
		return "[0]"
	}
	if strings.HasPrefix(f, "{") && strings.HasSuffix(f, "}") && !strings.Contains(f, `"`) { // an array of numerics
		parts := strings.Split(f[1:len(f)-1], ",")
		for i, p := range parts {
			parts[i] = canonField(p)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	var d apd.Decimal
	if _, _, err := d.SetString(f); err == nil && d.Form == apd.Finite {
		d.Reduce(&d)
		if d.IsZero() {
			return "0"
		}
		return d.Text('f')
	}
	return f
}
