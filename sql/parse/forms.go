package parse

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

// createSource parses CREATE SOURCE / CREATE TABLE (see CreateSource).
func (c *cursor) createSource(isTable bool) (*CreateSource, error) {
	c.i += 2 // CREATE SOURCE|TABLE, checked by classify
	s := &CreateSource{IsTable: isTable, IfNotExists: c.acceptAll("IF", "NOT", "EXISTS")}
	var err error
	if s.Schema, s.Name, err = c.objectName(); err != nil {
		return nil, err
	}
	if c.punct("(") {
		if err := c.sourceElements(s); err != nil {
			return nil, err
		}
	}
	if c.accept("WITH") {
		if s.Options, err = c.options(); err != nil {
			return nil, err
		}
	}
	s.Format, s.Encode, s.EncodeOptions, err = c.formatEncode()
	return s, err
}

// createSink parses CREATE SINK (see CreateSink).
func (c *cursor) createSink() (*CreateSink, error) {
	c.i += 2 // CREATE SINK
	s := &CreateSink{IfNotExists: c.acceptAll("IF", "NOT", "EXISTS")}
	var err error
	if s.Schema, s.Name, err = c.objectName(); err != nil {
		return nil, err
	}
	switch {
	case c.accept("FROM"):
		s.From, err = c.rangeVar()
	case c.accept("AS"):
		s.Query, err = c.query(c.i, c.sinkQueryEnd())
	default:
		err = c.fail()
	}
	if err != nil {
		return nil, err
	}
	if c.accept("WITH") {
		if s.Options, err = c.options(); err != nil {
			return nil, err
		}
	}
	s.Format, s.Encode, s.EncodeOptions, err = c.formatEncode()
	return s, err
}

// sinkQueryEnd finds where a sink's query ends: at the first top-level
// WITH ( or FORMAT x ENCODE, which no query contains at top level (a CTE's
// WITH is followed by a name, WITH ORDINALITY/TIME ZONE/TIES by a keyword).
func (c *cursor) sinkQueryEnd() int {
	for j := c.i; j < c.hi; j++ {
		switch {
		case c.p.toks[j].kind == tkPunct && (c.text(j) == "(" || c.text(j) == "["):
			j = c.matching(j)
		case isWord(c.p.src, c.p.toks[j], "WITH") && j+1 < c.hi && c.p.toks[j+1].kind == tkPunct && c.text(j+1) == "(":
			return j
		case isWord(c.p.src, c.p.toks[j], "FORMAT") && j+2 < c.hi && isWord(c.p.src, c.p.toks[j+2], "ENCODE"):
			return j
		}
	}
	return c.hi
}

// subscribe parses SUBSCRIBE [TO] (relation | (query)) [WITH (options)].
func (c *cursor) subscribe() (*Subscribe, error) {
	c.i++ // SUBSCRIBE
	if c.word("TO") && c.i+1 < c.hi && !isWord(c.p.src, c.p.toks[c.i+1], "WITH") {
		c.i++
	}
	s := &Subscribe{}
	var err error
	if c.punct("(") {
		end := c.matching(c.i)
		if s.Query, err = c.query(c.i+1, end); err != nil {
			return nil, err
		}
		if err := c.expectPunct(")"); err != nil {
			return nil, err
		}
	} else if s.Relation, err = c.rangeVar(); err != nil {
		return nil, err
	}
	if c.accept("WITH") {
		s.Options, err = c.options()
	}
	return s, err
}

// copySubscribe parses COPY (SUBSCRIBE ...) TO STDOUT [WITH] [(options)].
func (c *cursor) copySubscribe() (*Subscribe, error) {
	c.i++ // COPY
	end := c.matching(c.i)
	inner := &cursor{p: c.p, i: c.i + 1, hi: end}
	s, err := inner.subscribe()
	if err != nil {
		return nil, err
	}
	if inner.i < end {
		return nil, inner.fail()
	}
	c.i = end
	if err := c.expectPunct(")"); err != nil {
		return nil, err
	}
	if err := c.expect("TO"); err != nil {
		return nil, err
	}
	if err := c.expect("STDOUT"); err != nil {
		return nil, err
	}
	s.ViaCopy = true
	c.accept("WITH")
	if c.punct("(") {
		s.CopyOptions, err = c.options()
	}
	return s, err
}

// declareSubscribe parses DECLARE name [NO SCROLL] CURSOR [WITHOUT HOLD]
// FOR SUBSCRIBE ...; other cursor options are not part of the form.
func (c *cursor) declareSubscribe() (*Subscribe, error) {
	c.i++ // DECLARE
	if c.kind() != tkIdent && c.kind() != tkQIdent {
		return nil, c.fail()
	}
	nameAt := c.i
	rv, err := c.rangeVar()
	if err != nil {
		return nil, err
	}
	if rv.Schemaname != "" {
		return nil, c.p.syntaxErrAt(nameAt + 1)
	}
	c.acceptAll("NO", "SCROLL")
	if err := c.expect("CURSOR"); err != nil {
		return nil, err
	}
	c.acceptAll("WITHOUT", "HOLD")
	if err := c.expect("FOR"); err != nil {
		return nil, err
	}
	s, err := c.subscribe()
	if err != nil {
		return nil, err
	}
	s.CursorName = rv.Relname
	return s, nil
}

// formats and encodes are the FORMAT and ENCODE values Eddy supports.
var (
	formats = []string{"PLAIN", "UPSERT", "DEBEZIUM"}
	encodes = []string{"JSON", "CSV"}
)

// formatEncode parses an optional FORMAT f ENCODE e [(options)].
func (c *cursor) formatEncode() (format, encode string, opts []Option, err error) {
	if !c.accept("FORMAT") {
		return "", "", nil, nil
	}
	if format, err = c.choice("FORMAT", formats); err != nil {
		return "", "", nil, err
	}
	if err = c.expect("ENCODE"); err != nil {
		return "", "", nil, err
	}
	if encode, err = c.choice("ENCODE", encodes); err != nil {
		return "", "", nil, err
	}
	if c.punct("(") {
		opts, err = c.options()
	}
	return format, encode, opts, err
}

// choice consumes an identifier naming one of the values (case-
// insensitively) and returns it upper-cased; another identifier is
// unsupported (0A000), anything else a syntax error.
func (c *cursor) choice(clause string, values []string) (string, error) {
	if c.kind() != tkIdent {
		return "", c.fail()
	}
	v := strings.ToUpper(c.text(c.i))
	for _, ok := range values {
		if v == ok {
			c.i++
			return v, nil
		}
	}
	return "", c.p.errorAt(c.i, repr.CodeFeatureNotSupported, "%s %s is not supported", clause, v)
}
