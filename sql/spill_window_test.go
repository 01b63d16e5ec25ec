package sql

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
)

// windowCrashSchema is the schema of the windowed crash tests: an
// event-time source carrying deletions (FORMAT DEBEZIUM) and views whose
// state a watermark bounds: tumbling windows emitting on update (with
// min/max multisets) and on close, a hopping count (Nexmark q5's first
// half) and the top two keys per window (a TopK partitioned by the
// window).
const windowCrashSchema = `
CREATE SOURCE ev (k int, v int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '3' SECOND) WITH (connector = 'fake') FORMAT DEBEZIUM ENCODE JSON;
CREATE MATERIALIZED VIEW tw AS SELECT window_start, k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM TUMBLE(ev, ts, INTERVAL '5' SECOND) GROUP BY window_start, k;
CREATE MATERIALIZED VIEW tc AS SELECT window_start, k, count(*) AS n, max(v) AS hi FROM TUMBLE(ev, ts, INTERVAL '5' SECOND) GROUP BY window_start, k EMIT ON WINDOW CLOSE;
CREATE MATERIALIZED VIEW hw AS SELECT window_start, window_end, k, count(*) AS n FROM HOP(ev, ts, INTERVAL '2' SECOND, INTERVAL '6' SECOND) GROUP BY window_start, window_end, k;
CREATE MATERIALIZED VIEW top2 AS SELECT window_start, k, v FROM (SELECT window_start, k, v, row_number() OVER (PARTITION BY window_start ORDER BY v DESC, k) AS rn FROM TUMBLE(ev, ts, INTERVAL '5' SECOND)) AS r WHERE rn <= 2;
CREATE MATERIALIZED VIEW ij AS SELECT a.k, a.v, b.v AS w, a.ts FROM ev a JOIN ev b ON a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND;
CREATE MATERIALIZED VIEW wj AS SELECT a.window_start, a.k, a.v, b.v AS w FROM TUMBLE(ev, ts, INTERVAL '5' SECOND) a JOIN TUMBLE(ev, ts, INTERVAL '5' SECOND) b ON a.window_start = b.window_start AND a.k = b.k AND a.v < b.v;
CREATE MATERIALIZED VIEW sw AS SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s FROM SESSION(ev, ts, INTERVAL '1' SECOND) GROUP BY k, window_start, window_end;
`

// windowCrashViews are compared after every restart.
var windowCrashViews = []string{"tw", "tc", "hw", "top2", "ij", "wj", "sw"}

// windowSpilledViews are the views whose watermark-bounded state spills
// (interval and window joins spill their arrangements, which
// spilledWindowed does not count; session state does not spill).
var windowSpilledViews = []string{"tw", "tc", "hw", "top2"}

// TestCheckpointCrashWindow is TestCheckpointCrashRandom for windowed
// state: random batches of an event-time source (rows around an advancing
// clock, some late, some deleted again, late or not, some in windows
// already closed) go to two engines, one of which crashes or restarts at
// random; after each restart every view must equal the engine that never
// crashed, and at the end each view must equal the same query recomputed
// from the source's whole history by a view created then (the backfill
// applies the late-row rule at the watermarks the live views saw).
func TestCheckpointCrashWindow(t *testing.T) { testCheckpointCrashWindow(t, false) }

// TestCheckpointCrashWindowSpilled is TestCheckpointCrashWindow with a
// one-byte budget for the crashing engine, so its windowed Reduces and
// TopKs spill at every checkpoint (their close indexes resident) and
// restart restores them spilled, rebuilding the indexes from the store.
func TestCheckpointCrashWindowSpilled(t *testing.T) { testCheckpointCrashWindow(t, true) }

func testCheckpointCrashWindow(t *testing.T, spill bool) {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	var pool []repr.Row
	runSourceCrash(t, sourceCrash{schema: windowCrashSchema, source: "ev", views: windowCrashViews,
		batch: func(rng *rand.Rand, step int) []Change {
			clock := base + int64(step)*300_000 // 0.3 s of event time per step
			return windowBatch(rng, clock, &pool)
		},
		check: func(t *testing.T, ref, sub *testEngine) {
			if n := spilledWindowed(sub.e); spill && n < len(windowSpilledViews) {
				t.Fatalf("%d windowed operators spilled, want the windowed Reduce or TopK of each of %v", n, windowSpilledViews)
			}
			if spill && !sourceRowsSpilled(sub.e, "ev") {
				t.Error("the source's live rows did not spill")
			}
			checkSourceRowsBounded(t, ref.e, "ev")
			checkSourceRowsBounded(t, sub.e, "ev")
		}}, spill)
}

// sourceCrash is a crash test over one source (runSourceCrash): the
// schema creating it and the views compared, a batch generator, and a
// final check (nil: none).
type sourceCrash struct {
	schema, source string
	views          []string
	batch          func(rng *rand.Rand, step int) []Change
	check          func(t *testing.T, ref, sub *testEngine)
}

