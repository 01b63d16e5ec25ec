package sql

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/storage"
)

var checkpointSeed = flag.Uint64("checkpoint-seed", 0, "seed of TestCheckpointCrashRandom (0: from the clock)")

// checkpointSchema is the schema of TestCheckpointCrashRandom: a keyed and
// a multiset table, and views that keep Reduce (with min/max), Join,
// Distinct and view-on-view state.
const checkpointSchema = `
CREATE TABLE t (k int PRIMARY KEY, g int NOT NULL, v int);
CREATE TABLE u (g int, w text);
CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM t GROUP BY g;
CREATE MATERIALIZED VIEW j AS SELECT t.k, t.v, u.w FROM t JOIN u ON t.g = u.g;
CREATE MATERIALIZED VIEW d AS SELECT DISTINCT w FROM u;
CREATE MATERIALIZED VIEW top AS SELECT count(*) AS groups, sum(n) AS rows FROM agg;
CREATE MATERIALIZED VIEW lj AS SELECT u.g, u.w, t.k FROM u LEFT JOIN t ON t.g = u.g AND t.v > 10;
CREATE MATERIALIZED VIEW best AS SELECT DISTINCT ON (g) g, k, v FROM t ORDER BY g, v DESC, k;
`

// checkpointRelations are compared after every restart.
var checkpointRelations = []string{"t", "u", "agg", "j", "d", "top", "lj", "best"}

// TestCheckpointCrashRandom runs random commits against two engines, one
// of which "crashes" at random moments (closes without its final
// checkpoint, losing the pending checkpoint batch) and checkpoints every
// few commits, and checks after each restart that every table and view
// equals the engine that never crashed, and that every statement had the
// same outcome on both.
func TestCheckpointCrashRandom(t *testing.T) { testCheckpointCrashRandom(t, false) }

// TestCheckpointCrashRandomSpilled is TestCheckpointCrashRandom with every
// table and view of the crashing engine spilled to the store at its first
// checkpoint (a budget of one byte, no minimum size), so that its reads,
// writes, rollbacks, index lookups, restarts and crashes all go through
// spilled collections (restart loads them spilled again); the joins of j
// and lj spill their arrangements too, the Reduces of agg (min/max
// multisets) and d (DISTINCT) and the TopK of best their groups, with
// caches of 1 MiB.
func TestCheckpointCrashRandomSpilled(t *testing.T) { testCheckpointCrashRandom(t, true) }

func testCheckpointCrashRandom(t *testing.T, spill bool) {
	seed := *checkpointSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -checkpoint-seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	defer storage.SetCheckOverlap(storage.SetCheckOverlap(true)) // log batches beside pipelined checkpoints
	ref, sub := newTestEngine(t), newTestEngine(t)
	if spill {
		defer func(n int64) { minSpillBytes = n }(minSpillBytes)
		minSpillBytes = 0
		sub.opts.MemoryLimit, sub.unaccounted = 1, true
		sub.restart()
	}
	for _, te := range []*testEngine{ref, sub} {
		if out := te.run(checkpointSchema); strings.Contains(out, "ERROR") {
			t.Fatal(out)
		}
	}
	sub.e.SetCheckpointOptions(CheckpointOptions{Commits: 3})
	crashes := 0
	for step := 0; step < 400; step++ {
		stmt := randomCheckpointStmt(rng)
		if a, b := ref.run(stmt), sub.run(stmt); a != b {
			t.Fatalf("step %d: %s\nreference: %s\nrestarted: %s", step, stmt, a, b)
		}
		switch rng.IntN(20) {
		case 0: // crash: the pending checkpoint is lost
			crashes++
			if err := sub.e.CloseWithoutCheckpoint(); err != nil {
				t.Fatal(err)
			}
			sub.open()
			sub.e.SetCheckpointOptions(CheckpointOptions{Commits: 1 + rng.IntN(6)})
			compareEngines(t, step, ref, sub)
		case 1: // clean restart
			sub.restart()
			compareEngines(t, step, ref, sub)
		}
	}
	if crashes == 0 {
		if err := sub.e.CloseWithoutCheckpoint(); err != nil {
			t.Fatal(err)
		}
		sub.open()
	}
	compareEngines(t, -1, ref, sub)
	if spilled := sub.e.SpilledCollections(); spill && spilled < len(checkpointRelations) {
		t.Fatalf("%d collections spilled, want all %d tables and views", spilled, len(checkpointRelations))
	}
	if spilled := sub.e.SpilledOperators(); spill && spilled < 5 {
		t.Fatalf("%d operators spilled, want the joins of j and lj, the Reduces of agg and d, the TopK of best", spilled)
	}
}

// randomCheckpointStmt returns a random write: inserts (some duplicate
// keys, which fail), updates, deletes, or a multi-statement transaction.
func randomCheckpointStmt(rng *rand.Rand) string {
	row := func() string {
		return fmt.Sprintf("(%d, %d, %d)", rng.IntN(60), rng.IntN(7), rng.IntN(100)-20)
	}
	switch rng.IntN(8) {
	case 0, 1:
		return "INSERT INTO t VALUES " + row()
	case 2:
		return fmt.Sprintf("INSERT INTO t VALUES %s, %s, %s", row(), row(), row())
	case 3:
		return fmt.Sprintf("UPDATE t SET v = v + %d WHERE g = %d", rng.IntN(9)-4, rng.IntN(7))
	case 4:
		return fmt.Sprintf("DELETE FROM t WHERE k %% 7 = %d", rng.IntN(7))
	case 5:
		return fmt.Sprintf("INSERT INTO u VALUES (%d, 'w%d')", rng.IntN(7), rng.IntN(4))
	case 6:
		return fmt.Sprintf("DELETE FROM u WHERE w = 'w%d' AND g = %d", rng.IntN(4), rng.IntN(7))
	}
	return fmt.Sprintf("BEGIN; INSERT INTO u VALUES (%d, 'x'); UPDATE t SET g = %d WHERE k = %d; COMMIT",
		rng.IntN(7), rng.IntN(7), rng.IntN(60))
}

