package sql

import (
	"context"
	"encoding/binary"
	"io"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// copyTo is a planned COPY ... TO STDOUT: the query whose rows it writes
// (for COPY t [(cols)], a SELECT of those columns) and the format.
type copyTo struct {
	opts copyOptions
	q    *planner.Query
	// dml is, for COPY (INSERT/UPDATE/DELETE ... RETURNING) TO, the
	// statement to run instead of q; cols are the result columns.
	dml  *pg.Node
	cols []planner.ResultColumn
	// forceQuote[i] makes CSV quote column i's non-NULL values.
	forceQuote []bool
}

// prepareCopyTo plans COPY { t [(cols)] | (query) } TO STDOUT. Unlike
// PostgreSQL, which refuses COPY view TO (42809, "Try the COPY (SELECT
// ...) TO variant"), Eddy copies any relation it can read ad hoc: views,
// materialized views and readable sources too, as COPY (SELECT ...) would.
func (p *Portal) prepareCopyTo(cs *pg.CopyStmt, opts copyOptions) error {
	ct := &copyTo{opts: opts}
	names, err := p.planCopyTo(cs, ct)
	if err != nil {
		return err
	}
	if names == nil {
		for _, c := range ct.cols {
			names = append(names, c.Name)
		}
	}
	ct.forceQuote = make([]bool, len(ct.cols))
	for _, name := range opts.forceQuote {
		i := slices.Index(names, name)
		if i < 0 {
			return copyColumnMissing(cs, name)
		}
		ct.forceQuote[i] = true
	}
	if opts.forceQuoteAll {
		for i := range ct.forceQuote {
			ct.forceQuote[i] = true
		}
	}
	p.copyTo = ct
	return nil
}

// planCopyTo plans what a COPY TO reads into ct: a query, or a DML
// statement with RETURNING (which runs, and writes, when the COPY runs).
// It returns the column names of COPY t (cols), else nil.
func (p *Portal) planCopyTo(cs *pg.CopyStmt, ct *copyTo) ([]string, error) {
	s := p.st.s
	opts := planner.Options{TimeZone: s.settings.timeZone}
	if q := cs.Query; q != nil && q.GetSelectStmt() == nil {
		if !hasReturning(q) {
			return nil, repr.Errorf(repr.CodeFeatureNotSupported, "COPY query must have a RETURNING clause")
		}
		if err := s.checkWritable(q); err != nil {
			return nil, err
		}
		d, err := s.e.planDML(q, opts)
		if err != nil {
			return nil, err
		}
		ct.dml, ct.cols = q, d.returningCols
		return nil, nil
	}
	n, names, err := p.copyToQuery(cs)
	if err != nil {
		return nil, err
	}
	if ct.q, err = s.e.planLockingQuery(n, opts, s.evalCtx(), s.ws); err != nil {
		return nil, err
	}
	ct.cols = ct.q.Columns
	return names, nil
}

// hasReturning reports whether n is an INSERT, UPDATE or DELETE with a
// RETURNING list.
func hasReturning(n *pg.Node) bool {
	switch {
	case n.GetInsertStmt() != nil:
		return len(n.GetInsertStmt().ReturningList) > 0
	case n.GetUpdateStmt() != nil:
		return len(n.GetUpdateStmt().ReturningList) > 0
	case n.GetDeleteStmt() != nil:
		return len(n.GetDeleteStmt().ReturningList) > 0
	}
	return false
}

// copyToQuery returns the SELECT a COPY TO reads, and for COPY t (cols)
// the column names (nil for a query: its result columns).
func (p *Portal) copyToQuery(cs *pg.CopyStmt) (*pg.Node, []string, error) {
	if cs.Query != nil {
		return cs.Query, nil, nil
	}
	e := p.st.s.e
	var rel *planner.Relation
	var err error
	e.readLocked(func() {
		rel, err = e.cat.Relation(cs.Relation.Schemaname, cs.Relation.Relname)
	})
	if err != nil {
		return nil, nil, err
	}
	names, err := copyToColumns(rel, cs.Attlist)
	if err != nil {
		return nil, nil, err
	}
	quoted := make([]string, len(names))
	for i, name := range names {
		quoted[i] = pgQuoteIdent(name)
	}
	sql := "SELECT " + strings.Join(quoted, ", ") + " FROM " + pgQuoteIdent(rel.Schema) + "." + pgQuoteIdent(rel.Name)
	stmts, err := parse.Parse(sql)
	if err != nil {
		return nil, nil, err
	}
	return stmts[0].AST, names, nil
}

// copyToColumns resolves COPY t (cols): every column when the list is
// empty; 42703 for a missing one, 42701 for one named twice.
func copyToColumns(rel *planner.Relation, attlist []*pg.Node) ([]string, error) {
	var names []string
	if len(attlist) == 0 {
		for _, c := range rel.Columns {
			names = append(names, c.Name)
		}
		return names, nil
	}
	for _, a := range attlist {
		name := a.GetString_().GetSval()
		if !slices.ContainsFunc(rel.Columns, func(c planner.Column) bool { return c.Name == name }) {
			return nil, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, rel.Name)
		}
		if slices.Contains(names, name) {
			return nil, repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" specified more than once", name)
		}
		names = append(names, name)
	}
	return names, nil
}

