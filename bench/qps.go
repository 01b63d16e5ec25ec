package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// QPSConfig describes a closed-loop point-query run: Conns connections each
// run the prepared Query with $1 drawn uniformly from [0, Keys).
type QPSConfig struct {
	DSN      string
	Conns    int
	Duration time.Duration
	Warmup   time.Duration
	Query    string
	Keys     int64
	Setup    []string // run once, in order, on a fresh connection
}

// QPSResult is what one run measured.
type QPSResult struct {
	Queries int
	Rows    int64 // rows read in total: a check that the keys are found
	Elapsed time.Duration
	Latency *Latencies
}

// QPS is queries per second over the measured interval.
func (r QPSResult) QPS() float64 { return float64(r.Queries) / r.Elapsed.Seconds() }

// RowsPerQuery is the mean number of rows each query returned.
func (r QPSResult) RowsPerQuery() float64 { return float64(r.Rows) / float64(max(r.Queries, 1)) }

// RunQPS runs the setup statements, opens the connections, prepares the
// query on each as statement "q", warms up, then measures.
func RunQPS(ctx context.Context, c QPSConfig) (QPSResult, error) {
	if err := RunSetup(ctx, c.DSN, c.Setup); err != nil {
		return QPSResult{}, err
	}
	conns, err := connectPrepared(ctx, c)
	if err != nil {
		return QPSResult{}, err
	}
	defer func() {
		for _, conn := range conns {
			_ = conn.Close(ctx)
		}
	}()
	if c.Warmup > 0 {
		if _, err := measureQPS(ctx, conns, c.Keys, c.Warmup); err != nil {
			return QPSResult{}, fmt.Errorf("warmup: %w", err)
		}
	}
	return measureQPS(ctx, conns, c.Keys, c.Duration)
}

// RunSetup executes each statement on a fresh connection.
func RunSetup(ctx context.Context, dsn string, stmts []string) error {
	if len(stmts) == 0 {
		return nil
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connecting for setup: %w", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("setup %q: %w", s, err)
		}
	}
	return nil
}

// connectPrepared opens c.Conns connections and prepares c.Query on each
// as statement "q".
func connectPrepared(ctx context.Context, c QPSConfig) ([]*pgx.Conn, error) {
	conns := make([]*pgx.Conn, 0, c.Conns)
	for range c.Conns {
		conn, err := pgx.Connect(ctx, c.DSN)
		if err == nil {
			if _, err = conn.Prepare(ctx, "q", c.Query); err != nil {
				_ = conn.Close(ctx)
			}
		}
		if err != nil {
			for _, open := range conns {
				_ = open.Close(ctx)
			}
			return nil, fmt.Errorf("connecting: %w", err)
		}
		conns = append(conns, conn)
	}
	return conns, nil
}

// measureQPS runs the prepared query on every connection in a closed loop
// for d and merges the per-query latencies and row counts.
func measureQPS(ctx context.Context, conns []*pgx.Conn, keys int64, d time.Duration) (QPSResult, error) {
	start := time.Now()
	deadline := start.Add(d)
	lats := make([]Latencies, len(conns))
	rows := make([]int64, len(conns))
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows[i], errs[i] = queryLoop(ctx, conn, keys, deadline, &lats[i], uint64(i))
		}()
	}
	wg.Wait()
	res := QPSResult{Elapsed: time.Since(start), Latency: &Latencies{}}
	for i := range lats {
		res.Latency.Merge(&lats[i])
		res.Rows += rows[i]
	}
	res.Queries = res.Latency.Len()
	return res, errors.Join(errs...)
}

// queryLoop runs statement "q" on conn until deadline, recording each
// latency (send to last row read), and returns the rows read.
func queryLoop(ctx context.Context, conn *pgx.Conn, keys int64, deadline time.Time, lat *Latencies, seed uint64) (int64, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
	var n int64
	for {
		start := time.Now()
		if !start.Before(deadline) {
			return n, nil
		}
		rows, err := conn.Query(ctx, "q", rng.Int64N(keys))
		if err != nil {
			return n, err
		}
		for rows.Next() {
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return n, err
		}
		lat.Add(time.Since(start))
	}
}
