package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eddydb/eddy/tests/harness"
)

// A volatile expression is evaluated exactly as often as PostgreSQL
// evaluates it. TestVolatileOnce builds random queries over a source whose
// column x is nextval('vq_s'), one draw per source row, wrapped in random
// FROM forms (derived tables, OFFSET 0, a CTE read once or self-joined,
// LATERAL, nested renames) and read by random consumers (x - x, scalar
// subqueries, EXISTS, IN, SQL functions with a query or expression body,
// CASE) that each yield 0 when every read of a row sees one draw. A
// planner or optimizer rewrite that copies the volatile call, or reads
// the relation computing it twice, shows as a nonzero (or NULL) value, or
// as a sequence advanced by more (or less) than the source's row count.
// The same queries run on PostgreSQL when it is installed, so the
// expectations are PostgreSQL's. Seed printed; -seed replays; a failure
// is shrunk to the fewest consumers that still fail.

// volatileConsumers are expressions over a row with columns x (the draw)
// and x2 (another name for it, when the FROM form makes one) that are 0
// when the row's reads of x see one draw.
var volatileConsumers = []string{
	"x - x",
	"x2 - x",
	"(SELECT x) - x",
	"(SELECT x + 0 FROM (SELECT 1) z(o)) - x",
	"coalesce((SELECT max(y) FROM (VALUES (x), (x)) v(y)), 0) - x",
	"(SELECT count(*) FROM generate_series(1, 3) h WHERE h + x > x) - 3",
	"CASE WHEN EXISTS (SELECT 1 WHERE x = x2) THEN 0 ELSE 1 END",
	"CASE WHEN x IN (SELECT x2) THEN 0 ELSE 1 END",
	"CASE WHEN x2 > 0 THEN x - x2 ELSE 1 END",
	"vq_body(x) - x",
	"vq_expr(x)",
	"vq_body(x2 + 0) - x",
	"(SELECT vq_body(x)) - x2",
}

// volatileSource is the relation drawing x once per row: g from 1 to n.
func volatileSource(n int) string {
	return fmt.Sprintf("SELECT g, nextval('vq_s') AS x FROM generate_series(1, %d) g", n)
}

// volatileFrom returns a query prefix (a WITH list or "") and a FROM
// clause whose rows have x and x2, each source row once.
func volatileFrom(rng *rand.Rand, n int) (with, from string) {
	src := volatileSource(n)
	switch rng.IntN(7) {
	case 0:
		return "", fmt.Sprintf("(SELECT g, x, x AS x2 FROM (%s) a) t", src)
	case 1:
		return "", fmt.Sprintf("(SELECT g, x, x AS x2 FROM (%s OFFSET 0) a) t", src)
	case 2:
		return fmt.Sprintf("WITH c AS (%s) ", src), "(SELECT g, x, x AS x2 FROM c) t"
	case 3:
		return fmt.Sprintf("WITH c AS (%s) ", src), "(SELECT c1.g, c1.x, c2.x AS x2 FROM c c1 JOIN c c2 ON c1.g = c2.g) t"
	case 4:
		return "", fmt.Sprintf("(SELECT a.g, a.x, l.y AS x2 FROM (%s) a, LATERAL (SELECT a.x AS y) l) t", src)
	case 5:
		return "", fmt.Sprintf("(SELECT g, x2 AS x, x2 FROM (SELECT g, x AS x2 FROM (%s) a) b) t", src)
	}
	return "", fmt.Sprintf("(SELECT g, x, vq_body(x) AS x2 FROM (%s) a) t", src)
}

// volatileQuery is one generated query: its consumers and FROM form.
type volatileQuery struct {
	with, from string
	exprs      []string
	rows       int
}

func (q volatileQuery) sql() string {
	return fmt.Sprintf("%sSELECT %s FROM %s", q.with, strings.Join(q.exprs, ", "), q.from)
}

func TestVolatileOnce(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 18))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := harness.StartTarget(t)
	conns := []*pgconn.PgConn{pgConnect(t, ctx, s.DSN())}
	if s.Kind() != harness.Postgres && harness.PostgresBinDir() != "" {
		conns = append(conns, pgConnect(t, ctx, harness.StartPostgres(t).DSN()))
	}
	for _, c := range conns {
		execAll(t, ctx, c,
			"CREATE SEQUENCE vq_s",
			"CREATE FUNCTION vq_body(bigint) RETURNS bigint LANGUAGE sql AS 'SELECT $1 + 0 FROM (SELECT 1) z'",
			"CREATE FUNCTION vq_expr(bigint) RETURNS bigint LANGUAGE sql AS 'SELECT $1 - $1'")
	}
	for range 40 {
		with, from := volatileFrom(rng, 1+rng.IntN(4))
		n := 1 + rng.IntN(3)
		var exprs []string
		for range n {
			exprs = append(exprs, volatileConsumers[rng.IntN(len(volatileConsumers))])
		}
		q := volatileQuery{with: with, from: from, exprs: exprs}
		q.rows = volatileRows(with + from)
		for i, c := range conns {
			if err := checkVolatile(ctx, c, q); err != nil {
				t.Fatalf("seed %d, %s: %v\nshrunk: %s", seed, []string{"target", "PostgreSQL"}[i], err, shrinkVolatile(ctx, c, q))
			}
		}
	}
}

// volatileRows returns n of the generate_series(1, n) in s.
func volatileRows(s string) int {
	_, rest, _ := strings.Cut(s, "generate_series(1, ")
	num, _, _ := strings.Cut(rest, ")")
	n, _ := strconv.Atoi(num)
	return n
}

// checkVolatile runs q and checks that every value is 0 and that the
// sequence advanced by exactly the source's row count.
func checkVolatile(ctx context.Context, c *pgconn.PgConn, q volatileQuery) error {
	before, err := seqValue(ctx, c)
	if err != nil {
		return err
	}
	rows, err := harness.TextRows(ctx, c, q.sql())
	if err != nil {
		return fmt.Errorf("%s: %w", q.sql(), err)
	}
	after, err := seqValue(ctx, c)
	if err != nil {
		return err
	}
	if len(rows) != q.rows {
		return fmt.Errorf("%s: %d rows, want %d", q.sql(), len(rows), q.rows)
	}
	for _, r := range rows {
		for _, v := range strings.Split(r, "|") {
			if v != "0" {
				return fmt.Errorf("%s: row %s, want every value 0", q.sql(), r)
			}
		}
	}
	if got := after - before - 1; got != int64(q.rows) {
		return fmt.Errorf("%s: nextval evaluated %d times, want %d", q.sql(), got, q.rows)
	}
	return nil
}

// seqValue draws the sequence's next value (one draw, accounted for).
func seqValue(ctx context.Context, c *pgconn.PgConn) (int64, error) {
	rows, err := harness.TextRows(ctx, c, "SELECT nextval('vq_s')")
	if err != nil || len(rows) != 1 {
		return 0, fmt.Errorf("nextval: %v", err)
	}
	return strconv.ParseInt(rows[0], 10, 64)
}

// shrinkVolatile returns the first single consumer of q that still fails
// on c, else q itself.
func shrinkVolatile(ctx context.Context, c *pgconn.PgConn, q volatileQuery) string {
	for _, e := range q.exprs {
		one := q
		one.exprs = []string{e}
		if checkVolatile(ctx, c, one) != nil {
			return one.sql()
		}
	}
	return q.sql()
}
