package parse

import (
	"strconv"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// fastValuesMin is the shortest statement (in bytes) that the INSERT
// fast path (insertValues) takes; shorter ones cost pg_query little. Tests
// lower it.
var fastValuesMin = 2048

// mayHaveLongValues is Parse's pre-check for the INSERT fast path: a text
// long enough to hold a statement it takes, with the word VALUES in it.
func mayHaveLongValues(sql string) bool {
	if len(sql) < fastValuesMin {
		return false
	}
	for i := 0; i+6 <= len(sql); i++ {
		if sql[i]|0x20 == 'v' && strings.EqualFold(sql[i:i+6], "values") {
			return true
		}
	}
	return false
}

// insertValues returns the parse tree of the statement seg when it is an
// INSERT ... VALUES whose rows after the first are plain literals (the
// shape of bulk inserts: thousands of rows in one statement), or nil for
// pg_query to parse it. pg_query parses the statement's head, up to the end
// of its first row, and the rest is read here: each further row is "("
// literals ")", a literal one of 'text' (no backslash: the same under
// either standard_conforming_strings), an unsigned or negated integer or
// decimal, NULL, TRUE or FALSE, each becoming the A_Const PostgreSQL's
// grammar makes of it, at its byte offset. Anything else (E'..', DEFAULT,
// casts, expressions, ON CONFLICT or RETURNING after the rows) declines. The result equals
// pg_query's tree for the statement: the head is pg_query's own, the
// rows are checked against it (the first row, when it is all literals, must
// read the same here), and TestInsertValuesEquivalence compares the two
// over random statements.
func (p *front) insertValues(seg segment) *pg.Node {
	toks := p.toks[seg.lo:seg.hi]
	if len(toks) < 6 || !isWord(p.src, toks[0], "INSERT") || !isWord(p.src, toks[1], "INTO") ||
		toks[len(toks)-1].end-toks[0].start < fastValuesMin {
		return nil
	}
	v := p.valuesKeyword(toks)
	if v < 0 || !p.isPunct(toks[v+1], "(") {
		return nil
	}
	first := p.closing(toks, v+1)
	if first < 0 {
		return nil
	}
	rows, ok := p.literalRows(toks[first+1:])
	if !ok {
		return nil
	}
	ast, sel := p.parseHead(toks[0].start, toks[first].end)
	if ast == nil {
		return nil
	}
	if row, ok := p.literalRow(toks[v+1:first+1], nil); ok && !proto.Equal(row, sel.ValuesLists[0]) {
		return nil
	}
	sel.ValuesLists = append(sel.ValuesLists, rows...)
	return ast
}

// valuesKeyword returns the index in toks of the first VALUES outside
// parentheses, or -1.
func (p *front) valuesKeyword(toks []token) int {
	depth := 0
	for i, t := range toks[:len(toks)-1] {
		switch {
		case p.isPunct(t, "("), p.isPunct(t, "["):
			depth++
		case p.isPunct(t, ")"), p.isPunct(t, "]"):
			depth--
		case depth == 0 && isWord(p.src, t, "VALUES"):
			return i
		}
	}
	return -1
}

// closing returns the index of the parenthesis that closes the one at
// toks[open], or -1.
func (p *front) closing(toks []token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case p.isPunct(toks[i], "("), p.isPunct(toks[i], "["):
			depth++
		case p.isPunct(toks[i], ")"), p.isPunct(toks[i], "]"):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// isPunct reports whether t is the punctuation s.
func (p *front) isPunct(t token, s string) bool {
	return t.kind == tkPunct && p.src[t.start:t.end] == s
}

// parseHead parses src[from:to], an INSERT ending with its first VALUES
// row, with pg_query and moves its locations to the input's offsets. It
// returns the statement and its VALUES, or nil unless the statement is a
// plain INSERT ... VALUES (row) with nothing after the row.
func (p *front) parseHead(from, to int) (*pg.Node, *pg.SelectStmt) {
	res, err := pg.Parse(p.src[from:to])
	if err != nil || len(res.Stmts) != 1 {
		return nil, nil
	}
	ast := res.Stmts[0].Stmt
	ins := ast.GetInsertStmt()
	if ins == nil || ins.OnConflictClause != nil || len(ins.ReturningList) > 0 || ins.WithClause != nil {
		return nil, nil
	}
	sel := ins.SelectStmt.GetSelectStmt()
	if sel == nil || len(sel.ValuesLists) != 1 {
		return nil, nil
	}
	bare := &pg.SelectStmt{ValuesLists: sel.ValuesLists, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT, Op: pg.SetOperation_SETOP_NONE}
	if !proto.Equal(sel, bare) {
		return nil, nil
	}
	shiftLocations(ast.ProtoReflect(), int32(from))
	return ast, sel
}

// shiftLocations adds by to every location field of a parse tree
// (location, and name_location and the like).
func shiftLocations(m protoreflect.Message, by int32) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() == protoreflect.Int32Kind && isLocationField(string(fd.Name())):
			if v.Int() >= 0 {
				m.Set(fd, protoreflect.ValueOfInt32(int32(v.Int())+by))
			}
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				shiftLocations(l.Get(i).Message(), by)
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			shiftLocations(v.Message(), by)
		}
		return true
	})
}

