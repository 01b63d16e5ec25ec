package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/eddydb/eddy/bench/nexmark/queries"
	"github.com/eddydb/eddy/server"
)

// options are the command-line flags; a child process gets the same ones.
type options struct {
	events, warmup, rate int64
	queries              string
	cpuprofile           string
	heapprofile          string
	memcheck             int64
	stall                time.Duration
	maxRSS               int64 // MB; 0: half of physical memory
	memoryLimit          string
	workers              int
	workersList          string // -workers as given: one count, or several to compare
	rounds               int
	extra                string // file of more views, after queries.sql's
	child                string
}

func main() {
	var o options
	flag.Int64Var(&o.events, "events", 10_000_000, "measured events per query")
	flag.Int64Var(&o.warmup, "warmup", 1_000_000, "warm-up events before the measured ones")
	flag.Int64Var(&o.rate, "rate", 100_000, "event-time rate (nexmark.event.rate, events per second of event time)")
	flag.StringVar(&o.queries, "queries", "", "comma-separated queries to run (default: all of queries.sql)")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "directory for one CPU profile per query (measured phase) and one heap profile at its end")
	flag.StringVar(&o.heapprofile, "heapprofile", "", "directory for a heap profile per query at each -memcheck sample and when it stalls")
	flag.Int64Var(&o.memcheck, "memcheck", 0, "sample RSS and live heap every N events (0: off)")
	flag.DurationVar(&o.stall, "stall", 2*time.Minute, "give up on a query when no source advances for this long")
	flag.Int64Var(&o.maxRSS, "maxrss", 0, "stop a query whose RSS exceeds this many MB (0: half of physical memory), so unbounded state cannot exhaust a shared machine")
	flag.StringVar(&o.memoryLimit, "memory-limit", "", "the server's --memory-limit (e.g. 1GiB; default: the server's own default): state past it spills to disk")
	flag.StringVar(&o.workersList, "workers", "1", "the server's --workers: each view's grouping, join and top-k operators run as this many shards, concurrently; a list (1,2) runs every query at each count in turn and prints their scaling")
	flag.IntVar(&o.rounds, "rounds", 1, "with a -workers list: run each query's counts this many times, alternating their order, and report medians")
	flag.StringVar(&o.extra, "extra", "", "a file of more CREATE [MATERIALIZED] VIEW statements over the Nexmark sources, run as queries after queries.sql's (e.g. bench/nexmark/global.sql)")
	flag.StringVar(&o.child, "child", "", "internal: run this one query and print its result as JSON")
	flag.Parse()
	if err := o.parseWorkers(); err != nil {
		fmt.Fprintln(os.Stderr, "nexmark:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "nexmark:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	text := queries.SQL
	if o.extra != "" {
		b, err := os.ReadFile(o.extra)
		if err != nil {
			return err
		}
		text += "\n" + string(b)
	}
	suite, err := queries.ParseSuite(text)
	if err != nil {
		return err
	}
	if o.child != "" {
		qs, err := suite.Select(o.child)
		if err != nil {
			return err
		}
		// The child measures the server as the eddy binary runs it, with
		// the same garbage-collector policy.
		server.TuneGC()
		res := runQuery(suite, qs[0], o)
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	qs, err := suite.Select(o.queries)
	if err != nil {
		return err
	}
	fmt.Printf("Nexmark: %d warm-up + %d measured events per query, event rate %d/s, %d queries\n",
		o.warmup, o.events, o.rate, len(qs))
	if counts, _ := workerCounts(o.workersList); len(counts) > 1 || o.rounds > 1 {
		return runScaling(qs, counts, o)
	}
	var results []Result
	for _, q := range qs {
		r := runChild(q.Name, o)
		fmt.Fprintln(os.Stderr, r.line())
		results = append(results, r)
		if o.memcheck > 0 {
			printSamples(os.Stdout, r)
		}
	}
	printTable(os.Stdout, results)
	return nil
}

// runChild runs one query in a child process (its own heap and peak RSS)
// and decodes its result.
func runChild(name string, o options) Result {
	self, err := os.Executable()
	if err != nil {
		return Result{Query: name, Error: err.Error()}
	}
	args := []string{"-child", name, "-events", fmt.Sprint(o.events), "-warmup", fmt.Sprint(o.warmup),
		"-rate", fmt.Sprint(o.rate), "-memcheck", fmt.Sprint(o.memcheck), "-stall", o.stall.String(), "-maxrss", fmt.Sprint(o.maxRSS),
		"-workers", fmt.Sprint(o.workers)}
	if o.cpuprofile != "" {
		args = append(args, "-cpuprofile", o.cpuprofile)
	}
	if o.heapprofile != "" {
		args = append(args, "-heapprofile", o.heapprofile)
	}
	if o.memoryLimit != "" {
		args = append(args, "-memory-limit", o.memoryLimit)
	}
	if o.extra != "" {
		args = append(args, "-extra", o.extra)
	}
	cmd := exec.Command(self, args...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	runErr := cmd.Run()
	var r Result
	if err := json.Unmarshal(lastLine(stdout.Bytes()), &r); err != nil {
		msg := fmt.Sprintf("child failed: %v", runErr)
		if runErr == nil {
			msg = fmt.Sprintf("child printed no result: %v", err)
		}
		return Result{Query: name, Error: msg}
	}
	return r
}

func lastLine(b []byte) []byte {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			last = append(last[:0], sc.Bytes()...)
		}
	}
	return last
}

// printTable prints the results as a Markdown table.
func printTable(w io.Writer, rs []Result) {
	fmt.Fprintln(w, "| query | events/s | CPU-s per M events | cores used | events/s per core | peak RSS | view rows | note |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(w, "| %s | – | – | – | – | – | – | %s |\n", r.Query, strings.ReplaceAll(r.Error, "|", "\\|"))
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %s | %d MB | %d | %s |\n", r.Query, human(r.EventsPerSec),
			r.CPUPerMillion, r.Cores, human(r.PerCore), r.PeakRSSMB, r.ViewRows, r.note())
	}
}

// printSamples prints the memory samples of a -memcheck run.
func printSamples(w io.Writer, r Result) {
	fmt.Fprintf(w, "memcheck %s (events, RSS MB, Go runtime MB, heap objects MB):", r.Query)
	for _, s := range r.Samples {
		fmt.Fprintf(w, " %s:%d/%d/%d", human(float64(s.Events)), s.RSSMB, s.GoMB, s.HeapMB)
	}
	fmt.Fprintln(w)
}

// human prints 1234567 as 1.23M and 12345 as 12.3K.
func human(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fK", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
