package tests

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eddydb/eddy/tests/harness"
)

// CALL over the wire (sql/procedure.go): with pgx's extended protocol a
// CALL with bound parameters describes the INOUT/OUT row (names and type
// OIDs) and returns it with the tag CALL; a procedure without OUT
// parameters describes no row. The same checks pass against PostgreSQL
// 15. TestCallPsql runs one psql script on Eddy and on PostgreSQL and
// wants the same output.

func TestCallWire(t *testing.T)         { runCallWire(t, harness.StartTarget(t)) }
func TestCallWirePostgres(t *testing.T) { runCallWire(t, harness.StartPostgres(t)) }

// callSetup creates the procedures both tests call.
var callSetup = []string{
	`CREATE TABLE cw_t (a int, b text)`,
	`CREATE PROCEDURE cw_scale(INOUT n int, OUT label text, IN by int DEFAULT 2) LANGUAGE plpgsql AS $$
BEGIN
  n := n * by;
  label := 'x' || by;
END $$`,
	`CREATE PROCEDURE cw_add(a int, b text) LANGUAGE sql AS $$ INSERT INTO cw_t VALUES (a, b) $$`,
	`CREATE PROCEDURE cw_count(OUT n bigint) LANGUAGE sql AS $$ SELECT count(*) FROM cw_t $$`,
}

func runCallWire(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	mustExec(t, ctx, c, callSetup...)

	rows, err := c.Query(ctx, "CALL cw_scale($1, NULL, $2)", 21, 3)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var oids []uint32
	for _, f := range rows.FieldDescriptions() {
		names, oids = append(names, f.Name), append(oids, f.DataTypeOID)
	}
	var n int32
	var label string
	if !rows.Next() {
		t.Fatalf("CALL returned no row: %v", rows.Err())
	}
	if err := rows.Scan(&n, &label); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if strings.Join(names, ",") != "n,label" || oids[0] != 23 || oids[1] != 25 || n != 63 || label != "x3" {
		t.Fatalf("CALL cw_scale: columns %v %v, row %d %q", names, oids, n, label)
	}
	if tag := rows.CommandTag().String(); tag != "CALL" {
		t.Fatalf("tag %q", tag)
	}

	// The default fills the second argument; named arguments work too.
	if err := c.QueryRow(ctx, "CALL cw_scale(n => $1, label => NULL)", 5).Scan(&n, &label); err != nil || n != 10 || label != "x2" {
		t.Fatalf("CALL with a default: %d %q %v", n, label, err)
	}

	// No OUT parameters: no row description, tag CALL.
	for i, b := range []string{"one", "two"} {
		tag, err := c.Exec(ctx, "CALL cw_add($1, $2)", i, b)
		if err != nil || tag.String() != "CALL" {
			t.Fatalf("CALL cw_add: %q %v", tag, err)
		}
	}
	sd, err := c.Prepare(ctx, "add", "CALL cw_add($1, $2)")
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.Fields) != 0 || len(sd.ParamOIDs) != 2 || sd.ParamOIDs[0] != 23 || sd.ParamOIDs[1] != 25 {
		t.Fatalf("describe CALL cw_add: fields %v params %v", sd.Fields, sd.ParamOIDs)
	}
	var count int64
	if err := c.QueryRow(ctx, "CALL cw_count(NULL)").Scan(&count); err != nil || count != 2 {
		t.Fatalf("CALL cw_count: %d %v", count, err)
	}

	// A function is not a procedure.
	_, err = c.Exec(ctx, "SELECT cw_count()")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42809" {
		t.Fatalf("SELECT of a procedure: %v", err)
	}
}

// TestCallPsql runs a psql script calling procedures on Eddy and on
// PostgreSQL: psql prints the same.
func TestCallPsql(t *testing.T) {
	psql := psqlPath(t)
	pg := harness.StartPostgres(t)
	eddy := harness.StartTarget(t)
	script := strings.Join(callSetup, ";\n") + `;
CALL cw_scale(4, NULL, 5);
CALL cw_scale(7, NULL);
CALL cw_scale(label => NULL, n => 8);
CALL cw_add(1, 'a');
CALL cw_add(2, NULL);
CALL cw_count(NULL);
\x on
CALL cw_scale(1, NULL, 1);
\x off
CALL cw_scale(1);
SELECT * FROM cw_t ORDER BY a;
`
	want := runPsqlPlain(t, psql, pg, script)
	got := runPsqlPlain(t, psql, eddy, script)
	if got != want {
		t.Fatalf("psql on Eddy:\n%s\non PostgreSQL:\n%s", got, want)
	}
	if !strings.Contains(got, "CALL") {
		t.Fatalf("psql printed no CALL tag:\n%s", got)
	}
}

// runPsqlPlain feeds sql to psql (no psqlrc, command tags printed) and
// returns everything it printed.
func runPsqlPlain(t *testing.T, psql string, s *harness.Server, sql string) string {
	cmd := exec.Command(psql, "-X", "-d", s.NewDatabase(t), "-f", "-")
	cmd.Stdin = strings.NewReader(sql)
	cmd.Env = append(os.Environ(), "PGTZ=UTC", "PGCONNECT_TIMEOUT=10")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("psql: %v\n%s", err, out.String())
	}
	return out.String()
}
