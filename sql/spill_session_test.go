package sql

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
)

// sessionSpillViews are the views of TestSessionRandomSpilled: sessions
// per user with two gaps, and sessions of all users (no key: spilled by
// session) with two gaps, as name and query.
var sessionSpillViews = [][2]string{
	{"s5", "SELECT usr, window_start, window_end, count(*) AS n FROM SESSION(clicks, ts, INTERVAL '5' SECOND) GROUP BY usr, window_start, window_end"},
	{"s3", "SELECT usr, window_start, window_end, max(id) AS m, sum(id) AS s FROM SESSION(clicks, ts, INTERVAL '3' SECOND) GROUP BY usr, window_start, window_end"},
	{"a2", "SELECT window_start, window_end, count(*) AS n, sum(usr) AS s FROM SESSION(clicks, ts, INTERVAL '2' SECOND) GROUP BY window_start, window_end"},
	{"a1", "SELECT window_start, window_end, max(id) AS m, min(usr) AS u FROM SESSION(clicks, ts, INTERVAL '1' SECOND) GROUP BY window_start, window_end"},
}

// TestSessionRandomSpilled checks session windows whose state spills at
// every checkpoint (a budget of one byte, no minimum size, checkpoints
// every few commits): after every random insert, delete, update, restart
// or crash (which loses the pending checkpoint; restarts restore the
// state spilled), each view equals its query evaluated from scratch.
func TestSessionRandomSpilled(t *testing.T) {
	seed := *checkpointSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -checkpoint-seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	defer func(n int64) { minSpillBytes = n }(minSpillBytes)
	minSpillBytes = 0
	te := newTestEngine(t)
	te.opts.MemoryLimit, te.unaccounted = 1, true
	te.restart()
	te.e.SetCheckpointOptions(CheckpointOptions{Commits: 3})
	mustRun(t, te, "CREATE TABLE clicks (id int PRIMARY KEY, usr int, ts timestamp)")
	for _, v := range sessionSpillViews {
		mustRun(t, te, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v[0], v[1]))
	}
	spilled := 0
	for step := range 300 {
		op := sessionSpillOp(rng, te)
		for _, v := range sessionSpillViews {
			want := te.run(v[1] + " ORDER BY 1, 2, 3")
			if got := te.run("SELECT * FROM " + v[0] + " ORDER BY 1, 2, 3"); got != want {
				t.Fatalf("step %d (%s): view %s\ngot:\n%swant:\n%s", step, op, v[0], got, want)
			}
		}
		spilled = max(spilled, spilledOfType[dataflow.SessionWindow](te))
	}
	if spilled < len(sessionSpillViews) {
		t.Fatalf("at most %d session windows spilled at once, want all %d", spilled, len(sessionSpillViews))
	}
}

// sessionSpillOp performs one random operation on clicks (rows of 6 users
// over two minutes), or a restart or crash, and describes it.
func sessionSpillOp(rng *rand.Rand, te *testEngine) string {
	ts := func() string {
		return time.Date(2024, 1, 1, 0, 0, rng.IntN(120), 0, time.UTC).Format("'2006-01-02 15:04:05'")
	}
	var sql string
	switch k := rng.IntN(20); {
	case k < 10:
		sql = fmt.Sprintf("INSERT INTO clicks VALUES (%d, %d, %s) ON CONFLICT (id) DO NOTHING", rng.IntN(200), rng.IntN(6), ts())
	case k < 14:
		sql = fmt.Sprintf("DELETE FROM clicks WHERE id %% 23 = %d", rng.IntN(23))
	case k < 18:
		sql = fmt.Sprintf("UPDATE clicks SET ts = %s WHERE id %% 17 = %d", ts(), rng.IntN(17))
	case k == 18:
		te.restart()
		te.e.SetCheckpointOptions(CheckpointOptions{Commits: 1 + rng.IntN(4)})
		return "restart"
	default:
		if err := te.e.CloseWithoutCheckpoint(); err != nil {
			panic(err)
		}
		te.open()
		te.e.SetCheckpointOptions(CheckpointOptions{Commits: 1 + rng.IntN(4)})
		return "crash"
	}
	if out := te.run(sql); strings.HasPrefix(out, "ERROR") {
		panic(sql + ": " + out)
	}
	return sql
}
