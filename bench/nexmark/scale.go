package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/eddydb/eddy/bench/nexmark/queries"
)

// workerCounts parses -workers: one count or a comma-separated list.
func workerCounts(s string) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-workers %q: want positive counts separated by commas", s)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

// parseWorkers checks -workers and sets the count a single run (or a
// child) uses: the first of the list.
func (o *options) parseWorkers() error {
	counts, err := workerCounts(o.workersList)
	if err != nil {
		return err
	}
	if o.rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", o.rounds)
	}
	o.workers = counts[0]
	return nil
}

// scaleRun is one child run of the scaling mode.
type scaleRun struct {
	Result
	workers int
	load    float64 // 1-minute load average when the run ended
}

// runScaling runs every query at each worker count, rounds times, the
// counts of one query back to back (their order reversed every other
// round, so that a drift of the shared machine's load falls on each
// count alike), and prints every run and then, per query, the medians
// and the ratios of the last count to the first.
func runScaling(qs []queries.Query, counts []int, o options) error {
	fmt.Printf("workers %v, %d round(s); load average (1 min) at start %.1f\n", counts, o.rounds, loadAverage())
	runs := map[string][]scaleRun{}
	for _, q := range qs {
		for round := range o.rounds {
			order := slices.Clone(counts)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, w := range order {
				oc := o
				oc.workers = w
				r := runChild(q.Name, oc)
				sr := scaleRun{Result: r, workers: w, load: loadAverage()}
				fmt.Fprintf(os.Stderr, "w=%d round %d load %.1f  %s\n", w, round+1, sr.load, r.line())
				runs[q.Name] = append(runs[q.Name], sr)
			}
		}
	}
	printScaling(os.Stdout, qs, counts, runs)
	return nil
}

// printScaling prints one row per query: per worker count the median
// events/s and CPU-s per M events (every run's figure after it), and the
// last count's medians over the first's.
func printScaling(w io.Writer, qs []queries.Query, counts []int, runs map[string][]scaleRun) {
	first, last := counts[0], counts[len(counts)-1]
	fmt.Fprint(w, "| query |")
	for _, c := range counts {
		fmt.Fprintf(w, " %dw events/s | %dw CPU-s/M |", c, c)
	}
	fmt.Fprintf(w, " events/s %dw÷%dw | CPU-s/M %dw÷%dw | peak RSS | load |\n", last, first, last, first)
	fmt.Fprint(w, "| --- |")
	for range counts {
		fmt.Fprint(w, " ---: | ---: |")
	}
	fmt.Fprintln(w, " ---: | ---: | ---: | --- |")
	for _, q := range qs {
		rs := runs[q.Name]
		fmt.Fprintf(w, "| %s |", q.Name)
		med := map[int][2]float64{}
		var errs []string
		for _, c := range counts {
			evs, cpus := figures(rs, c)
			if len(evs) == 0 {
				fmt.Fprint(w, " – | – |")
				continue
			}
			med[c] = [2]float64{median(evs), median(cpus)}
			fmt.Fprintf(w, " %s | %.2f%s |", human(med[c][0]), med[c][1], spread(cpus))
		}
		a, okA := med[first]
		b, okB := med[last]
		if okA && okB {
			fmt.Fprintf(w, " %.2f | %.2f |", b[0]/a[0], b[1]/a[1])
		} else {
			fmt.Fprint(w, " – | – |")
		}
		var rss int64
		lo, hi := 1e9, 0.0
		for _, r := range rs {
			rss = max(rss, r.PeakRSSMB)
			lo, hi = min(lo, r.load), max(hi, r.load)
			if r.Error != "" {
				errs = append(errs, fmt.Sprintf("%dw: %s", r.workers, r.Error))
			}
		}
		fmt.Fprintf(w, " %d MB | %.1f–%.1f %s|\n", rss, lo, hi, strings.ReplaceAll(strings.Join(errs, "; "), "|", "\\|"))
	}
}

// figures returns the events/s and CPU-s per M events of a count's
// successful runs.
func figures(rs []scaleRun, workers int) (evs, cpus []float64) {
	for _, r := range rs {
		if r.workers == workers && r.Error == "" {
			evs = append(evs, r.EventsPerSec)
			cpus = append(cpus, r.CPUPerMillion)
		}
	}
	return evs, cpus
}

// spread prints a count's runs after its median when there are several.
func spread(v []float64) string {
	if len(v) < 2 {
		return ""
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// loadAverage returns the machine's 1-minute load average (0 when
// /proc/loadavg cannot be read).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
