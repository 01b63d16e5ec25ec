package slt

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Outcome is what happened to one record.
type Outcome int

// The outcomes.
const (
	Pass Outcome = iota
	Fail
	Skip
)

// Result is the outcome of one record, with a message explaining a
// failure (expected and actual output, as a diff).
type Result struct {
	Record  *Record
	Outcome Outcome
	Message string
	// Actual is what the engine returned, for rewriting: the sorted rows
	// of a query, or the error of a statement or query.
	Actual    [][]string
	ActualErr *pgconn.PgError
}

// Runner runs records over one connection.
type Runner struct {
	// Connect opens a new connection; the runner reconnects after a
	// connection-level failure (a timeout, a dropped connection).
	Connect func(ctx context.Context) (*pgconn.PgConn, error)
	// Engines names the engines skipif/onlyif guards match.
	Engines []string
	// Timeout bounds each statement; 0 means one minute.
	Timeout time.Duration
	// BeforeQuery, if set, runs before every query record (PostgreSQL
	// uses it to refresh materialized views).
	BeforeQuery func(ctx context.Context, c *pgconn.PgConn, r *Record) error
	// MaxBroken stops a file after this many consecutive connection-level
	// failures (default 3), failing the remaining records.
	MaxBroken int

	conn      *pgconn.PgConn
	threshold int
	labels    map[string]string
	broken    int
}

// Run runs recs in order and returns one Result per non-verbatim record.
func (rn *Runner) Run(ctx context.Context, recs []Record) []Result {
	rn.labels = map[string]string{}
	defer rn.close()
	var results []Result
	for i := range recs {
		r := &recs[i]
		if r.Kind == Verbatim {
			continue
		}
		if !rn.applies(r) {
			results = append(results, Result{Record: r, Outcome: Skip})
			continue
		}
		if r.Kind == Halt {
			break
		}
		if rn.broken >= rn.maxBroken() {
			results = append(results, Result{Record: r, Outcome: Fail, Message: "not run: the connection kept failing"})
			continue
		}
		results = append(results, rn.runRecord(ctx, r))
	}
	return results
}

// maxBroken returns MaxBroken or its default.
func (rn *Runner) maxBroken() int {
	if rn.MaxBroken > 0 {
		return rn.MaxBroken
	}
	return 3
}

// applies evaluates r's skipif/onlyif guards.
func (rn *Runner) applies(r *Record) bool {
	for _, c := range r.Conds {
		if rn.isEngine(c.Engine) != c.Only {
			return false
		}
	}
	return true
}

// isEngine reports whether name is one of the runner's engines.
func (rn *Runner) isEngine(name string) bool {
	for _, e := range rn.Engines {
		if strings.EqualFold(e, name) {
			return true
		}
	}
	return false
}

// runRecord runs one applicable record.
func (rn *Runner) runRecord(ctx context.Context, r *Record) Result {
	switch r.Kind {
	case HashThreshold:
		rn.threshold = r.Threshold
		return Result{Record: r, Outcome: Pass}
	case Statement:
		return rn.statement(ctx, r)
	}
	return rn.query(ctx, r)
}

// exec runs sql and returns its last result; err is a *pgconn.PgError for
// an SQL error, anything else for a connection-level failure (after which
// the connection is replaced).
func (rn *Runner) exec(ctx context.Context, sql string) (*pgconn.Result, error) {
	if err := rn.ensureConn(ctx); err != nil {
		return nil, err
	}
	timeout := rn.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := readAll(rn.conn.Exec(ctx, sql))
	var pgErr *pgconn.PgError
	if err != nil && !errors.As(err, &pgErr) {
		rn.broken++
		rn.close()
		return nil, err
	}
	rn.broken = 0
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return &pgconn.Result{}, nil
	}
	return res[len(res)-1], nil
}

// readAll reads every result of a simple query, keeping the columns of
// results with no rows (pgconn's own ReadAll drops them).
func readAll(mrr *pgconn.MultiResultReader) ([]*pgconn.Result, error) {
	var results []*pgconn.Result
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		res := &pgconn.Result{}
		for rr.NextRow() {
			row := make([][]byte, len(rr.Values()))
			for i, v := range rr.Values() {
				if v != nil {
					row[i] = append([]byte{}, v...)
				}
			}
			res.Rows = append(res.Rows, row)
		}
		res.FieldDescriptions = append(res.FieldDescriptions, rr.FieldDescriptions()...)
		res.CommandTag, res.Err = rr.Close()
		results = append(results, res)
	}
	err := mrr.Close()
	return results, err
}

