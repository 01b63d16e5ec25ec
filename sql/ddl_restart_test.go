package sql

import (
	"strings"
	"testing"
)

// crash closes the engine as kill -9 would leave it (acknowledged
// commits are in the log; no checkpoint, no sequence flush) and reopens
// it on the same data directory.
func (te *testEngine) crash() {
	if err := te.e.CloseWithoutCheckpoint(); err != nil {
		te.t.Fatal(err)
	}
	te.open()
}

// mustRun runs sql and fails the test on an error.
func (te *testEngine) mustRun(sql string) string {
	te.t.Helper()
	out := te.run(sql)
	if strings.Contains(out, "ERROR") {
		te.t.Fatalf("%s:\n%s", sql, out)
	}
	return out
}

// TestSequenceDurable: nextval never repeats a value across a crash (it
// logs ahead, so a crash skips values) and continues exactly after a
// clean restart; setval and serial columns are durable too.
func TestSequenceDurable(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE SEQUENCE s; CREATE TABLE t (id serial PRIMARY KEY, v text)`)
	te.mustRun(`SELECT nextval('s'); SELECT nextval('s'); INSERT INTO t (v) VALUES ('a'), ('b')`)
	te.crash()
	got := te.mustRun(`SELECT nextval('s') AS n`)
	if got == "n\n1\nSELECT 1\n" || got == "n\n2\nSELECT 1\n" || got == "n\n3\nSELECT 1\n" {
		t.Fatalf("nextval after a crash repeated a value: %q", got)
	}
	te.mustRun(`INSERT INTO t (v) VALUES ('c')`)
	if out := te.mustRun(`SELECT count(*) AS n, count(DISTINCT id) AS d FROM t`); out != "n | d\n3 | 3\nSELECT 1\n" {
		t.Fatalf("serial ids after a crash: %q", out)
	}
	te.mustRun(`SELECT setval('s', 100)`)
	te.restart()
	if out := te.mustRun(`SELECT nextval('s') AS n`); out != "n\n101\nSELECT 1\n" {
		t.Fatalf("nextval after a clean restart: %q", out)
	}
	te.mustRun(`SELECT setval('s', 200, false)`)
	te.crash()
	if out := te.run(`SELECT currval('s')`); !strings.Contains(out, "ERROR 55000") {
		t.Fatalf("currval in a new session: %q", out)
	}
	if out := te.mustRun(`SELECT nextval('s') AS n`); out != "n\n200\nSELECT 1\n" {
		t.Fatalf("nextval after setval and a crash: %q", out)
	}
	te.mustRun(`DROP TABLE t`)
	te.crash()
	if out := te.run(`SELECT nextval('t_id_seq')`); !strings.Contains(out, "ERROR 42P01") {
		t.Fatalf("owned sequence after its table was dropped: %q", out)
	}
}

// TestTruncateCommentDurable: a TRUNCATE replays from the log after a
// crash (the view follows), and comments survive restarts.
func TestTruncateCommentDurable(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.mustRun(`CREATE TABLE t (a int PRIMARY KEY, b text);
CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n FROM t;
INSERT INTO t VALUES (1, 'x'), (2, 'y');
COMMENT ON TABLE t IS 'a table';
COMMENT ON COLUMN t.b IS 'b column';
COMMENT ON MATERIALIZED VIEW v IS 'a view'`)
	te.mustRun(`TRUNCATE t; INSERT INTO t VALUES (3, 'z')`)
	te.crash()
	if out := te.mustRun(`SELECT * FROM t; SELECT n FROM v`); out != "a | b\n3 | z\nSELECT 1\nn\n1\nSELECT 1\n" {
		t.Fatalf("after replaying TRUNCATE:\n%s", out)
	}
	te.restart()
	tbl, view := te.e.cat.lookup("", "t"), te.e.cat.lookup("", "v")
	if tbl.Comment != "a table" || tbl.Columns[1].Comment != "b column" || view.Comment != "a view" {
		t.Fatalf("comments after restart: %q %q %q", tbl.Comment, tbl.Columns[1].Comment, view.Comment)
	}
	te.mustRun(`COMMENT ON TABLE t IS NULL`)
	te.crash()
	if c := te.e.cat.lookup("", "t").Comment; c != "" {
		t.Fatalf("comment removed by IS NULL is back: %q", c)
	}
}

// TestConstraintsDurable: UNIQUE, CHECK and FOREIGN KEY constraints are
// in the catalog and enforced after a crash and after a clean restart; a
// CASCADE deletion replays from the log.
func TestConstraintsDurable(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.mustRun(`CREATE TABLE p (id int PRIMARY KEY, code text UNIQUE CHECK (code <> ''));
CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p ON DELETE CASCADE);
INSERT INTO p VALUES (1, 'a'), (2, 'b');
INSERT INTO c VALUES (10, 1), (20, 2);
DELETE FROM p WHERE id = 1`)
	for _, reopen := range []func(){te.crash, te.restart} {
		reopen()
		for sql, code := range map[string]string{
			`INSERT INTO p VALUES (3, 'b')`: "23505",
			`INSERT INTO p VALUES (3, '')`:  "23514",
			`INSERT INTO c VALUES (30, 9)`:  "23503",
		} {
			if out := te.run(sql); !strings.Contains(out, "ERROR "+code) {
				t.Fatalf("%s after reopening: %q, want %s", sql, out, code)
			}
		}
		if out := te.mustRun(`SELECT * FROM c`); out != "id | pid\n20 | 2\nSELECT 1\n" {
			t.Fatalf("cascaded deletion after reopening:\n%s", out)
		}
	}
}

// TestAlterTableDurable: ALTER TABLE's new shape, defaults, names and
// constraints survive a crash, with writes logged before and after it
// replayed against the right shape.
func TestAlterTableDurable(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.mustRun(`CREATE TABLE t (a int PRIMARY KEY, b text, c int);
CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n, sum(a) AS s FROM t;
INSERT INTO t VALUES (1, 'x', 10), (2, 'y', 20)`)
	te.mustRun(`ALTER TABLE t ADD COLUMN d int DEFAULT 7`)
	te.mustRun(`INSERT INTO t (a, b) VALUES (3, 'z')`)
	te.mustRun(`ALTER TABLE t RENAME COLUMN b TO bee`)
	te.mustRun(`INSERT INTO t (a, bee, c) VALUES (4, 'w', 40)`)
	te.mustRun(`ALTER TABLE t ALTER COLUMN c SET DEFAULT 0, ADD CONSTRAINT a_pos CHECK (a > 0)`)
	te.mustRun(`ALTER TABLE t RENAME TO t2; ALTER TABLE t2 ALTER COLUMN bee SET NOT NULL`)
	te.mustRun(`INSERT INTO t2 (a, bee) VALUES (5, 'v')`)
	want := "a | bee | c | d\n1 | x | 10 | 7\n2 | y | 20 | 7\n3 | z | NULL | 7\n4 | w | 40 | 7\n5 | v | 0 | 7\nSELECT 5\nn | s\n5 | 15\nSELECT 1\n"
	for _, reopen := range []func(){te.crash, te.restart} {
		reopen()
		if out := te.mustRun(`SELECT * FROM t2 ORDER BY a; SELECT * FROM v`); out != want {
			t.Fatalf("after reopening:\n%s\nwant:\n%s", out, want)
		}
		for sql, code := range map[string]string{
			`INSERT INTO t2 (a, bee) VALUES (-1, 'n')`: "23514",
			`INSERT INTO t2 (a) VALUES (6)`:            "23502",
		} {
			if out := te.run(sql); !strings.Contains(out, "ERROR "+code) {
				t.Fatalf("%s after reopening: %q, want %s", sql, out, code)
			}
		}
	}
	te.mustRun(`DROP MATERIALIZED VIEW v; ALTER TABLE t2 DROP COLUMN c; INSERT INTO t2 VALUES (6, 'u', 6)`)
	te.crash()
	if out := te.mustRun(`SELECT * FROM t2 WHERE a >= 5 ORDER BY a`); out != "a | bee | d\n5 | v | 7\n6 | u | 6\nSELECT 2\n" {
		t.Fatalf("after DROP COLUMN and a crash:\n%s", out)
	}
}

// TestConstraintsConcurrent: two transactions that each pass their
// statements' checks but together violate a UNIQUE or FOREIGN KEY
// constraint: the later COMMIT fails, as PostgreSQL's would block and
// then fail.
func TestConstraintsConcurrent(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE u (id int PRIMARY KEY, email text UNIQUE);
CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p);
INSERT INTO p VALUES (1), (2)`)
	a, b := te.s, te.e.NewSession(map[string]string{"user": "eddy"})
	on := func(s *Session, sql string) string { te.s = s; return te.run(sql) }
	on(a, `BEGIN; INSERT INTO u VALUES (1, 'x')`)
	on(b, `BEGIN; INSERT INTO u VALUES (2, 'x'); COMMIT`)
	if out := on(a, `COMMIT`); !strings.Contains(out, "ERROR 23505") {
		t.Fatalf("second commit of a duplicate unique key: %q", out)
	}
	on(a, `BEGIN; DELETE FROM p WHERE id = 1`)
	on(b, `INSERT INTO c VALUES (10, 1)`)
	if out := on(a, `COMMIT`); !strings.Contains(out, "ERROR 23503") {
		t.Fatalf("deleting a parent referenced meanwhile: %q", out)
	}
	on(a, `BEGIN; INSERT INTO c VALUES (20, 2)`)
	on(b, `DELETE FROM p WHERE id = 2`)
	if out := on(a, `COMMIT`); !strings.Contains(out, "ERROR 23503") {
		t.Fatalf("referencing a parent deleted meanwhile: %q", out)
	}
	if out := on(a, `SELECT count(*) AS n FROM u; SELECT id FROM p; SELECT id FROM c`); out != "n\n1\nSELECT 1\nid\n1\nSELECT 1\nid\n10\nSELECT 1\n" {
		t.Fatalf("final state:\n%s", out)
	}
}