// compareEngines fails unless every relation has the same rows in both.
func compareEngines(t *testing.T, step int, ref, sub *testEngine) {
	t.Helper()
	for _, rel := range checkpointRelations {
		q := "SELECT * FROM " + rel + " ORDER BY 1, 2, 3"
		if rel == "d" || rel == "top" {
			q = "SELECT * FROM " + rel + " ORDER BY 1"
		}
		if a, b := ref.run(q), sub.run(q); a != b {
			t.Fatalf("after step %d, %s differs\nreference:\n%s\nrestarted:\n%s", step, rel, a, b)
		}
	}
}

// TestCheckpointTrimsLog checks that a checkpoint deletes the log records
// it covers and that a restart after a crash replays the rest.
func TestCheckpointTrimsLog(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.run(checkpointSchema)
	for i := range 5 {
		te.run(fmt.Sprintf("INSERT INTO t VALUES (%d, 1, %d)", i, i))
	}
	if n := countLogRecords(t, te.e); n != 5 {
		t.Fatalf("%d log records before the checkpoint, want 5", n)
	}
	if err := te.e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if n := countLogRecords(t, te.e); n != 0 {
		t.Fatalf("%d log records after the checkpoint, want 0", n)
	}
	te.run("INSERT INTO t VALUES (9, 2, 9)")
	want := te.run("SELECT * FROM agg ORDER BY g")
	if err := te.e.CloseWithoutCheckpoint(); err != nil {
		t.Fatal(err)
	}
	te.open()
	if got := te.run("SELECT * FROM agg ORDER BY g"); got != want {
		t.Fatalf("after replay:\n%s\nwant:\n%s", got, want)
	}
	if n := countLogRecords(t, te.e); n != 0 {
		t.Fatalf("%d log records after the restart's checkpoint, want 0", n)
	}
}

func countLogRecords(t *testing.T, e *Engine) int {
	n := 0
	if err := e.db.Scan([]byte{'l'}, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLogRecordPieces checks that a write set larger than logPiece is
// logged in pieces of at most logPiece bytes and that a restart after a
// crash replays it whole, with the records around it.
func TestLogRecordPieces(t *testing.T) {
	te := newTestEngine(t)
	te.e.SetCheckpointOptions(CheckpointOptions{})
	te.run(checkpointSchema)
	te.run("INSERT INTO u VALUES (1, 'before')")
	te.run("INSERT INTO u SELECT i % 50, repeat(md5(i::text), 20) FROM generate_series(1, 2000) AS g(i)")
	te.run("INSERT INTO u VALUES (2, 'after')")
	pieces, largest := 0, 0
	if err := te.e.db.Scan([]byte{'l'}, func(k, v []byte) error {
		pieces++
		largest = max(largest, len(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if pieces < 3+2 || largest > logPiece {
		t.Fatalf("%d log values, the largest %d bytes: want the 1.3 MB write set in pieces of at most %d", pieces, largest, logPiece)
	}
	want := te.run("SELECT count(*), sum(length(w)), min(w), count(DISTINCT g) FROM u") + te.run("SELECT * FROM d ORDER BY w LIMIT 3")
	if err := te.e.CloseWithoutCheckpoint(); err != nil {
		t.Fatal(err)
	}
	te.open()
	if got := te.run("SELECT count(*), sum(length(w)), min(w), count(DISTINCT g) FROM u") + te.run("SELECT * FROM d ORDER BY w LIMIT 3"); got != want {
		t.Fatalf("after replay:\n%s\nwant:\n%s", got, want)
	}
}

// TestStoreBehindStamp checks that a store found behind the stamp its
// last checkpoint left (as a truncated MANIFEST or a lost table file
// leaves it) refuses to open, and that an intact one opens.
func TestStoreBehindStamp(t *testing.T) {
	te := newTestEngine(t)
	te.run(checkpointSchema)
	te.run("INSERT INTO t VALUES (1, 1, 1)")
	te.restart() // a clean close checkpoints and stamps; reopening checks it
	if err := te.e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	s, ok, err := te.e.db.ReadStamp()
	if err != nil || !ok || s.Checkpoint == 0 {
		t.Fatalf("stamp after a checkpoint: %+v, %v, %v", s, ok, err)
	}
	s.Checkpoint += 10
	if err := te.e.db.WriteStamp(s); err != nil {
		t.Fatal(err)
	}
	if err := te.e.CloseWithoutCheckpoint(); err != nil {
		t.Fatal(err)
	}
	e, err := OpenWith(te.dir, te.e.log, te.opts)
	if err == nil {
		e.Close()
		t.Fatal("a store behind its stamp opened")
	}
	if !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("opening a store behind its stamp: %v, want an error saying it is damaged", err)
	}
	s.Checkpoint -= 10 // the true stamp: the store opens again
	db, err := storage.Open(te.dir, storage.Options{Logger: te.e.log})
	if err == nil {
		err = db.WriteStamp(s)
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	te.open()
	if got := te.run("SELECT k FROM t"); !strings.Contains(got, "1") {
		t.Fatalf("after reopening: %s", got)
	}
}
