package sql

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestSelectStream checks that a streamed SELECT returns exactly the rows
// of the buffered path (as multisets: without ORDER BY the order is the
// collection's), in one Execute and in pieces of an Execute row limit,
// that LIMIT and OFFSET count the same, and that an error in a later
// chunk fails the statement.
func TestSelectStream(t *testing.T) {
	te := newTestEngine(t)
	te.run("CREATE TABLE t (x int, s text)")
	te.run("INSERT INTO t SELECT i, 'r' || i FROM generate_series(1, 10000) AS g(i)")
	te.run("INSERT INTO t SELECT i, 'dup' FROM generate_series(1, 100) AS g(i)")
	for _, q := range []string{
		"SELECT * FROM t",
		"SELECT x * 2, upper(s) FROM t WHERE x % 3 = 0",
		"SELECT s FROM t WHERE s = 'dup'",
	} {
		streamed, n := streamRows(t, te, q, 0)
		if n == 0 {
			t.Fatalf("%s: not streamed", q)
		}
		paged, _ := streamRows(t, te, q, 777)
		disableStreaming = true
		buffered, _ := streamRows(t, te, q, 0)
		disableStreaming = false
		slices.Sort(streamed)
		slices.Sort(paged)
		slices.Sort(buffered)
		if !slices.Equal(streamed, buffered) || !slices.Equal(paged, buffered) {
			t.Errorf("%s: streamed %d rows, paged %d, buffered %d; they differ", q, len(streamed), len(paged), len(buffered))
		}
	}
	if rows, _ := streamRows(t, te, "SELECT x FROM t LIMIT 5000 OFFSET 6000", 0); len(rows) != 4100 {
		t.Errorf("LIMIT 5000 OFFSET 6000 of 10100 rows gave %d rows, want 4100", len(rows))
	}
	if got := te.run("SELECT 1 / (x - 9000) FROM t"); !strings.Contains(got, "22012") {
		t.Errorf("division by zero in a later chunk: %q", got)
	}
}

// bindQuery prepares and binds q, without parameters.
func bindQuery(t *testing.T, te *testEngine, q string) *Portal {
	t.Helper()
	ctx := context.Background()
	stmts, err := te.s.Prepare(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := stmts[0].Bind(ctx, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// streamRows executes q with Execute row limit maxRows until it
// completes, returning the rows and how many Executes ran on a streaming
// portal.
func streamRows(t *testing.T, te *testEngine, q string, maxRows int) ([]string, int) {
	t.Helper()
	ctx := context.Background()
	p := bindQuery(t, te, q)
	defer p.Close()
	rc := &rowCollector{}
	streamed := 0
	for {
		_, suspended, err := p.Execute(ctx, rc, maxRows)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if p.lazy != nil {
			streamed++
		}
		if !suspended {
			break
		}
	}
	out := make([]string, len(rc.rows))
	for i, r := range rc.rows {
		out[i] = strings.Join(r, "|")
	}
	return out, streamed
}

// TestCopyToStream checks that COPY TO of a large monotone query streams
// (its input is read from a snapshot in chunks) and writes exactly the
// buffered path's messages, in text, CSV and binary, and that an error in
// a later chunk fails the COPY after the rows already written.
func TestCopyToStream(t *testing.T) {
	te := newTestEngine(t)
	te.run("CREATE TABLE t (x int, s text)")
	te.run("INSERT INTO t SELECT i, 'r' || i FROM generate_series(1, 10000) AS g(i)")
	for _, q := range []string{
		"COPY t TO STDOUT",
		"COPY (SELECT x, upper(s) FROM t WHERE x % 3 = 0) TO STDOUT (FORMAT csv, HEADER)",
		"COPY (SELECT x FROM t WHERE x % 2 > 0) TO STDOUT (FORMAT binary)",
	} {
		before := snapshotFeedCount.Load()
		streamed := te.run(q)
		if snapshotFeedCount.Load() == before {
			t.Errorf("%s: not streamed", q)
		}
		disableStreaming = true
		buffered := te.run(q)
		disableStreaming = false
		if streamed != buffered || strings.Contains(streamed, "ERROR") {
			t.Errorf("%s: streamed\n%.500s\nbuffered\n%.500s", q, streamed, buffered)
		}
	}
	if got := te.run("COPY (SELECT 1 / (x - 9000) FROM t) TO STDOUT"); !strings.Contains(got, "22012") {
		t.Errorf("division by zero in a later chunk: %.200s", got)
	}
}
