package pgregress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// stmtTimeout is each statement's statement_timeout; a client that hears
// nothing for hangTimeout gives up and calls the server hung.
const (
	stmtTimeout = 10 * time.Second
	hangTimeout = 30 * time.Second
)

// engine is one server and the session open on it.
type engine struct {
	srv  *harness.Server
	dsn  string
	conn *pgconn.PgConn
}

// connect opens a fresh session with statement_timeout set.
func (g *engine) connect() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, g.dsn)
	if err != nil {
		return err
	}
	g.conn = c
	set := fmt.Sprintf("SET statement_timeout = %d", stmtTimeout.Milliseconds())
	_, err = c.Exec(ctx, set).ReadAll()
	return err
}

// close ends the session.
func (g *engine) close() {
	if g.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		g.conn.Close(ctx)
		g.conn = nil
	}
}

// alive reports whether the server's process still runs.
func (g *engine) alive() bool {
	pid := g.srv.Pid()
	return pid != 0 && syscall.Kill(pid, 0) == nil
}

// run executes one statement, recovering the session when the connection
// breaks: a dead server is restarted (the next statements still count)
// and the outcome says what happened.
func (g *engine) run(st Stmt) *Outcome {
	if g.conn == nil {
		if err := g.connect(); err != nil {
			return &Outcome{Fatal: "cannot connect: " + err.Error()}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
	defer cancel()
	o := execute(ctx, g.conn, st)
	if o.Fatal == "" {
		return o
	}
	g.close()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		// A hung server may hang every later statement too (a lock
		// left held): restart it.
		o.Fatal = fmt.Sprintf("hang: no answer within %v", hangTimeout)
		g.srv.Kill()
		g.srv.Restart()
	case !g.alive():
		o.Fatal = "server died: " + o.Fatal
		g.srv.Restart()
	}
	return o
}

// execute sends st over the simple query protocol (COPY data through the
// COPY sub-protocol) and collects its outcome.
func execute(ctx context.Context, c *pgconn.PgConn, st Stmt) *Outcome {
	if st.Copy != nil {
		tag, err := c.CopyFrom(ctx, bytes.NewReader(st.Copy), st.SQL)
		return outcomeOf(tag, nil, err)
	}
	results, err := readAll(c.Exec(ctx, st.SQL))
	if err != nil || len(results) == 0 {
		return outcomeOf(pgconn.CommandTag{}, nil, err)
	}
	return outcomeOf(results[len(results)-1].CommandTag, results[len(results)-1], nil)
}

// readAll is pgconn's MultiResultReader.ReadAll keeping the columns of a
// result without rows too (ReadAll takes them from the first row, so an
// empty answer read as zero columns).
func readAll(mrr *pgconn.MultiResultReader) ([]*pgconn.Result, error) {
	var results []*pgconn.Result
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		cols := slices.Clone(rr.FieldDescriptions())
		r := rr.Read()
		if r.FieldDescriptions == nil {
			r.FieldDescriptions = cols
		}
		results = append(results, r)
	}
	return results, mrr.Close()
}

// outcomeOf turns a result or an error into an Outcome.
func outcomeOf(tag pgconn.CommandTag, r *pgconn.Result, err error) *Outcome {
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		return &Outcome{Code: pe.Code, Msg: pe.Message}
	case err != nil:
		return &Outcome{Fatal: err.Error()}
	}
	o := &Outcome{Tag: tag.String()}
	if r == nil {
		return o
	}
	for _, f := range r.FieldDescriptions {
		o.Cols = append(o.Cols, f.Name)
		o.Types = append(o.Types, f.DataTypeOID)
	}
	for _, row := range r.Rows {
		vals := make([]string, len(row))
		for i, v := range row {
			if v == nil {
				vals[i] = nullText
			} else {
				vals[i] = string(v)
			}
		}
		o.Rows = append(o.Rows, vals)
	}
	return o
}

// Counts tallies one file's statements by category.
type Counts [numCategories]int

// Runner runs scripts on PostgreSQL and Eddy side by side.
type Runner struct {
	PG, Eddy engine
	Env      map[string]string // \getenv's environment
	Report   io.Writer         // receives every non-equal statement
	// missing holds the names of objects that PostgreSQL created and
	// Eddy did not: later errors naming them are follow-on errors.
	missing map[string]bool
	// diverged maps a setting that PostgreSQL accepted and Eddy refused
	// in this file's session to the line of the SET: until both engines
	// set it alike again, the sessions differ and so may any answer.
	diverged map[string]int
}

