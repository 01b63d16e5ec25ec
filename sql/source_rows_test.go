package sql

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// retractCrashSchema is a FORMAT DEBEZIUM source without a watermark and
// views that cannot hold a deletion of a row they never saw: a grouped
// count and sum, min/max multisets, a self-join and a global count.
const retractCrashSchema = `
CREATE SOURCE d (k int, v int) WITH (connector = 'fake') FORMAT DEBEZIUM ENCODE JSON;
CREATE MATERIALIZED VIEW cnt AS SELECT k, count(*) AS n, sum(v) AS s FROM d GROUP BY k;
CREATE MATERIALIZED VIEW mm AS SELECT k, min(v) AS lo, max(v) AS hi FROM d GROUP BY k;
CREATE MATERIALIZED VIEW sj AS SELECT a.k, a.v, b.v AS w FROM d a JOIN d b ON a.k = b.k AND a.v < b.v;
CREATE MATERIALIZED VIEW tot AS SELECT count(*) AS n FROM d;
`

var retractCrashViews = []string{"cnt", "mm", "sj", "tot"}

// TestCheckpointCrashRetract: random batches of a source without a
// watermark whose deletions are often wrong (rows never inserted, rows
// deleted twice, updates whose before image is absent) go to two engines,
// one crashing or restarting at random. Every view must equal the other
// engine's after each restart and its recomputation from the history at
// the end, the global count must be the size of the multiset the batches
// describe, and eddy_sources.bad_records the number of deletions that
// found no row.
func TestCheckpointCrashRetract(t *testing.T) { testCheckpointCrashRetract(t, false) }

// TestCheckpointCrashRetractSpilled is TestCheckpointCrashRetract with a
// one-byte budget for the crashing engine: the source's live rows spill
// at every checkpoint and restart leaves them spilled.
func TestCheckpointCrashRetractSpilled(t *testing.T) { testCheckpointCrashRetract(t, true) }

func testCheckpointCrashRetract(t *testing.T, spill bool) {
	model := map[string]int64{} // the live rows, by text
	var pool []repr.Row         // rows inserted, some since deleted
	var live, bad int64
	runSourceCrash(t, sourceCrash{schema: retractCrashSchema, source: "d", views: retractCrashViews,
		batch: func(rng *rand.Rand, _ int) []Change {
			changes := retractBatch(rng, &pool)
			for _, c := range changes {
				key := fmt.Sprint(c.Row)
				switch {
				case c.Kind == ChangeInsert:
					model[key]++
					live++
				case model[key] > 0:
					model[key]--
					live--
				default:
					bad++
				}
			}
			return changes
		},
		check: func(t *testing.T, ref, sub *testEngine) {
			if bad == 0 {
				t.Fatal("no bad deletion drawn")
			}
			for _, te := range []*testEngine{ref, sub} {
				if got, want := strings.TrimSpace(te.run("SELECT n FROM tot")), fmt.Sprintf("n\n%d\nSELECT 1", live); got != want {
					t.Errorf("tot = %q, want %q", got, want)
				}
				if got, want := strings.TrimSpace(te.run("SELECT bad_records FROM eddy_sources WHERE name = 'd'")), fmt.Sprintf("bad_records\n%d\nSELECT 1", bad); got != want {
					t.Errorf("bad records = %q, want %q", got, want)
				}
			}
			if spill && !sourceRowsSpilled(sub.e, "d") {
				t.Error("the source's live rows did not spill")
			}
		}}, spill)
}

