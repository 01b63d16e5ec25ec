package sql

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
)

// rowCollector is a RowWriter that keeps text-format rows.
type rowCollector struct{ rows [][]string }

func (c *rowCollector) WriteRow(vals [][]byte) error {
	r := make([]string, len(vals))
	for i, v := range vals {
		if v == nil {
			r[i] = "NULL"
		} else {
			r[i] = string(v)
		}
	}
	c.rows = append(c.rows, r)
	return nil
}

// testEngine is an engine on a data directory that tests can restart.
type testEngine struct {
	t   *testing.T
	dir string
	e   *Engine
	s   *Session
	// prepared are the statements kept by the `prepare` command.
	prepared map[string]*Statement
	// now is the engine's wall clock once the `clock` command set it
	// (clockSet); until then the engine reads the real clock.
	now      time.Time
	clockSet bool
	// opts are the options open uses; unaccounted drops the memory
	// accountant, for tests that use a tiny budget only to spill.
	opts        Options
	unaccounted bool
	// sessions are the named sessions of the `session` command.
	sessions map[string]*Session
}

func newTestEngine(t *testing.T) *testEngine {
	te := &testEngine{t: t, dir: t.TempDir()}
	te.open()
	t.Cleanup(func() { _ = te.e.Close() })
	return te
}

func (te *testEngine) open() {
	e, err := OpenWith(te.dir, slog.New(slog.NewTextHandler(io.Discard, nil)), te.opts)
	if err != nil {
		te.t.Fatal(err)
	}
	if te.unaccounted {
		e.mem = nil
	}
	te.e, te.s = e, e.NewSession(map[string]string{"user": "eddy"})
	if te.clockSet {
		e.SetClock(func() time.Time { return te.now })
	}
}

func (te *testEngine) restart() {
	if err := te.e.Close(); err != nil {
		te.t.Fatal(err)
	}
	te.open()
}

// run executes the statements of sql in turn, stopping at the first
// error, and prints a transcript: the column names and rows of each
// result, its tag, or the error with its SQLSTATE. Each statement runs as
// if sent alone (autocommit outside a block); the implicit transaction of
// a multi-statement Query is tested end to end
// (tests/slt/ddl_transactions.slt).
func (te *testEngine) run(sql string) string {
	var b strings.Builder
	ctx := context.Background()
	stmts, err := te.s.Prepare(ctx, sql, nil)
	if err != nil {
		te.s.Failed()
		return errText(err)
	}
	for _, st := range stmts {
		st.parts = 1
		out, err := te.execOne(ctx, st)
		b.WriteString(out)
		if err != nil {
			te.s.Failed() // as pgwire does after an ErrorResponse
			b.WriteString(errText(err))
			break
		}
	}
	return b.String()
}

func (te *testEngine) execOne(ctx context.Context, st *Statement) (string, error) {
	p, err := st.Bind(ctx, nil, nil, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if p.IsCopyIn() {
		return "", fmt.Errorf("use the copy command for COPY")
	}
	if p.IsCopyOut() {
		return copyOut(ctx, p)
	}
	rc := &rowCollector{}
	tag, _, err := p.Execute(ctx, rc, 0)
	if err != nil {
		return "", err
	}
	if cols := p.Columns(); cols != nil {
		var names []string
		for _, c := range cols {
			names = append(names, c.Name)
		}
		fmt.Fprintf(&b, "%s\n", strings.Join(names, " | "))
		for _, r := range rc.rows {
			fmt.Fprintf(&b, "%s\n", strings.Join(r, " | "))
		}
	}
	fmt.Fprintf(&b, "%s\n", tag)
	return b.String(), nil
}

// messages records each Write as one message.
type messages []string

func (m *messages) Write(p []byte) (int, error) {
	*m = append(*m, string(p))
	return len(p), nil
}

// copyOut runs a COPY TO STDOUT portal and prints its format, then each
// CopyData message quoted on its own line, then the tag.
func copyOut(ctx context.Context, p *Portal) (string, error) {
	format, cols := p.CopyOutFormat()
	var m messages
	tag, err := p.CopyOut(ctx, &m)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "format %d %v\n", format, cols)
	for _, msg := range m {
		fmt.Fprintf(&b, "%q\n", msg)
	}
	fmt.Fprintf(&b, "%s\n", tag)
	return b.String(), nil
}

// notices prints and clears the session's notices, one per line (and
// their DETAIL lines).
func (te *testEngine) notices() string {
	var b strings.Builder
	for _, n := range te.s.Notices() {
		fmt.Fprintf(&b, "%s %s: %s\n", n.Severity, n.Err.Code, n.Err.Message)
		if n.Err.Detail != "" {
			fmt.Fprintf(&b, "DETAIL: %s\n", n.Err.Detail)
		}
	}
	return b.String()
}

// copyIn runs a COPY FROM STDIN with data.
func (te *testEngine) copyIn(sql, data string) string {
	ctx := context.Background()
	stmts, err := te.s.Prepare(ctx, sql, nil)
	if err != nil {
		return errText(err)
	}
	p, err := stmts[0].Bind(ctx, nil, nil, nil)
	if err != nil {
		return errText(err)
	}
	tag, err := p.CopyIn(ctx, strings.NewReader(data))
	if err != nil {
		return errText(err)
	}
	return tag + "\n"
}

