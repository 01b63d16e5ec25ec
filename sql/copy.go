package sql

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// copyFormat describes a COPY FROM STDIN in text, CSV or binary format.
type copyFormat struct {
	csv           bool
	binary        bool
	delim         rune
	null          string
	header        bool
	quote, escape byte
	table         *planner.Relation
	targets       []int // table column of each input field
	// defaults are the DEFAULT expressions of columns not in targets.
	defaults map[int]expr.Expr
	// slab is the rest of the chunk newRow cuts rows from.
	slab repr.Row
	// enums read the fields of enum columns (by table column), with the
	// labels the type had when the COPY was prepared.
	enums map[int]func(string) (repr.Datum, error)
}

// prepareCopy validates a COPY statement and its options. COPY ... TO
// STDOUT is planned by prepareCopyTo; for COPY t [(cols)] FROM STDIN it
// remembers the format, and the data arrives through CopyIn.
func (p *Portal) prepareCopy(cs *pg.CopyStmt) error {
	if err := checkCopyEndpoint(cs); err != nil {
		return err
	}
	opts, err := parseCopyOptions(cs.Options, cs.IsFrom, p.st.src)
	if err != nil {
		return err
	}
	if !cs.IsFrom {
		return p.prepareCopyTo(cs, opts)
	}
	if cs.WhereClause != nil {
		return repr.Unsupported("COPY FROM with a WHERE clause")
	}
	if len(opts.forceNotNull) > 0 || len(opts.forceNull) > 0 || opts.freeze {
		return repr.Unsupported("COPY FROM with FORCE_NOT_NULL, FORCE_NULL or FREEZE")
	}
	e := p.st.s.e
	var rel *planner.Relation
	e.readLocked(func() {
		rel, err = e.cat.Relation(cs.Relation.Schemaname, cs.Relation.Relname)
	})
	if err != nil {
		return err
	}
	if rel.Kind != planner.RelTable {
		return repr.Errorf(repr.CodeWrongObjectType, "cannot copy to %s \"%s\"", kindName(rel.Kind), rel.Name)
	}
	f := &copyFormat{csv: opts.kind == copyCSVKind, binary: opts.kind == copyBinaryKind, delim: rune(opts.delim),
		null: opts.null, header: opts.header, quote: opts.quote, escape: opts.escape, table: rel}
	if err := f.columns(cs.Attlist); err != nil {
		return err
	}
	e.readLocked(func() {
		err = f.planDefaults(e.cat)
		f.enums = e.cat.enumReaders(rel)
	})
	if err != nil {
		return err
	}
	p.copy = f
	return nil
}

// checkCopyEndpoint refuses COPY to or from a server file or program:
// Eddy's data leaves and enters only through the client connection.
func checkCopyEndpoint(cs *pg.CopyStmt) error {
	hint := "Eddy does not read or write files on the server: use COPY ... TO STDOUT or FROM STDIN, " +
		"or psql's \\copy command."
	switch {
	case cs.IsProgram:
		return repr.Unsupported("COPY to or from an external program").WithHint("%s", hint)
	case cs.Filename != "" && cs.IsFrom:
		return repr.Unsupported("COPY from a file").WithHint("%s", hint)
	case cs.Filename != "":
		return repr.Unsupported("COPY to a file").WithHint("%s", hint)
	}
	return nil
}

// defElemString returns a DefElem's argument as text ("" when absent).
func defElemString(d *pg.DefElem) string {
	if d.Arg == nil {
		return ""
	}
	if s := d.Arg.GetString_(); s != nil {
		return s.Sval
	}
	if b := d.Arg.GetBoolean(); b != nil {
		return fmt.Sprint(b.Boolval)
	}
	if i := d.Arg.GetInteger(); i != nil {
		return fmt.Sprint(i.Ival)
	}
	return ""
}

// columns resolves the optional column list.
func (f *copyFormat) columns(attlist []*pg.Node) error {
	if len(attlist) == 0 {
		for i := range f.table.Columns {
			f.targets = append(f.targets, i)
		}
		return nil
	}
	for _, a := range attlist {
		name := a.GetString_().Sval
		idx := -1
		for i, c := range f.table.Columns {
			if c.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, f.table.Name)
		}
		if slices.Contains(f.targets, idx) {
			return repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" specified more than once", name)
		}
		f.targets = append(f.targets, idx)
	}
	return nil
}

// planDefaults plans the DEFAULT of every column the input omits.
func (f *copyFormat) planDefaults(cat planner.Catalog) error {
	f.defaults = map[int]expr.Expr{}
	for i, c := range f.table.Columns {
		if c.Default == nil || slices.Contains(f.targets, i) {
			continue
		}
		x, err := planner.PlanScalar(cat, c.Default, c.Type)
		if err != nil {
			return err
		}
		f.defaults[i] = x
	}
	return nil
}