// TestAddPrimaryKeyDurable: rows stored again under a new primary key
// load back keyed after a crash.
func TestAddPrimaryKeyDurable(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.mustRun(`CREATE TABLE t (id int NOT NULL, v text); INSERT INTO t VALUES (1, 'a'), (2, 'b');
ALTER TABLE t ADD PRIMARY KEY (id); INSERT INTO t VALUES (3, 'c')`)
	te.crash()
	if out := te.run(`INSERT INTO t VALUES (2, 'dup')`); !strings.Contains(out, "ERROR 23505") {
		t.Fatalf("duplicate key after a crash: %q", out)
	}
	if out := te.mustRun(`SELECT * FROM t WHERE id = 3`); out != "id | v\n3 | c\nSELECT 1\n" {
		t.Fatalf("point read after a crash:\n%s", out)
	}
}

// TestAlterUnderViewDurable: a materialized view keeps running its stored
// plan across ALTER TABLE changes it does not read (a new column, a
// column's new type) and across a crash.
func TestAlterUnderViewDurable(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.mustRun(`CREATE TABLE t (k int, d text, v int);
CREATE MATERIALIZED VIEW m AS SELECT k, sum(v) AS s FROM t GROUP BY k;
INSERT INTO t VALUES (1, '2024-01-01', 10), (2, '2024-01-02', 20)`)
	te.mustRun(`ALTER TABLE t ALTER COLUMN d TYPE date USING d::date, ADD COLUMN extra text DEFAULT 'e'`)
	te.mustRun(`INSERT INTO t VALUES (1, '2024-02-01', 5, 'x')`)
	for _, reopen := range []func(){te.crash, te.restart} {
		reopen()
		te.mustRun(`INSERT INTO t (k, v) VALUES (2, 1)`)
	}
	if out := te.mustRun(`SELECT * FROM m ORDER BY k`); out != "k | s\n1 | 15\n2 | 22\nSELECT 2\n" {
		t.Fatalf("view after ALTER and restarts:\n%s", out)
	}
}

