package harness

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestPostgresKillRestart checks the harness itself on PostgreSQL: data
// committed before a SIGKILL is there after Restart on the same port.
func TestPostgresKillRestart(t *testing.T) {
	s := StartPostgres(t)
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		c, err := pgx.Connect(ctx, s.DSN())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec("CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2)")
	port := s.Port()
	s.Kill()
	s.Restart()
	if s.Port() != port {
		t.Fatalf("port changed from %d to %d", port, s.Port())
	}
	c, err := pgx.Connect(ctx, s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	c, err = pgx.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT sum(a) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("sum after restart = %d, want 3", n)
	}
}
