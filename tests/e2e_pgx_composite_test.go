package tests

import (
	"context"
	"reflect"
	"testing"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
)

// TestPgxComposite writes and reads a composite type's values with pgx,
// which learns the type from pg_type and pg_attribute (Conn.LoadType) and
// then sends and reads it in PostgreSQL's binary record format (field
// count, per field its type OID, length and bytes) on the extended
// protocol and as record text on the simple protocol: parameters, a
// table's column, a materialized view's and an array of the type.
func TestPgxComposite(t *testing.T) { runPgxComposite(t, harness.StartTarget(t)) }

// TestPgxCompositePostgres runs the same against PostgreSQL, which proves
// the expectations.
func TestPgxCompositePostgres(t *testing.T) { runPgxComposite(t, harness.StartPostgres(t)) }

// pgxPair is a value of the composite type pair (a int, b text); nil
// fields are NULL.
type pgxPair struct {
	A *int32
	B *string
}

func runPgxComposite(t *testing.T, s *harness.Server) {
	eachPgxMode(t, s, func(t *testing.T, ctx context.Context, c *pgx.Conn, mode pgx.QueryExecMode, refresh func()) {
		pgxComposite(t, ctx, c, mode == pgx.QueryExecModeCacheStatement, refresh)
	})
}

// pgxComposite inserts with binary parameters when binary (the simple
// protocol sends no parameter types, so there the values are SQL text).
func pgxComposite(t *testing.T, ctx context.Context, c *pgx.Conn, binary bool, refresh func()) {
	mustExec(t, ctx, c,
		"CREATE TYPE pair AS (a int, b text)",
		"CREATE TABLE pairs (id int PRIMARY KEY, p pair)",
		"CREATE MATERIALIZED VIEW pairs_v AS SELECT id, p, (p).a AS a FROM pairs WHERE NOT p IS NULL")
	loadTypes(t, ctx, c, "pair", "_pair")
	one, x, quoted := int32(1), "x", `a "q", (b)`
	rows := map[int32]pgxPair{1: {&one, &x}, 2: {nil, &quoted}, 3: {&one, nil}}
	texts := map[int32]string{1: "(1,x)", 2: `(,"a ""q"", (b)")`, 3: "(1,)"}
	for id := int32(1); id <= 3; id++ {
		var err error
		if binary {
			_, err = c.Exec(ctx, "INSERT INTO pairs VALUES ($1, $2)", id, rows[id])
		} else {
			_, err = c.Exec(ctx, "INSERT INTO pairs VALUES ($1, $2::text::pair)", id, texts[id])
		}
		if err != nil {
			t.Fatalf("insert %d: %v", id, err)
		}
	}
	mustExec(t, ctx, c, "INSERT INTO pairs VALUES (4, NULL)", "UPDATE pairs SET p.a = 7 WHERE id = 3")
	seven := int32(7)
	rows[3] = pgxPair{&seven, nil}
	refresh()
	for _, q := range []string{"SELECT id, p FROM pairs WHERE id <> 4 ORDER BY id", "SELECT id, p FROM pairs_v ORDER BY id"} {
		got := scanByKey[pgxPair](t, ctx, c, q)
		if want := map[int32]pgxPair{1: rows[1], 2: rows[2], 3: rows[3]}; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: got %s, want %s", q, showPairs(got), showPairs(want))
		}
	}
	var arr []pgxPair
	if err := c.QueryRow(ctx, "SELECT array_agg(p ORDER BY id) FROM pairs WHERE id <> 4").Scan(&arr); err != nil {
		t.Fatalf("array_agg: %v", err)
	}
	if want := []pgxPair{rows[1], rows[2], rows[3]}; !reflect.DeepEqual(arr, want) {
		t.Fatalf("array_agg: got %s, want %s", showPairs(map[int32]pgxPair{0: arr[0]}), showPairs(map[int32]pgxPair{0: want[0]}))
	}
	var text string
	if err := c.QueryRow(ctx, "SELECT p::text FROM pairs WHERE id = 2").Scan(&text); err != nil || text != `(,"a ""q"", (b)")` {
		t.Fatalf("record text: %q, %v", text, err)
	}
}

