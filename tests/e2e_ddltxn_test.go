package tests

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestDDLTxn checks what tests/slt/ddl_transactions.slt cannot say with
// one connection: another session never sees a block's DDL before its
// COMMIT, and sees all of it after; a kill -9 before COMMIT leaves nothing
// of the block and one after leaves all of it, with its views maintained
// after the restart; a multi-statement Query through psql -c and pgx's
// simple protocol is one implicit transaction.
func TestDDLTxn(t *testing.T) { runDDLTxn(t, harness.StartTarget(t)) }

// TestDDLTxnPostgres runs the same checks against PostgreSQL.
func TestDDLTxnPostgres(t *testing.T) { runDDLTxn(t, harness.StartPostgres(t)) }

func runDDLTxn(t *testing.T, s *harness.Server) {
	t.Run("OtherSessions", func(t *testing.T) { ddlTxnOtherSessions(t, s) })
	t.Run("ImplicitPgx", func(t *testing.T) { ddlTxnImplicitPgx(t, s) })
	t.Run("ImplicitPsql", func(t *testing.T) { ddlTxnImplicitPsql(t, s) })
	t.Run("Crash", func(t *testing.T) { ddlTxnCrash(t, s) })
	t.Run("RoleLogin", func(t *testing.T) { ddlTxnRoleLogin(t, s) })
}

// ddlTxnRoleLogin creates a login role in a block: nobody logs in as it
// before COMMIT, and after it they do.
func ddlTxnRoleLogin(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn := s.NewDatabase(t)
	a := pgConnect(t, ctx, dsn)
	defer a.Close(ctx)
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User = "tx_login"
	login := func() error {
		c, err := pgconn.ConnectConfig(ctx, cfg)
		if err == nil {
			c.Close(ctx)
		}
		return err
	}
	execAll(t, ctx, a, "BEGIN", "CREATE ROLE tx_login LOGIN")
	if err := login(); err == nil {
		t.Fatal("logged in as a role created in an open block")
	}
	execAll(t, ctx, a, "COMMIT")
	if err := login(); err != nil {
		t.Fatalf("login as the committed role: %v", err)
	}
	execAll(t, ctx, a, "DROP ROLE tx_login")
}

// countRel returns how many relations named name c sees.
func countRel(ctx context.Context, c *pgconn.PgConn, name string) (string, error) {
	res, err := c.Exec(ctx, "SELECT count(*) FROM pg_class WHERE relname = '"+name+"'").ReadAll()
	if err != nil {
		return "", err
	}
	return string(res[0].Rows[0][0]), nil
}

// observe runs countRel on c in the background and reports what it saw
// and whether it had answered before stop was closed.
func observe(ctx context.Context, c *pgconn.PgConn, name string, stop <-chan struct{}) <-chan [2]string {
	out := make(chan [2]string, 1)
	go func() {
		n, err := countRel(ctx, c, name)
		early := "early"
		select {
		case <-stop:
			early = "late"
		default:
		}
		if err != nil {
			n = err.Error()
		}
		out <- [2]string{n, early}
	}()
	return out
}

// ddlTxnOtherSessions opens a block with DDL in one session while another
// looks for its table: seen only after COMMIT (PostgreSQL answers at
// once from its snapshot, Eddy waits for the block: both are right), and
// never after ROLLBACK.
func ddlTxnOtherSessions(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn := s.NewDatabase(t)
	a, b := pgConnect(t, ctx, dsn), pgConnect(t, ctx, dsn)
	defer a.Close(ctx)
	defer b.Close(ctx)
	for _, end := range []string{"ROLLBACK", "COMMIT"} {
		execAll(t, ctx, a, "BEGIN", "CREATE TABLE iso_t (a int)", "INSERT INTO iso_t VALUES (1)",
			"CREATE MATERIALIZED VIEW iso_v AS SELECT count(*) AS n FROM iso_t")
		stop := make(chan struct{})
		seen := observe(ctx, b, "iso_t", stop)
		time.Sleep(200 * time.Millisecond)
		close(stop)
		execAll(t, ctx, a, end)
		got := <-seen
		if got[0] != "0" && !(got[0] == "1" && got[1] == "late" && end == "COMMIT") {
			t.Fatalf("another session saw %s relations named iso_t, answering %s, before %s", got[0], got[1], end)
		}
		want := map[string]string{"ROLLBACK": "0", "COMMIT": "1"}[end]
		if n, err := countRel(ctx, b, "iso_t"); err != nil || n != want {
			t.Fatalf("after %s another session sees %s (%v) relations iso_t, want %s", end, n, err, want)
		}
	}
	execAll(t, ctx, b, "INSERT INTO iso_t VALUES (2)")
	res, err := b.Exec(ctx, "SELECT n FROM iso_v").ReadAll()
	if s.Kind() == harness.Postgres {
		execAll(t, ctx, b, "REFRESH MATERIALIZED VIEW iso_v")
		res, err = b.Exec(ctx, "SELECT n FROM iso_v").ReadAll()
	}
	if err != nil || string(res[0].Rows[0][0]) != "2" {
		t.Fatalf("the view created in the committed block: %v %v, want 2 rows counted", res, err)
	}
}

