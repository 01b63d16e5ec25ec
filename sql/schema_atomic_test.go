package sql

import (
	"errors"
	"testing"
)

// TestDropSchemaCascadeAtomic interrupts DROP SCHEMA ... CASCADE after
// its first object is dropped: nothing of it may be durable (a restart
// finds the schema whole) and the running engine must not have lost the
// objects either; run again, it drops everything in one go.
func TestDropSchemaCascadeAtomic(t *testing.T) {
	te := newTestEngine(t)
	te.run(`CREATE SCHEMA s; CREATE TABLE s.a (k int PRIMARY KEY); CREATE TABLE s.b (k int);
		INSERT INTO s.a VALUES (1), (2); CREATE MATERIALIZED VIEW s.v AS SELECT count(*) AS n FROM s.a;
		CREATE VIEW s.w AS SELECT k FROM s.b`)
	const count = `SELECT count(*) FROM pg_class WHERE relnamespace = 's'::regnamespace`
	want := te.run(count)
	crash := errors.New("crash")
	dropSchemaFault = func(*Object) error { return crash }
	defer func() { dropSchemaFault = nil }()
	if got := te.run("DROP SCHEMA s CASCADE"); got == "DROP SCHEMA\n" {
		t.Fatalf("the fault did not interrupt DROP SCHEMA")
	}
	if got := te.run(count); got != want {
		t.Fatalf("after the interrupted drop the running engine has\n%s\nwant\n%s", got, want)
	}
	if got := te.run("SELECT n FROM s.v"); got != "n\n2\nSELECT 1\n" {
		t.Fatalf("the view after the interrupted drop: %q", got)
	}
	te.restart()
	if got := te.run(count); got != want {
		t.Fatalf("after a restart: %s, want %s", got, want)
	}
	dropSchemaFault = nil
	if got := te.run("DROP SCHEMA s CASCADE"); got != "DROP SCHEMA\n" {
		t.Fatalf("DROP SCHEMA: %q", got)
	}
	te.restart()
	if got := te.run("SELECT count(*) FROM pg_namespace WHERE nspname = 's'"); got != "count\n0\nSELECT 1\n" {
		t.Fatalf("the schema after its drop and a restart: %q", got)
	}
}