// RunFile runs one script in fresh sessions on both engines.
func (r *Runner) RunFile(name, src string) Counts {
	var counts Counts
	defer r.PG.close()
	defer r.Eddy.close()
	s := &Script{Vars: map[string]string{}, Env: r.Env}
	r.diverged = map[string]int{}
	for _, st := range s.Split(src) {
		if st.Err != nil {
			fmt.Fprintf(r.Report, "== %s %s\nskipped: %v\n", name, st, st.Err)
			continue
		}
		p, e := r.both(st)
		cat, detail := Classify(st.SQL, p, e)
		cat = r.followOn(st.SQL, cat, p, e)
		if cat, detail = r.afterSet(st, cat, detail, p, e); cat == FollowOn && detail != "" {
			counts[cat]++
			fmt.Fprintf(r.Report, "== %s %s\nFOLLOW-ON: %s\n", name, st, detail)
			continue
		}
		counts[cat]++
		if cat != Equal {
			fmt.Fprintf(r.Report, "== %s %s\n%s: %s\n  postgres: %s\n  eddy:     %s\n",
				name, st, strings.ToUpper(cat.String()), detail, p, e)
		}
	}
	return counts
}

// both runs st on the two engines at once.
func (r *Runner) both(st Stmt) (*Outcome, *Outcome) {
	done := make(chan *Outcome)
	go func() { done <- r.PG.run(st) }()
	e := r.Eddy.run(st)
	return <-done, e
}

// followOn records the objects PostgreSQL created and Eddy did not, and
// turns an Eddy error that names one of them (undefined table, type,
// function or column) into FollowOn.
func (r *Runner) followOn(sql string, cat Category, p, e *Outcome) Category {
	if r.missing == nil {
		r.missing = map[string]bool{}
	}
	if p.ok() && !e.ok() {
		if name := createdName(sql); name != "" {
			r.missing[name] = true
		}
	}
	if cat == Different || cat == EddyOK {
		// A CREATE that Eddy refused with 42P07 (CREATE TEMP TABLE
		// over a permanent table of the same name) leaves later
		// statements reading another table.
		for name := range r.missing {
			if mentions(sql, name) {
				return FollowOn
			}
		}
	}
	if cat != EddyError && cat != Unsupported || !p.ok() {
		return cat
	}
	switch e.Code {
	case "42P01", "42704", "42883", "42703", "42P02":
		for name := range r.missing {
			if strings.Contains(strings.ToLower(e.Msg), `"`+name+`"`) || strings.Contains(strings.ToLower(e.Msg), name+"(") {
				return FollowOn
			}
		}
	}
	return cat
}

// answerSettings are the settings that change answers (how values print
// or parse, which objects names find); the planner's enable_* and
// parallel_* settings, say, do not.
var answerSettings = map[string]bool{
	"datestyle": true, "intervalstyle": true, "timezone": true, "extra_float_digits": true,
	"bytea_output": true, "standard_conforming_strings": true, "search_path": true,
	"lc_monetary": true, "lc_numeric": true, "lc_time": true, "transform_null_equals": true,
	"array_nulls": true, "backslash_quote": true, "session_authorization": true, "role": true,
}

// afterSet tracks the answerSettings whose SET PostgreSQL accepted and
// Eddy refused, and turns a different answer (or an Eddy success where
// PostgreSQL failed) while one is in force into FollowOn, naming the SET
// in detail.
func (r *Runner) afterSet(st Stmt, cat Category, detail string, p, e *Outcome) (Category, string) {
	if name := setName(st.SQL); answerSettings[name] {
		switch {
		case p.ok() && !e.ok():
			r.diverged[name] = st.Line
		case p.ok() == e.ok():
			delete(r.diverged, name)
		}
		return cat, detail
	}
	if len(r.diverged) == 0 || (cat != Different && cat != EddyOK) {
		return cat, detail
	}
	var names []string
	for n, line := range r.diverged {
		names = append(names, fmt.Sprintf("%s (line %d)", n, line))
	}
	slices.Sort(names)
	return FollowOn, cat.String() + " after Eddy refused SET " + strings.Join(names, ", ")
}

// mentions reports whether sql holds name as a whole word, ignoring case.
func mentions(sql, name string) bool {
	sql = strings.ToLower(sql)
	for i := strings.Index(sql, name); i >= 0; {
		end := i + len(name)
		if (i == 0 || !identChar(sql[i-1])) && (end == len(sql) || !identChar(sql[end])) {
			return true
		}
		next := strings.Index(sql[i+1:], name)
		if next < 0 {
			break
		}
		i += next + 1
	}
	return false
}