// copyColumnMissing is the error for a FORCE_QUOTE column that is not
// among the copied ones, worded as PostgreSQL words it.
func copyColumnMissing(cs *pg.CopyStmt, name string) error {
	if cs.Relation != nil {
		return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, cs.Relation.Relname)
	}
	return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" does not exist", name)
}

// IsCopyOut reports whether the portal is COPY ... TO STDOUT (of a
// query, or of a SUBSCRIBE).
func (p *Portal) IsCopyOut() bool { return p.copyTo != nil || (p.stream != nil && p.copyOut) }

// CopyOutFormat reports the overall and per-column formats: 1 (binary)
// for FORMAT binary, else 0.
func (p *Portal) CopyOutFormat() (int16, []int16) {
	if p.copyTo == nil {
		return 0, make([]int16, len(p.stream.cols))
	}
	format := int16(0)
	if p.copyTo.opts.kind == copyBinaryKind {
		format = 1
	}
	cols := make([]int16, len(p.copyTo.cols))
	for i := range cols {
		cols[i] = format
	}
	return format, cols
}

// CopyOut runs the query and writes its rows, one CopyData message per
// row (the header, if any, is its own message; binary's signature rides
// with the first row and its trailer is the last message, as PostgreSQL
// sends them). The query runs as a SELECT would: in the session's
// transaction, seeing its pending writes.
func (p *Portal) CopyOut(ctx context.Context, w io.Writer) (string, error) {
	ctx, stop := p.st.s.statementContext(ctx)
	defer stop()
	p.st.s.beginActivity(ctx, p.st.src)
	defer p.st.s.endActivity()
	keep := false
	defer p.useMemory()(&keep)
	if p.copyTo == nil {
		return p.copySubscribe(ctx, w)
	}
	s := p.st.s
	if err := s.enterGate(ctx, &p.st.stmt); err != nil {
		return "", err
	}
	defer s.leaveGate()
	s.startPart(p.st)
	tag, err := p.copyRows(ctx, w)
	return tag, s.finishPart(p.st, err)
}

