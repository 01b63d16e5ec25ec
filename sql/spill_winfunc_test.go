package sql

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
)

// winfuncSpillViews are the views of TestWindowFuncRandomSpilled: window
// functions without PARTITION BY (one partition each, paged when
// spilled), as name and query: ranks over a column with many ties,
// lag and a sliding sum in two orders (two Windows), and a running sum
// and lead.
var winfuncSpillViews = [][2]string{
	{"wr", "SELECT id, v, row_number() OVER (ORDER BY v, id) AS rn, rank() OVER (ORDER BY v) AS r, dense_rank() OVER (ORDER BY v) AS dr FROM t"},
	{"wl", "SELECT id, v, lag(v) OVER (ORDER BY v, id) AS pv, sum(v) OVER (ORDER BY ts, id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS s FROM t"},
	{"ws", "SELECT id, sum(v) OVER (ORDER BY ts) AS rs, lead(id, 2) OVER (ORDER BY ts, id) AS nx FROM t"},
}

// TestWindowFuncRandomSpilled checks Windows without PARTITION BY whose
// state spills at every checkpoint (a budget of one byte, no minimum
// size, checkpoints every few commits), paging their one partition of
// a few thousand rows: after every random insert, delete, update,
// restart or crash (which loses the pending checkpoint; restarts restore
// the state spilled, rebuilding the pages), each view equals its query
// evaluated from scratch.
func TestWindowFuncRandomSpilled(t *testing.T) {
	seed := *checkpointSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -checkpoint-seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	defer func(n int64) { minSpillBytes = n }(minSpillBytes)
	minSpillBytes = 0
	te := newTestEngine(t)
	te.opts.MemoryLimit, te.unaccounted = 1, true
	te.restart()
	te.e.SetCheckpointOptions(CheckpointOptions{Commits: 3})
	mustRun(t, te, "CREATE TABLE t (id int PRIMARY KEY, v int, ts timestamp)")
	mustRun(t, te, "INSERT INTO t SELECT g, g % 97, TIMESTAMP '2024-01-01' + g * INTERVAL '1 second' FROM generate_series(1, 3000) AS g")
	for _, v := range winfuncSpillViews {
		mustRun(t, te, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v[0], v[1]))
	}
	spilled := 0
	var loads, evictions int64
	for step := range 100 {
		op := winfuncSpillOp(rng, te)
		for _, v := range winfuncSpillViews {
			want := te.run(v[1] + " ORDER BY 1, 2, 3")
			if got := te.run("SELECT * FROM " + v[0] + " ORDER BY 1, 2, 3"); got != want {
				t.Fatalf("step %d (%s): view %s differs from its query", step, op, v[0])
			}
		}
		spilled = max(spilled, spilledOfType[dataflow.Window](te))
		l, e := windowPaging(te)
		loads, evictions = loads+l, evictions+e
	}
	t.Logf("%d chunk loads, %d evictions (summed over steps)", loads, evictions)
	if loads == 0 || evictions == 0 {
		t.Fatal("the spilled Windows loaded or evicted nothing")
	}
	if want := windowNodes(te); spilled < want || want < len(winfuncSpillViews) {
		t.Fatalf("at most %d Windows spilled at once, want all %d", spilled, want)
	}
}

// windowPaging sums the chunk loads and evictions of te's views so far
// (since their last restart).
func windowPaging(te *testEngine) (loads, evictions int64) {
	te.e.mu.RLock()
	defer te.e.mu.RUnlock()
	for _, mv := range te.e.views {
		_, l, e := mv.df.SpillStats()
		loads, evictions = loads+l, evictions+e
	}
	return loads, evictions
}

// windowNodes counts the Window nodes of te's views.
func windowNodes(te *testEngine) int {
	te.e.mu.RLock()
	defer te.e.mu.RUnlock()
	n := 0
	for _, mv := range te.e.views {
		for _, node := range mv.df.Plan().Nodes {
			if _, ok := node.Op.(dataflow.Window); ok {
				n++
			}
		}
	}
	return n
}

// winfuncSpillOp performs one random operation on t (ids up to 4,000, v
// with many ties), or a restart or crash, and describes it.
func winfuncSpillOp(rng *rand.Rand, te *testEngine) string {
	var sql string
	switch k := rng.IntN(20); {
	case k < 8:
		sql = fmt.Sprintf("INSERT INTO t VALUES (%d, %d, TIMESTAMP '2024-01-01' + %d * INTERVAL '1 second') ON CONFLICT (id) DO NOTHING",
			rng.IntN(4000), rng.IntN(97), rng.IntN(4000))
	case k < 12:
		sql = fmt.Sprintf("DELETE FROM t WHERE id %% 211 = %d", rng.IntN(211))
	case k < 17:
		sql = fmt.Sprintf("UPDATE t SET v = v + 1, ts = ts - INTERVAL '7 seconds' WHERE id %% 173 = %d", rng.IntN(173))
	case k < 18:
		sql = fmt.Sprintf("INSERT INTO t SELECT g, g %% 7, TIMESTAMP '2024-01-01' + g * INTERVAL '1 second' FROM generate_series(%d, %d) AS g ON CONFLICT (id) DO NOTHING",
			4000+rng.IntN(1000), 5000+rng.IntN(600))
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
