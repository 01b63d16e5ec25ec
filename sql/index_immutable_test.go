package sql

import (
	"strings"
	"testing"
)

// TestEnumTextIndexOpens: an index over an enum cast to text, which
// CREATE INDEX now refuses (42P17, as PostgreSQL) but an older Eddy
// created, still loads when its data directory is opened, and keeps
// serving and maintaining its rows.
func TestEnumTextIndexOpens(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TYPE mood AS ENUM ('sad', 'ok'); CREATE TABLE t (m mood, v int)`)
	if out := te.run(`CREATE INDEX t_m ON t ((m::text))`); !strings.Contains(out, "ERROR 42P17") {
		t.Fatalf("CREATE INDEX on an enum cast to text: %q", out)
	}
	check := checkNewIndexKey
	checkNewIndexKey = func(*indexKey) error { return nil }
	te.mustRun(`CREATE UNIQUE INDEX t_m ON t ((m::text)); INSERT INTO t VALUES ('ok', 1)`)
	checkNewIndexKey = check
	te.restart()
	te.mustRun(`INSERT INTO t VALUES ('sad', 2)`)
	if out := te.run(`INSERT INTO t VALUES ('ok', 3)`); !strings.Contains(out, "ERROR 23505") {
		t.Fatalf("unique index after a restart: %q", out)
	}
	te.crash()
	if out := te.mustRun(`SELECT v FROM t WHERE m::text = 'ok'`); out != "v\n1\nSELECT 1\n" {
		t.Fatalf("rows after a crash: %q", out)
	}
}
