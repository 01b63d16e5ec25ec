package pgwire

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/eddydb/eddy/repr"
)

// fakeHandler is an in-memory statement layer that understands a handful of
// fixed statements, enough to exercise every protocol path:
//
//	SELECT generate(n)      rows 1..n in column g int8
//	SELECT add(a, b)        one row a+b in column sum int8
//	SELECT echo(s)          one row s in column echo text
//	SELECT null             one row with a NULL in column x text
//	FAIL                    22012 at execution, with detail and hint
//	PANIC / PANIC PREPARE   panics in Execute / in Prepare
//	SLEEP                   waits until its context is cancelled
//	STREAM                  1000 rows of 100 bytes, then waits like SLEEP
//	SET name = value        reports a changed parameter
//	BEGIN / COMMIT / ROLLBACK   transaction status
//	INSERT ...              "INSERT 0 1"
//	COPY t FROM STDIN [BINARY]   stores text lines (or counts binary tuples) under t
//
// Arguments are $n parameters or literals. Anything else is 42601 with the
// position of the offending word. Statements are separated by ';'.
type fakeHandler struct {
	mu     sync.Mutex
	copied map[string][]string // COPY target -> received text lines (or one "<n tuples>" per binary copy)
	// backends are the sessions' Backends by pid.
	backends map[uint32]Backend

	opened atomic.Int32
	closed atomic.Int32
	// running counts SLEEP statements waiting; tests poll it before cancelling.
	running atomic.Int32
}

func newFakeHandler() *fakeHandler {
	return &fakeHandler{copied: make(map[string][]string)}
}

// Connect implements Handler.
func (h *fakeHandler) Connect(ctx context.Context, startup map[string]string) (Session, error) {
	if startup["user"] == "panic" {
		panic("fake panic in Connect")
	}
	if startup["database"] == "nodb" {
		return nil, repr.Errorf("3D000", "database %q does not exist", startup["database"])
	}
	h.opened.Add(1)
	return &fakeSession{h: h, tx: 'I', app: startup["application_name"]}, nil
}

// lines returns what COPY stored under table.
func (h *fakeHandler) lines(table string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.copied[table]...)
}

type fakeSession struct {
	h       *fakeHandler
	tx      byte
	app     string
	changed map[string]string
	closed  bool
	named   map[string]Statement
	notices []Notice
}

// Notices implements Session: the WARN statement leaves one.
func (s *fakeSession) Notices() []Notice {
	n := s.notices
	s.notices = nil
	return n
}

// SetBackend implements Session: the handler keeps it for the test.
func (s *fakeSession) SetBackend(b Backend) {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	if s.h.backends == nil {
		s.h.backends = map[uint32]Backend{}
	}
	s.h.backends[b.PID] = b
}

// Failed implements Session: a failed block shows as 'E'.
func (s *fakeSession) Failed() {
	if s.tx == 'T' {
		s.tx = 'E'
	}
}

// DefineStatement implements Session.
func (s *fakeSession) DefineStatement(name, sql string, st Statement) error {
	if _, ok := s.named[name]; ok {
		return errDuplicateStatement.New(name)
	}
	if s.named == nil {
		s.named = map[string]Statement{}
	}
	s.named[name] = st
	return nil
}

// LookupStatement implements Session.
func (s *fakeSession) LookupStatement(name string) (Statement, bool) {
	st, ok := s.named[name]
	return st, ok
}

// LookupCursor implements Session: the fake has no SQL cursors.
func (s *fakeSession) LookupCursor(string) (Portal, bool) { return nil, false }

// CloseCursor implements Session.
func (s *fakeSession) CloseCursor(string) {}

// CloseStatement implements Session.
func (s *fakeSession) CloseStatement(name string) { delete(s.named, name) }

