package sql

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The write-path benchmarks of BENCHMARKS.md ("Incremental maintenance",
// "COPY", group commit). They run through Session like a wire client, on
// a real data directory with synced commits, and report input rows/s and
// CPU-seconds (user+sys, the whole process) per million rows: on a shared
// machine CPU time is the stable figure.

// ingestSetup is the schema of the ingest benchmarks: a table with a
// primary key feeding a GROUP BY view of 1,000 groups.
const ingestSetup = `CREATE TABLE events (id bigint PRIMARY KEY, g int NOT NULL, v bigint);
CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n, sum(v) AS s, max(v) AS m FROM events GROUP BY g`

// ingestGroups is the number of distinct groups the rows spread over.
const ingestGroups = 1000

// cpuTime returns the process's user+sys CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// newBenchEngine opens an engine on a fresh directory and runs setup.
func newBenchEngine(b *testing.B, setup string) *Engine {
	e, err := OpenWith(b.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)), benchOptions)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	if setup != "" {
		mustExec(b, e.NewSession(nil), setup)
	}
	return e
}

// mustExec runs every statement of sql on s.
func mustExec(tb testing.TB, s *Session, sql string) {
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, sql, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for _, st := range stmts {
		p, err := st.Bind(ctx, nil, nil, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if _, _, err := p.Execute(ctx, &rowCollector{}, 0); err != nil {
			tb.Fatalf("%s: %v", sql[:min(len(sql), 80)], err)
		}
	}
}

// ingestValue is the v column of row id (spread, deterministic).
func ingestValue(id int) int { return (id * 7919) % 100003 }

// insertSQL returns one INSERT of rows [from, from+n).
func insertSQL(from, n int) string {
	var sb strings.Builder
	sb.WriteString("INSERT INTO events VALUES ")
	for id := from; id < from+n; id++ {
		if id > from {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "(%d,%d,%d)", id, id%ingestGroups, ingestValue(id))
	}
	return sb.String()
}

// copyText returns COPY text-format data for rows [from, from+n).
func copyText(from, n int) string {
	var sb strings.Builder
	for id := from; id < from+n; id++ {
		fmt.Fprintf(&sb, "%d\t%d\t%d\n", id, id%ingestGroups, ingestValue(id))
	}
	return sb.String()
}

// meter accumulates the process CPU time of the timed regions only,
// pausing with the benchmark timer.
type meter struct {
	b    *testing.B
	cpu  time.Duration
	t0   time.Duration
	rows int
}

func newMeter(b *testing.B) *meter { return &meter{b: b, t0: cpuTime()} }

// pause stops the benchmark timer and the CPU meter.
func (m *meter) pause() {
	m.b.StopTimer()
	m.cpu += cpuTime() - m.t0
}

// resume restarts both.
func (m *meter) resume() {
	m.t0 = cpuTime()
	m.b.StartTimer()
}

// report reports rows/s (wall) and CPU-seconds per million rows.
func (m *meter) report() {
	m.cpu += cpuTime() - m.t0
	m.b.ReportMetric(float64(m.rows)/m.b.Elapsed().Seconds(), "rows/s")
	m.b.ReportMetric(m.cpu.Seconds()/float64(m.rows)*1e6, "cpu-s/Mrows")
}

// BenchmarkInsertView inserts batches of rows with INSERT ... VALUES
// (one autocommit statement each) into a table feeding the GROUP BY view.
// The statements' text is built outside the timed region.
func BenchmarkInsertView(b *testing.B) {
	for _, batch := range []int{100, 1000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			e := newBenchEngine(b, ingestSetup)
			s := e.NewSession(nil)
			next := 0
			m := newMeter(b)
			for b.Loop() {
				m.pause()
				sql := insertSQL(next, batch)
				next += batch
				m.resume()
				mustExec(b, s, sql)
				m.rows += batch
			}
			m.report()
		})
	}
}

// BenchmarkInsertViewPrepared is BenchmarkInsertView the way a driver
// batches: one prepared INSERT ... VALUES ($1,$2,$3),(...) of batch rows,
// bound with text parameters and executed once per batch (Bind+Execute,
// no parse).
func BenchmarkInsertViewPrepared(b *testing.B) {
	for _, batch := range []int{100, 1000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			e := newBenchEngine(b, ingestSetup)
			s := e.NewSession(nil)
			ctx := context.Background()
			st, err := s.Prepare(ctx, preparedInsertSQL(batch), nil)
			if err != nil {
				b.Fatal(err)
			}
			next := 0
			m := newMeter(b)
			for b.Loop() {
				m.pause()
				params := insertParams(next, batch)
				next += batch
				m.resume()
				p, err := st[0].Bind(ctx, params, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := p.Execute(ctx, &rowCollector{}, 0); err != nil {
					b.Fatal(err)
				}
				m.rows += batch
			}
			m.report()
		})
	}
}

// preparedInsertSQL returns INSERT INTO events VALUES ($1,$2,$3),... of n rows.
func preparedInsertSQL(n int) string {
	var sb strings.Builder
	sb.WriteString("INSERT INTO events VALUES ")
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "($%d,$%d,$%d)", 3*i+1, 3*i+2, 3*i+3)
	}
	return sb.String()
}

// insertParams returns the text parameters of rows [from, from+n).
func insertParams(from, n int) [][]byte {
	out := make([][]byte, 0, 3*n)
	for id := from; id < from+n; id++ {
		out = append(out, fmt.Appendf(nil, "%d", id), fmt.Appendf(nil, "%d", id%ingestGroups),
			fmt.Appendf(nil, "%d", ingestValue(id)))
	}
	return out
}

// BenchmarkCopyView loads rows with COPY FROM STDIN (text format, one
// autocommit COPY of 10,000 rows each) into the table feeding the view.
func BenchmarkCopyView(b *testing.B) {
	const batch = 10000
	e := newBenchEngine(b, ingestSetup)
	s := e.NewSession(nil)
	ctx := context.Background()
	next := 0
	m := newMeter(b)
	for b.Loop() {
		m.pause()
		data := copyText(next, batch)
		next += batch
		m.resume()
		stmts, err := s.Prepare(ctx, "COPY events FROM STDIN", nil)
		if err != nil {
			b.Fatal(err)
		}
		p, err := stmts[0].Bind(ctx, nil, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.CopyIn(ctx, strings.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		m.rows += batch
	}
	m.report()
}

// BenchmarkConcurrentCommits runs 8 sessions, each committing single-row
// INSERTs in a closed loop, and reports commits/s: the figure group
// commit improves (concurrent writers share one fsync).
func BenchmarkConcurrentCommits(b *testing.B) {
	const writers = 8
	e := newBenchEngine(b, ingestSetup)
	sessions := make([]*Session, writers)
	for i := range sessions {
		sessions[i] = e.NewSession(nil)
	}
	var next atomic.Int64
	n := b.N // b.Loop cannot split iterations among goroutines
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				id := int(next.Add(1))
				mustExec(b, sessions[w], fmt.Sprintf("INSERT INTO events VALUES (%d,%d,%d)", id, id%ingestGroups, ingestValue(id)))
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "commits/s")
	e.mu.Lock()
	b.ReportMetric(float64(e.committer.members)/float64(max(e.committer.groups, 1)), "commits/group")
	e.mu.Unlock()
}
