package parse

import (
	"strconv"

	"github.com/eddydb/eddy/repr"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// This file hands the PostgreSQL parts of extension statements to
// pg_query, each in a synthesized text that keeps the part at its byte
// offset (see synth).

// rangeVar parses a possibly qualified relation name at the cursor as
// pg_query parses "TABLE name", so names are normalized exactly as in
// PostgreSQL (case folding, truncation, reserved words rejected).
func (c *cursor) rangeVar() (*pg.RangeVar, error) {
	lo := c.i
	if !c.skipName() {
		return nil, c.fail()
	}
	from, to := c.p.toks[lo].start, c.p.toks[c.i-1].end
	s := newSynth(to)
	s.copyRange(c.p.src, from, to)
	if !s.put(from-1, "TABLE") {
		return nil, c.p.syntaxErrAt(lo)
	}
	res, err := c.p.parseSynth(s)
	if err != nil {
		return nil, err
	}
	sel := onlySelect(res)
	if sel == nil || len(sel.FromClause) != 1 || sel.FromClause[0].GetRangeVar() == nil {
		return nil, c.p.syntaxErrAt(lo)
	}
	return sel.FromClause[0].GetRangeVar(), nil
}

// objectName parses the name of a new source or sink: [schema.]name.
func (c *cursor) objectName() (schema, name string, err error) {
	lo := c.i
	rv, err := c.rangeVar()
	if err != nil {
		return "", "", err
	}
	if rv.Catalogname != "" {
		return "", "", c.p.errorAt(lo, repr.CodeFeatureNotSupported,
			"cross-database references are not implemented: %s.%s.%s", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	return rv.Schemaname, rv.Relname, nil
}

// onlySelect returns the statement of a one-statement parse if it is a
// SelectStmt.
func onlySelect(res *pg.ParseResult) *pg.SelectStmt {
	if len(res.Stmts) != 1 {
		return nil
	}
	return res.Stmts[0].Stmt.GetSelectStmt()
}

// query parses tokens [lo, hi) as a query (SELECT, VALUES, set operations,
// WITH ...) and moves the cursor to hi.
func (c *cursor) query(lo, hi int) (*pg.Node, error) {
	if lo >= hi {
		return nil, c.p.syntaxErrAt(lo)
	}
	from, to := c.p.toks[lo].start, c.p.toks[hi-1].end
	s := newSynth(to)
	s.copyRange(c.p.src, from, to)
	res, err := c.p.parseSynth(s)
	if err != nil {
		return nil, err
	}
	if onlySelect(res) == nil {
		return nil, c.p.syntaxErrAt(lo)
	}
	c.i = hi
	return res.Stmts[0].Stmt, nil
}

// sourceElements parses the parenthesized elements of CREATE SOURCE:
// column definitions and table constraints (parsed by pg_query as the
// elements of "CREATE TABLE x (...)", the watermark removed) and at most
// one WATERMARK FOR column AS expr.
func (c *cursor) sourceElements(s *CreateSource) error {
	open := c.i
	close := c.matching(open)
	if close >= c.hi {
		return c.unclosed(open)
	}
	els := c.elements()
	syn := newSynth(c.p.toks[close].end)
	copyFrom := c.p.toks[open].start
	for k, el := range els {
		if !(el.hi-el.lo > 1 && c.p.isWords(el.lo, "WATERMARK", "FOR")) {
			continue
		}
		if s.Watermark != nil {
			return c.p.errorAt(el.lo, repr.CodeSyntax, "multiple WATERMARK clauses are not allowed")
		}
		wm, err := c.p.watermark(el)
		if err != nil {
			return err
		}
		s.Watermark = wm
		// Drop the element with one adjacent comma: the one before it, or
		// after it when it comes first.
		cut, resume := c.p.toks[el.lo-1].start, c.p.toks[el.hi].start
		if k == 0 {
			cut, resume = c.p.toks[open].end, c.p.toks[el.hi].end
			if el.hi == close {
				resume = c.p.toks[close].start
			}
		}
		syn.copyRange(c.p.src, copyFrom, cut)
		copyFrom = resume
	}
	syn.copyRange(c.p.src, copyFrom, c.p.toks[close].end)
	if !syn.put(c.p.toks[open].start, "CREATE TABLE x") {
		return c.p.syntaxErrAt(open)
	}
	res, err := c.p.parseSynth(syn)
	if err != nil {
		return err
	}
	return c.p.collectElements(s, res, open)
}

// unclosed reports the error in an element list without its closing
// parenthesis: pg_query's first error in it, else the end of the statement.
func (c *cursor) unclosed(open int) error {
	to := c.p.toks[c.hi-1].end
	syn := newSynth(to)
	syn.copyRange(c.p.src, c.p.toks[open].start, to)
	if syn.put(c.p.toks[open].start, "CREATE TABLE x") {
		if _, err := c.p.parseSynth(syn); err != nil {
			return err
		}
	}
	c.i = c.hi
	return c.fail()
}

// collectElements sorts the parsed CREATE TABLE elements into columns and
// constraints.
func (p *front) collectElements(s *CreateSource, res *pg.ParseResult, open int) error {
	if len(res.Stmts) != 1 || res.Stmts[0].Stmt.GetCreateStmt() == nil {
		return p.syntaxErrAt(open)
	}
	for _, el := range res.Stmts[0].Stmt.GetCreateStmt().TableElts {
		switch {
		case el.GetColumnDef() != nil:
			s.Columns = append(s.Columns, el.GetColumnDef())
		case el.GetConstraint() != nil:
			s.Constraints = append(s.Constraints, el.GetConstraint())
		default:
			return p.errorAt(open, repr.CodeFeatureNotSupported, "LIKE in %s is not supported", s.Construct())
		}
	}
	return nil
}

// watermark parses WATERMARK FOR column AS expr, given as the element el,
// by handing pg_query "SELECT column, (expr)": the parentheses make it
// reject anything but one expression (FROM, an alias) at the right token.
func (p *front) watermark(el span) (*Watermark, error) {
	col, as := el.lo+2, el.lo+3
	c := &cursor{p: p, i: col, hi: el.hi}
	if !c.isName() {
		return nil, c.fail()
	}
	c.i++
	if err := c.expect("AS"); err != nil {
		return nil, err
	}
	if c.i >= el.hi {
		return nil, c.fail()
	}
	exprFrom, exprTo := p.toks[as+1].start, p.toks[el.hi-1].end
	s := newSynth(exprTo + 1)
	s.copyRange(p.src, p.toks[col].start, p.toks[col].end)
	s.copyRange(p.src, exprFrom, exprTo)
	s.put(p.toks[col].start-1, "SELECT")
	s.put(p.toks[col].end+1, ",")
	s.put(exprFrom, "(")
	s.put(exprTo+1, ")")
	res, err := p.parseSynth(s)
	if err != nil {
		return nil, err
	}
	sel := onlySelect(res)
	if sel == nil || len(sel.TargetList) != 2 || sel.FromClause != nil {
		return nil, p.syntaxErrAt(el.lo)
	}
	ref := sel.TargetList[0].GetResTarget().GetVal().GetColumnRef()
	if ref == nil || len(ref.Fields) != 1 || ref.Fields[0].GetString_() == nil {
		return nil, p.syntaxErrAt(col)
	}
	return &Watermark{Column: ref.Fields[0].GetString_().Sval, Expr: sel.TargetList[1].GetResTarget().GetVal(),
		Location: p.toks[el.lo].start}, nil
}

// options parses (key [=] value, ...) at the cursor. Keys are read here;
// string and numeric values are decoded by pg_query in one "SELECT v1, v2"
// so every PostgreSQL literal form means what it means in PostgreSQL.
func (c *cursor) options() ([]Option, error) {
	if err := c.expectPunct("("); err != nil {
		return nil, err
	}
	var opts []Option
	var lits []span // literal values, decoded by pg_query
	var litOpt []int
	for {
		o, lit, err := c.option()
		if err != nil {
			return nil, err
		}
		if lit.hi > lit.lo {
			lits, litOpt = append(lits, lit), append(litOpt, len(opts))
		}
		opts = append(opts, o)
		if !c.acceptPunct(",") {
			break
		}
	}
	if err := c.expectPunct(")"); err != nil {
		return nil, err
	}
	vals, err := c.p.literals(lits)
	if err != nil {
		return nil, err
	}
	for k, v := range vals {
		opts[litOpt[k]].Value = v
	}
	return opts, nil
}

// option parses one option. A literal value is returned as a span for
// options to decode; other values are set on the option.
func (c *cursor) option() (Option, span, error) {
	o := Option{}
	if c.i < c.hi {
		o.Location = c.p.toks[c.i].start
	}
	key, err := c.optionKey()
	if err != nil {
		return o, span{}, err
	}
	o.Key = key
	eq := c.kind() == tkOp && c.text(c.i) == "="
	if eq {
		c.i++
	}
	switch k := c.kind(); {
	case !eq && (c.punct(",") || c.punct(")")):
		o.Bare = true
	case k == tkString:
		lo := c.i
		for c.kind() == tkString {
			c.i++ // continued strings: pg_query checks the newline rule
		}
		return o, span{lo, c.i}, nil
	case k == tkOp && (c.text(c.i) == "-" || c.text(c.i) == "+") && c.i+1 < c.hi && c.p.toks[c.i+1].kind == tkNumber:
		lo := c.i
		if c.text(c.i) == "+" {
			lo++
		}
		c.i += 2
		return o, span{lo, c.i}, nil
	case k == tkNumber:
		c.i++
		return o, span{c.i - 1, c.i}, nil
	case k == tkIdent:
		o.Value = asciiLower(c.text(c.i))
		c.i++
	case k == tkQIdent && c.text(c.i)[0] == '"':
		o.Value = unquote(c.text(c.i))
		c.i++
	default:
		return o, span{}, c.fail()
	}
	return o, span{}, nil
}

// optionKey parses a key: a plain string literal, or name ('.' name)*
// with unquoted parts lowercased.
func (c *cursor) optionKey() (string, error) {
	if c.kind() == tkString && c.text(c.i)[0] == '\'' {
		c.i++
		return unquote(c.text(c.i - 1)), nil
	}
	key := ""
	for {
		switch {
		case c.kind() == tkIdent:
			key += asciiLower(c.text(c.i))
		case c.kind() == tkQIdent && c.text(c.i)[0] == '"':
			key += unquote(c.text(c.i))
		default:
			return "", c.fail()
		}
		c.i++
		if !c.punct(".") {
			return key, nil
		}
		c.i++
		key += "."
	}
}

// literals decodes literal values (strings, signed numbers) with one
// pg_query call over "SELECT v1, v2, ...", each value at its own offset.
func (p *front) literals(lits []span) ([]string, error) {
	if len(lits) == 0 {
		return nil, nil
	}
	last := lits[len(lits)-1]
	s := newSynth(p.toks[last.hi-1].end + 1)
	for k, l := range lits {
		from, to := p.toks[l.lo].start, p.toks[l.hi-1].end
		s.copyRange(p.src, from, to)
		if k == 0 {
			s.put(from-1, "SELECT")
		} else {
			s.put(p.toks[lits[k-1].hi-1].end+1, ",")
		}
	}
	res, err := p.parseSynth(s)
	if err != nil {
		return nil, err
	}
	sel := onlySelect(res)
	if sel == nil || len(sel.TargetList) != len(lits) {
		return nil, p.syntaxErrAt(lits[0].lo)
	}
	out := make([]string, len(lits))
	for k, t := range sel.TargetList {
		v, ok := constText(t.GetResTarget().GetVal().GetAConst())
		if !ok {
			return nil, p.syntaxErrAt(lits[k].lo)
		}
		out[k] = v
	}
	return out, nil
}

// constText is the text of a constant as an option value.
func constText(a *pg.A_Const) (string, bool) {
	switch {
	case a == nil || a.Isnull:
		return "", false
	case a.GetSval() != nil:
		return a.GetSval().Sval, true
	case a.GetIval() != nil:
		return strconv.FormatInt(int64(a.GetIval().Ival), 10), true
	case a.GetFval() != nil:
		return a.GetFval().Fval, true
	}
	return "", false
}
