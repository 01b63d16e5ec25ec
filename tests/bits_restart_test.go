package tests

import (
	"context"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// bitsViews are views over bit string columns whose keys (GROUP BY,
// DISTINCT, join, ORDER BY ... LIMIT) and aggregate state (bit_and,
// bit_or, bit_xor's per-bit counts) are bit strings; tests/slt/bitstring.slt
// checks their kind of answer against PostgreSQL.
var bitsViews = map[string]string{
	"bits_group":    "SELECT f, count(*) AS n, bit_and(v::bit(6)) AS a, bit_or(v::bit(6)) AS o, bit_xor(f) AS x FROM bits_t GROUP BY f",
	"bits_distinct": "SELECT DISTINCT v FROM bits_t",
	"bits_join":     "SELECT x.id AS x, y.id AS y FROM bits_t x JOIN bits_t y ON x.f = y.f AND x.id < y.id",
	"bits_top":      "SELECT id, v FROM bits_t ORDER BY v DESC, id LIMIT 3",
	"bits_xor_all":  "SELECT bit_xor(f) AS x, bit_or(f) AS o, count(*) AS n FROM bits_t",
}

// TestBitsRestart keeps a table of bit strings and views keyed by them
// through a restart: the rows read back the same, and each view equals
// its query recomputed before and after the restart and after writes
// that follow it.
func TestBitsRestart(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := connect(t, ctx, s.DSN())
	mustExec(t, ctx, c, "CREATE TABLE bits_t (id int PRIMARY KEY, f bit(4), v varbit(8), a varbit[])")
	for name, q := range bitsViews {
		mustExec(t, ctx, c, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
	}
	mustExec(t, ctx, c, "INSERT INTO bits_t VALUES (1, B'1010', B'1', '{1,01}'), (2, B'0110', B'10', NULL), "+
		"(3, B'1010', B'', '{}'), (4, X'F', B'11111111', '{0}'), (5, NULL, NULL, NULL), (6, B'0000', B'10', '{10}')")
	checkViewsEqualQueries(t, ctx, c, bitsViews)
	before := queryText(t, ctx, c, "SELECT string_agg(id || ':' || coalesce(f::text, '-') || ':' || coalesce(v::text, '-') || ':' || coalesce(a::text, '-'), ' ' ORDER BY id) FROM bits_t")
	c.Close(ctx)
	s.Restart()
	c = connect(t, ctx, s.DSN())
	defer c.Close(ctx)
	expectText(t, ctx, c, "SELECT string_agg(id || ':' || coalesce(f::text, '-') || ':' || coalesce(v::text, '-') || ':' || coalesce(a::text, '-'), ' ' ORDER BY id) FROM bits_t", before)
	checkViewsEqualQueries(t, ctx, c, bitsViews)
	mustExec(t, ctx, c, "INSERT INTO bits_t VALUES (7, B'0110', B'0101', '{1}')",
		"DELETE FROM bits_t WHERE id = 4", "UPDATE bits_t SET f = B'0110', v = v || B'1' WHERE id = 1")
	checkViewsEqualQueries(t, ctx, c, bitsViews)
	// PostgreSQL 15 over the same rows: groups 1010 (3), 0110 (1, 2, 7),
	// 0000 (6), NULL (5); XOR of 0110 three times, 1010 and 0000 is 1100.
	expectText(t, ctx, c, "SELECT n FROM bits_group WHERE f = B'0110'", "3")
	expectText(t, ctx, c, "SELECT x::text FROM bits_xor_all", "1100")
	expectText(t, ctx, c, "SELECT a::text || ' ' || o::text FROM bits_group WHERE f = B'0110'", "000000 110100")
}