// ensureConn connects if there is no connection.
func (rn *Runner) ensureConn(ctx context.Context) error {
	if rn.conn != nil {
		return nil
	}
	c, err := rn.Connect(ctx)
	if err != nil {
		rn.broken++
		return fmt.Errorf("connecting: %w", err)
	}
	rn.conn = c
	return nil
}

// close drops the current connection.
func (rn *Runner) close() {
	if rn.conn != nil {
		rn.conn.Close(context.Background())
		rn.conn = nil
	}
}

// statement runs a statement record.
func (rn *Runner) statement(ctx context.Context, r *Record) Result {
	_, err := rn.exec(ctx, r.SQL)
	res := Result{Record: r, Outcome: Pass}
	var pgErr *pgconn.PgError
	errors.As(err, &pgErr)
	res.ActualErr = pgErr
	switch {
	case err != nil && pgErr == nil:
		return rn.fail(res, "connection failure: %v", err)
	case !r.ExpectError && err != nil:
		return rn.fail(res, "statement failed: %s", describe(pgErr))
	case r.ExpectError && err == nil:
		return rn.fail(res, "statement succeeded, expected error %q", r.ErrorPattern)
	case r.ExpectError && !errorMatches(r.ErrorPattern, pgErr):
		return rn.fail(res, "expected error %q, got %s", r.ErrorPattern, describe(pgErr))
	}
	return res
}

// sqlstate matches a five-character SQLSTATE pattern.
var sqlstate = regexp.MustCompile(`^[0-9A-Z]{5}$`)

// errorMatches reports whether err matches a statement error pattern.
func errorMatches(pattern string, err *pgconn.PgError) bool {
	if pattern == "" {
		return true
	}
	if sqlstate.MatchString(pattern) {
		return err.Code == pattern
	}
	re, rerr := regexp.Compile(pattern)
	return rerr == nil && re.MatchString(err.Message)
}

// describe renders an SQL error with its code.
func describe(err *pgconn.PgError) string {
	return fmt.Sprintf("%s: %s", err.Code, err.Message)
}

// fail marks res failed with a message.
func (rn *Runner) fail(res Result, format string, args ...any) Result {
	res.Outcome = Fail
	res.Message = fmt.Sprintf(format, args...)
	return res
}

// query runs a query record and compares its sorted results.
func (rn *Runner) query(ctx context.Context, r *Record) Result {
	res := Result{Record: r, Outcome: Pass}
	if rn.BeforeQuery != nil && rn.ensureConn(ctx) == nil {
		if err := rn.BeforeQuery(ctx, rn.conn, r); err != nil {
			return rn.fail(res, "before query: %v", err)
		}
	}
	out, err := rn.exec(ctx, r.SQL)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			res.ActualErr = pgErr
			return rn.fail(res, "query failed: %s", describe(pgErr))
		}
		return rn.fail(res, "connection failure: %v", err)
	}
	if len(out.FieldDescriptions) != len(r.Types) {
		return rn.fail(res, "query returned %d columns, record declares %d (%s)", len(out.FieldDescriptions), len(r.Types), r.Types)
	}
	res.Actual = SortRows(formatRows(r.Types, out.Rows), r.Sort)
	return rn.compare(res)
}

// formatRows renders raw text-format rows with the declared types.
func formatRows(types string, raw [][][]byte) [][]string {
	rows := make([][]string, len(raw))
	for i, row := range raw {
		rows[i] = make([]string, len(row))
		for j, v := range row {
			rows[i][j] = FormatValue(types[j], string(v), v == nil)
		}
	}
	return rows
}

// compare checks res.Actual against the record's expectation and label.
func (rn *Runner) compare(res Result) Result {
	r := res.Record
	if !Matches(r.Expected, res.Actual) {
		return rn.fail(res, "results differ (- expected, + actual):\n%s",
			Diff(r.Expected, rn.render(r.Expected, res.Actual)))
	}
	if r.Label != "" {
		h := HashValues(flatten(res.Actual))
		if prev, ok := rn.labels[r.Label]; ok && prev != h {
			return rn.fail(res, "label %s: %s, earlier query with this label: %s", r.Label, h, prev)
		}
		rn.labels[r.Label] = h
	}
	return res
}

// render prints actual rows in the same form as the expected block, so
// that the diff lines up.
func (rn *Runner) render(expected []string, rows [][]string) []string {
	if IsHash(expected) {
		return []string{HashValues(flatten(rows))}
	}
	if len(rows) > 0 && len(rows[0]) > 1 && len(expected) == len(flatten(rows)) {
		return flatten(rows)
	}
	return RowLines(rows)
}