// CopyInFormat reports the overall and per-column formats (all text or all binary).
func (p *Portal) CopyInFormat() (int16, []int16) {
	formats := make([]int16, len(p.copy.targets))
	if !p.copy.binary {
		return 0, formats
	}
	for i := range formats {
		formats[i] = 1
	}
	return 1, formats
}

// IsCopyIn reports whether the portal is a COPY FROM STDIN.
func (p *Portal) IsCopyIn() bool { return p.copy != nil }

// CopyIn reads the data stream, converts every line to a row and inserts
// all rows as one write (one transaction unless inside a block).
func (p *Portal) CopyIn(ctx context.Context, r io.Reader) (string, error) {
	ctx, stop := p.st.s.statementContext(ctx)
	defer stop()
	p.st.s.beginActivity(ctx, p.st.src)
	defer p.st.s.endActivity()
	keep := false
	defer p.useMemory()(&keep)
	s := p.st.s
	if err := s.enterGate(ctx, &p.st.stmt); err != nil {
		return "", err
	}
	defer s.leaveGate()
	s.startPart(p.st)
	tag, err := p.copyIn(r)
	return tag, s.finishPart(p.st, err)
}

// copyIn is CopyIn once the statement has its slot in the gate.
func (p *Portal) copyIn(r io.Reader) (string, error) {
	s := p.st.s
	rows, err := p.copy.read(r, s)
	if err != nil {
		if s.tx == txBlock {
			s.tx = txFailed
		}
		return "", err
	}
	ws := s.ws
	if s.tx == txIdle {
		ws = &writeSet{}
	}
	mark := ws.mark()
	ectx := s.evalCtx()
	err = growMemory(ectx, int64(len(rows))*rowHeaderBytes+rowsBytesSampled(rows)) // the parsed rows
	if err == nil {
		err = s.e.addRows(p.copy.table, rows, ws, s.tx == txIdle)
		if err == nil {
			s.e.countWrite(ws, uint64(p.copy.table.ID), 'i', len(rows))
			ws.countMods(uint64(p.copy.table.ID), len(rows))
		}
	}
	if err == nil {
		err = s.e.checkStatement(ws, mark, ectx, false)
	}
	if err == nil {
		err = ws.accountSince(mark, ectx)
	}
	if err != nil {
		ws.rollbackTo(mark)
		if s.tx == txBlock {
			s.tx = txFailed
		}
		return "", err
	}
	if s.tx == txIdle {
		if err := s.e.commit(ws); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("COPY %d", len(rows)), nil
}

// read parses all lines into table rows.
func (f *copyFormat) read(r io.Reader, s *Session) ([]repr.Row, error) {
	var rows []repr.Row
	line := 0
	done := s.interrupt()
	emit := func(fields []string, isNull func(int) bool) error {
		line++
		if line%1024 == 0 && isClosed(done) {
			return canceled(s.stmtCtx)
		}
		if f.header && line == 1 {
			return nil
		}
		row, err := f.row(fields, isNull, s)
		if err != nil {
			return fmt.Errorf("%w", withCopyContext(err, f.table.Name, line))
		}
		rows = append(rows, row)
		return nil
	}
	switch {
	case f.binary:
		return rows, f.readBinary(r, emit)
	case f.csv:
		return rows, f.readCSV(r, emit)
	}
	return rows, f.readText(r, emit)
}

func withCopyContext(err error, table string, line int) error {
	var pe *repr.Error
	if errors.As(err, &pe) {
		c := *pe
		c.Detail = fmt.Sprintf("COPY %s, line %d", table, line)
		return &c
	}
	return err
}

// readText splits PostgreSQL's text COPY format: tab-separated, \N for
// NULL, backslash escapes, terminated by EOF or a "\." line.
func (f *copyFormat) readText(r io.Reader, emit func([]string, func(int) bool) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<30)
	// fields and nulls are reused from line to line: emit parses the
	// fields before it returns (a text datum may keep a substring of its
	// line, which is a string of its own).
	var fields []string
	var nulls []bool
	isNull := func(i int) bool { return nulls[i] }
	delim := string(f.delim)
	for sc.Scan() {
		text := strings.TrimSuffix(sc.Text(), "\r")
		if text == `\.` {
			break
		}
		fields, nulls = splitCopyText(text, delim, fields[:0]), nulls[:0]
		for i, x := range fields {
			null := x == f.null
			if fields[i] = ""; !null {
				fields[i] = unescapeCopy(x)
			}
			nulls = append(nulls, null)
		}
		if err := emit(fields, isNull); err != nil {
			return err
		}
	}
	return copyReadErr(sc.Err())
}

