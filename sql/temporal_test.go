package sql

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

var temporalSeed = flag.Uint64("temporal-seed", 0, "seed of TestTemporalRandom (0: time-based)")

// temporalViews are the views of TestTemporalRandom: name, select list and
// FROM/WHERE/GROUP BY tail, with now() where the view compares with the
// clock.
var temporalViews = []struct{ name, cols, tail string }{
	{"w1", "id, ts, v", "FROM ev WHERE ts > now() - INTERVAL '10 minutes' AND ts <= now()"},
	{"w2", "id, v", "FROM ev WHERE now() BETWEEN ts AND ts + INTERVAL '5 minutes'"},
	{"w3", "id", "FROM ev WHERE ts + INTERVAL '3 minutes' >= now() AND v > 0"},
	{"w4", "id, ts", "FROM ev WHERE ts < now() + INTERVAL '2 minutes'"},
	{"w5", "v % 3 AS k, count(*) AS n, sum(v) AS s", "FROM ev WHERE ts >= now() - INTERVAL '7 minutes' AND now() > ts - INTERVAL '1 minute' GROUP BY 1"},
}

// TestTemporalRandom checks temporal filters against recomputation: after
// every random insert, delete, update, clock advance (with or without a
// Tick) or restart, each view equals its query evaluated from scratch with
// now() replaced by the engine's current wall-clock time.
func TestTemporalRandom(t *testing.T) { testTemporalRandom(t, false) }

// TestTemporalRandomSpilled is TestTemporalRandom with the views' state
// spilled at every checkpoint (a budget of one byte, no minimum size,
// checkpoints every few commits): the temporal filters keep their rows in
// the store, indexed by time, and read back those coming due; restarts
// restore them spilled, and half of them are crashes that lose the pending
// checkpoint (the log replays it).
func TestTemporalRandomSpilled(t *testing.T) { testTemporalRandom(t, true) }

func testTemporalRandom(t *testing.T, spill bool) {
	seed := *temporalSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -temporal-seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	te := newTestEngine(t)
	if spill {
		defer func(n int64) { minSpillBytes = n }(minSpillBytes)
		minSpillBytes = 0
		te.opts.MemoryLimit, te.unaccounted = 1, true
		te.restart()
		te.e.SetCheckpointOptions(CheckpointOptions{Commits: 3})
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	te.clockSet, te.now = true, base
	te.e.SetClock(func() time.Time { return te.now })
	mustRun(t, te, "CREATE TABLE ev (id int PRIMARY KEY, ts timestamptz, v int)")
	for _, v := range temporalViews {
		mustRun(t, te, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS SELECT %s %s", v.name, v.cols, v.tail))
	}
	ids := map[int]bool{}
	spilled := 0
	for step := range 400 {
		op := temporalOp(rng, te, ids, spill)
		checkTemporalViews(t, te, fmt.Sprintf("step %d (%s)", step, op))
		spilled = max(spilled, spilledOfType[dataflow.TemporalFilter](te))
	}
	if spill && spilled < len(temporalViews) {
		t.Fatalf("at most %d temporal filters spilled at once, want all %d", spilled, len(temporalViews))
	}
}

// spilledOfType counts the spilled operators of type T (a dataflow
// operator) of the views.
func spilledOfType[T dataflow.Op](te *testEngine) int {
	te.e.mu.RLock()
	defer te.e.mu.RUnlock()
	n := 0
	for _, mv := range te.e.views {
		for _, i := range mv.df.SpilledNodes() {
			if _, ok := mv.df.Plan().Nodes[i].Op.(T); ok {
				n++
			}
		}
	}
	return n
}

// temporalOp performs one random operation and describes it; crashes
// (half the restarts) when crash.
func temporalOp(rng *rand.Rand, te *testEngine, ids map[int]bool, crash bool) string {
	randTS := func() string {
		// Near the clock, on whole minutes half of the time (bounds land
		// exactly on clock values), NULL sometimes.
		if rng.IntN(20) == 0 {
			return "NULL"
		}
		d := time.Duration(rng.IntN(30)-20) * time.Minute
		if rng.IntN(2) == 0 {
			d += time.Duration(rng.IntN(60_000_000)) * time.Microsecond
		}
		return "'" + wallTime(te).Add(d).Format("2006-01-02 15:04:05.999999-07") + "'"
	}
	var sql string
	switch k := rng.IntN(10); {
	case k < 4:
		id := rng.IntN(40)
		if ids[id] {
			sql = fmt.Sprintf("UPDATE ev SET ts = %s, v = %d WHERE id = %d", randTS(), rng.IntN(7)-2, id)
		} else {
			ids[id] = true
			sql = fmt.Sprintf("INSERT INTO ev VALUES (%d, %s, %d)", id, randTS(), rng.IntN(7)-2)
		}
	case k < 6 && len(ids) > 0:
		for id := range ids {
			delete(ids, id)
			sql = fmt.Sprintf("DELETE FROM ev WHERE id = %d", id)
			break
		}
	case k < 9:
		d := time.Duration(rng.IntN(4)) * time.Minute
		if rng.IntN(2) == 0 {
			d = time.Duration(rng.IntN(3)) * time.Microsecond
		}
		te.now = wallTime(te).Add(d)
		if rng.IntN(10) == 0 {
			te.now, d = te.now.Add(-time.Hour), -time.Hour // the system clock steps back
		}
		if rng.IntN(3) == 0 {
			return fmt.Sprintf("advance %s without tick", d)
		}
		if err := te.e.Tick(); err != nil {
			panic(err)
		}
		return fmt.Sprintf("advance %s, tick", d)
	default:
		if !crash {
			te.restart()
			return "restart"
		}
		what := "restart"
		if rng.IntN(2) == 0 {
			if err := te.e.CloseWithoutCheckpoint(); err != nil {
				panic(err)
			}
			te.open()
			what = "crash"
		} else {
			te.restart()
		}
		te.e.SetCheckpointOptions(CheckpointOptions{Commits: 1 + rng.IntN(4)})
		return what
	}
	if out := te.run(sql); strings.HasPrefix(out, "ERROR") {
		panic(sql + ": " + out)
	}
	return sql
}

// wallTime is the engine's current wall-clock time.
func wallTime(te *testEngine) time.Time {
	te.e.mu.RLock()
	defer te.e.mu.RUnlock()
	return repr.TimestampToTime(te.e.wall.last)
}

// checkTemporalViews compares every view with its query at the engine's
// current wall-clock time.
func checkTemporalViews(t *testing.T, te *testEngine, what string) {
	t.Helper()
	te.e.mu.RLock()
	now := repr.NewTimestampTZ(te.e.wall.last).String()
	te.e.mu.RUnlock()
	for _, v := range temporalViews {
		tail := strings.ReplaceAll(v.tail, "now()", now)
		want := te.run(fmt.Sprintf("SELECT %s %s ORDER BY 1, 2", v.cols, tail))
		got := te.run(fmt.Sprintf("SELECT * FROM %s ORDER BY 1, 2", v.name))
		if v.cols == "id" {
			want = te.run(fmt.Sprintf("SELECT %s %s ORDER BY 1", v.cols, tail))
			got = te.run(fmt.Sprintf("SELECT * FROM %s ORDER BY 1", v.name))
		}
		if got != want {
			t.Fatalf("%s: view %s at now=%s\ngot:\n%swant:\n%s", what, v.name, now, got, want)
		}
	}
}

func mustRun(t *testing.T, te *testEngine, sql string) {
	t.Helper()
	if out := te.run(sql); strings.HasPrefix(out, "ERROR") {
		t.Fatalf("%s: %s", sql, out)
	}
}
