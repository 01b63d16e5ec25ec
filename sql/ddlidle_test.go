package sql

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
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
