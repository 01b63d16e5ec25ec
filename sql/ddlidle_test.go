package sql

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
)

// TestDDLIdleConcurrent runs blocks with DDL in one session (each
// statement swapping the block's state in and out) while other sessions
// read and write another table and read the catalog. Run it with -race:
// the other sessions' statements now run between the block's, so every
// read of the catalog and collections must hold the engine lock. The
// readers must never see the block's uncommitted table, and the writer's
// rows must all be there at the end.
func TestDDLIdleConcurrent(t *testing.T) {
	te := newTestEngine(t)
	mustSQL(t, te.s, "CREATE TABLE other (x int PRIMARY KEY, y int)")
	var wg sync.WaitGroup
	var done atomic.Bool
	var inserted atomic.Int64
	wg.Add(2)
	go func() { // a writer
		defer wg.Done()
		s := te.e.NewSession(map[string]string{"user": "eddy"})
		for i := 1; !done.Load(); i++ {
			if _, err := runSQL(s, fmt.Sprintf("INSERT INTO other VALUES (%d, %d)", i, i)); err != nil {
				t.Error(err)
				return
			}
			inserted.Add(1)
		}
	}()
	go func() { // a reader of the data and the catalog
		defer wg.Done()
		s := te.e.NewSession(map[string]string{"user": "eddy"})
		for !done.Load() {
			mustSQL(t, s, "SELECT count(*), sum(y) FROM other")
			if n := mustSQL(t, s, "SELECT count(*) FROM pg_class WHERE relname LIKE 'blk%'"); !strings.HasPrefix(n, "0") {
				t.Errorf("another session saw %s uncommitted tables", n)
			}
		}
	}()
	for i := range 15 {
		out, err := runSQL(te.s, fmt.Sprintf("BEGIN; CREATE TABLE blk%d (a int); CREATE INDEX blk%d_a ON blk%d (a); INSERT INTO blk%d VALUES (1); SELECT count(*) FROM blk%d", i, i, i, i, i))
		if err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		if !strings.HasPrefix(out, "1") {
			t.Fatalf("block %d reads %q from its own table", i, out)
		}
		mustSQL(t, te.s, "ROLLBACK")
	}
	done.Store(true)
	wg.Wait()
	if got, want := mustSQL(t, te.s, "SELECT count(*) FROM other"), fmt.Sprint(inserted.Load()); got != want {
		t.Fatalf("other holds %s rows, want %s", got, want)
	}
}

