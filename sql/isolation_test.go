package sql

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// TestSnapshotUnderWriters runs transfers between accounts (which keep
// the total) in several sessions while other sessions' REPEATABLE READ
// blocks read the total, the row count and the materialized view over
// them repeatedly: every read of a block must give the same answers, and
// the total must be the invariant one. Run it with -race: pinning clones
// trees under the read lock while other readers read them.
func TestSnapshotUnderWriters(t *testing.T) {
	te := newTestEngine(t)
	mustSQL(t, te.s, "CREATE TABLE acc (k int PRIMARY KEY, v int)")
	mustSQL(t, te.s, "INSERT INTO acc SELECT g, 100 FROM generate_series(1, 40) g")
	mustSQL(t, te.s, "CREATE MATERIALIZED VIEW total AS SELECT sum(v) AS s, count(*) AS n FROM acc")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := te.e.NewSession(map[string]string{"user": "eddy"})
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				a, b := rng.IntN(40)+1, rng.IntN(40)+1
				// Conflicts (40001) are expected; the total stays.
				_, _ = runSQL(s, fmt.Sprintf("BEGIN; UPDATE acc SET v = v - 1 WHERE k = %d; UPDATE acc SET v = v + 1 WHERE k = %d; COMMIT", a, b))
				_, _ = runSQL(s, "ROLLBACK")
			}
		}()
	}
	var rwg sync.WaitGroup
	for r := range 3 {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			s := te.e.NewSession(map[string]string{"user": "eddy"})
			for i := range 15 {
				mustSQL(t, s, "BEGIN ISOLATION LEVEL REPEATABLE READ")
				first := mustSQL(t, s, "SELECT sum(v), count(*), (SELECT s FROM total) FROM acc")
				if !strings.HasPrefix(first, "4000 | 40 | 4000") {
					t.Errorf("reader %d, block %d: %q, want the invariant total", r, i, first)
				}
				for range 5 {
					if again := mustSQL(t, s, "SELECT sum(v), count(*), (SELECT s FROM total) FROM acc"); again != first {
						t.Errorf("reader %d, block %d: %q then %q", r, i, first, again)
					}
				}
				mustSQL(t, s, "COMMIT")
			}
		}()
	}
	rwg.Wait()
	close(stop)
	wg.Wait()
	if n := te.e.PinnedSnapshots(); n != 0 {
		t.Fatalf("%d snapshots still pinned", n)
	}
}

// runSQL runs the statements of sql in one session, returning the rows of
// the last one ("v | v" lines) or the first error.
func runSQL(s *Session, sql string) (string, error) {
	te := &testEngine{s: s}
	out := te.run(sql)
	if strings.Contains(out, "ERROR") {
		return out, fmt.Errorf("%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) >= 2 {
		return lines[len(lines)-2], nil
	}
	return out, nil
}

// mustSQL is runSQL failing the test on an error.
func mustSQL(t *testing.T, s *Session, sql string) string {
	out, err := runSQL(s, sql)
	if err != nil {
		t.Error(err)
	}
	return out
}
