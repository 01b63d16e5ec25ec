package tests

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
)

// TestPgxRowType loads a table's and a view's row types with pgx
// (Conn.LoadType reads pg_type, pg_class.reltype's row and pg_attribute)
// and reads whole-row references as those types: RowDescription's type
// OID is the row type's, so pgx decodes the binary record (extended
// protocol) or record text (simple protocol) into a struct; a parameter
// of the row type and an array of it go the other way.
func TestPgxRowType(t *testing.T) { runPgxRowType(t, harness.StartTarget(t)) }

// TestPgxRowTypePostgres runs the same against PostgreSQL, which proves
// the expectations.
func TestPgxRowTypePostgres(t *testing.T) { runPgxRowType(t, harness.StartPostgres(t)) }

func runPgxRowType(t *testing.T, s *harness.Server) {
	eachPgxMode(t, s, func(t *testing.T, ctx context.Context, c *pgx.Conn, mode pgx.QueryExecMode, refresh func()) {
		pgxRowType(t, ctx, c, mode == pgx.QueryExecModeCacheStatement)
	})
}

func pgxRowType(t *testing.T, ctx context.Context, c *pgx.Conn, binary bool) {
	mustExec(t, ctx, c,
		"CREATE TABLE rpair (a int, b text)",
		"CREATE VIEW rpair_v AS SELECT a, b FROM rpair WHERE a > 1",
		`INSERT INTO rpair VALUES (1, 'x'), (2, 'a "q", (b)'), (3, NULL)`)
	loadTypes(t, ctx, c, "rpair", "_rpair", "rpair_v")
	var relType, viewType uint32
	if err := c.QueryRow(ctx, "SELECT (SELECT reltype FROM pg_class WHERE relname = 'rpair'), (SELECT reltype FROM pg_class WHERE relname = 'rpair_v')").Scan(&relType, &viewType); err != nil {
		t.Fatal(err)
	}
	one, two, three, x, q := int32(1), int32(2), int32(3), "x", `a "q", (b)`
	want := map[int32]pgxPair{1: {&one, &x}, 2: {&two, &q}, 3: {&three, nil}}
	r, err := c.Query(ctx, "SELECT a, rpair FROM rpair ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.FieldDescriptions()[1].DataTypeOID; got != relType {
		t.Fatalf("whole-row type OID %d, want the row type's %d", got, relType)
	}
	r.Close()
	if got := scanByKey[pgxPair](t, ctx, c, "SELECT a, rpair FROM rpair ORDER BY a"); !reflect.DeepEqual(got, want) {
		t.Fatalf("whole rows: got %s, want %s", showPairs(got), showPairs(want))
	}
	if got := scanByKey[pgxPair](t, ctx, c, "SELECT a, rpair_v FROM rpair_v ORDER BY a"); !reflect.DeepEqual(got, map[int32]pgxPair{2: want[2], 3: want[3]}) {
		t.Fatalf("view rows: got %s", showPairs(got))
	}
	var arr []pgxPair
	if err := c.QueryRow(ctx, "SELECT array(SELECT rpair FROM rpair ORDER BY a)").Scan(&arr); err != nil {
		t.Fatalf("array of rows: %v", err)
	}
	if !reflect.DeepEqual(arr, []pgxPair{want[1], want[2], want[3]}) {
		t.Fatalf("array of rows: got %d elements %v", len(arr), arr)
	}
	var b string
	if binary {
		err = c.QueryRow(ctx, "SELECT ($1::rpair).b", want[2]).Scan(&b)
	} else {
		err = c.QueryRow(ctx, "SELECT ($1::text::rpair).b", `(2,"a ""q"", (b)")`).Scan(&b)
	}
	if err != nil || b != q {
		t.Fatalf("row type parameter: %q, %v", b, err)
	}
}

// TestRowTypeRestart checks that a relation's row type keeps its OID
// across a restart (pg_class.reltype, pg_type, RowDescription) and that
// a table column and a materialized view storing it read back, the
// latter still maintained.
func TestRowTypeRestart(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := connect(t, ctx, s.DSN())
	mustExec(t, ctx, c,
		"CREATE TABLE rr (a int, b text)",
		"CREATE TABLE rr_hold (id int, r rr)",
		"CREATE MATERIALIZED VIEW rr_m AS SELECT rr, (rr).a AS a FROM rr",
		"INSERT INTO rr VALUES (1, 'x')",
		"INSERT INTO rr_hold SELECT a, rr FROM rr")
	const oids = "SELECT c.reltype || ':' || t.typarray || ':' || format_type(c.reltype, NULL) FROM pg_class c JOIN pg_type t ON t.oid = c.reltype WHERE c.relname = 'rr'"
	var before string
	if err := c.QueryRow(ctx, oids).Scan(&before); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	s.Restart()
	c = connect(t, ctx, s.DSN())
	defer c.Close(ctx)
	expectText(t, ctx, c, oids, before)
	mustExec(t, ctx, c, "INSERT INTO rr VALUES (2, 'y')")
	expectText(t, ctx, c, "SELECT string_agg(rr::text || pg_typeof(rr)::text, ' ' ORDER BY a) FROM rr_m", "(1,x)rr (2,y)rr")
	expectText(t, ctx, c, "SELECT string_agg((r).b || pg_typeof(r)::text, ' ') FROM rr_hold", "xrr")
	var reltype uint32
	if err := c.QueryRow(ctx, "SELECT reltype FROM pg_class WHERE relname = 'rr'").Scan(&reltype); err != nil {
		t.Fatal(err)
	}
	r, err := c.Query(ctx, "SELECT rr FROM rr")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.FieldDescriptions()[0].DataTypeOID; got != reltype {
		t.Fatalf("after restart the whole row's type OID is %d, the row type's %d", got, reltype)
	}
}