// readCSV reads PostgreSQL's CSV format; an unquoted field equal to the
// NULL string (empty by default) is NULL, a quoted one never is.
func (f *copyFormat) readCSV(r io.Reader, emit func([]string, func(int) bool) error) error {
	cr := &csvReader{r: bufio.NewReaderSize(r, 64*1024), delim: byte(f.delim), quote: f.quote, escape: f.escape}
	for {
		rec, err := cr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return copyReadErr(err)
		}
		if len(rec) == 1 && !rec[0].quoted && rec[0].val == `\.` {
			return nil
		}
		vals := make([]string, len(rec))
		for i, x := range rec {
			vals[i] = x.val
		}
		isNull := func(i int) bool { return !rec[i].quoted && rec[i].val == f.null }
		if err := emit(vals, isNull); err != nil {
			return err
		}
	}
}

// readBinary reads the binary format; values are decoded by row (binary
// fields are not text, so they take a separate path from emit's parsing).
func (f *copyFormat) readBinary(r io.Reader, emit func([]string, func(int) bool) error) error {
	br := &binaryCopyReader{r: bufio.NewReaderSize(r, 64*1024)}
	for {
		fields, err := br.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return copyReadErr(err)
		}
		vals := make([]string, len(fields))
		for i, x := range fields {
			vals[i] = string(x)
		}
		if err := emit(vals, func(i int) bool { return fields[i] == nil }); err != nil {
			return err
		}
	}
}

func copyReadErr(err error) error {
	if err == nil {
		return nil
	}
	var pe *repr.Error
	if errors.As(err, &pe) {
		return err
	}
	if strings.Contains(err.Error(), "COPY") {
		return repr.Errorf(repr.CodeQueryCanceled, "%s", err.Error())
	}
	return repr.Errorf(repr.CodeInvalidText, "invalid COPY data: %s", err.Error())
}

// row converts one line's fields into a full table row.
func (f *copyFormat) row(fields []string, isNull func(int) bool, s *Session) (repr.Row, error) {
	if len(fields) != len(f.targets) {
		if len(fields) < len(f.targets) {
			return nil, repr.Errorf("22P04", "missing data for column \"%s\"", f.table.Columns[f.targets[len(fields)]].Name)
		}
		return nil, repr.Errorf("22P04", "extra data after last expected column")
	}
	row := f.newRow(len(f.table.Columns))
	for col, x := range f.defaults {
		d, err := x.Eval(s.evalCtx(), nil)
		if err != nil {
			return nil, err
		}
		row[col] = d
	}
	for i, col := range f.targets {
		if isNull(i) {
			continue
		}
		var d repr.Datum
		var err error
		t := f.table.Columns[col].Type
		switch {
		case f.enums[col] != nil:
			d, err = f.enums[col](fields[i])
		case f.binary:
			d, err = repr.ParseBinary([]byte(fields[i]), t)
		case t.Family == repr.FamInt:
			if n, ok := plainInt(fields[i], t.Width); ok {
				d = repr.NewInt(n)
				break
			}
			d, err = repr.ParseText(fields[i], t, s.location())
		default:
			d, err = repr.ParseText(fields[i], t, s.location())
		}
		if err != nil {
			return nil, err
		}
		row[col] = d
	}
	return row, nil
}

// newRow returns a row of n NULLs cut from a chunk of copyRowChunk rows'
// datums, so that a COPY does not allocate once per row (the rows live
// until the write set is committed, and their chunks with them).
func (f *copyFormat) newRow(n int) repr.Row {
	if len(f.slab) < n {
		f.slab = make(repr.Row, n*copyRowChunk)
	}
	r := f.slab[:n:n]
	f.slab = f.slab[n:]
	return r
}

// copyRowChunk is the number of rows whose datums newRow allocates at once.
const copyRowChunk = 256

// splitCopyText appends the raw fields of a text-format line to dst: the
// line split at each delimiter that no backslash escapes (a backslash
// followed by the delimiter is a data character, as in PostgreSQL).
func splitCopyText(line, delim string, dst []string) []string {
	start := 0
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\':
			i++ // the escaped byte is data
		case strings.HasPrefix(line[i:], delim):
			dst = append(dst, line[start:i])
			i += len(delim) - 1
			start = i + 1
		}
	}
	return append(dst, line[start:])
}

// unescapeCopy decodes the text format's backslash escapes.
func unescapeCopy(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
