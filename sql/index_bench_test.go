package sql

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkIndexPointSelect measures one Bind+Execute of a prepared point
// query by a non-key column of a 1M-row table, read through an index on
// that column and, after DROP INDEX, by scanning the table.
//
//	go test ./sql -run '^$' -bench IndexPointSelect -benchtime 20x
func BenchmarkIndexPointSelect(b *testing.B) {
	const rows = 1_000_000
	// a is a permutation of the ids: one row per value.
	s, run := benchBigTable(b, rows, func(i int) int { return (i * 7919) % rows })
	run("CREATE INDEX big_a ON big (a)")
	b.Run("index", func(b *testing.B) { benchPointByA(b, s, rows) })
	run("DROP INDEX big_a")
	b.Run("no-index", func(b *testing.B) { benchPointByA(b, s, rows) })
}

// benchBigTable opens an engine with table big (id int PRIMARY KEY, a
// int, b text) of rows rows, row i having a = a(i), inserted 10,000 per
// statement; it returns a session and a function running SQL on it.
func benchBigTable(b *testing.B, rows int, a func(i int) int) (*Session, func(string)) {
	e, err := Open(b.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	s := e.NewSession(nil)
	run := func(sql string) {
		if err := benchExec(s, sql); err != nil {
			b.Fatal(err)
		}
	}
	run("CREATE TABLE big (id int PRIMARY KEY, a int, b text)")
	for lo := 0; lo < rows; lo += 10_000 {
		var q strings.Builder
		q.WriteString("INSERT INTO big VALUES ")
		for i := lo; i < min(lo+10_000, rows); i++ {
			if i > lo {
				q.WriteString(", ")
			}
			q.WriteString("(" + strconv.Itoa(i) + ", " + strconv.Itoa(a(i)) + ", 'row')")
		}
		run(q.String())
	}
	return s, run
}

// benchPointByA runs SELECT ... WHERE a = $1 for spread-out values.
func benchPointByA(b *testing.B, s *Session, rows int) {
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, "SELECT id, b FROM big WHERE a = $1", nil)
	if err != nil {
		b.Fatal(err)
	}
	runPointQueries(b, stmts[0], func(i int) int { return (i * 104729) % rows })
}

// benchExec runs sql (one or more statements) to completion.
func benchExec(s *Session, sql string) error {
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, sql, nil)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		p, err := st.Bind(ctx, nil, nil, nil)
		if err == nil {
			_, _, err = p.Execute(ctx, &discardRows{}, 0)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkIndexJoin measures an ad hoc join of 10 rows with a 100k-row
// table on an indexed column: through the index (the big side is looked
// up, never read whole) and with private arrangements of both inputs.
//
//	go test ./sql -run '^$' -bench IndexJoin -benchtime 20x
func BenchmarkIndexJoin(b *testing.B) {
	const rows = 100_000
	s, run := benchBigTable(b, rows, func(i int) int { return i % (rows / 10) })
	run("CREATE TABLE small (x int)")
	run("INSERT INTO small SELECT generate_series(1, 10) * 7; CREATE INDEX big_a ON big (a)")
	for _, mode := range []string{"shared", "private"} {
		b.Run(mode, func(b *testing.B) {
			disableSharedJoins = mode == "private"
			defer func() { disableSharedJoins = false }()
			w := &discardRows{}
			for b.Loop() {
				if err := benchQuery(s, "SELECT small.x, big.id FROM small JOIN big ON big.a = small.x", w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchQuery runs one query, writing its rows to w.
func benchQuery(s *Session, sql string, w *discardRows) error {
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, sql, nil)
	if err != nil {
		return err
	}
	p, err := stmts[0].Bind(ctx, nil, nil, nil)
	if err != nil {
		return err
	}
	_, _, err = p.Execute(ctx, w, 0)
	return err
}

// BenchmarkSharedJoinView maintains a join view through inserts of 100
// orders per commit against 100k customers, whose side the view either
// reads from an index (shared) or arranges itself (private), and reports
// the live heap at the end (tables, indexes and the view's state). The
// time per commit is dominated by its fsync. Run each mode in its own
// process, so the heap is that mode's alone:
//
//	go test ./sql -run '^$' -bench SharedJoinView/shared -benchtime 200x
func BenchmarkSharedJoinView(b *testing.B) {
	const custs = 100_000
	for _, mode := range []string{"shared", "private"} {
		b.Run(mode, func(b *testing.B) {
			e, err := Open(b.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = e.Close() })
			s := e.NewSession(nil)
			run := func(sql string) {
				if err := benchExec(s, sql); err != nil {
					b.Fatal(err)
				}
			}
			run("CREATE TABLE cust (id int PRIMARY KEY, name text); CREATE TABLE ord (id int PRIMARY KEY, cust int, amount int)")
			run("INSERT INTO cust SELECT g, 'customer ' || g FROM generate_series(1, " + strconv.Itoa(custs) + ") AS g")
			run("CREATE INDEX cust_id ON cust (id)")
			disableSharedJoins = mode == "private"
			run("CREATE MATERIALIZED VIEW v AS SELECT c.name, o.amount FROM ord o JOIN cust c ON c.id = o.cust")
			disableSharedJoins = false
			next := 0
			for b.Loop() {
				var q strings.Builder
				q.WriteString("INSERT INTO ord VALUES ")
				for i := range 100 {
					if i > 0 {
						q.WriteString(", ")
					}
					q.WriteString("(" + strconv.Itoa(next) + ", " + strconv.Itoa(1+(next*7919)%custs) + ", 1)")
					next++
				}
				run(q.String())
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
		})
	}
}
