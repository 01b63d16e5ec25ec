package tests

import (
	"context"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
)

// TestTempTablesBrokenConnection checks, over real connections, that a
// session's temporary tables are its own and end with it, also when its
// connection breaks without a Terminate message: another session sees
// them in pg_class while they live (in the first session's pg_temp_N),
// never through its search path, and not after the break.
func TestTempTablesBrokenConnection(t *testing.T) { runTempBroken(t, harness.StartTarget(t)) }

// TestTempTablesBrokenConnectionPostgres runs the same against PostgreSQL.
func TestTempTablesBrokenConnectionPostgres(t *testing.T) {
	runTempBroken(t, harness.StartPostgres(t))
}

func runTempBroken(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn := s.NewDatabase(t)
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := connect(), connect()
	defer b.Close(ctx)
	for _, q := range []string{"CREATE TABLE tb (a int)", "INSERT INTO tb VALUES (10)",
		"CREATE TEMP TABLE tb (a int, b int)", "INSERT INTO tb VALUES (1, 2)"} {
		mustExec(t, ctx, a, q)
	}
	count := func(c *pgx.Conn, q string) int {
		var n int
		if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	if n := count(a, "SELECT a FROM tb"); n != 1 {
		t.Errorf("session a reads its temporary tb: a = %d, want 1", n)
	}
	if n := count(b, "SELECT a FROM tb"); n != 10 {
		t.Errorf("session b reads the permanent tb: a = %d, want 10", n)
	}
	const temps = "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace " +
		"WHERE c.relname = 'tb' AND c.relpersistence = 't' AND n.nspname LIKE 'pg_temp_%' AND pg_is_other_temp_schema(n.oid)"
	if n := count(b, temps); n != 1 {
		t.Fatalf("session b sees %d temporary tb of another session in pg_class, want 1", n)
	}
	// Break a's connection: no Terminate, the socket just closes.
	if err := a.PgConn().Conn().Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for count(b, "SELECT count(*) FROM pg_class WHERE relpersistence = 't'") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the broken session's temporary table outlived it")
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := connect()
	defer c.Close(ctx)
	mustExec(t, ctx, c, "CREATE TEMP TABLE tb (a int, b int)")
	if n := count(c, "SELECT count(*) FROM tb"); n != 0 {
		t.Errorf("a new temporary tb holds %d rows, want 0", n)
	}
}
