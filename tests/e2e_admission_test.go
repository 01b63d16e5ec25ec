package tests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestAdmissionFlood: 25,000 connection attempts against --max-connections
// 100 whose slots are all taken. Every attempt is answered 53300 "sorry,
// too many clients already" and closed at once (the server holds no
// descriptor for it afterwards), the connections holding the slots keep
// working, and a slot given back is taken by the next client. Attempts go
// out from 16 goroutines as raw startup packets, so the flood takes a few
// seconds.
func TestAdmissionFlood(t *testing.T) {
	s := harness.StartEddy(t, harness.WithArgs("--max-connections", "100"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	held := make([]*pgx.Conn, 100)
	for i := range held {
		c, code := pgxCode(t, s.DSN())
		if code != "" {
			t.Fatalf("connection %d: %s", i+1, code)
		}
		held[i] = c
	}
	baseFDs := openFDs(t, s.Pid())
	packet, err := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "eddy", "database": "eddy"}}).Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", s.Port())
	const attempts, workers = 25000, 16
	var refused, other atomic.Int64
	var next atomic.Int64
	var firstOther atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= attempts {
				if err := refusedAttempt(addr, packet); err != nil {
					other.Add(1)
					firstOther.CompareAndSwap(nil, err.Error())
				} else {
					refused.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d attempts in %v: %d refused with 53300, %d otherwise", attempts, time.Since(start), refused.Load(), other.Load())
	if other.Load() > 0 {
		t.Errorf("%d attempts were not answered 53300; first: %v", other.Load(), firstOther.Load())
	}
	if n := openFDs(t, s.Pid()); n > baseFDs+workers {
		t.Errorf("server holds %d descriptors after the flood, %d before", n, baseFDs)
	}
	var one int
	if err := held[99].QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("a held connection after the flood: %v", err)
	}
	held[0].Close(ctx)
	waitFor(t, 5*time.Second, func() bool {
		c, err := pgx.Connect(ctx, s.DSN())
		if err == nil {
			c.Close(ctx)
		}
		return err == nil
	})
}

// refusedAttempt connects, sends a startup packet and reads the answer
// to the end; nil if it was an ErrorResponse with SQLSTATE 53300 and the
// server then closed the connection.
func refusedAttempt(addr string, packet []byte) error {
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := nc.Write(packet); err != nil {
		return err
	}
	resp, err := io.ReadAll(nc)
	if err != nil {
		return err
	}
	if len(resp) == 0 || resp[0] != 'E' || !bytes.Contains(resp, []byte("C53300\x00")) {
		return fmt.Errorf("answer %q", resp)
	}
	return nil
}

// openFDs counts the open descriptors of process pid.
func openFDs(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return len(ents)
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSubscribeByteBound: with --subscribe-buffer 8MiB, a SUBSCRIBE client
// that never reads, and a cursor never fetched, are cut off once the
// commits queued for them pass 8 MiB, although each is far below its
// bound in commits (1024). After every one of 20 commits of ~8 MB,
// eddy_subscriptions never shows either holding more than the bound plus
// one commit (unbounded, they would reach 160 MB each); the server's RSS
// growth is logged (it is too noisy under a shared machine's GC to
// assert on). The cursor's FETCH reports 54000 naming the bound; the
// stuck client is disconnected.
func TestSubscribeByteBound(t *testing.T) {
	const bound = 8 << 20
	s := harness.StartEddy(t, harness.WithArgs("--subscribe-buffer", "8MiB"), harness.WithEnv("GOGC=100"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mon := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE wide (k int PRIMARY KEY, v text)",
		"INSERT INTO wide SELECT i, repeat('x', 2000) FROM generate_series(1, 2000) AS g(i)")
	updateAll(t, ctx, w, 20)
	lazy := connect(t, ctx, s.DSN())
	mustExec(t, ctx, lazy, "BEGIN", "DECLARE c CURSOR FOR SUBSCRIBE wide")
	stuck := stalledConn(t, ctx, s.DSN())
	defer stuck.Close(context.Background())
	stuckRes := stuck.Exec(ctx, "SUBSCRIBE wide")
	waitFor(t, 10*time.Second, func() bool { return subscriptions(t, ctx, mon) == 2 })
	before := rssBytes(t, s.Pid())
	var most int64
	for i := range 20 {
		mustExec(t, ctx, w, fmt.Sprintf("UPDATE wide SET v = repeat('%c', 2000)", 'a'+i%26))
		var q int64
		if err := mon.QueryRow(ctx, "SELECT coalesce(max(bytes_queued), 0) FROM eddy_catalog.eddy_subscriptions").Scan(&q); err != nil {
			t.Fatal(err)
		}
		most = max(most, q)
	}
	t.Logf("most bytes queued for one subscriber: %d; server RSS grew by %d MB over 20 commits of ~8 MB",
		most, (rssBytes(t, s.Pid())-before)>>20)
	if most == 0 || most > 2*bound {
		t.Errorf("a stalled subscriber held %d bytes; want some, and at most the bound plus one commit (%d)", most, 2*bound)
	}
	if n := subscriptions(t, ctx, mon); n != 0 {
		t.Errorf("%d stalled subscriptions survive 160 MB of changes; want both cut off", n)
	}
	var err error
	for err == nil {
		var rows pgx.Rows
		if rows, err = lazy.Query(ctx, "FETCH ALL c"); err == nil {
			for rows.Next() {
			}
			err = rows.Err()
		}
	}
	wantCode(t, err, "54000", "fell more than 8388608 bytes behind")
	done := make(chan error, 1)
	go func() {
		_, err := stuckRes.ReadAll()
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the stuck subscriber's stream ended without an error")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stuck subscriber was never disconnected")
	}
}

// subscriptions counts the open subscriptions eddy_subscriptions lists.
func subscriptions(t *testing.T, ctx context.Context, c *pgx.Conn) int {
	t.Helper()
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM eddy_catalog.eddy_subscriptions").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// updateAll rewrites every row of wide n times, one commit each.
func updateAll(t *testing.T, ctx context.Context, w *pgx.Conn, n int) {
	t.Helper()
	for i := range n {
		mustExec(t, ctx, w, fmt.Sprintf("UPDATE wide SET v = repeat('%c', 2000)", 'a'+i%26))
	}
}

// rssBytes reads the resident set size of process pid.
func rssBytes(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var size, rss int64
	if _, err := fmt.Sscan(string(b), &size, &rss); err != nil {
		t.Fatalf("parsing statm %q: %v", b, err)
	}
	return rss * int64(os.Getpagesize())
}