// loadTypes registers the named types with c's type map (pgx's LoadType
// reads pg_type and pg_attribute).
func loadTypes(t *testing.T, ctx context.Context, c *pgx.Conn, names ...string) {
	t.Helper()
	for _, name := range names {
		typ, err := c.LoadType(ctx, name)
		if err != nil {
			t.Fatalf("LoadType(%s): %v", name, err)
		}
		c.TypeMap().RegisterType(typ)
	}
}

// scanByKey runs q, whose rows are (int4 key, value), and returns the
// values by key.
func scanByKey[V any](t *testing.T, ctx context.Context, c *pgx.Conn, q string) map[int32]V {
	t.Helper()
	got := map[int32]V{}
	r, err := c.Query(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	for r.Next() {
		var k int32
		var v V
		if err := r.Scan(&k, &v); err != nil {
			t.Fatalf("%s: scan: %v", q, err)
		}
		got[k] = v
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return got
}

// showPairs prints pairs for a failure message.
func showPairs(m map[int32]pgxPair) string {
	s := ""
	for id, p := range m {
		a, b := "NULL", "NULL"
		if p.A != nil {
			a = string(rune('0' + *p.A))
		}
		if p.B != nil {
			b = *p.B
		}
		s += " " + string(rune('0'+id)) + ":(" + a + "," + b + ")"
	}
	return s
}

// TestPgxCompositeNested sends and reads a composite type with a field of
// another composite type (binary parameters and results under the
// extended protocol, record text under the simple one).
func TestPgxCompositeNested(t *testing.T) { runPgxCompositeNested(t, harness.StartTarget(t)) }

// TestPgxCompositeNestedPostgres runs the same against PostgreSQL.
func TestPgxCompositeNestedPostgres(t *testing.T) {
	runPgxCompositeNested(t, harness.StartPostgres(t))
}

// pgxOuter is a value of the composite type outer (id int, p pair).
type pgxOuter struct {
	ID *int32
	P  *pgxPair
}

func runPgxCompositeNested(t *testing.T, s *harness.Server) {
	eachPgxMode(t, s, func(t *testing.T, ctx context.Context, c *pgx.Conn, mode pgx.QueryExecMode, refresh func()) {
		mustExec(t, ctx, c,
			"CREATE TYPE pair AS (a int, b text)",
			"CREATE TYPE outer_t AS (id int, p pair)",
			"CREATE TABLE outers (k int PRIMARY KEY, o outer_t)",
			"CREATE MATERIALIZED VIEW outers_v AS SELECT k, o, (o).p AS p FROM outers")
		loadTypes(t, ctx, c, "pair", "outer_t")
		one, two, x, q := int32(1), int32(2), "x", `a "q", (b)`
		want := map[int32]pgxOuter{1: {&one, &pgxPair{&two, &x}}, 2: {&two, nil}, 3: {nil, &pgxPair{nil, &q}}}
		texts := map[int32]string{1: `(1,"(2,x)")`, 2: "(2,)", 3: `(,"(,""a """"q"""", (b)"")")`}
		for k := int32(1); k <= 3; k++ {
			var err error
			if mode == pgx.QueryExecModeCacheStatement {
				_, err = c.Exec(ctx, "INSERT INTO outers VALUES ($1, $2)", k, want[k])
			} else {
				_, err = c.Exec(ctx, "INSERT INTO outers VALUES ($1, $2::text::outer_t)", k, texts[k])
			}
			if err != nil {
				t.Fatalf("insert %d: %v", k, err)
			}
		}
		refresh()
		for _, q := range []string{"SELECT k, o FROM outers ORDER BY k", "SELECT k, o FROM outers_v ORDER BY k"} {
			if got := scanByKey[pgxOuter](t, ctx, c, q); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: got %+v, want %+v", q, got, want)
			}
		}
		for k, text := range texts {
			var got string
			if err := c.QueryRow(ctx, "SELECT o::text FROM outers WHERE k = $1", k).Scan(&got); err != nil || got != text {
				t.Fatalf("record text of %d: %q, %v (want %q)", k, got, err, text)
			}
		}
	})
}
