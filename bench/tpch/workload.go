package main

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eddydb/eddy/tests/tpch"
)

// workload is what every run does to a server: the data set, the queries
// created as materialized views, and the rows per COPY.
type workload struct {
	tables  []*table
	batches []tpch.Batch
	queries []tpch.Query // all 22, in order (their Setup runs for all)
	views   []tpch.Query // those created as materialized views
	chunk   int
}

// table is a generated table held as lines of PostgreSQL's COPY text
// form: a third of the memory of one string per value, which matters at
// scale factor 1 (8.7M rows) on a machine that also runs the server.
type table struct {
	Name    string
	Columns []string
	Lines   []string // values joined by tabs, no newline
}

// newWorkload keeps d's tables as lines and its refresh batches; d's rows
// are released (set to nil) as each table is converted.
func newWorkload(d *tpch.Data, queries, views []tpch.Query, chunk int) *workload {
	w := &workload{batches: d.Batches, queries: queries, views: views, chunk: chunk}
	for _, tb := range d.Tables {
		t := &table{Name: tb.Name, Columns: tb.Columns, Lines: make([]string, len(tb.Rows))}
		for i, r := range tb.Rows {
			t.Lines[i] = strings.Join(r, "\t")
		}
		tb.Rows = nil
		w.tables = append(w.tables, t)
	}
	return w
}

// execSQL runs sql (one or more statements) on c.
func execSQL(ctx context.Context, c *pgconn.PgConn, sql string) error {
	_, err := c.Exec(ctx, sql).ReadAll()
	return err
}

// createSchema creates the eight tables and the plain views the queries
// need (Q15's revenue0).
func (w *workload) createSchema(ctx context.Context, c *pgconn.PgConn) error {
	for _, s := range tpch.Schema() {
		if err := execSQL(ctx, c, s); err != nil {
			return fmt.Errorf("%s: %w", firstLine(s), err)
		}
	}
	for _, q := range w.queries {
		for _, s := range q.Setup {
			if err := execSQL(ctx, c, s); err != nil {
				return fmt.Errorf("%s setup: %w", q.Name, err)
			}
		}
	}
	return nil
}

// createViews creates each of views as a materialized view; phase reports
// progress to the caller's watchdog.
func createViews(ctx context.Context, c *pgconn.PgConn, views []tpch.Query, phase func(string)) error {
	for _, q := range views {
		phase("CREATE MATERIALIZED VIEW " + q.Name)
		if err := execSQL(ctx, c, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", q.Name, q.SQL)); err != nil {
			return fmt.Errorf("CREATE MATERIALIZED VIEW %s: %w", q.Name, err)
		}
	}
	return nil
}

// load copies every table in pieces of w.chunk rows, each one COPY (one
// transaction: on Eddy one step of every view).
func (w *workload) load(ctx context.Context, c *pgconn.PgConn, phase func(string)) error {
	for _, tb := range w.tables {
		for lo := 0; lo < len(tb.Lines); lo += w.chunk {
			hi := min(lo+w.chunk, len(tb.Lines))
			phase(fmt.Sprintf("the load of %s (rows %d-%d)", tb.Name, lo+1, hi))
			if err := copyRows(ctx, c, tb, tb.Lines[lo:hi]); err != nil {
				return fmt.Errorf("COPY %s rows %d-%d: %w", tb.Name, lo+1, hi, err)
			}
		}
	}
	return nil
}

// copyRows copies lines into tb with COPY FROM STDIN in text format (the
// generated values hold no tab, newline or backslash).
func copyRows(ctx context.Context, c *pgconn.PgConn, tb *table, lines []string) error {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	copySQL := fmt.Sprintf("COPY %s (%s) FROM STDIN", tb.Name, strings.Join(tb.Columns, ", "))
	_, err := c.CopyFrom(ctx, strings.NewReader(b.String()), copySQL)
	return err
}

// batch returns the refresh batch called name.
func (w *workload) batch(name string) (tpch.Batch, error) {
	for _, b := range w.batches {
		if b.Name == name {
			return b, nil
		}
	}
	return tpch.Batch{}, fmt.Errorf("the generator made no batch %q", name)
}

// apply runs a refresh batch in one transaction.
func apply(ctx context.Context, c *pgconn.PgConn, b tpch.Batch) error {
	sql := "BEGIN;\n" + strings.Join(b.Stmts, ";\n") + ";\nCOMMIT"
	if err := execSQL(ctx, c, sql); err != nil {
		return fmt.Errorf("batch %s: %w", b.Name, err)
	}
	return nil
}

// viewRows returns the rows of every view in PostgreSQL's text form,
// one string per row (values joined by "|", NULL for a null), sorted, so
// that two servers' answers compare as multisets.
func viewRows(ctx context.Context, c *pgconn.PgConn, views []tpch.Query) (map[string][]string, error) {
	rows := map[string][]string{}
	for _, q := range views {
		res, err := c.Exec(ctx, "SELECT * FROM "+q.Name).ReadAll()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", q.Name, err)
		}
		if len(res) != 1 {
			return nil, fmt.Errorf("reading %s: %d results", q.Name, len(res))
		}
		rows[q.Name] = rowStrings(res[0].Rows)
	}
	return rows, nil
}

// rowStrings renders rows as sorted strings: values joined by "|", NULL
// for a null.
func rowStrings(rows [][][]byte) []string {
	out := make([]string, 0, len(rows))
	vals := []string{}
	for _, r := range rows {
		vals = vals[:0]
		for _, v := range r {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(v))
			}
		}
		out = append(out, strings.Join(vals, "|"))
	}
	sort.Strings(out)
	return out
}

// loadRows returns the number of rows the load inserts.
func (w *workload) loadRows() int64 {
	var n int64
	for _, tb := range w.tables {
		n += int64(len(tb.Lines))
	}
	return n
}

// rawBytes returns the size of the load in PostgreSQL's text form: every
// value plus one separator (tab or newline) per value.
func (w *workload) rawBytes() int64 {
	var n int64
	for _, tb := range w.tables {
		for _, l := range tb.Lines {
			n += int64(len(l)) + 1
		}
	}
	return n
}

// literal matches a SQL string literal (” escapes a quote inside).
var literal = regexp.MustCompile(`'([^']|'')*'`)

// inputRows returns the rows of the tables q reads (tablesRead).
func (w *workload) inputRows(q tpch.Query) int64 {
	read := tablesRead(q)
	var n int64
	for _, tb := range w.tables {
		if read[tb.Name] {
			n += int64(len(tb.Lines))
		}
	}
	return n
}

// tableNames are the eight TPC-H tables.
var tableNames = []string{"region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"}

// tablesRead returns the tables q reads: those whose name appears as a
// word in the query or its setup, string literals aside (Q16's
// 'Customer%Complaints%' reads no customer).
func tablesRead(q tpch.Query) map[string]bool {
	text := strings.ToLower(literal.ReplaceAllString(strings.Join(append(q.Setup, q.SQL), "\n"), "''"))
	read := map[string]bool{}
	for _, name := range tableNames {
		if regexp.MustCompile(`\b` + name + `\b`).MatchString(text) {
			read[name] = true
		}
	}
	return read
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
