// Command pgbench measures prepared point-query throughput and latency
// over several PostgreSQL wire connections against any server. See
// package bench for usage; bench/suite runs it against an in-process Eddy
// and PostgreSQL.
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
	var c bench.QPSConfig
	var setup stringList
	flag.StringVar(&c.DSN, "dsn", "", "PostgreSQL connection string (required)")
	flag.IntVar(&c.Conns, "conns", 8, "number of connections, one goroutine each")
	flag.DurationVar(&c.Duration, "duration", 10*time.Second, "measured run time")
	flag.DurationVar(&c.Warmup, "warmup", time.Second, "unmeasured run time before measuring")
	flag.StringVar(&c.Query, "query", "SELECT $1::int", "query to prepare; $1 is the key")
	flag.Int64Var(&c.Keys, "keys", 1000, "keys are drawn uniformly from [0, keys)")
	flag.Var(&setup, "setup", "statement to run once before the benchmark (repeatable)")
	flag.Parse()
	c.Setup = setup
	if c.DSN == "" || c.Conns < 1 || c.Keys < 1 {
		flag.Usage()
		os.Exit(2)
	}
	r, err := bench.RunQPS(context.Background(), c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgbench:", err)
		os.Exit(1)
	}
	fmt.Printf("conns=%d duration=%v keys=%d query=%q\n", c.Conns, c.Duration, c.Keys, c.Query)
	fmt.Printf("qps=%.0f rows/query=%.2f latency %s\n", r.QPS(), r.RowsPerQuery(), r.Latency.Summary())
}
