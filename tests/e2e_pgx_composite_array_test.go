package tests

import (
	"context"
	"reflect"
	"testing"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
)

// TestPgxCompositeArrays sends and reads, with pgx, a composite type with
// a field that is an array of another composite type, and an array of a
// composite type as a parameter: binary parameters and results under the
// extended protocol (array_recv of records, record_recv of a field that
// is an array of records), record text under the simple one; a table and
// a materialized view over it.
func TestPgxCompositeArrays(t *testing.T) { runPgxCompositeArrays(t, harness.StartTarget(t)) }

// TestPgxCompositeArraysPostgres runs the same against PostgreSQL.
func TestPgxCompositeArraysPostgres(t *testing.T) {
	runPgxCompositeArrays(t, harness.StartPostgres(t))
}

// pgxBag is a value of the composite type bag (id int, ps pair[]).
type pgxBag struct {
	ID *int32
	Ps []pgxPair
}

func runPgxCompositeArrays(t *testing.T, s *harness.Server) {
	eachPgxMode(t, s, func(t *testing.T, ctx context.Context, c *pgx.Conn, mode pgx.QueryExecMode, refresh func()) {
		mustExec(t, ctx, c,
			"CREATE TYPE pair AS (a int, b text)",
			"CREATE TYPE bag AS (id int, ps pair[])",
			"CREATE TABLE bags (k int PRIMARY KEY, b bag, ps pair[])",
			"CREATE MATERIALIZED VIEW bags_v AS SELECT k, b, (b).ps[2] AS second FROM bags")
		loadTypes(t, ctx, c, "pair", "_pair", "bag", "_bag")
		one, two, x, q := int32(1), int32(2), "x", `a "q", {b}`
		want := map[int32]pgxBag{
			1: {&one, []pgxPair{{&two, &x}, {nil, &q}}},
			2: {&two, nil},
			3: {nil, []pgxPair{}},
		}
		texts := map[int32]string{1: `(1,"{""(2,x)"",""(,\\""a \\""\\""q\\""\\"", {b}\\"")""}")`, 2: "(2,)", 3: "(,{})"}
		for k := int32(1); k <= 3; k++ {
			var err error
			if mode == pgx.QueryExecModeCacheStatement {
				_, err = c.Exec(ctx, "INSERT INTO bags VALUES ($1, $2, $3)", k, want[k], want[k].Ps)
			} else {
				_, err = c.Exec(ctx, "INSERT INTO bags VALUES ($1, $2::text::bag, ($2::text::bag).ps)", k, texts[k])
			}
			if err != nil {
				t.Fatalf("insert %d: %v", k, err)
			}
		}
		refresh()
		for _, q := range []string{"SELECT k, b FROM bags ORDER BY k", "SELECT k, b FROM bags_v ORDER BY k"} {
			if got := scanByKey[pgxBag](t, ctx, c, q); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: got %+v, want %+v", q, got, want)
			}
		}
		if got := scanByKey[[]pgxPair](t, ctx, c, "SELECT k, ps FROM bags ORDER BY k"); !reflect.DeepEqual(got[1], want[1].Ps) || got[2] != nil {
			t.Fatalf("pair[] column: got %+v", got)
		}
		var second pgxPair
		if err := c.QueryRow(ctx, "SELECT second FROM bags_v WHERE k = 1").Scan(&second); err != nil || !reflect.DeepEqual(second, want[1].Ps[1]) {
			t.Fatalf("(b).ps[2]: %+v, %v", second, err)
		}
		for k, text := range texts {
			var got string
			if err := c.QueryRow(ctx, "SELECT b::text FROM bags WHERE k = $1", k).Scan(&got); err != nil || got != text {
				t.Fatalf("record text of %d: %q, %v (want %q)", k, got, err, text)
			}
		}
	})
}
