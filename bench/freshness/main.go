// Command freshness measures how long a written row takes to become
// visible to a reader: INSERT on one connection, then poll a SELECT on
// another until it returns a row. See package bench for usage.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
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
	n        int
	setup    stringList
	insert   string
	poll     string
	interval time.Duration
	timeout  time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.dsn, "dsn", "", "PostgreSQL connection string (required)")
	flag.IntVar(&c.n, "n", 100, "iterations")
	flag.Var(&c.setup, "setup", "statement to run once first (repeatable; default creates table eddy_freshness)")
	flag.StringVar(&c.insert, "insert", "INSERT INTO eddy_freshness VALUES ($1)", "statement writing row $1")
	flag.StringVar(&c.poll, "poll", "SELECT id FROM eddy_freshness WHERE id = $1", "query returning a row once $1 is visible")
	flag.DurationVar(&c.interval, "interval", 0, "pause between polls (0: poll back to back)")
	flag.DurationVar(&c.timeout, "timeout", 30*time.Second, "give up on a row after this long")
	flag.Parse()
	if c.setup == nil {
		c.setup = stringList{"CREATE TABLE IF NOT EXISTS eddy_freshness (id bigint PRIMARY KEY)"}
	}
	if c.dsn == "" || c.n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "freshness:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	writer, err := pgx.Connect(ctx, c.dsn)
	if err != nil {
		return fmt.Errorf("connecting writer: %w", err)
	}
	defer func() { _ = writer.Close(ctx) }()
	reader, err := pgx.Connect(ctx, c.dsn)
	if err != nil {
		return fmt.Errorf("connecting reader: %w", err)
	}
	defer func() { _ = reader.Close(ctx) }()
	for _, s := range c.setup {
		if _, err := writer.Exec(ctx, s); err != nil {
			return fmt.Errorf("setup %q: %w", s, err)
		}
	}
	var commit, visible bench.Latencies
	polls := 0
	base := time.Now().UnixNano() // ids unique across runs without a cleanup step
	for i := range c.n {
		p, err := once(ctx, writer, reader, c, base+int64(i), &commit, &visible)
		if err != nil {
			return fmt.Errorf("iteration %d: %w", i, err)
		}
		polls += p
	}
	fmt.Printf("n=%d insert=%q poll=%q\n", c.n, c.insert, c.poll)
	fmt.Printf("commit  %s\n", commit.Summary())
	fmt.Printf("visible %s (%.1f polls/row)\n", visible.Summary(), float64(polls)/float64(c.n))
	return nil
}

// once writes row id and polls until it is visible, recording the commit
// and visibility latencies; it returns the number of polls.
func once(ctx context.Context, writer, reader *pgx.Conn, c config, id int64, commit, visible *bench.Latencies) (int, error) {
	start := time.Now()
	if _, err := writer.Exec(ctx, c.insert, id); err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	commit.Add(time.Since(start))
	for polls := 1; ; polls++ {
		seen, err := hasRow(ctx, reader, c.poll, id)
		if err != nil {
			return polls, fmt.Errorf("poll: %w", err)
		}
		if seen {
			visible.Add(time.Since(start))
			return polls, nil
		}
		if time.Since(start) > c.timeout {
			return polls, fmt.Errorf("row %d not visible after %v", id, c.timeout)
		}
		time.Sleep(c.interval)
	}
}

// hasRow reports whether query($1 = id) returns at least one row.
func hasRow(ctx context.Context, conn *pgx.Conn, query string, id int64) (bool, error) {
	rows, err := conn.Query(ctx, query, id)
	if err != nil {
		return false, err
	}
	seen := rows.Next()
	rows.Close()
	return seen, rows.Err()
}
