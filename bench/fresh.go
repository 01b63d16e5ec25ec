package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// FreshConfig describes a freshness run: N times, Insert writes row $1 on
// a writer connection and Poll (returning a row once $1 is visible) runs on
// a reader connection until it sees it.
type FreshConfig struct {
	DSN      string
	N        int
	Setup    []string
	Insert   string
	Poll     string
	Interval time.Duration // pause between polls (0: back to back)
	Timeout  time.Duration // give up on a row after this long
}

// FreshResult holds the commit latency (INSERT sent to acknowledged) and the
// visibility latency (INSERT sent to the first poll that sees the row).
type FreshResult struct {
	Commit, Visible Latencies
	Polls           int
}

// PollsPerRow is the mean number of polls until a row was visible.
func (r *FreshResult) PollsPerRow() float64 {
	return float64(r.Polls) / float64(max(r.Visible.Len(), 1))
}

// RunFreshness runs the setup on the writer, then the N iterations with
// ids unique across runs (no cleanup step needed).
func RunFreshness(ctx context.Context, c FreshConfig) (*FreshResult, error) {
	writer, err := pgx.Connect(ctx, c.DSN)
	if err != nil {
		return nil, fmt.Errorf("connecting writer: %w", err)
	}
	defer func() { _ = writer.Close(ctx) }()
	reader, err := pgx.Connect(ctx, c.DSN)
	if err != nil {
		return nil, fmt.Errorf("connecting reader: %w", err)
	}
	defer func() { _ = reader.Close(ctx) }()
	for _, s := range c.Setup {
		if _, err := writer.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("setup %q: %w", s, err)
		}
	}
	res := &FreshResult{}
	base := time.Now().UnixNano()
	for i := range c.N {
		if err := freshOnce(ctx, writer, reader, c, base+int64(i), res); err != nil {
			return nil, fmt.Errorf("iteration %d: %w", i, err)
		}
	}
	return res, nil
}

// freshOnce writes row id and polls until it is visible.
func freshOnce(ctx context.Context, writer, reader *pgx.Conn, c FreshConfig, id int64, res *FreshResult) error {
	start := time.Now()
	if _, err := writer.Exec(ctx, c.Insert, id); err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	res.Commit.Add(time.Since(start))
	for {
		res.Polls++
		seen, err := hasRow(ctx, reader, c.Poll, id)
		if err != nil {
			return fmt.Errorf("poll: %w", err)
		}
		if seen {
			res.Visible.Add(time.Since(start))
			return nil
		}
		if time.Since(start) > c.Timeout {
			return fmt.Errorf("row %d not visible after %v", id, c.Timeout)
		}
		time.Sleep(c.Interval)
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
