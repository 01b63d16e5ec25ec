package sql

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
)

// TestTemporalSpillBounded loads rows into a table whose temporal view
// keeps every one of them waiting to enter (ts spread over the next
// hour), under a one-byte budget with checkpoints after every load, and
// checks that the temporal filter spilled with its resident state a small
// fraction of what it keeps (the rows stay in the store), then advances
// the clock minute by minute through half of the rows (each read back
// from the store as it comes due) and checks the view against its query
// and the resident state again. EDDY_TEMPORAL_SPILL_ROWS sets the rows
// (default 40,000); the test logs the CPU seconds of the load and of the
// ticks (BENCHMARKS.md).
func TestTemporalSpillBounded(t *testing.T) {
	rows := 40_000
	if v, err := strconv.Atoi(os.Getenv("EDDY_TEMPORAL_SPILL_ROWS")); err == nil && v > 0 {
		rows = v
	}
	defer func(n int64) { minSpillBytes = n }(minSpillBytes)
	minSpillBytes = 0
	te := newTestEngine(t)
	te.opts.MemoryLimit, te.unaccounted = 1, true
	te.restart()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	te.clockSet, te.now = true, base
	te.e.SetClock(func() time.Time { return te.now })
	mustRun(t, te, "CREATE TABLE ev (id bigint PRIMARY KEY, ts timestamptz, pad text)")
	view := "SELECT id, pad FROM ev WHERE ts <= now() AND ts > now() - INTERVAL '1 hour'"
	mustRun(t, te, "CREATE MATERIALIZED VIEW recent AS "+view)
	step := 3_600_000 / rows // milliseconds between rows: an hour in all
	cpu := cpuTime().Seconds()
	for lo := 0; lo < rows; lo += 10_000 {
		mustRun(t, te, fmt.Sprintf("INSERT INTO ev SELECT g, TIMESTAMPTZ '2024-01-01 00:00:00+00' + (g * %d + 1) * INTERVAL '1 millisecond', repeat('x', 40) FROM generate_series(%d, %d) g",
			step, lo, min(lo+10_000, rows)-1))
		if err := te.e.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	load := cpuTime().Seconds() - cpu
	checkTemporalResident(t, te, rows, "after the load")
	cpu = cpuTime().Seconds()
	for i := 1; i <= 30; i++ {
		te.now = base.Add(time.Duration(i) * time.Minute)
		if err := te.e.Tick(); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			if err := te.e.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		}
	}
	ticks := cpuTime().Seconds() - cpu
	now := "TIMESTAMPTZ '2024-01-01 00:30:00+00'"
	want := te.run(strings.ReplaceAll("SELECT count(*), min(id), max(id) FROM ("+view+") v", "now()", now))
	if got := te.run("SELECT count(*), min(id), max(id) FROM recent"); got != want || !strings.Contains(want, fmt.Sprint(rows/2-1)) {
		t.Fatalf("after 30 minutes the view has\n%swant\n%s", got, want)
	}
	checkTemporalResident(t, te, rows, "after 30 minutes")
	t.Logf("%d rows: load %.2f CPU s, 30 ticks (%d rows entering) %.2f CPU s", rows, load, rows/2, ticks)
}

// checkTemporalResident fails unless the view's temporal filter is
// spilled with at most 1/8 of its rows resident.
func checkTemporalResident(t *testing.T, te *testEngine, rows int, when string) {
	t.Helper()
	if n := spilledOfType[dataflow.TemporalFilter](te); n != 1 {
		t.Fatalf("%s: %d temporal filters spilled, want 1", when, n)
	}
	out := te.run("SELECT state_rows, state_bytes FROM eddy_dataflow_operators WHERE operator = 'TemporalFilter'")
	lines := strings.Split(out, "\n")
	var resident, bytes int
	if len(lines) < 2 {
		t.Fatalf("%s: %s", when, out)
	}
	if _, err := fmt.Sscanf(lines[1], "%d | %d", &resident, &bytes); err != nil {
		t.Fatalf("%s: %s: %v", when, out, err)
	}
	t.Logf("%s: %d rows, %d bytes resident", when, resident, bytes)
	if resident > rows/8 {
		t.Fatalf("%s: %d of %d rows resident, want at most an eighth", when, resident, rows)
	}
}