// isLocationField reports whether a parse tree field named name holds a
// byte offset into the input (stmt_location is the RawStmt's, not the
// statement tree's).
func isLocationField(name string) bool {
	return name == "location" || strings.HasSuffix(name, "_location") && name != "stmt_location"
}

// literalRows reads toks as rows of literals, each preceded by a comma:
// ", (lit, ...), (lit, ...)". ok is false for anything else. Every row's
// nodes come from one slab sized for the whole text (at most one literal
// per two tokens, one row per "("): a few allocations per statement, not
// several per row.
func (p *front) literalRows(toks []token) (rows []*pg.Node, ok bool) {
	slab := newRowSlab(len(toks)/2+1, p.countPunct(toks, "("))
	rows = make([]*pg.Node, 0, cap(slab.lists))
	for i := 0; i < len(toks); {
		if !p.isPunct(toks[i], ",") || i+1 == len(toks) || !p.isPunct(toks[i+1], "(") {
			return nil, false
		}
		end := i + 1
		for end < len(toks) && !p.isPunct(toks[end], ")") {
			end++
		}
		if end == len(toks) {
			return nil, false
		}
		row, ok := p.literalRow(toks[i+1:end+1], slab)
		if !ok {
			return nil, false
		}
		rows = append(rows, row)
		i = end + 1
	}
	return rows, true
}

// countPunct returns how many of toks are the punctuation s.
func (p *front) countPunct(toks []token, s string) int {
	n := 0
	for _, t := range toks {
		if p.isPunct(t, s) {
			n++
		}
	}
	return n
}

// literalRow reads toks, "(" literals separated by commas ")", as a
// VALUES row: a List of A_Const, its nodes allocated from slab (nil: a
// slab of its own).
func (p *front) literalRow(toks []token, slab *rowSlab) (*pg.Node, bool) {
	if slab == nil {
		slab = newRowSlab(len(toks)/2, 1)
	}
	start := len(slab.items)
	for i := 1; i < len(toks); {
		n, ok := p.literal(toks[i:], slab)
		if !ok || i+n >= len(toks) {
			return nil, false
		}
		i += n
		switch {
		case p.isPunct(toks[i], ",") && i+1 < len(toks)-1:
			i++
		case p.isPunct(toks[i], ")") && i == len(toks)-1:
			i++
		default:
			return nil, false
		}
	}
	if len(slab.items) == start {
		return nil, false
	}
	return slab.row(slab.items[start:len(slab.items):len(slab.items)]), true
}

// rowSlab allocates the nodes of VALUES rows together (a bulk insert
// makes millions of them): per literal an item Node, its oneof wrapper
// and the A_Const, and for a string its String; per row its List and the
// List's Node. Invariant: items, nodes, wraps and consts share indexes,
// and a row's Items is a slice of items capped at its own end, so that
// appending to one row never writes into the next.
type rowSlab struct {
	items  []*pg.Node
	nodes  []pg.Node
	wraps  []pg.Node_AConst
	consts []pg.A_Const
	svals  []pg.A_Const_Sval
	strs   []pg.String
	lists  []pg.List
	lwraps []pg.Node_List
	lnodes []pg.Node
}

// newRowSlab returns a slab for up to n literals in up to rows rows.
func newRowSlab(n, rows int) *rowSlab {
	return &rowSlab{items: make([]*pg.Node, 0, n), nodes: make([]pg.Node, n), wraps: make([]pg.Node_AConst, n),
		consts: make([]pg.A_Const, n), svals: make([]pg.A_Const_Sval, 0, n), strs: make([]pg.String, 0, n),
		lists: make([]pg.List, 0, rows), lwraps: make([]pg.Node_List, 0, rows), lnodes: make([]pg.Node, 0, rows)}
}