// Parameters implements Session.
func (s *fakeSession) Parameters() map[string]string {
	return map[string]string{
		"server_version": "16.0", "server_encoding": "UTF8", "client_encoding": "UTF8",
		"DateStyle": "ISO, MDY", "integer_datetimes": "on", "standard_conforming_strings": "on",
		"TimeZone": "UTC", "application_name": s.app, "IntervalStyle": "postgres",
		"is_superuser": "on", "session_authorization": "test",
	}
}

// ChangedParameters implements Session.
func (s *fakeSession) ChangedParameters() map[string]string {
	c := s.changed
	s.changed = nil
	return c
}

// TxStatus implements Session.
func (s *fakeSession) TxStatus() byte { return s.tx }

// Close implements Session.
func (s *fakeSession) Close() {
	if s.closed {
		panic("session closed twice")
	}
	s.closed = true
	s.h.closed.Add(1)
}

// Prepare implements Session.
func (s *fakeSession) Prepare(ctx context.Context, sql string, paramOIDs []uint32) ([]Statement, error) {
	var out []Statement
	offset := 0
	for piece := range strings.SplitSeq(sql, ";") {
		start := offset
		offset += len(piece) + 1
		text := stripComments(piece)
		if strings.TrimSpace(text) == "" {
			continue
		}
		st, err := s.parse(text, start+len(text)-len(strings.TrimLeft(text, " \t\r\n")))
		if err != nil {
			return nil, err
		}
		for i, oid := range paramOIDs {
			if i < len(st.params) && oid != 0 {
				st.params[i] = oid
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// stripComments removes "-- ..." comments.
func stripComments(s string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// fakeStmt is a parsed statement.
type fakeStmt struct {
	s      *fakeSession
	verb   string   // generate, add, echo, null, FAIL, PANIC, SLEEP, SET, BEGIN, ..., COPY
	args   []string // literal or "$n"
	params []uint32
	cols   []Column
	table  string
	binary bool
}

const (
	oidInt8 = 20
	oidText = 25
)

// parse parses one statement; pos is its 0-based offset in the query string.
func (s *fakeSession) parse(text string, pos int) (*fakeStmt, error) {
	t := strings.TrimSpace(text)
	up := strings.ToUpper(t)
	st := &fakeStmt{s: s}
	switch {
	case up == "PANIC PREPARE":
		panic("fake panic in Prepare")
	case up == "STREAM":
		st.verb = up
		st.cols = []Column{{Name: "s", TypeOID: oidText, TypeSize: -1, TypeMod: -1}}
	case up == "FAIL", up == "PANIC", up == "SLEEP", up == "BEGIN", up == "COMMIT", up == "ROLLBACK", up == "WARN":
		st.verb = up
	case strings.HasPrefix(up, "INSERT"):
		st.verb = "INSERT"
	case strings.HasPrefix(up, "SET "):
		st.verb = "SET"
		st.args = strings.Fields(strings.NewReplacer("=", " ", " TO ", " ", " to ", " ").Replace(t[4:]))
		if len(st.args) != 2 {
			return nil, repr.Errorf(repr.CodeSyntax, "syntax error in SET").WithPosition(int32(pos + 1))
		}
	case strings.HasPrefix(up, "COPY "):
		return s.parseCopy(st, t, pos)
	case up == "SELECT NULL":
		st.verb = "null"
		st.cols = []Column{{Name: "x", TypeOID: oidText, TypeSize: -1, TypeMod: -1}}
	case strings.HasPrefix(up, "SELECT ") && strings.Contains(up, " FROM "):
		// pgx's CopyFrom describes select "a", "b" from "t" for the types.
		st.verb = "describe"
		for c := range strings.SplitSeq(t[len("SELECT "):strings.Index(up, " FROM ")], ",") {
			st.cols = append(st.cols, Column{Name: strings.Trim(strings.TrimSpace(c), `"`), TypeOID: oidInt8, TypeSize: 8, TypeMod: -1})
		}
	case strings.HasPrefix(up, "SELECT "):
		return s.parseCall(st, t, pos)
	default:
		return nil, repr.Errorf(repr.CodeSyntax, "syntax error at or near %q", strings.Fields(t)[0]).WithPosition(int32(pos + 1))
	}
	return st, nil
}

// parseCopy parses COPY t FROM STDIN [BINARY] (pgx sends
// copy "t" ( "a", "b" ) from stdin binary;).
func (s *fakeSession) parseCopy(st *fakeStmt, t string, pos int) (*fakeStmt, error) {
	f := strings.Fields(strings.ToLower(t))
	if len(f) < 4 || !strings.Contains(strings.ToLower(t), "from stdin") {
		return nil, repr.Errorf(repr.CodeSyntax, "bad COPY").WithPosition(int32(pos + 1))
	}
	st.verb = "COPY"
	st.table = strings.Trim(f[1], `"`)
	st.binary = f[len(f)-1] == "binary"
	return st, nil
}

// parseCall parses SELECT fn(args).
func (s *fakeSession) parseCall(st *fakeStmt, t string, pos int) (*fakeStmt, error) {
	body := strings.TrimSpace(t[len("SELECT "):])
	open, closeP := strings.IndexByte(body, '('), strings.LastIndexByte(body, ')')
	if open < 0 || closeP < open {
		return nil, repr.Errorf(repr.CodeSyntax, "syntax error at or near %q", body).WithPosition(int32(pos + 8))
	}
	st.verb = strings.ToLower(strings.TrimSpace(body[:open]))
	for a := range strings.SplitSeq(body[open+1:closeP], ",") {
		st.args = append(st.args, strings.Trim(strings.TrimSpace(a), "()' "))
	}
	var colType uint32 = oidInt8
	var want int
	switch st.verb {
	case "generate":
		want = 1
		st.cols = []Column{{Name: "g", TypeOID: oidInt8, TypeSize: 8, TypeMod: -1}}
	case "add":
		want = 2
		st.cols = []Column{{Name: "sum", TypeOID: oidInt8, TypeSize: 8, TypeMod: -1}}
	case "echo":
		want, colType = 1, oidText
		st.cols = []Column{{Name: "echo", TypeOID: oidText, TypeSize: -1, TypeMod: -1}}
	default:
		return nil, repr.Errorf(repr.CodeUndefinedFunction, "function %s does not exist", st.verb).WithPosition(int32(pos + 8))
	}
	if len(st.args) != want {
		return nil, repr.Errorf(repr.CodeUndefinedFunction, "function %s takes %d arguments", st.verb, want).WithPosition(int32(pos + 8))
	}
	for _, a := range st.args {
		if strings.HasPrefix(a, "$") {
			st.params = append(st.params, colType)
		}
	}
	return st, nil
}

// ParamOIDs implements Statement.
func (st *fakeStmt) ParamOIDs() []uint32 { return st.params }

// Columns implements Statement.
func (st *fakeStmt) Columns() []Column { return st.cols }

// Bind implements Statement: it resolves the arguments to values.
func (st *fakeStmt) Bind(ctx context.Context, params [][]byte, paramFormats, resultFormats []int16) (Portal, error) {
	p := &fakePortal{st: st}
	for _, a := range st.args {
		v, err := st.argValue(a, params, paramFormats)
		if err != nil {
			return nil, err
		}
		p.args = append(p.args, v)
	}
	p.cols = append([]Column(nil), st.cols...)
	for i := range p.cols {
		p.cols[i].Format = formatFor(resultFormats, i)
	}
	if st.verb == "COPY" {
		return &fakeCopyPortal{p}, nil
	}
	return p, nil
}

// formatFor applies PostgreSQL's format-code rules to position i.
func formatFor(codes []int16, i int) int16 {
	switch len(codes) {
	case 0:
		return 0
	case 1:
		return codes[0]
	default:
		return codes[i]
	}
}

// argValue decodes a literal or a $n parameter as text (NULL as nil).
func (st *fakeStmt) argValue(a string, params [][]byte, formats []int16) (*string, error) {
	if !strings.HasPrefix(a, "$") {
		return &a, nil
	}
	n, err := strconv.Atoi(a[1:])
	if err != nil || n < 1 || n > len(params) {
		return nil, repr.Errorf(repr.CodeUndefinedParameter, "there is no parameter %s", a)
	}
	raw := params[n-1]
	if raw == nil {
		return nil, nil
	}
	v := string(raw)
	if formatFor(formats, n-1) == 1 && st.params[n-1] == oidInt8 {
		if len(raw) != 8 {
			return nil, repr.Errorf("22P03", "incorrect binary data format in bind parameter %d", n)
		}
		v = strconv.FormatInt(int64(binary.BigEndian.Uint64(raw)), 10)
	}
	return &v, nil
}

// fakePortal runs a fakeStmt; pos is how many rows were already sent.
type fakePortal struct {
	st     *fakeStmt
	args   []*string
	cols   []Column
	pos    int64
	closed bool
}

// Columns implements Portal.
func (p *fakePortal) Columns() []Column {
	if p.st.cols == nil {
		return nil
	}
	return p.cols
}

// Close implements Portal.
func (p *fakePortal) Close() { p.closed = true }

// Execute implements Portal.
func (p *fakePortal) Execute(ctx context.Context, w RowWriter, maxRows int) (string, bool, error) {
	if p.closed {
		return "", false, errors.New("fake: execute on closed portal")
	}
	s := p.st.s
	switch p.st.verb {
	case "FAIL":
		return "", false, s.fail(repr.ErrDivisionByZero.New().WithDetail("detail here").WithHint("hint here").WithPosition(3))
	case "PANIC":
		panic("fake panic in Execute")
	case "SLEEP":
		s.h.running.Add(1)
		defer s.h.running.Add(-1)
		<-ctx.Done()
		return "", false, s.fail(ctx.Err())
	case "STREAM":
		return p.stream(ctx, w)
	case "BEGIN":
		s.tx = 'T'
		return "BEGIN", false, nil
	case "COMMIT", "ROLLBACK":
		s.tx = 'I'
		return p.st.verb, false, nil
	case "SET":
		s.changed = map[string]string{p.st.args[0]: p.st.args[1]}
		return "SET", false, nil
	case "INSERT":
		return "INSERT 0 1", false, nil
	case "WARN":
		s.notices = append(s.notices, Notice{Severity: "WARNING", Err: repr.Errorf("01000", "fake warning").WithHint("a hint")})
		return "WARN", false, nil
	case "null":
		return "SELECT 1", false, w.WriteRow([][]byte{nil})
	case "describe":
		return "SELECT 0", false, nil
	}
	return p.selectRows(w, maxRows)
}

// stream writes 1000 rows of 100 bytes, then waits like SLEEP: the client
// can only see the rows before the statement ends if pgwire flushes
// mid-result.
func (p *fakePortal) stream(ctx context.Context, w RowWriter) (string, bool, error) {
	s := p.st.s
	s.h.running.Add(1)
	defer s.h.running.Add(-1)
	row := [][]byte{[]byte(strings.Repeat("x", 100))}
	for range 1000 {
		if err := w.WriteRow(row); err != nil {
			return "", false, err
		}
	}
	<-ctx.Done()
	return "", false, ctx.Err()
}

// fail records a failed transaction and returns err.
func (s *fakeSession) fail(err error) error {
	if s.tx == 'T' {
		s.tx = 'E'
	}
	return err
}

// selectRows writes the rows of generate/add/echo from p.pos on.
func (p *fakePortal) selectRows(w RowWriter, maxRows int) (string, bool, error) {
	vals, err := p.values()
	if err != nil {
		return "", false, p.st.s.fail(err)
	}
	var sent int64
	row := make([][]byte, 1)
	for p.pos < int64(len(vals)) {
		if maxRows > 0 && sent == int64(maxRows) {
			return "", true, nil
		}
		row[0] = p.encode(vals[p.pos])
		if err := w.WriteRow(row); err != nil {
			return "", false, err
		}
		p.pos++
		sent++
	}
	return fmt.Sprintf("SELECT %d", sent), false, nil
}

// values computes all result values (as text; nil = NULL).
func (p *fakePortal) values() ([]*string, error) {
	ints := make([]int64, len(p.args))
	if p.st.verb != "echo" {
		for i, a := range p.args {
			if a == nil {
				return []*string{nil}, nil
			}
			n, err := strconv.ParseInt(*a, 10, 64)
			if err != nil {
				return nil, repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type bigint: %q", *a)
			}
			ints[i] = n
		}
	}
	switch p.st.verb {
	case "echo":
		return []*string{p.args[0]}, nil
	case "add":
		v := strconv.FormatInt(ints[0]+ints[1], 10)
		return []*string{&v}, nil
	}
	out := make([]*string, ints[0])
	for i := range out {
		v := strconv.Itoa(i + 1)
		out[i] = &v
	}
	return out, nil
}

// encode encodes a value in the column's format.
func (p *fakePortal) encode(v *string) []byte {
	if v == nil {
		return nil
	}
	if p.cols[0].Format == 1 && p.cols[0].TypeOID == oidInt8 {
		n, _ := strconv.ParseInt(*v, 10, 64)
		return binary.BigEndian.AppendUint64(nil, uint64(n))
	}
	return []byte(*v)
}

// fakeCopyPortal is the portal of COPY ... FROM STDIN.
type fakeCopyPortal struct{ *fakePortal }

// CopyInFormat implements CopyInPortal.
func (p *fakeCopyPortal) CopyInFormat() (int16, []int16) {
	if p.st.binary {
		return 1, []int16{1}
	}
	return 0, []int16{0}
}

// CopyIn implements CopyInPortal: text lines up to "\." or binary tuples.
func (p *fakeCopyPortal) CopyIn(ctx context.Context, r io.Reader) (string, error) {
	var lines []string
	if p.st.binary {
		n, err := countBinaryTuples(r)
		if err != nil {
			return "", err
		}
		lines = []string{fmt.Sprintf("<%d tuples>", n)}
		p.st.s.h.store(p.st.table, lines)
		return fmt.Sprintf("COPY %d", n), nil
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if sc.Text() == `\.` {
			break
		}
		if sc.Text() == "bad" {
			return "", repr.Errorf(repr.CodeInvalidText, "bad copy line %d", len(lines)+1)
		}
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	p.st.s.h.store(p.st.table, lines)
	return fmt.Sprintf("COPY %d", len(lines)), nil
}

// store appends COPY lines under table.
func (h *fakeHandler) store(table string, lines []string) {
	h.mu.Lock()
	h.copied[table] = append(h.copied[table], lines...)
	h.mu.Unlock()
}

// countBinaryTuples reads PostgreSQL binary COPY format and counts tuples.
func countBinaryTuples(r io.Reader) (int, error) {
	br := bufio.NewReader(r)
	hdr := make([]byte, 19)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return 0, fmt.Errorf("binary copy header: %w", err)
	}
	if string(hdr[:11]) != "PGCOPY\n\xff\r\n\x00" {
		return 0, repr.Errorf("22P04", "COPY file signature not recognized")
	}
	if _, err := br.Discard(int(binary.BigEndian.Uint32(hdr[15:]))); err != nil {
		return 0, err
	}
	var n int
	var b [4]byte
	for {
		if _, err := io.ReadFull(br, b[:2]); err == io.EOF {
			return n, nil // the trailer is optional at end of data, as in PostgreSQL
		} else if err != nil {
			return 0, err
		}
		fields := int16(binary.BigEndian.Uint16(b[:2]))
		if fields == -1 {
			_, err := io.Copy(io.Discard, br) // up to CopyDone
			return n, err
		}
		for range fields {
			if _, err := io.ReadFull(br, b[:4]); err != nil {
				return 0, err
			}
			if l := int32(binary.BigEndian.Uint32(b[:4])); l > 0 {
				if _, err := br.Discard(int(l)); err != nil {
					return 0, err
				}
			}
		}
		n++
	}
}