// TestDDLIdleSources leaves a block with DDL idle while a source ingests
// and the clock ticks: both go on at once, except for what the block's
// DDL depends on (a source its new view reads, a temporal view): those
// wait for its end, and then everything counts every row once.
func TestDDLIdleSources(t *testing.T) {
	te := newTestEngine(t)
	te.clockSet, te.now = true, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	te.e.SetClock(func() time.Time { return te.now })
	fc := &fakeConnectors{active: map[uint64]bool{}, batches: map[uint64][]fakeBatch{}}
	te.e.SetConnectors(fc)
	mustSQL(t, te.s, "CREATE SOURCE clicks (u int) WITH (connector = 'kafka', topic = 'c') FORMAT PLAIN ENCODE JSON")
	mustSQL(t, te.s, "CREATE MATERIALIZED VIEW seen AS SELECT count(*) AS n FROM clicks")
	mustSQL(t, te.s, "CREATE TABLE ev (id int, ts timestamptz)")
	mustSQL(t, te.s, "CREATE MATERIALIZED VIEW recent AS SELECT count(*) AS n FROM ev WHERE ts > now() - INTERVAL '1 hour'")
	mustSQL(t, te.s, "INSERT INTO ev VALUES (1, '2023-12-31 23:30:00+00')")
	id := te.e.cat.lookup("", "clicks").ID
	var pos uint64
	ingest := func() chan error {
		ch := []Change{{Kind: ChangeInsert, Row: repr.Row{repr.NewInt(int64(pos))}}}
		fc.batches[id] = append(fc.batches[id], fakeBatch{start: pos, changes: ch})
		pos++
		to := binary.BigEndian.AppendUint64(nil, pos)
		done := make(chan error, 1)
		go func() { done <- te.e.IngestChanges(id, ch, to, nil) }()
		return done
	}
	within := func(what string, done chan error) {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s waits for an idle block", what)
		}
	}
	other := te.e.NewSession(map[string]string{"user": "eddy"})
	mustSQL(t, te.s, "BEGIN; CREATE TABLE fresh (y int)")
	within("a source batch", ingest())
	if got := mustSQL(t, other, "SELECT n FROM seen"); got != "1" {
		t.Fatalf("seen = %s while the block is idle, want 1", got)
	}
	te.now = te.now.Add(time.Hour) // row 1 leaves the window
	if err := te.e.Tick(); err != nil {
		t.Fatal(err)
	}
	if got := mustSQL(t, other, "SELECT n FROM recent"); got != "0" {
		t.Fatalf("recent = %s after a tick while the block is idle, want 0", got)
	}
	// The block's new view reads clicks: its batches wait for the block.
	mustSQL(t, te.s, "CREATE MATERIALIZED VIEW seen2 AS SELECT count(*) AS n FROM clicks")
	held := ingest()
	select {
	case err := <-held:
		t.Fatalf("a source batch the block's view reads ran in the block (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	mustSQL(t, te.s, "COMMIT")
	within("the held source batch", held)
	for _, v := range []string{"seen", "seen2"} {
		if got := mustSQL(t, other, "SELECT n FROM "+v); got != "2" {
			t.Fatalf("%s = %s, want 2", v, got)
		}
	}
	te.restart()
	for _, v := range []string{"seen", "seen2"} {
		if got := mustSQL(t, te.s, "SELECT n FROM "+v); got != "2" {
			t.Errorf("%s = %s after a restart, want 2", v, got)
		}
	}
}

// TestDDLIdleSubscribe opens a SUBSCRIBE cursor while another session's
// block with DDL is idle, and leaves a FETCH waiting for a commit: the
// block's next statements run meanwhile, and the FETCH returns the commit
// that a third session makes.
func TestDDLIdleSubscribe(t *testing.T) {
	te := newTestEngine(t)
	mustSQL(t, te.s, "CREATE TABLE other (x int)")
	mustSQL(t, te.s, "INSERT INTO other VALUES (1)")
	sub, writer := te.e.NewSession(map[string]string{"user": "eddy"}), te.e.NewSession(map[string]string{"user": "eddy"})
	mustSQL(t, te.s, "BEGIN; CREATE TABLE fresh (y int)")
	within := func(what string, fn func() string) string {
		done := make(chan string, 1)
		go func() { done <- fn() }()
		select {
		case out := <-done:
			return out
		case <-time.After(10 * time.Second):
			t.Fatalf("%s waits for an idle block", what)
			return ""
		}
	}
	within("SUBSCRIBE", func() string {
		return mustSQL(t, sub, "BEGIN; DECLARE c CURSOR FOR SUBSCRIBE other WITH (SNAPSHOT = false)")
	})
	fetched := make(chan string, 1)
	go func() { fetched <- mustSQL(t, sub, "SET fetch_timeout = '20s'; FETCH 1 c") }()
	time.Sleep(100 * time.Millisecond) // the FETCH waits
	within("the block's next statement", func() string { return mustSQL(t, te.s, "INSERT INTO fresh VALUES (1)") })
	mustSQL(t, writer, "INSERT INTO other VALUES (7)")
	select {
	case out := <-fetched:
		if !strings.HasSuffix(out, "| 1 | 7") {
			t.Fatalf("FETCH returned %q, want the row 7", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the FETCH missed the commit")
	}
	mustSQL(t, te.s, "COMMIT")
	mustSQL(t, sub, "COMMIT")
}
