package sql

import (
	"fmt"
	"testing"

	"github.com/eddydb/eddy/storage"
)

// TestPipelinedCheckpoint holds a pipelined checkpoint's write and checks
// that commits are acknowledged and visible meanwhile (their log records
// are durable, the checkpoint is not), that a crash which drops the
// pending checkpoint loses none of them, and that one which lands moves
// the durable time and trims the log. The store checks that no log batch
// writes a key of the pending checkpoint (storage.SetCheckOverlap).
func TestPipelinedCheckpoint(t *testing.T) {
	defer storage.SetCheckOverlap(storage.SetCheckOverlap(true))
	for _, land := range []bool{false, true} {
		t.Run(fmt.Sprintf("land=%v", land), func(t *testing.T) {
			ref, sub := newTestEngine(t), newTestEngine(t)
			both := func(stmt string) {
				t.Helper()
				if a, b := ref.run(stmt), sub.run(stmt); a != b {
					t.Fatalf("%s\nreference: %s\npipelined: %s", stmt, a, b)
				}
			}
			both(checkpointSchema)
			sub.e.SetCheckpointOptions(CheckpointOptions{Commits: 1})
			hold := sub.e.db.HoldCommitsForTest()
			count := sub.e.ck.count
			for i := range 20 {
				both(fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d)", i, i%3, i*7%23))
				both(fmt.Sprintf("INSERT INTO u VALUES (%d, 'w%d')", i%4, i%5))
			}
			pc := sub.e.ck.pending
			if pc == nil {
				t.Fatal("no checkpoint pending while its write is held")
			}
			if n := countLogRecords(t, sub.e); n < 40 {
				t.Fatalf("%d log records while the checkpoint is held, want the 40 acknowledged commits' at least", n)
			}
			compareEngines(t, 0, ref, sub)
			if !land {
				hold <- false // the crash comes before the checkpoint lands
				close(hold)
				if err := sub.e.CloseWithoutCheckpoint(); err != nil {
					t.Fatal(err)
				}
				sub.open()
				compareEngines(t, 1, ref, sub)
				return
			}
			hold <- true
			close(hold)
			if err := pc.p.Wait(); err != nil {
				t.Fatal(err)
			}
			both("UPDATE t SET v = v + 1 WHERE g = 1")
			if sub.e.ck.count <= count || sub.e.ck.durable < pc.t {
				t.Fatalf("after the held checkpoint landed: %d checkpoints (before: %d), durable %d, want >= %d",
					sub.e.ck.count, count, sub.e.ck.durable, pc.t)
			}
			if err := sub.e.db.WaitPending(); err != nil {
				t.Fatal(err)
			}
			if n := countLogRecords(t, sub.e); n > 2 {
				t.Fatalf("%d log records after the checkpoints landed, want at most the last commit's", n)
			}
			both("DELETE FROM u WHERE g = 2")
			if err := sub.e.CloseWithoutCheckpoint(); err != nil {
				t.Fatal(err)
			}
			sub.open()
			compareEngines(t, 2, ref, sub)
		})
	}
}
