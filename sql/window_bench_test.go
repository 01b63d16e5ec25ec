package sql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// windowViewRows is the size of the table under the window views.
const windowViewRows = 1_000_000

// BenchmarkWindowViewUpdate measures one autocommit UPDATE of one row's
// value in a table of windowViewRows rows under a materialized view of
// lag and a sum over a ROWS frame per partition (partitions of part rows,
// ordered by id): the whole write path (parse, plan, commit, the view's
// step, one synced Pebble batch). The frame is sliding (9 PRECEDING, a
// change touches 10 positions) or running (UNBOUNDED PRECEDING, every
// later position of the partition changes); none is the baseline, a view
// of the same columns without window functions. cpu-us/op is the process's
// user+sys CPU time per UPDATE, the loading (by COPY) excluded.
func BenchmarkWindowViewUpdate(b *testing.B) {
	frames := []struct{ name, frame string }{
		{"none", ""},
		{"sliding", "ROWS BETWEEN 9 PRECEDING AND CURRENT ROW"},
		{"running", "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"},
	}
	for _, f := range frames {
		for _, part := range []int{1_000, 10_000, 100_000} {
			if f.frame == "" && part != 1_000 {
				continue // the baseline does not partition
			}
			b.Run(fmt.Sprintf("frame=%s/part=%d", f.name, part), func(b *testing.B) {
				benchWindowViewUpdate(b, f.frame, part)
			})
		}
	}
}

func benchWindowViewUpdate(b *testing.B, frame string, part int) {
	nparts := windowViewRows / part
	view := `SELECT id, g, v AS prev, v AS s FROM events`
	if frame != "" {
		view = `SELECT id, g, lag(v) OVER p AS prev, sum(v) OVER (p ` + frame + `) AS s
  FROM events WINDOW p AS (PARTITION BY g ORDER BY id)`
	}
	e := newBenchEngine(b, `CREATE TABLE events (id bigint PRIMARY KEY, g int NOT NULL, v bigint);
CREATE MATERIALIZED VIEW w AS `+view)
	s := e.NewSession(nil)
	ctx := context.Background()
	const piece = 50_000
	for from := 0; from < windowViewRows; from += piece {
		var sb strings.Builder
		for id := from; id < from+piece; id++ {
			fmt.Fprintf(&sb, "%d\t%d\t%d\n", id, id%nparts, ingestValue(id))
		}
		stmts, err := s.Prepare(ctx, "COPY events FROM STDIN", nil)
		if err != nil {
			b.Fatal(err)
		}
		p, err := stmts[0].Bind(ctx, nil, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.CopyIn(ctx, strings.NewReader(sb.String())); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cpu0 := cpuTime()
	for b.Loop() {
		mustExec(b, s, fmt.Sprintf("UPDATE events SET v = v + 1 WHERE id = %d", rng.IntN(windowViewRows)))
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e3/float64(b.N), "cpu-us/op")
}