// TestAlterSerialDurable: a serial column added to a table with rows, and
// an identity dropped, are durable with their sequences.
func TestAlterSerialDurable(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE t (v text); INSERT INTO t VALUES ('a'), ('b');
ALTER TABLE t ADD COLUMN id serial, ADD COLUMN n int GENERATED BY DEFAULT AS IDENTITY;
ALTER TABLE t ALTER COLUMN n DROP IDENTITY`)
	te.crash()
	te.mustRun(`INSERT INTO t (v, n) VALUES ('c', 0)`)
	if out := te.mustRun(`SELECT v, id FROM t ORDER BY id`); out != "v | id\na | 1\nb | 2\nc | 3\nSELECT 3\n" {
		t.Fatalf("serial column after a crash:\n%s", out)
	}
	if out := te.run(`SELECT nextval('t_n_seq')`); !strings.Contains(out, "ERROR 42P01") {
		t.Fatalf("dropped identity's sequence: %q", out)
	}
}

// TestRenameViewColumnDurable: ALTER VIEW and ALTER MATERIALIZED VIEW
// RENAME COLUMN survive a crash and a restart; the views reading the
// renamed ones keep their columns, and the materialized views keep their
// state and go on being maintained.
func TestRenameViewColumnDurable(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.mustRun(`CREATE TABLE t (a int, b int);
CREATE VIEW v AS SELECT a, b FROM t;
CREATE MATERIALIZED VIEW mv AS SELECT a, sum(b) AS s FROM t GROUP BY a;
CREATE VIEW vv AS SELECT a, b FROM v;
CREATE MATERIALIZED VIEW mvv AS SELECT a, s * 2 AS s2 FROM mv;
INSERT INTO t VALUES (1, 2), (1, 3), (2, 5)`)
	te.mustRun(`ALTER VIEW v RENAME COLUMN a TO x`)
	te.mustRun(`ALTER MATERIALIZED VIEW mv RENAME COLUMN s TO total`)
	te.mustRun(`ALTER TABLE mv RENAME COLUMN a TO k`)
	te.mustRun(`INSERT INTO t VALUES (3, 4)`)
	te.mustRun(`ALTER VIEW v RENAME COLUMN b TO bee`)
	want := "x | bee\n1 | 2\n1 | 3\n2 | 5\n3 | 4\nSELECT 4\na | b\n1 | 2\n1 | 3\n2 | 5\n3 | 4\nSELECT 4\n"
	wantMV := "k | total\n1 | 6\n2 | 5\n3 | 4\nSELECT 3\na | s2\n1 | 12\n2 | 10\n3 | 8\nSELECT 3\n"
	for _, reopen := range []func(){te.crash, te.restart} {
		reopen()
		if out := te.mustRun(`SELECT * FROM v ORDER BY x, bee; SELECT * FROM vv ORDER BY a, b`); out != want {
			t.Fatalf("views after reopening:\n%s\nwant:\n%s", out, want)
		}
		te.mustRun(`INSERT INTO t VALUES (1, 1)`)
		if out := te.mustRun(`SELECT * FROM mv ORDER BY k; SELECT * FROM mvv ORDER BY a`); out != wantMV {
			t.Fatalf("materialized views after reopening:\n%s\nwant:\n%s", out, wantMV)
		}
		te.mustRun(`DELETE FROM t WHERE a = 1 AND b = 1`)
	}
}
