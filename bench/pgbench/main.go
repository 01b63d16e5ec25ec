// Command pgbench measures prepared point-query throughput and latency
// over several PostgreSQL wire connections. See package bench for usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/eddydb/eddy/bench"
	"github.com/jackc/pgx/v5"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, "; ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

type config struct {
	dsn      string
	conns    int
	duration time.Duration
	warmup   time.Duration
	query    string
	keys     int64
	setup    stringList
}

func main() {
	var c config
	flag.StringVar(&c.dsn, "dsn", "", "PostgreSQL connection string (required)")
	flag.IntVar(&c.conns, "conns", 8, "number of connections, one goroutine each")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "measured run time")
	flag.DurationVar(&c.warmup, "warmup", time.Second, "unmeasured run time before measuring")
	flag.StringVar(&c.query, "query", "SELECT $1::int", "query to prepare; $1 is the key")
	flag.Int64Var(&c.keys, "keys", 1000, "keys are drawn uniformly from [0, keys)")
	flag.Var(&c.setup, "setup", "statement to run once before the benchmark (repeatable)")
	flag.Parse()
	if c.dsn == "" || c.conns < 1 || c.keys < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "pgbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	if err := runSetup(ctx, c.dsn, c.setup); err != nil {
		return err
	}
	conns, err := connectAll(ctx, c)
	if err != nil {
		return err
	}
	defer func() {
		for _, conn := range conns {
			_ = conn.Close(ctx)
		}
	}()
	if c.warmup > 0 {
		if _, _, err := measure(ctx, conns, c, c.warmup); err != nil {
			return fmt.Errorf("warmup: %w", err)
		}
	}
	lat, rows, err := measure(ctx, conns, c, c.duration)
	if err != nil {
		return err
	}
	fmt.Printf("conns=%d duration=%v keys=%d query=%q\n", c.conns, c.duration, c.keys, c.query)
	fmt.Printf("qps=%.0f rows/query=%.2f latency %s\n", float64(lat.Len())/c.duration.Seconds(),
		float64(rows)/float64(max(lat.Len(), 1)), lat.Summary())
	return nil
}

// runSetup executes each setup statement on a fresh connection.
func runSetup(ctx context.Context, dsn string, stmts []string) error {
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

// connectAll opens c.conns connections and prepares the query on each as
// statement "q".
func connectAll(ctx context.Context, c config) ([]*pgx.Conn, error) {
	conns := make([]*pgx.Conn, 0, c.conns)
	for range c.conns {
		conn, err := pgx.Connect(ctx, c.dsn)
		if err == nil {
			_, err = conn.Prepare(ctx, "q", c.query)
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

// measure runs the prepared query on every connection in a closed loop
// for d and returns the merged per-query latencies and the rows read (a
// check that the query finds its keys).
func measure(ctx context.Context, conns []*pgx.Conn, c config, d time.Duration) (*bench.Latencies, int64, error) {
	deadline := time.Now().Add(d)
	results := make([]bench.Latencies, len(conns))
	rows := make([]int64, len(conns))
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows[i], errs[i] = loop(ctx, conn, c.keys, deadline, &results[i], uint64(i))
		}()
	}
	wg.Wait()
	var all bench.Latencies
	var total int64
	for i := range results {
		all.Merge(&results[i])
		total += rows[i]
	}
	return &all, total, errors.Join(errs...)
}

// loop runs queries on conn until deadline, recording each latency, and
// returns the number of rows read.
func loop(ctx context.Context, conn *pgx.Conn, keys int64, deadline time.Time, lat *bench.Latencies, seed uint64) (int64, error) {
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
