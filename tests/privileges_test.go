package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPrivilegesLogin logs in as a role that is not a superuser: its
// statements are checked against its grants, and a REVOKE ends its open
// SUBSCRIBE with 42501 and applies to its next statement.
func TestPrivilegesLogin(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := connect(t, ctx, s.DSN())
	mustExec(t, ctx, admin, "CREATE ROLE reader LOGIN PASSWORD 'pw'", "CREATE SCHEMA app",
		"CREATE TABLE app.t (k int PRIMARY KEY)", "INSERT INTO app.t VALUES (1)",
		"CREATE MATERIALIZED VIEW app.v AS SELECT count(*) AS n FROM app.t")
	dsn := strings.Replace(s.DSN(), "eddy@", "reader:pw@", 1)

	user := connect(t, ctx, dsn)
	var super string
	if err := user.QueryRow(ctx, "SELECT current_user || ' ' || current_setting('is_superuser')").Scan(&super); err != nil {
		t.Fatal(err)
	}
	if super != "reader off" {
		t.Fatalf("logged in as %q, want reader off", super)
	}
	_, err := user.Exec(ctx, "SELECT * FROM app.v")
	wantCode(t, err, "42501", "permission denied for schema app")

	mustExec(t, ctx, admin, "GRANT USAGE ON SCHEMA app TO reader", "GRANT SELECT ON app.v TO reader")
	mustExec(t, ctx, user, "SELECT * FROM app.v")
	_, err = user.Exec(ctx, "SELECT * FROM app.t")
	wantCode(t, err, "42501", "permission denied for table t")

	pc := pgconnCancellable(t, ctx, dsn)
	rows, errc := streamSubscribe(t, ctx, pc, "SUBSCRIBE app.v", false)
	nextRows(t, rows, 1)
	mustExec(t, ctx, admin, "INSERT INTO app.t VALUES (2)")
	nextRows(t, rows, 2) // the count's retraction and its new value
	mustExec(t, ctx, admin, "REVOKE SELECT ON app.v FROM reader")
	select {
	case err := <-errc:
		wantCode(t, err, "42501", "permission denied for materialized view v")
	case <-time.After(20 * time.Second):
		t.Fatal("subscription not ended by REVOKE")
	}
	_, err = user.Exec(ctx, "SELECT * FROM app.v")
	wantCode(t, err, "42501", "permission denied for materialized view v")
}

// TestPrivilegesObjectsLogin logs in as roles that are not superusers:
// without CONNECT on the database the login is refused with 42501;
// REVOKE EXECUTE on a built-in function refuses its calls, REVOKE USAGE
// on a type its use as a column type, each until granted back.
func TestPrivilegesObjectsLogin(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := connect(t, ctx, s.DSN())
	mustExec(t, ctx, admin, "CREATE ROLE reader LOGIN PASSWORD 'pw'", "CREATE ROLE outsider LOGIN PASSWORD 'pw'",
		"GRANT CREATE ON SCHEMA public TO reader")
	readerDSN := strings.Replace(s.DSN(), "eddy@", "reader:pw@", 1)
	outsiderDSN := strings.Replace(s.DSN(), "eddy@", "outsider:pw@", 1)

	mustExec(t, ctx, admin, "REVOKE CONNECT ON DATABASE eddy FROM PUBLIC", "GRANT CONNECT ON DATABASE eddy TO reader")
	_, err := pgx.Connect(ctx, outsiderDSN)
	wantCode(t, err, "42501", "permission denied for database eddy")
	user := connect(t, ctx, readerDSN)
	mustExec(t, ctx, admin, "GRANT CONNECT ON DATABASE eddy TO PUBLIC")
	connect(t, ctx, outsiderDSN)

	mustExec(t, ctx, user, "SELECT initcap('x')")
	mustExec(t, ctx, admin, "REVOKE EXECUTE ON FUNCTION initcap(text) FROM PUBLIC")
	_, err = user.Exec(ctx, "SELECT initcap('x')")
	wantCode(t, err, "42501", "permission denied for function initcap")
	var got string
	if err := admin.QueryRow(ctx, "SELECT initcap('x')").Scan(&got); err != nil || got != "X" {
		t.Fatalf("superuser's call: %q, %v", got, err)
	}
	mustExec(t, ctx, admin, "GRANT EXECUTE ON FUNCTION initcap(text) TO reader")
	mustExec(t, ctx, user, "SELECT initcap('x')")

	mustExec(t, ctx, admin, "REVOKE USAGE ON TYPE numeric FROM PUBLIC")
	_, err = user.Exec(ctx, "CREATE TABLE money (amount numeric(10, 2))")
	wantCode(t, err, "42501", "permission denied for type numeric")
	mustExec(t, ctx, user, "CREATE TABLE counts (n bigint)")
	mustExec(t, ctx, admin, "GRANT USAGE ON TYPE numeric TO reader")
	mustExec(t, ctx, user, "CREATE TABLE money (amount numeric(10, 2))")
}

// TestPrivilegesPreparedRecreated prepares statements with pgx (the
// extended protocol) as a role that is not a superuser, then drops and
// recreates their table without the grants: the next executions are
// refused with 42501, as PostgreSQL re-plans and re-checks them, and
// pass again once the new table is granted.
func TestPrivilegesPreparedRecreated(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := connect(t, ctx, s.DSN())
	mustExec(t, ctx, admin, "CREATE ROLE reader LOGIN PASSWORD 'pw'", "CREATE TABLE t (k int)",
		"INSERT INTO t VALUES (1)", "GRANT SELECT, INSERT ON t TO reader")
	user := connect(t, ctx, strings.Replace(s.DSN(), "eddy@", "reader:pw@", 1))
	if _, err := user.Prepare(ctx, "sel", "SELECT k FROM t"); err != nil {
		t.Fatal(err)
	}
	if _, err := user.Prepare(ctx, "ins", "INSERT INTO t VALUES ($1)"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, user, "PREPARE sqlsel AS SELECT k FROM t")
	var k int
	if err := user.QueryRow(ctx, "sel").Scan(&k); err != nil || k != 1 {
		t.Fatalf("before: %d, %v", k, err)
	}

	mustExec(t, ctx, admin, "DROP TABLE t", "CREATE TABLE t (k int)", "INSERT INTO t VALUES (2)")
	err := user.QueryRow(ctx, "sel").Scan(&k)
	wantCode(t, err, "42501", "permission denied for table t")
	_, err = user.Exec(ctx, "ins", 3)
	wantCode(t, err, "42501", "permission denied for table t")
	_, err = user.Exec(ctx, "EXECUTE sqlsel")
	wantCode(t, err, "42501", "permission denied for table t")

	mustExec(t, ctx, admin, "GRANT SELECT ON t TO reader")
	if err := user.QueryRow(ctx, "sel").Scan(&k); err != nil || k != 2 {
		t.Fatalf("after GRANT: %d, %v", k, err)
	}
	_, err = user.Exec(ctx, "ins", 3)
	wantCode(t, err, "42501", "permission denied for table t")
}
