package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// viewState is one view's operator state after the load, as Eddy reports
// it in eddy_catalog.eddy_dataflow_operators (the sum over the view's
// nodes; shared arrangements are indexes, not the view's).
type viewState struct {
	Name        string
	Rows, Bytes int64
	// Unsized counts the nodes that keep state but report no bytes
	// (none since every Reduce form sizes its multisets and key sets).
	Unsized int64
}

// stateQuery sums each view's operator state; autoIndexQuery the
// automatic indexes Eddy created for the views' joins (shared by them).
const (
	stateQuery = `SELECT viewname::text, coalesce(sum(state_rows), 0)::bigint, coalesce(sum(state_bytes), 0)::bigint,
		sum(CASE WHEN state_rows IS NOT NULL AND state_bytes IS NULL THEN 1 ELSE 0 END)::bigint
		FROM eddy_catalog.eddy_dataflow_operators GROUP BY viewname ORDER BY viewname`
	autoIndexQuery = `SELECT coalesce(sum(entries), 0)::bigint, coalesce(sum(bytes), 0)::bigint
		FROM eddy_catalog.eddy_indexes WHERE kind = 'automatic'`
)

// readState returns every view's operator state and the automatic
// indexes' entries and bytes, read from one loaded Eddy.
func readState(ctx context.Context, c *pgconn.PgConn) (views []viewState, autoRows, autoBytes int64, err error) {
	res, err := c.Exec(ctx, stateQuery).ReadAll()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("reading operator state: %w", err)
	}
	for _, r := range res[0].Rows {
		v := viewState{Name: string(r[0])}
		if v.Rows, err = strconv.ParseInt(string(r[1]), 10, 64); err == nil {
			v.Bytes, err = strconv.ParseInt(string(r[2]), 10, 64)
		}
		if err == nil {
			v.Unsized, err = strconv.ParseInt(string(r[3]), 10, 64)
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("operator state of %s: %w", v.Name, err)
		}
		views = append(views, v)
	}
	res, err = c.Exec(ctx, autoIndexQuery).ReadAll()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("reading automatic indexes: %w", err)
	}
	if autoRows, err = strconv.ParseInt(string(res[0].Rows[0][0]), 10, 64); err == nil {
		autoBytes, err = strconv.ParseInt(string(res[0].Rows[0][1]), 10, 64)
	}
	return views, autoRows, autoBytes, err
}

// printState prints each view's operator state per row of the tables it
// reads, largest first, and the total against the raw data.
func (r *report) printState(out io.Writer) {
	e := r.eddy
	if e.Error != "" || len(e.State) == 0 {
		return
	}
	byName := map[string]int64{}
	for _, q := range r.w.views {
		byName[q.Name] = r.w.inputRows(q)
	}
	views := slices.Clone(e.State)
	slices.SortStableFunc(views, func(a, b viewState) int { return int(b.Bytes - a.Bytes) })
	fmt.Fprintln(out, "\n| operator state after the load (eddy_dataflow_operators) | input rows | state rows | state bytes | bytes per input row | nodes without bytes |")
	fmt.Fprintln(out, "| --- | ---: | ---: | ---: | ---: | ---: |")
	var rows, bytes int64
	for _, v := range views {
		rows, bytes = rows+v.Rows, bytes+v.Bytes
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %d |\n", v.Name, commas(byName[v.Name]), commas(v.Rows), mb(v.Bytes),
			perRow(v.Bytes, byName[v.Name]), v.Unsized)
	}
	all := r.w.loadRows()
	fmt.Fprintf(out, "| all views | %s | %s | %s | %s | |\n", commas(all), commas(rows), mb(bytes), perRow(bytes, all))
	fmt.Fprintf(out, "| automatic indexes (shared by the views) | %s | %s | %s | %s | |\n", commas(all), commas(e.AutoRows), mb(e.AutoBytes), perRow(e.AutoBytes, all))
	raw := r.w.rawBytes()
	fmt.Fprintf(out, "| raw data (text form) | %s | | %s | %s | |\n", commas(all), mb(raw), perRow(raw, all))
	fmt.Fprintf(out, "\nViews' operator state plus automatic indexes: %.1f× the raw text (estimates sampled by the operators; the tables themselves are not counted).\n",
		float64(bytes+e.AutoBytes)/float64(max(raw, 1)))
}

// stepCPUQuery reads each view's step count and the CPU time of its steps
// since the server started (eddy_dataflow_operators repeats them on each
// node of the view).
const stepCPUQuery = `SELECT viewname::text, max(step_cpu_ns)::bigint
	FROM eddy_catalog.eddy_dataflow_operators GROUP BY viewname ORDER BY viewname`

// readStepCPU returns each view's CPU time of maintenance so far, by view.
func readStepCPU(ctx context.Context, c *pgconn.PgConn) (map[string]time.Duration, error) {
	res, err := c.Exec(ctx, stepCPUQuery).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading views' step CPU: %w", err)
	}
	out := map[string]time.Duration{}
	for _, r := range res[0].Rows {
		ns, err := strconv.ParseInt(string(r[1]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("step CPU of %s: %w", r[0], err)
		}
		out[string(r[0])] = time.Duration(ns)
	}
	return out, nil
}

// stepCPUSince returns each view's CPU time since before (readStepCPU).
func stepCPUSince(ctx context.Context, c *pgconn.PgConn, before map[string]time.Duration) (map[string]time.Duration, error) {
	after, err := readStepCPU(ctx, c)
	for v, d := range after {
		after[v] = d - before[v]
	}
	return after, err
}

// printStepCPU prints each view's share of each refresh batch, most
// expensive first (by the sum over the batches), against the batch's
// CPU-s: what is not in a view is the statements' parsing and planning,
// the tables' writes and the commit.
func (r *report) printStepCPU(out io.Writer) {
	e := r.eddy
	if e.Error != "" || len(e.StepCPU) == 0 {
		return
	}
	sum := map[string]time.Duration{}
	var names []string
	for _, q := range r.w.views {
		names = append(names, q.Name)
		for _, b := range refreshBatches {
			sum[q.Name] += e.StepCPU[b][q.Name]
		}
	}
	slices.SortStableFunc(names, func(a, b string) int { return int(sum[b] - sum[a]) })
	fmt.Fprintln(out, "\n| view maintenance per batch (CPU ms, the process's while the view stepped) | rf1 | rf1 share | rf2 | rf2 share |")
	fmt.Fprintln(out, "| --- | ---: | ---: | ---: | ---: |")
	total := map[string]time.Duration{}
	for _, n := range names {
		fmt.Fprintf(out, "| %s", n)
		for _, b := range refreshBatches {
			d := e.StepCPU[b][n]
			total[b] += d
			fmt.Fprintf(out, " | %.2f | %s", msf(d), share(d, e.Refresh[b].CPU))
		}
		fmt.Fprintln(out, " |")
	}
	fmt.Fprint(out, "| all views")
	for _, b := range refreshBatches {
		fmt.Fprintf(out, " | %.2f | %s", msf(total[b]), share(total[b], e.Refresh[b].CPU))
	}
	fmt.Fprint(out, " |\n| the whole batch (CPU-s above)")
	for _, b := range refreshBatches {
		fmt.Fprintf(out, " | %.2f | 100%%", msf(e.Refresh[b].CPU))
	}
	fmt.Fprintln(out, " |")
}

// msf is d in milliseconds.
func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// share is d as a percentage of whole.
func share(d, whole time.Duration) string {
	if whole <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(d)/float64(whole))
}
