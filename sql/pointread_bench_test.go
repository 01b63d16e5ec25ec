package sql

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"testing"
)

// discardRows is a RowWriter that drops rows.
type discardRows struct{ n int }

func (d *discardRows) WriteRow([][]byte) error { d.n++; return nil }

// BenchmarkPointSelect measures one Bind+Execute of a prepared point query
// on a materialized view by its group key (the statement layer's share of
// the pgbench point-mv workload, without the network).
func BenchmarkPointSelect(b *testing.B) {
	for _, mode := range []string{"served", "no-point-reads", "reference"} {
		b.Run(mode, func(b *testing.B) {
			s := benchEngine(b)
			ctx := context.Background()
			stmts, err := s.Prepare(ctx, "SELECT n, total FROM agg WHERE g = $1", nil)
			if err != nil {
				b.Fatal(err)
			}
			disablePointReads = mode != "served"
			disableGenericPlans = mode == "reference"
			defer func() { disablePointReads, disableGenericPlans = false, false }()
			runPointQueries(b, stmts[0], func(i int) int { return i % 1000 })
		})
	}
}

// benchEngine opens an engine with a 10,000-row table and a view of 1,000
// groups over it.
func benchEngine(b *testing.B) *Session {
	e, err := OpenWith(b.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)), benchOptions)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	s := e.NewSession(nil)
	run := func(sql string) {
		stmts, err := s.Prepare(context.Background(), sql, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range stmts {
			p, err := st.Bind(context.Background(), nil, nil, nil)
			if err == nil {
				_, _, err = p.Execute(context.Background(), &discardRows{}, 0)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	run("CREATE TABLE t (id int PRIMARY KEY, g int, x int)")
	for lo := 0; lo < 10000; lo += 1000 {
		q := "INSERT INTO t VALUES "
		for i := lo; i < lo+1000; i++ {
			if i > lo {
				q += ", "
			}
			q += fmt.Sprintf("(%d, %d, %d)", i, i%1000, i%97)
		}
		run(q)
	}
	run("CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n, sum(x) AS total FROM t GROUP BY g")
	return s
}

// runPointQueries executes st once per benchmark iteration i, bound to the
// key key(i), and checks that every execution returned exactly one row.
func runPointQueries(b *testing.B, st *Statement, key func(i int) int) {
	ctx := context.Background()
	w := &discardRows{}
	i := 0
	for b.Loop() {
		p, err := st.Bind(ctx, [][]byte{[]byte(strconv.Itoa(key(i)))}, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := p.Execute(ctx, w, 0); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if w.n != i {
		b.Fatalf("%d queries returned %d rows", i, w.n)
	}
}

// benchOptions are the engines' options in benchmarks: a budget, as the
// server always has one, so that memory accounting is measured too.
var benchOptions = Options{MemoryLimit: 8 << 30}
