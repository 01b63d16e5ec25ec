package tests

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestCopyToMatchesPostgres runs every COPY ... TO STDOUT of
// testdata/copy_to.sql on Eddy and on PostgreSQL 15 over the same data and
// requires the same bytes (text, CSV and binary), or the same SQLSTATE
// and message.
func TestCopyToMatchesPostgres(t *testing.T) {
	setup, copies := readCopyScript(t, "testdata/copy_to.sql")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eddy := pgConnect(t, ctx, harness.StartEddy(t).DSN())
	pg := pgConnect(t, ctx, harness.StartPostgres(t).NewDatabase(t))
	defer eddy.Close(context.Background())
	defer pg.Close(context.Background())
	for _, sql := range setup {
		for _, c := range []*pgconn.PgConn{eddy, pg} {
			if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	for _, sql := range copies {
		want := copyOutcome(ctx, pg, sql)
		if got := copyOutcome(ctx, eddy, sql); got != want {
			t.Errorf("%s\n got %q\nwant %q", sql, got, want)
		}
	}
}

// readCopyScript splits a script into its setup statements and its COPY
// statements (after the "-- copies" line), one statement per line.
func readCopyScript(t *testing.T, path string) (setup, copies []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	inCopies := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "-- copies":
			inCopies = true
		case line == "" || strings.HasPrefix(line, "--"):
		case inCopies:
			copies = append(copies, line)
		default:
			setup = append(setup, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return setup, copies
}

// copyOutcome runs a COPY TO STDOUT and describes what the client saw:
// the data and the tag, or the error's SQLSTATE, message and hint.
func copyOutcome(ctx context.Context, c *pgconn.PgConn, sql string) string {
	var buf bytes.Buffer
	tag, err := c.CopyTo(ctx, &buf, sql)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return "ERROR " + pgErr.Code + ": " + pgErr.Message + fmt.Sprintf(" (position %d)", pgErr.Position)
	}
	if err != nil {
		return "client error: " + err.Error()
	}
	return buf.String() + "-- " + tag.String()
}
