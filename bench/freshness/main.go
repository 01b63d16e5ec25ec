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
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, "; ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var c bench.FreshConfig
	var setup stringList
	flag.StringVar(&c.DSN, "dsn", "", "PostgreSQL connection string (required)")
	flag.IntVar(&c.N, "n", 100, "iterations")
	flag.Var(&setup, "setup", "statement to run once first (repeatable; default creates table eddy_freshness)")
	flag.StringVar(&c.Insert, "insert", "INSERT INTO eddy_freshness VALUES ($1)", "statement writing row $1")
	flag.StringVar(&c.Poll, "poll", "SELECT id FROM eddy_freshness WHERE id = $1", "query returning a row once $1 is visible")
	flag.DurationVar(&c.Interval, "interval", 0, "pause between polls (0: poll back to back)")
	flag.DurationVar(&c.Timeout, "timeout", 30*time.Second, "give up on a row after this long")
	flag.Parse()
	c.Setup = setup
	if c.Setup == nil {
		c.Setup = []string{"CREATE TABLE IF NOT EXISTS eddy_freshness (id bigint PRIMARY KEY)"}
	}
	if c.DSN == "" || c.N < 1 {
		flag.Usage()
		os.Exit(2)
	}
	r, err := bench.RunFreshness(context.Background(), c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "freshness:", err)
		os.Exit(1)
	}
	fmt.Printf("n=%d insert=%q poll=%q\n", c.N, c.Insert, c.Poll)
	fmt.Printf("commit  %s\n", r.Commit.Summary())
	fmt.Printf("visible %s (%.1f polls/row)\n", r.Visible.Summary(), r.PollsPerRow())
}
