package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// cursorScript is a sequence of cursor moves over a 10000-row result:
// every direction, past both ends and back.
var cursorScript = []string{
	"FETCH 3 FROM c", "FETCH FORWARD 1500 FROM c", "MOVE 100 IN c", "FETCH RELATIVE 10 FROM c",
	"FETCH ABSOLUTE 6000 FROM c", "FETCH BACKWARD 2 FROM c", "FETCH PRIOR FROM c", "FETCH RELATIVE 0 FROM c",
	"FETCH ABSOLUTE -3 FROM c", "FETCH NEXT FROM c", "FETCH 5 FROM c", "FETCH BACKWARD 4 FROM c",
	"FETCH FIRST FROM c", "MOVE ALL IN c", "FETCH LAST FROM c", "FETCH ALL FROM c",
}

// TestCursorStream declares cursors over a large table's monotone query,
// which compute their rows as FETCH asks, and checks that every move
// answers as the buffered cursor does; that the cursor reads the snapshot
// of its DECLARE (not a later write of its block or another session's);
// that a NO SCROLL cursor forgets the rows it passed; and that an error
// in a later chunk is FETCH's.
func TestCursorStream(t *testing.T) {
	te := newTestEngine(t)
	te.run("CREATE TABLE t (x int, s text)")
	te.run("INSERT INTO t SELECT i, 'r' || i FROM generate_series(1, 10000) AS g(i)")
	for _, opts := range []string{"", "SCROLL", "NO SCROLL"} {
		script := cursorScript
		if opts == "NO SCROLL" {
			script = []string{"FETCH 3 FROM c", "FETCH FORWARD 1500 FROM c", "MOVE 100 IN c", "FETCH RELATIVE 10 FROM c",
				"FETCH ABSOLUTE 6000 FROM c", "FETCH 5 FROM c", "FETCH ALL FROM c", "FETCH NEXT FROM c"}
		}
		lazy := runCursor(t, te, opts, script, true)
		disableStreaming = true
		buffered := runCursor(t, te, opts, script, false)
		disableStreaming = false
		if lazy != buffered {
			t.Errorf("%s cursor: lazy\n%.3000s\nbuffered\n%.3000s", opts, lazy, buffered)
		}
	}
	te.run("BEGIN")
	te.run("DECLARE c NO SCROLL CURSOR FOR SELECT x FROM t WHERE x % 2 = 0")
	te.run("FETCH 2000 FROM c")
	if c := te.s.cursors["c"]; c == nil || c.lazy == nil || len(c.rows) > streamChunk*32 {
		t.Fatalf("NO SCROLL cursor: %+v, want a lazy cursor keeping few rows", c)
	}
	te.run("INSERT INTO t VALUES (20000, 'new')")
	other := te.e.NewSession(map[string]string{"user": "eddy"})
	defer other.Close()
	mustSQL(t, other, "DELETE FROM t WHERE x > 9000")
	if got := te.run("FETCH ALL FROM c"); !strings.HasSuffix(got, "FETCH 3000\n") || strings.Contains(got, "20000") {
		t.Errorf("FETCH ALL after later writes: %.200s ... %s", got, got[max(0, len(got)-40):])
	}
	te.run("COMMIT")
	te.run("BEGIN")
	te.run("DECLARE e CURSOR FOR SELECT 1 / (x - 5000) FROM t")
	if got := te.run("FETCH ALL FROM e"); !strings.Contains(got, "22012") {
		t.Errorf("division by zero in a later chunk: %.200s", got)
	}
	te.run("ROLLBACK")
}

// runCursor declares c with opts over the large table and runs script,
// returning the transcript; lazy says whether the cursor must stream.
func runCursor(t *testing.T, te *testEngine, opts string, script []string, lazy bool) string {
	t.Helper()
	var b strings.Builder
	te.run("BEGIN")
	te.run(fmt.Sprintf("DECLARE c %s CURSOR FOR SELECT x, s FROM t WHERE x %% 3 <> 1", opts))
	if c := te.s.cursors["c"]; c == nil || (c.lazy != nil) != lazy {
		t.Fatalf("%s cursor: lazy %v, want %v", opts, c != nil && c.lazy != nil, lazy)
	}
	for _, f := range script {
		fmt.Fprintf(&b, "> %s\n%s", f, te.run(f))
	}
	te.run("COMMIT")
	return b.String()
}

// TestStreamAccountBounded checks that a stream's account does not grow
// with the rows it has produced: a NO SCROLL cursor fetched in pieces, a
// streamed SELECT and one through a probe-only join hold about a chunk,
// however many chunks they stepped.
func TestStreamAccountBounded(t *testing.T) {
	defer func(n int) { feedChunk = n }(feedChunk)
	feedChunk = 2048
	te := newTestEngine(t)
	te.e.mem = newAccountant(1 << 40)
	te.run("CREATE TABLE t (x int, s text, y int)")
	te.run("CREATE TABLE small (v int, name text)")
	te.run("INSERT INTO small SELECT g, 'n' || g FROM generate_series(0, 99) g")
	te.run("INSERT INTO t SELECT i, repeat('r', 50) || i, i % 100 FROM generate_series(1, 200000) AS g(i)")
	te.run("BEGIN")
	te.run("DECLARE c NO SCROLL CURSOR FOR SELECT x, s FROM t WHERE x % 2 = 0")
	c := te.s.cursors["c"]
	var peak int64
	for i := 0; i < 10; i++ {
		te.run("FETCH 10000 FROM c")
		peak = max(peak, c.mem.used)
	}
	te.run("COMMIT")
	if c.lazy != nil || peak > 8<<20 {
		t.Errorf("cursor account peaked at %d bytes (lazy %v), want a few MiB", peak, c.lazy != nil)
	}
	for _, q := range []string{"SELECT x, s FROM t WHERE x % 2 = 0", "SELECT t.x, small.name FROM t JOIN small ON t.y = small.v"} {
		p, lazy := streamPortal(t, te, q)
		if !lazy {
			t.Fatalf("%s: not streamed", q)
		}
		rc := &rowCollector{}
		if _, _, err := p.Execute(context.Background(), rc, 90000); err != nil {
			t.Fatal(err)
		}
		if used := p.mem.used; used > 8<<20 {
			t.Errorf("%s: account holds %d bytes after 90000 rows, want a few MiB", q, used)
		}
		p.Close()
	}
}

// streamPortal binds q and runs it with an Execute limit of one row,
// returning the portal and whether it streams.
func streamPortal(t *testing.T, te *testEngine, q string) (*Portal, bool) {
	t.Helper()
	p := bindQuery(t, te, q)
	if _, _, err := p.Execute(context.Background(), &rowCollector{}, 1); err != nil {
		t.Fatal(err)
	}
	return p, p.lazy != nil
}