// copyRows is CopyOut once the statement has its slot in the gate. A
// query that streams (select_stream.go) is written as its chunks are
// computed, so the result is never held whole; an error in a later chunk
// fails the COPY after the rows already sent, as in PostgreSQL.
func (p *Portal) copyRows(ctx context.Context, w io.Writer) (string, error) {
	s := p.st.s
	failed := func(err error) error {
		err = asCanceled(ctx, err)
		if s.tx == txBlock {
			s.tx = txFailed
		}
		return err
	}
	rows, lazy, err := p.copyToRows(ctx)
	if err != nil {
		return "", failed(err)
	}
	if lazy != nil {
		defer lazy.release()
		lazy.ctx.Interrupt = ctx.Done()
	}
	enc := copyEncoder{p: p, ct: p.copyTo}
	if err := enc.start(w); err != nil {
		return "", err
	}
	n := 0
	for {
		var r repr.Row
		if lazy != nil {
			var ok bool
			if r, ok, err = lazy.next(); err != nil {
				return "", failed(err)
			} else if !ok {
				break
			}
		} else if n < len(rows) {
			r = rows[n]
		} else {
			break
		}
		if ctx.Err() != nil {
			return "", canceled(ctx)
		}
		if err := enc.row(w, r); err != nil {
			return "", err
		}
		n++
	}
	if err := enc.finish(w); err != nil {
		return "", err
	}
	return "COPY " + strconv.Itoa(n), nil
}

// copyToRows computes the rows a COPY TO writes: the query's (a stream of
// them when its plan streams), or the RETURNING rows of its DML
// statement, which runs (and commits in autocommit) as the statement
// would alone.
func (p *Portal) copyToRows(ctx context.Context) ([]repr.Row, *rowStream, error) {
	s, ct := p.st.s, p.copyTo
	if ct.dml != nil {
		if err := p.execDML(ctx, ct.dml); err != nil {
			return nil, nil, err
		}
		return p.rows, nil, nil
	}
	plan, _, err := compile(ct.q.Rel)
	if err != nil {
		return nil, nil, err
	}
	ectx, points := s.evalCtx(), pointInputs(plan)
	if !s.readsOwnWrites() {
		lazy, err := s.e.streamQuery(true, ct.q, plan, points, ectx, s.ws)
		if lazy != nil || err != nil {
			return nil, lazy, err
		}
	}
	rows, err := s.e.runPlan(ct.q, plan, points, ectx, s.ws)
	return rows, nil, err
}

// copyEncoder formats rows in a COPY TO's format into a reused buffer.
type copyEncoder struct {
	p    *Portal
	ct   *copyTo
	buf  []byte   // the message being built
	text []byte   // text forms of the current row's values
	vals [][]byte // slices of text, nil for NULL
}

// start writes the header line (text, CSV) or keeps the binary signature
// to send with the first row.
func (c *copyEncoder) start(w io.Writer) error {
	o := c.ct.opts
	switch {
	case o.kind == copyBinaryKind:
		c.buf = append(c.buf[:0], binaryCopySignature...)
		c.buf = binary.BigEndian.AppendUint32(c.buf, 0) // flags
		c.buf = binary.BigEndian.AppendUint32(c.buf, 0) // header extension length
	case o.header:
		single := len(c.ct.cols) == 1
		for i, col := range c.ct.cols {
			c.delimit(i)
			if o.kind == copyCSVKind {
				c.buf = appendCSVField(c.buf, []byte(col.Name), o, false, single)
			} else {
				c.buf = appendCopyText(c.buf, []byte(col.Name), o.delim)
			}
		}
		c.buf = append(c.buf, '\n')
		_, err := w.Write(c.buf)
		c.buf = c.buf[:0]
		return err
	}
	return nil
}

// delimit appends the delimiter before every field but the first.
func (c *copyEncoder) delimit(i int) {
	if i > 0 {
		c.buf = append(c.buf, c.ct.opts.delim)
	}
}