// ddlTxnImplicitPgx sends multi-statement strings with pgx's simple
// protocol: an error rolls back the statements before it, DDL included.
func ddlTxnImplicitPgx(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg, err := pgx.ParseConfig(s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE TABLE imp (a int)"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "INSERT INTO imp VALUES (1); CREATE TABLE imp2 (b int); INSERT INTO imp2 VALUES (2); SELECT 1/0")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22012" {
		t.Fatalf("multi-statement with a division by zero: %v, want 22012", err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM imp").Scan(&n); err != nil || n != 0 {
		t.Fatalf("imp holds %d rows (%v) after the failed Query, want 0", n, err)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname = 'imp2'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("imp2 exists (%d, %v) after the failed Query", n, err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO imp VALUES (1); INSERT INTO imp VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM imp").Scan(&n); err != nil || n != 2 {
		t.Fatalf("imp holds %d rows (%v), want 2", n, err)
	}
}

// ddlTxnImplicitPsql does the same through psql -c, which sends the
// whole string as one Query.
func ddlTxnImplicitPsql(t *testing.T, s *harness.Server) {
	dsn := s.NewDatabase(t)
	out := psqlAs(t, dsn, "", "CREATE TABLE ps (a int); INSERT INTO ps VALUES (1); SELECT 1/0")
	if !strings.Contains(out, "division by zero") {
		t.Fatalf("psql -c printed %q, want the division by zero", out)
	}
	if out := psqlAs(t, dsn, "", "SELECT count(*) FROM pg_class WHERE relname = 'ps'"); out != "0" {
		t.Fatalf("after the failed psql -c, %q relations named ps, want 0", out)
	}
	if out := psqlAs(t, dsn, "", "CREATE TABLE ps (a int); INSERT INTO ps VALUES (1), (2); SELECT count(*) FROM ps"); out != "CREATE TABLE\nINSERT 0 2\n2" {
		t.Fatalf("psql -c printed %q, want the tags and 2", out)
	}
}

// ddlTxnCrash kills the server with a block's DDL open, and after a
// committed one: the first leaves nothing, the second all of it, and its
// view follows writes after the restart.
func ddlTxnCrash(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := pgConnect(t, ctx, s.DSN())
	execAll(t, ctx, c, "BEGIN", "CREATE TABLE kept (a int PRIMARY KEY, b int)", "INSERT INTO kept VALUES (1, 10), (2, 20)",
		"CREATE MATERIALIZED VIEW kept_sum AS SELECT sum(b) AS s FROM kept", "CREATE INDEX kept_b ON kept (b)", "COMMIT")
	execAll(t, ctx, c, "BEGIN", "CREATE TABLE lost (a int)", "INSERT INTO lost VALUES (1)",
		"CREATE MATERIALIZED VIEW lost_v AS SELECT count(*) AS n FROM lost", "DROP MATERIALIZED VIEW kept_sum",
		"ALTER TABLE kept ADD COLUMN c int DEFAULT 0", "CREATE SCHEMA lost_s")
	s.Kill()
	s.Restart()
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	res, err := c.Exec(ctx, "SELECT relname FROM pg_class WHERE relname IN ('lost', 'lost_v', 'kept', 'kept_sum', 'kept_b') ORDER BY 1").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res[0].Rows {
		names = append(names, string(r[0]))
	}
	if got := strings.Join(names, " "); got != "kept kept_b kept_sum" {
		t.Fatalf("after the kill the catalog holds %q, want %q", got, "kept kept_b kept_sum")
	}
	execAll(t, ctx, c, "INSERT INTO kept VALUES (3, 30)", "UPDATE kept SET b = 11 WHERE a = 1")
	if s.Kind() == harness.Postgres {
		execAll(t, ctx, c, "REFRESH MATERIALIZED VIEW kept_sum")
	}
	res, err = c.Exec(ctx, "SELECT (SELECT s FROM kept_sum), (SELECT count(*) FROM pg_namespace WHERE nspname = 'lost_s'), (SELECT count(*) FROM kept WHERE b = 11)").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0].Rows[0]; string(r[0]) != "61" || string(r[1]) != "0" || string(r[2]) != "1" {
		t.Fatalf("after the restart: sum %s, schemas %s, rows through the index %s; want 61, 0, 1", r[0], r[1], r[2])
	}
}