// retractBatch draws up to 6 changes: inserts of new rows and of rows
// inserted before, deletes of rows inserted before (a quarter of them
// left in pool, so they may be deleted again), deletes of rows never
// inserted, and updates (a delete and an insert) whose before image is
// sometimes absent.
func retractBatch(rng *rand.Rand, pool *[]repr.Row) []Change {
	row := func() repr.Row { return repr.Row{repr.NewInt(int64(rng.IntN(5))), repr.NewInt(int64(rng.IntN(30)))} }
	var out []Change
	for range rng.IntN(7) {
		n := len(*pool)
		switch r := rng.IntN(10); {
		case n > 0 && r < 3:
			i := rng.IntN(n)
			out = append(out, Change{Kind: ChangeDelete, Row: (*pool)[i]})
			if rng.IntN(4) > 0 {
				(*pool)[i] = (*pool)[n-1]
				*pool = (*pool)[:n-1]
			}
		case r == 3:
			out = append(out, Change{Kind: ChangeDelete, Row: row()})
		case r == 4:
			after := row()
			out = append(out, Change{Kind: ChangeDelete, Row: row()}, Change{Kind: ChangeInsert, Row: after})
			*pool = append(*pool, after)
		case n > 0 && r == 5:
			out = append(out, Change{Kind: ChangeInsert, Row: (*pool)[rng.IntN(n)]})
			*pool = append(*pool, out[len(out)-1].Row)
		default:
			out = append(out, Change{Kind: ChangeInsert, Row: row()})
			*pool = append(*pool, out[len(out)-1].Row)
		}
	}
	return out
}

// checkSourceRowsBounded fails unless the live rows source name keeps
// are at or above its watermark, and some are (they are forgotten below).
func checkSourceRowsBounded(t *testing.T, e *Engine, name string) {
	t.Helper()
	e.mu.RLock()
	defer e.mu.RUnlock()
	st := e.sources[e.cat.lookup("", name).ID]
	if st.rows == nil || !st.hasWM {
		t.Fatalf("source %s keeps no rows or has no watermark", name)
	}
	n := 0
	st.rows.c.Scan(func(row repr.Row, _ int64) bool {
		if n++; row[0].IsNull() || row[0].Int() < st.watermark {
			t.Errorf("source %s keeps %v below its watermark %d", name, row, st.watermark)
			return false
		}
		return true
	})
	if n == 0 {
		t.Errorf("source %s keeps no rows", name)
	}
	t.Logf("source %s keeps %d rows", name, n)
}

// sourceRowsSpilled reports whether the live rows of source name spilled.
func sourceRowsSpilled(e *Engine, name string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	st := e.sources[e.cat.lookup("", name).ID]
	return st.rows != nil && st.rows.c.Spilled()
}

// BenchmarkIngestDebezium measures a Debezium source's batches (3 inserts
// to 1 deletion of an earlier row, 4,096 changes each) into a GROUP BY
// view of 1,000 groups, with the source checking its deletions against
// its live rows and without (as sources created before did), reporting
// CPU-seconds (user+sys, the whole process) per million changes.
func BenchmarkIngestDebezium(b *testing.B) {
	for _, checked := range []bool{true, false} {
		b.Run(map[bool]string{true: "checked", false: "unchecked"}[checked], func(b *testing.B) {
			e := newBenchEngine(b, "")
			e.SetConnectors(&fakeConnectors{active: map[uint64]bool{}, batches: map[uint64][]fakeBatch{}})
			mustExec(b, e.NewSession(nil), `CREATE SOURCE d (id bigint, g int, v bigint) WITH (connector = 'fake') FORMAT DEBEZIUM ENCODE JSON;
CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n, sum(v) AS s FROM d GROUP BY g`)
			id := e.cat.lookup("", "d").ID
			if !checked {
				e.sources[id].rows = nil
			}
			row := func(i int) repr.Row {
				return repr.Row{repr.NewInt(int64(i)), repr.NewInt(int64(i % ingestGroups)), repr.NewInt(int64(i * 7))}
			}
			next, changes := 0, make([]Change, 0, 4096)
			cpu := cpuTime()
			n := 0
			for b.Loop() {
				changes = changes[:0]
				for j := range 4096 {
					if j%4 == 3 {
						changes = append(changes, Change{Kind: ChangeDelete, Row: row(next / 2)})
						continue
					}
					changes = append(changes, Change{Kind: ChangeInsert, Row: row(next)})
					next++
				}
				if err := e.IngestChanges(id, changes, binary.BigEndian.AppendUint64(nil, uint64(next)), nil); err != nil {
					b.Fatal(err)
				}
				n += len(changes)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/1e9/float64(n)*1e6, "cpu-s/Mchange")
		})
	}
}