// row writes one row as one message.
func (c *copyEncoder) row(w io.Writer, r repr.Row) error {
	var err error
	if c.ct.opts.kind == copyBinaryKind {
		err = c.binaryRow(r)
	} else {
		c.textRow(r)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

// textRow formats r in text or CSV: values in their text output form
// (the wire's), escaped or quoted as PostgreSQL's CopyOneRowTo does.
func (c *copyEncoder) textRow(r repr.Row) {
	o := c.ct.opts
	vals := c.encodeText(r)
	single := len(vals) == 1
	for i, v := range vals {
		c.delimit(i)
		switch {
		case v == nil:
			c.buf = append(c.buf, o.null...)
		case o.kind == copyCSVKind:
			c.buf = appendCSVField(c.buf, v, o, c.ct.forceQuote[i], single)
		default:
			c.buf = appendCopyText(c.buf, v, o.delim)
		}
	}
	c.buf = append(c.buf, '\n')
}

// binaryRow formats r in the binary format: a field count, then each
// field's length (-1 for NULL) and its binary send form, the wire's.
func (c *copyEncoder) binaryRow(r repr.Row) error {
	c.buf = binary.BigEndian.AppendUint16(c.buf, uint16(len(r)))
	for i, d := range r {
		if d.IsNull() {
			c.buf = binary.BigEndian.AppendUint32(c.buf, 0xFFFFFFFF)
			continue
		}
		at := len(c.buf)
		c.buf = append(c.buf, 0, 0, 0, 0)
		var err error
		if c.buf, err = repr.AppendBinary(c.buf, d, c.ct.cols[i].Type); err != nil {
			return err
		}
		binary.BigEndian.PutUint32(c.buf[at:], uint32(len(c.buf)-at-4))
	}
	return nil
}

// finish writes the binary trailer (with the signature when there were
// no rows).
func (c *copyEncoder) finish(w io.Writer) error {
	if c.ct.opts.kind != copyBinaryKind {
		return nil
	}
	c.buf = binary.BigEndian.AppendUint16(c.buf, 0xFFFF)
	_, err := w.Write(c.buf)
	return err
}

// encodeText formats r's values in text as a SELECT's text results do
// (nil for NULL); the slices alias c's buffers until the next row.
func (c *copyEncoder) encodeText(r repr.Row) [][]byte {
	c.vals = slices.Grow(c.vals[:0], len(r))[:len(r)]
	if c.text == nil {
		c.text = make([]byte, 0, 256) // a nil slice of it would be NULL
	}
	c.text = c.text[:0]
	st := c.p.st.s.settings.textStyle()
	for i, d := range r {
		c.vals[i] = nil
		if d.IsNull() {
			continue
		}
		start := len(c.text)
		if t := c.ct.cols[i].Type; t.IsReg() {
			c.text = append(c.text, c.p.regText(d, t)...)
		} else {
			c.text = repr.AppendTextStyle(c.text, d, t, st)
		}
		c.vals[i] = c.text[start:len(c.text):len(c.text)]
	}
	return c.vals
}

// appendCopyText appends v escaped for the text format as PostgreSQL's
// CopyAttributeOutText does: backslash, the delimiter, and \b \f \n \r \t
// \v become backslash sequences; other bytes are copied.
func appendCopyText(buf, v []byte, delim byte) []byte {
	for _, b := range v {
		switch b {
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\v':
			buf = append(buf, '\\', 'v')
		case '\\', delim:
			buf = append(buf, '\\', b)
		default:
			buf = append(buf, b)
		}
	}
	return buf
}

// appendCSVField appends v as a CSV field as PostgreSQL's
// CopyAttributeOutCSV does: quoted when forced, when it equals the NULL
// string, when it is \. alone on a line, or when it contains the
// delimiter, the quote, \r or \n; inside quotes the quote and escape
// characters are preceded by the escape character.
func appendCSVField(buf, v []byte, o copyOptions, force, single bool) []byte {
	quote := force || string(v) == o.null || (single && string(v) == `\.`) ||
		slices.ContainsFunc(v, func(b byte) bool { return b == o.delim || b == o.quote || b == '\n' || b == '\r' })
	if !quote {
		return append(buf, v...)
	}
	buf = append(buf, o.quote)
	for _, b := range v {
		if b == o.quote || b == o.escape {
			buf = append(buf, o.escape)
		}
		buf = append(buf, b)
	}
	return append(buf, o.quote)
}
