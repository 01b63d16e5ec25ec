package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

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