func errText(err error) string {
	e := repr.ErrorFrom(err)
	s := fmt.Sprintf("ERROR %s: %s\n", e.Code, e.Message)
	if e.Position > 0 {
		s = fmt.Sprintf("ERROR %s at %d: %s\n", e.Code, e.Position, e.Message)
	}
	if e.Detail != "" {
		s += "DETAIL: " + e.Detail + "\n"
	}
	return s
}

// TestSession runs the transcripts in testdata: `exec` runs SQL, `notices`
// prints (and clears) the notices the session left for the client, `copy
// sql=...` runs COPY FROM STDIN with the input as data, `restart` closes
// and reopens the engine on the same data directory (as after a crash:
// Close only closes the store; nothing is flushed that a commit had not
// already synced; it reports indexes whose stored arrangement was wrong
// and had to be rebuilt), `clock set=<RFC 3339 time>` or `clock advance=<Go
// duration>` sets the engine's wall clock and calls Engine.Tick, and
// `connect user=<name>` replaces the session with one of that role (no
// authentication: that is pgwire's). `session name=<n>` makes the named
// session current (started on first use; the first one is "a"), so a
// file can interleave sessions; `spill-all` spills every table and view
// at a checkpoint; `memory-pressure` runs the memory budget's check with
// the live heap past the budget (revoking the oldest pinned snapshot);
// `close-session name=<n>` ends a session (as its connection closing
// does) and makes "a" current.
func TestSession(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		te := newTestEngine(t)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "exec":
				return te.run(d.Input)
			case "copy":
				var sql string
				d.ScanArgs(t, "sql", &sql)
				return te.copyIn(sql, d.Input)
			case "restart":
				before := indexRebuilds.Load()
				te.restart()
				if n := indexRebuilds.Load() - before; n > 0 { // a stored arrangement was wrong
					return fmt.Sprintf("ok, but %d indexes rebuilt\n", n)
				}
				return "ok\n"
			case "notices":
				return te.notices()
			case "query", "prepare", "execute":
				return te.readCmd(t, d)
			case "clock":
				return te.clock(t, d)
			case "connect":
				var user string
				d.ScanArgs(t, "user", &user)
				te.s = te.e.NewSession(map[string]string{"user": user})
				return "ok\n"
			case "session":
				return te.session(t, d)
			case "close-session":
				return te.closeSession(t, d)
			case "spill-all":
				return te.spillAll(t)
			case "memory-pressure":
				return te.memoryPressure()
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// clock sets or advances the engine's wall clock (installing it on first
// use) and ticks the engine, printing the clock.
func (te *testEngine) clock(t *testing.T, d *datadriven.TestData) string {
	if !te.clockSet {
		te.clockSet = true
		te.e.SetClock(func() time.Time { return te.now })
	}
	for _, arg := range d.CmdArgs {
		switch arg.Key {
		case "set":
			v, err := time.Parse(time.RFC3339Nano, arg.Vals[0])
			if err != nil {
				t.Fatal(err)
			}
			te.now = v
		case "advance":
			v, err := time.ParseDuration(arg.Vals[0])
			if err != nil {
				t.Fatal(err)
			}
			te.now = te.now.Add(v)
		default:
			t.Fatalf("clock: unknown argument %s", arg.Key)
		}
	}
	if err := te.e.Tick(); err != nil {
		return errText(err)
	}
	return te.now.UTC().Format(time.RFC3339Nano) + "\n"
}

// session switches to the named session, starting it on first use (the
// session the engine started with is "a").
func (te *testEngine) session(t *testing.T, d *datadriven.TestData) string {
	var name string
	d.ScanArgs(t, "name", &name)
	if te.sessions == nil {
		te.sessions = map[string]*Session{"a": te.s}
	}
	s := te.sessions[name]
	if s == nil {
		s = te.e.NewSession(map[string]string{"user": "eddy"})
		te.sessions[name] = s
	}
	te.s = s
	return "ok\n"
}

// closeSession ends the named session as a closed (or broken)
// connection does, and makes session a current.
func (te *testEngine) closeSession(t *testing.T, d *datadriven.TestData) string {
	var name string
	d.ScanArgs(t, "name", &name)
	s := te.sessions[name]
	if s == nil {
		t.Fatalf("close-session: no session %s", name)
	}
	s.Close()
	delete(te.sessions, name)
	te.s = te.sessions["a"]
	return "ok\n"
}

// spillAll spills every table and materialized view at a checkpoint.
func (te *testEngine) spillAll(t *testing.T) string {
	te.e.mu.Lock()
	te.e.spill.all = true
	te.e.mu.Unlock()
	if err := te.e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d spilled\n", te.e.SpilledCollections())
}

// memoryPressure runs the check that revokes the oldest pinned snapshot
// as if the live heap were twice a budget of 1 MiB.
func (te *testEngine) memoryPressure() string {
	e := te.e
	e.mu.Lock()
	defer e.mu.Unlock()
	limit := e.spill.limit
	e.spill.limit = 1 << 20
	e.revokeOldSnapshot(2 << 20)
	e.spill.limit = limit
	return fmt.Sprintf("%d pinned\n", e.PinnedSnapshots())
}