// runSourceCrash feeds 200 random batches of c's source to two engines,
// one of which (spilled: under a one-byte budget) crashes or restarts at
// random; after each restart every view must equal the engine that never
// crashed, and at the end each view must equal the same query recomputed
// from the source's whole history by a view created then.
func runSourceCrash(t *testing.T, c sourceCrash, spill bool) {
	seed := *checkpointSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -checkpoint-seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	ref, sub := newTestEngine(t), newTestEngine(t)
	if spill {
		defer func(n int64) { minSpillBytes = n }(minSpillBytes)
		minSpillBytes = 0
		sub.opts.MemoryLimit, sub.unaccounted = 1, true
		sub.restart()
	}
	fc := &fakeConnectors{active: map[uint64]bool{}, batches: map[uint64][]fakeBatch{}}
	for _, te := range []*testEngine{ref, sub} {
		te.e.SetConnectors(fc)
		if out := te.run(c.schema); strings.Contains(out, "ERROR") {
			t.Fatal(out)
		}
	}
	sub.e.SetCheckpointOptions(CheckpointOptions{Commits: 2})
	var pos uint64
	for step := range 200 {
		changes := c.batch(rng, step)
		id := ref.e.cat.lookup("", c.source).ID
		fc.batches[id] = append(fc.batches[id], fakeBatch{start: pos, changes: changes})
		pos += uint64(len(changes))
		for _, te := range []*testEngine{ref, sub} {
			obj := te.e.cat.lookup("", c.source)
			if err := te.e.IngestChanges(obj.ID, changes, binary.BigEndian.AppendUint64(nil, pos), &IngestStats{Records: int64(len(changes))}); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
		switch rng.IntN(15) {
		case 0:
			if err := sub.e.CloseWithoutCheckpoint(); err != nil {
				t.Fatal(err)
			}
			sub.open()
			sub.e.SetConnectors(fc)
			sub.e.SetCheckpointOptions(CheckpointOptions{Commits: 1 + rng.IntN(4)})
			compareViews(t, step, ref, sub, c.views)
		case 1:
			sub.restart()
			sub.e.SetConnectors(fc)
			compareViews(t, step, ref, sub, c.views)
		}
	}
	sub.restart()
	sub.e.SetConnectors(fc)
	compareViews(t, -1, ref, sub, c.views)
	compareRecomputed(t, ref, c.schema, c.views)
	for _, v := range c.views {
		t.Logf("%s: %s", v, strings.TrimSpace(ref.run("SELECT count(*) FROM "+v)))
	}
	if c.check != nil {
		c.check(t, ref, sub)
	}
}

// compareRecomputed creates in te a copy (suffixed _re) of each of the
// views of schema, backfilled from its sources' histories, and fails
// unless each equals the view maintained all along.
func compareRecomputed(t *testing.T, te *testEngine, schema string, views []string) {
	t.Helper()
	for _, v := range views {
		prefix := "CREATE MATERIALIZED VIEW " + v + " AS "
		for _, line := range strings.Split(schema, "\n") {
			if def, ok := strings.CutPrefix(line, prefix); ok {
				if out := te.run("CREATE MATERIALIZED VIEW " + v + "_re AS " + def); strings.Contains(out, "ERROR") {
					t.Fatal(out)
				}
			}
		}
		if a, b := sortedRows(te, v), sortedRows(te, v+"_re"); a != b {
			t.Fatalf("%s differs from its recomputation\nmaintained:\n%s\nrecomputed:\n%s", v, a, b)
		}
	}
}

// spilledWindowed counts the spilled operators of e's views whose state a
// watermark bounds (windowed Reduces and TopKs).
func spilledWindowed(e *Engine) int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	n := 0
	for _, mv := range e.views {
		bounded := map[int]bool{}
		for _, r := range mv.df.Bounded() {
			bounded[r.Node] = r.Bounded
		}
		for _, i := range mv.df.SpilledNodes() {
			if bounded[i] {
				n++
			}
		}
	}
	return n
}

// windowBatch draws up to 6 changes: inserts of rows up to 4 s before
// clock (those below the watermark, 3 s before the latest row, are late),
// re-inserts of recent rows, and deletes of rows of pool, the rows
// inserted and not yet deleted (mostly recent ones, whose windows may
// still be open; late ones too, which every view dropped). A quarter of
// the deleted rows stay in pool, so a row is sometimes deleted more often
// than it was inserted, as a Debezium topic whose creates retention
// dropped delivers: the source drops the excess as bad records
// (source_rows.go).
func windowBatch(rng *rand.Rand, clock int64, pool *[]repr.Row) []Change {
	var out []Change
	for range rng.IntN(7) {
		switch n := len(*pool); {
		case n > 0 && rng.IntN(3) == 0:
			i := rng.IntN(n)
			if n > 8 && rng.IntN(4) > 0 {
				i = n - 1 - rng.IntN(8) // a recent row: its window may be open
			}
			out = append(out, Change{Kind: ChangeDelete, Row: (*pool)[i]})
			if rng.IntN(2) > 0 { // else it may be deleted again: spurious
				*pool = slices.Delete(*pool, i, i+1)
			}
			continue
		case n > 0 && rng.IntN(6) == 0: // a duplicate
			r := (*pool)[n-1-rng.IntN(min(n, 10))]
			out = append(out, Change{Kind: ChangeInsert, Row: r})
			*pool = append(*pool, r)
			continue
		}
		ts := clock - rng.Int64N(4_000_000)
		r := repr.Row{repr.NewInt(int64(rng.IntN(4))), repr.NewInt(int64(rng.IntN(50))), repr.NewTimestamp(ts)}
		out = append(out, Change{Kind: ChangeInsert, Row: r})
		*pool = append(*pool, r)
	}
	return out
}

// compareViews fails unless every view has the same rows in both engines.
func compareViews(t *testing.T, step int, ref, sub *testEngine, views []string) {
	t.Helper()
	for _, v := range views {
		if a, b := sortedRows(ref, v), sortedRows(sub, v); a != b {
			t.Fatalf("after step %d, %s differs\nreference:\n%s\nrestarted:\n%s", step, v, a, b)
		}
	}
}

// sortedRows prints relation rel's rows in te, sorted as text (rows equal
// in a prefix of columns need no ORDER BY over all of them).
func sortedRows(te *testEngine, rel string) string {
	lines := strings.Split(te.run("SELECT * FROM "+rel), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
