package sql

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestGroupCommitIsolation runs concurrent writers whose commits share
// groups. In round i every writer commits a transaction inserting its own
// row and the round's shared key, so exactly one writer per round wins and
// the others fail (at their INSERT or at COMMIT, after their own row went
// into the group's batch). Each failure must undo exactly its own
// transaction: the table, the view and the state after a restart must
// hold one own row and one shared row per round.
func TestGroupCommitIsolation(t *testing.T) {
	te := newTestEngine(t)
	mustExec(t, te.s, `CREATE TABLE t (id int PRIMARY KEY, g int);
CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n FROM t GROUP BY g;
INSERT INTO t VALUES (-1, 0)`)
	const writers, rounds = 8, 40
	var mu sync.Mutex
	wins := map[int]int{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			s := te.e.NewSession(nil)
			for i := range rounds {
				err := execErr(s, "BEGIN")
				if err == nil {
					err = execErr(s, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", w*rounds+i, i%4))
				}
				if err == nil {
					err = execErr(s, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", 100000+i, i%3))
				}
				commitErr := execErr(s, "COMMIT")
				if err == nil {
					err = commitErr
				}
				if err != nil && repr.ErrorFrom(err).Code != repr.CodeUniqueViolation {
					t.Errorf("writer %d round %d: %v", w, i, err)
				}
				if err == nil {
					mu.Lock()
					wins[i]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for i := range rounds {
		if wins[i] != 1 {
			t.Errorf("round %d: %d winners", i, wins[i])
		}
	}
	want := fmt.Sprintf("count\n%d\nSELECT 1\n", 1+2*rounds)
	for _, phase := range []string{"before restart", "after restart"} {
		if got := te.run("SELECT count(*) FROM t"); got != want {
			t.Errorf("%s: table: got %q, want %q", phase, got, want)
		}
		if got := te.run("SELECT sum(n) AS count FROM v"); got != want {
			t.Errorf("%s: view: got %q, want %q", phase, got, want)
		}
		te.restart()
	}
}

// execErr runs one statement and returns its error.
func execErr(s *Session, sql string) error {
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, sql, nil)
	if err != nil {
		return err
	}
	p, err := stmts[0].Bind(ctx, nil, nil, nil)
	if err != nil {
		return err
	}
	_, _, err = p.Execute(ctx, &rowCollector{}, 0)
	return err
}