// row returns the List node of items, from the slab while it has room.
func (s *rowSlab) row(items []*pg.Node) *pg.Node {
	if len(s.lists) == cap(s.lists) {
		return &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: items}}}
	}
	i := len(s.lists)
	s.lists = append(s.lists, pg.List{Items: items})
	s.lwraps = append(s.lwraps, pg.Node_List{List: &s.lists[i]})
	s.lnodes = append(s.lnodes, pg.Node{Node: &s.lwraps[i]})
	return &s.lnodes[i]
}

// add appends the next item of the row and returns its A_Const.
func (s *rowSlab) add(loc int) *pg.A_Const {
	i := len(s.items)
	c := &s.consts[i]
	c.Location = int32(loc)
	s.wraps[i].AConst = c
	s.nodes[i].Node = &s.wraps[i]
	s.items = append(s.items, &s.nodes[i])
	return c
}

// str returns a string constant's value.
func (s *rowSlab) str(v string) *pg.A_Const_Sval {
	s.strs = append(s.strs, pg.String{Sval: v})
	s.svals = append(s.svals, pg.A_Const_Sval{Sval: &s.strs[len(s.strs)-1]})
	return &s.svals[len(s.svals)-1]
}

// literal reads the literal at toks[0] (or a minus sign and the number
// after it) into the next item of slab as PostgreSQL's grammar makes it,
// and returns the tokens it took.
func (p *front) literal(toks []token, slab *rowSlab) (int, bool) {
	t := toks[0]
	text := p.src[t.start:t.end]
	if len(slab.items) == cap(slab.items) {
		return 0, false
	}
	switch t.kind {
	case tkString:
		s, ok := plainString(text)
		if !ok {
			return 0, false
		}
		slab.add(t.start).Val = slab.str(s)
		return 1, true
	case tkNumber:
		return 1, number(slab.add(t.start), text, false)
	case tkOp:
		if text != "-" || len(toks) < 2 || toks[1].kind != tkNumber {
			return 0, false
		}
		// doNegate moves the constant to the sign.
		return 2, number(slab.add(t.start), p.src[toks[1].start:toks[1].end], true)
	case tkIdent:
		switch {
		case strings.EqualFold(text, "NULL"):
			slab.add(t.start).Isnull = true
			return 1, true
		case strings.EqualFold(text, "TRUE"), strings.EqualFold(text, "FALSE"):
			b := strings.EqualFold(text, "TRUE")
			slab.add(t.start).Val = &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: b}}
			return 1, true
		}
	}
	return 0, false
}

// plainString decodes a '...' literal token with no prefix, backslash or
// NUL, in valid UTF-8: its text between the quotes, a doubled quote read
// as one. One pass finds all three (most literals have none, and then
// the text is the token's own bytes).
func plainString(tok string) (string, bool) {
	if len(tok) < 2 || tok[0] != '\'' {
		return "", false
	}
	s := tok[1 : len(tok)-1]
	quotes, ascii := false, true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == 0:
			return "", false
		case c == '\'':
			quotes = true
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && !utf8.ValidString(s) {
		return "", false
	}
	if quotes {
		s = strings.ReplaceAll(s, "''", "'")
	}
	return s, true
}

// number reads an unsigned decimal literal (digits, at most one point) as
// PostgreSQL's scanner and grammar do: an integer that fits int32 is an
// Integer, anything else a Float holding the text; negated, the Integer's
// value or the Float's text takes a minus sign (doNegate). It sets c's value.
func number(c *pg.A_Const, text string, negate bool) bool {
	digits, point := 0, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			point++
		default:
			return false
		}
	}
	if digits == 0 || point > 1 {
		return false
	}
	if point == 0 {
		if n, err := strconv.ParseInt(text, 10, 32); err == nil {
			if negate {
				n = -n
			}
			c.Val = &pg.A_Const_Ival{Ival: &pg.Integer{Ival: int32(n)}}
			return true
		}
	}
	if negate {
		text = "-" + text
	}
	c.Val = &pg.A_Const_Fval{Fval: &pg.Float{Fval: text}}
	return true
}
