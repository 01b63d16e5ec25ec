package tests

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// copyViewRows is the size of TestCopyViewUnderMemoryLimit's view: about
// 230 bytes of text a row, so its rows decoded at once (as a COPY TO that
// built its whole result would hold them) take more than the budget
// leaves to work.
const (
	copyViewRows   = 300_000
	copyViewBudget = 128
)

// TestCopyViewUnderMemoryLimit runs a server under --memory-limit 128MiB
// with a spilled 300,000-row materialized view (about 70 MB as COPY text)
// and checks that COPY view TO STDOUT streams it whole (every row, checked
// by count and sum) with the peak RSS under the budget plus
// TestStreamUnderMemoryLimit's margin; and that a client that disconnects
// in the middle of such a COPY stops it: the statement leaves
// pg_stat_activity within a few seconds, where before the disconnect it
// was active.
func TestCopyViewUnderMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 300,000 rows into a spilled view")
	}
	s := harness.StartEddy(t, harness.WithArgs("--memory-limit", fmt.Sprintf("%dMiB", copyViewBudget)),
		harness.WithEnv("EDDY_SPILL_ALL=1"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	execAll(t, ctx, c, "CREATE TABLE big (k int, v int)",
		"CREATE MATERIALIZED VIEW wide AS SELECT k, v, repeat('x', 200) || k AS s FROM big")
	const piece = 25_000
	for from := 1; from <= copyViewRows; from += piece {
		execAll(t, ctx, c, fmt.Sprintf("INSERT INTO big SELECT g, g %% 1000 FROM generate_series(%d, %d) g", from, from+piece-1))
	}
	copyStream(t, ctx, c, "COPY wide TO STDOUT", copyViewRows, int64(copyViewRows)*(copyViewRows+1)/2)
	var half int64
	for k := int64(1); k <= copyViewRows; k++ {
		if k%1000 < 500 {
			half += k
		}
	}
	copyStream(t, ctx, c, "COPY (SELECT k, s FROM wide WHERE v < 500) TO STDOUT", copyViewRows/2, half)
	peak := procStatusMiB(t, s.Pid(), "VmHWM:")
	t.Logf("peak RSS %d MiB under a %d MiB budget", peak, copyViewBudget)
	if peak > copyViewBudget+streamRSSMarginMiB {
		t.Errorf("peak RSS %d MiB, want at most %d MiB", peak, copyViewBudget+streamRSSMarginMiB)
	}
	copyDisconnect(t, ctx, s.DSN(), c)
}

// copyDisconnect starts COPY wide TO STDOUT on a connection of its own,
// checks (from c) that it is active after its first MiB, closes the
// connection's socket and checks that the statement is gone from
// pg_stat_activity within 5 s.
func copyDisconnect(t *testing.T, ctx context.Context, dsn string, c *pgconn.PgConn) {
	t.Helper()
	d := pgConnect(t, ctx, dsn)
	const active = "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'COPY wide%'"
	w := &closingWriter{after: 1 << 20, onLimit: func() error {
		rows, err := queryRows(ctx, c, active)
		if err != nil || len(rows) != 1 || rows[0] != "1" {
			t.Errorf("during the COPY: %v, err %v; want it active", rows, err)
		}
		return d.Conn().Close()
	}}
	if _, err := d.CopyTo(ctx, w, "COPY wide TO STDOUT"); err == nil {
		t.Fatalf("COPY after its client disconnected: no error")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		rows, err := queryRows(ctx, c, active)
		if err == nil && len(rows) == 1 && rows[0] == "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("5 s after its client disconnected the COPY is still there: %v, err %v", rows, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("the COPY stopped after its client disconnected; %d bytes read", w.n)
}

// closingWriter counts what a COPY TO wrote and, past after bytes, calls
// onLimit once and then fails.
type closingWriter struct {
	n       int
	after   int
	onLimit func() error
	done    bool
}

func (w *closingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	if w.n < w.after {
		return len(p), nil
	}
	if !w.done {
		w.done = true
		if err := w.onLimit(); err != nil {
			return 0, err
		}
	}
	return 0, errors.New("client gone")
}
