package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// report is everything one run measured, printed as Markdown for
// BENCHMARKS.md.
type report struct {
	o       options
	w       *workload
	machine string
	genTime time.Duration
	pg      *loadResult // nil when PostgreSQL was not measured
	eddy    *loadResult
	base    *loadResult // -per-view: the load with no views
	perView []viewRun
}

func (r *report) print(out io.Writer) {
	rows := r.w.loadRows()
	fmt.Fprintf(out, "\nTPC-H SF %g (seed %d), %d views, %s rows loaded in COPY pieces of %s rows; machine: %s.\n",
		r.o.sf, r.o.seed, len(r.w.views), commas(rows), commas(int64(r.o.chunk)), r.machine)
	fmt.Fprintf(out, "Raw data: %s in PostgreSQL's text form", mb(r.w.rawBytes()))
	if r.pg != nil {
		fmt.Fprintf(out, ", %s as PostgreSQL tables with their primary-key indexes (pg_total_relation_size)", mb(r.pg.RelationSum))
	}
	fmt.Fprintln(out, ".")
	r.printLoad(out, rows)
	r.printRefresh(out)
	r.printStepCPU(out)
	r.printCounts(out)
	r.printState(out)
	if r.o.perView {
		r.printPerView(out)
	}
}

// printLoad prints the load table.
func (r *report) printLoad(out io.Writer, rows int64) {
	fmt.Fprintln(out, "\n| load | views | wall | CPU-s | rows per CPU-s | peak RSS | live heap after | data dir |")
	fmt.Fprintln(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	e := r.eddy
	if e.Error != "" {
		fmt.Fprintf(out, "| Eddy, views created before the data | %d | – | – | – | – | – | – |\n\n**Eddy stopped:** %s\n\n", e.Views, e.Error)
	} else {
		fmt.Fprintf(out, "| Eddy, views created before the data | %d | %s | %.2f | %s | %s | %s | %s |\n", e.Views,
			secs(e.Load.Wall), e.Load.CPU.Seconds(), perSec(rows, e.Load.CPU), mb(e.PeakRSS), mb(e.Heap), mb(e.Disk))
	}
	if b := r.base; b != nil && b.Error == "" {
		fmt.Fprintf(out, "| Eddy, no views | 0 | %s | %.2f | %s | %s | %s | %s |\n",
			secs(b.Load.Wall), b.Load.CPU.Seconds(), perSec(rows, b.Load.CPU), mb(b.PeakRSS), mb(b.Heap), mb(b.Disk))
	}
	if p := r.pg; p != nil {
		fmt.Fprintf(out, "| PostgreSQL, plain tables | 0 | %s | %.2f | %s | – | – | – |\n",
			secs(p.Load.Wall), p.Load.CPU.Seconds(), perSec(rows, p.Load.CPU))
		if r.o.pgIndexes {
			fmt.Fprintf(out, "| PostgreSQL, then CREATE INDEX on lineitem (l_partkey, l_suppkey), orders (o_custkey); ANALYZE | 0 | %s | %.2f | – | – | – | – |\n",
				secs(p.Index.Wall), p.Index.CPU.Seconds())
		}
		fmt.Fprintf(out, "| PostgreSQL, then CREATE MATERIALIZED VIEW of each | %d | %s | %.2f | – | – | – | – |\n",
			p.Views, secs(p.Create.Wall), p.Create.CPU.Seconds())
	}
}

// printRefresh prints the refresh table: Eddy's commit (every view
// maintained in it) against PostgreSQL's batch plus REFRESH of every view.
func (r *report) printRefresh(out io.Writer) {
	if r.eddy.Error != "" && r.pg == nil {
		return
	}
	fmt.Fprintln(out, "\n| refresh | Eddy wall | Eddy CPU-s | PostgreSQL wall (batch + REFRESH of each view) | PostgreSQL CPU-s | PostgreSQL / Eddy wall | PostgreSQL / Eddy CPU |")
	fmt.Fprintln(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, name := range refreshBatches {
		e, measured := r.eddy.Refresh[name]
		pct := fmt.Sprintf("%g%%", float64(max(r.o.rfPermille, 1))/10)
		label := map[string]string{"rf1": "rf1: " + pct + " new orders", "rf2": "rf2: " + pct + " orders deleted"}[name]
		if r.pg == nil {
			fmt.Fprintf(out, "| %s | %s | %.3f | – | – | – | – |\n", label, ms(e.Wall), e.CPU.Seconds())
			continue
		}
		p := r.pg.Refresh[name]
		if !measured {
			fmt.Fprintf(out, "| %s | – | – | %s | %.2f | – | – |\n", label, ms(p.Wall), p.CPU.Seconds())
			continue
		}
		fmt.Fprintf(out, "| %s | %s | %.3f | %s | %.2f | %s | %s |\n", label, ms(e.Wall), e.CPU.Seconds(),
			ms(p.Wall), p.CPU.Seconds(), ratio(p.Wall, e.Wall), ratio(p.CPU, e.CPU))
	}
	fmt.Fprintln(out, "\nCPU-s are read from /proc: Eddy's refresh from its threads' schedstat (nanoseconds), everything else in 10 ms ticks; Eddy's is its own process (a child of the benchmark), PostgreSQL's its postmaster and backends.")
}

// printCounts compares the contents of Eddy's views with PostgreSQL's
// materialized views after the load and each batch.
func (r *report) printCounts(out io.Writer) {
	if r.pg == nil || r.eddy.Error != "" {
		return
	}
	var diffs []string
	for _, stage := range append([]string{"load"}, refreshBatches...) {
		for _, q := range r.w.views {
			if d := diffRows(r.eddy.Rows[stage][q.Name], r.pg.Rows[stage][q.Name]); d != "" {
				diffs = append(diffs, fmt.Sprintf("%s after %s: %s", q.Name, stage, d))
			}
		}
	}
	if len(diffs) == 0 {
		fmt.Fprintf(out, "Every view has PostgreSQL's contents (every row, as text) after the load and after each batch.\n")
		return
	}
	fmt.Fprintf(out, "\n**Views differ from PostgreSQL:**\n\n- %s\n", strings.Join(diffs, "\n- "))
}

// maxDiffRows bounds how many differing rows diffRows prints per side.
const maxDiffRows = 3

// diffRows describes how two sorted multisets of rows differ (counts and a
// few rows of each side), or returns "" when they are equal.
func diffRows(eddy, pg []string) string {
	var onlyEddy, onlyPG []string
	i, j := 0, 0
	for i < len(eddy) || j < len(pg) {
		switch {
		case j == len(pg) || (i < len(eddy) && eddy[i] < pg[j]):
			onlyEddy = append(onlyEddy, eddy[i])
			i++
		case i == len(eddy) || pg[j] < eddy[i]:
			onlyPG = append(onlyPG, pg[j])
			j++
		default:
			i, j = i+1, j+1
		}
	}
	if len(onlyEddy) == 0 && len(onlyPG) == 0 {
		return ""
	}
	return fmt.Sprintf("eddy %d rows, postgres %d; only in eddy %d %s; only in postgres %d %s",
		len(eddy), len(pg), len(onlyEddy), sample(onlyEddy), len(onlyPG), sample(onlyPG))
}

// sample quotes up to maxDiffRows rows.
func sample(rows []string) string {
	if len(rows) > maxDiffRows {
		rows = rows[:maxDiffRows]
	}
	return "`" + strings.Join(rows, "`, `") + "`"
}

// printPerView prints each view's state: its Eddy run over the run with no
// views, per row of the tables it reads.
func (r *report) printPerView(out io.Writer) {
	if r.base.Error != "" {
		fmt.Fprintf(out, "\n**Per-view baseline stopped:** %s\n", r.base.Error)
		return
	}
	fmt.Fprintln(out, "\n| view alone | input rows | view rows | load CPU-s | peak RSS over no views | bytes per input row | live heap over no views | bytes per input row | data dir over no views |")
	fmt.Fprintln(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var sumRSS, sumHeap, sumDisk int64
	for _, v := range r.perView {
		if v.Result.Error != "" {
			fmt.Fprintf(out, "| %s | %s | – | – | – | – | – | – | – |\n", v.Query.Name, commas(v.InputRows))
			fmt.Fprintf(out, "\n**%s stopped:** %s\n\n", v.Query.Name, v.Result.Error)
			continue
		}
		sumRSS, sumHeap, sumDisk = sumRSS+v.RSS, sumHeap+v.Heap, sumDisk+v.Disk
		fmt.Fprintf(out, "| %s | %s | %s | %.2f | %s | %s | %s | %s | %s |\n", v.Query.Name, commas(v.InputRows), commas(v.Rows),
			v.Result.Load.CPU.Seconds(), mb(v.RSS), perRow(v.RSS, v.InputRows), mb(v.Heap), perRow(v.Heap, v.InputRows), mb(v.Disk))
	}
	rows := r.w.loadRows()
	fmt.Fprintf(out, "| sum of the views alone | %s | | | %s | %s | %s | %s | %s |\n", commas(rows),
		mb(sumRSS), perRow(sumRSS, rows), mb(sumHeap), perRow(sumHeap, rows), mb(sumDisk))
	if e := r.eddy; e.Error == "" {
		fmt.Fprintf(out, "| all views in one server | %s | | %.2f | %s | %s | %s | %s | %s |\n", commas(rows), e.Load.CPU.Seconds(),
			mb(e.PeakRSS-r.base.PeakRSS), perRow(e.PeakRSS-r.base.PeakRSS, rows), mb(e.Heap-r.base.Heap),
			perRow(e.Heap-r.base.Heap, rows), mb(e.Disk-r.base.Disk))
	}
	raw := r.w.rawBytes()
	fmt.Fprintf(out, "| raw data (text form) | %s | | | %s | %s | | | |\n", commas(rows), mb(raw), perRow(raw, rows))
	if r.pg != nil {
		fmt.Fprintf(out, "| PostgreSQL tables + indexes | %s | | | %s | %s | | | |\n", commas(rows), mb(r.pg.RelationSum), perRow(r.pg.RelationSum, rows))
	}
}

// commas prints 1234567 as 1,234,567.
func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func mb(b int64) string           { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
func ms(d time.Duration) string   { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
func perRow(b, rows int64) string { return fmt.Sprintf("%.0f", float64(b)/float64(max(rows, 1))) }
func perSec(n int64, d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	return commas(int64(float64(n) / d.Seconds()))
}

// ratio prints a/b, or – when b is too small to divide by.
func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f×", float64(a)/float64(b))
}
