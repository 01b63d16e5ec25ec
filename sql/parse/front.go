package parse

import (
	"sort"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// front is the extension front over one input: its text and tokens.
type front struct {
	src  string
	toks []token
	// lexErr is the input's lexical error, if any; toks end before it.
	lexErr *lexError
}

// form is what a statement's leading keywords make it.
type form uint8

const (
	formPlain form = iota
	formSource
	formTable // CREATE TABLE with a connector or watermark
	formSink
	formSubscribe
	formCopySubscribe
	formDeclareSubscribe
	formEmitOnWindowClose
	formDrop // DROP SOURCE / DROP SINK
)

// parse parses every statement: extension statements and long INSERT ...
// VALUES (insertValues) here, the rest in one pg_query call over the input
// with those blanked out, and with long IN lists of literals blanked
// after their first and spliced back (inLists).
// The first error in text order wins, as in PostgreSQL: when an extension
// statement fails, only the text before it goes to pg_query, whose error
// (if any) is earlier; a lexical error (an unterminated literal or comment)
// is reported unless a statement fails before it.
func (p *front) parse() ([]Stmt, error) {
	masked := []byte(p.src)
	limit := len(p.src) // masked is cut here
	if p.lexErr != nil {
		limit = p.lexErr.pos
	}
	var exts []Stmt
	var emits []*EmitOnWindowClose
	var lists []inList
	var cuts []span // blanked statements pg_query need not scan (parseCompact)
	var extErr error
	segs := split(p.src, p.toks)
	for k, seg := range segs {
		partial := p.lexErr != nil && k == len(segs)-1 // cut short by the lexical error
		if seg.lo == seg.hi {
			continue
		}
		f := p.classify(seg)
		switch {
		case f == formPlain:
			if ast := p.insertValues(seg); ast != nil && !partial {
				cuts = p.blankStmt(masked, seg, cuts)
				exts = append(exts, newStmt(p.src, seg.start, seg.end, ast, nil))
			} else if !partial {
				lists = append(lists, p.inLists(seg, masked)...)
			}
			continue
		case f == formEmitOnWindowClose:
			emit := p.toks[seg.hi-4]
			blank(masked, emit.start, p.toks[seg.hi-1].end)
			if !partial {
				emits = append(emits, &EmitOnWindowClose{Location: emit.start})
			}
			continue
		}
		cuts = p.blankStmt(masked, seg, cuts)
		ext, err := p.parseExt(f, seg)
		if err != nil && !(partial && !p.before(err, p.lexErr.pos)) {
			extErr, limit = err, seg.start
			break
		}
		if !partial {
			exts = append(exts, newStmt(p.src, seg.start, seg.end, nil, ext))
		}
	}
	for len(cuts) > 0 && cuts[len(cuts)-1].hi > limit {
		cuts = cuts[:len(cuts)-1]
	}
	stmts, err := parseCompact(p.src, masked[:limit], cuts)
	if len(lists) > 0 && (err != nil || !spliceInLists(stmts, lists)) {
		// pg_query reads the lists itself: its error, or a list in a
		// place the splice does not know.
		for _, l := range lists {
			copy(masked[l.from:l.to], p.src[l.from:l.to])
		}
		stmts, err = parseCompact(p.src, masked[:limit], cuts)
	}
	if err != nil && (p.lexErr == nil || extErr != nil || p.before(err, p.lexErr.pos)) {
		return nil, err
	}
	if extErr != nil {
		return nil, extErr
	}
	if p.lexErr != nil {
		return nil, p.lexicalError()
	}
	attachEmits(stmts, emits)
	stmts = append(stmts, exts...)
	sort.SliceStable(stmts, func(i, j int) bool { return stmts[i].Offset < stmts[j].Offset })
	return stmts, nil
}

// blankStmt blanks seg's statement in masked and returns cuts with it
// added when it is long enough to cut out of pg_query's text.
func (p *front) blankStmt(masked []byte, seg segment, cuts []span) []span {
	lo, hi := p.toks[seg.lo].start, p.toks[seg.hi-1].end
	blank(masked, lo, hi)
	if hi-lo < compactMin {
		return cuts
	}
	return append(cuts, span{lo, hi})
}

// before reports whether err is positioned before byte offset b.
func (p *front) before(err error, b int) bool {
	pos := repr.ErrorFrom(err).Position
	return pos > 0 && pos < CharPosition(p.src, b)
}

// lexicalError is the lexical error as PostgreSQL words it.
func (p *front) lexicalError() error {
	e := p.lexErr
	return repr.Errorf(repr.CodeSyntax, "%s at or near \"%s\"", e.msg, p.src[e.pos:]).
		WithPosition(CharPosition(p.src, e.pos))
}

// blank overwrites b[from:to] with spaces.
func blank(b []byte, from, to int) {
	for i := from; i < to; i++ {
		b[i] = ' '
	}
}

// attachEmits marks each CREATE MATERIALIZED VIEW whose text contains an
// EMIT ON WINDOW CLOSE clause.
func attachEmits(stmts []Stmt, emits []*EmitOnWindowClose) {
	for _, e := range emits {
		for i := range stmts {
			s := &stmts[i]
			if e.Location >= s.Offset && e.Location < s.Offset+len(s.SQL) && s.AST.GetCreateTableAsStmt() != nil {
				s.Ext = e
			}
		}
	}
}

// classify decides by a statement's leading keywords (and, for CREATE
// TABLE, its options) whether it is an extension form.
func (p *front) classify(seg segment) form {
	c := p.cursor(seg)
	switch {
	case c.accept("CREATE"):
		switch {
		case c.accept("SOURCE"):
			return formSource
		case c.accept("SINK"):
			return formSink
		case c.word("TABLE"):
			if p.isConnectorTable(seg) {
				return formTable
			}
		case c.word("MATERIALIZED"):
			if seg.hi-seg.lo > 6 && p.isWords(seg.hi-4, "EMIT", "ON", "WINDOW", "CLOSE") {
				return formEmitOnWindowClose
			}
		}
	case c.accept("DROP"):
		if c.word("SOURCE") || c.word("SINK") {
			return formDrop
		}
	case c.word("SUBSCRIBE"):
		return formSubscribe
	case c.accept("COPY"):
		if c.acceptPunct("(") && c.word("SUBSCRIBE") {
			return formCopySubscribe
		}
	case c.accept("DECLARE"):
		for ; c.i < c.hi && !c.punct("("); c.i++ {
			if c.accept("FOR") {
				if c.word("SUBSCRIBE") {
					return formDeclareSubscribe
				}
				break
			}
		}
	}
	return formPlain
}

// isWords reports whether the tokens from i are the keywords ws.
func (p *front) isWords(i int, ws ...string) bool {
	for j, w := range ws {
		if i+j >= len(p.toks) || !isWord(p.src, p.toks[i+j], w) {
			return false
		}
	}
	return true
}

// isConnectorTable reports whether a CREATE TABLE statement is fed by a
// connector: CREATE TABLE [IF NOT EXISTS] name [(elements)] WITH (options)
// where an element is a WATERMARK or an option key is connector. Anything
// else (fillfactor options, AS query, PARTITION OF) is PostgreSQL's.
func (p *front) isConnectorTable(seg segment) bool {
	c := p.cursor(seg)
	c.accept("CREATE")
	c.accept("TABLE")
	c.acceptAll("IF", "NOT", "EXISTS")
	if !c.skipName() {
		return false
	}
	if c.punct("(") {
		for _, el := range c.elements() {
			if el.hi-el.lo > 1 && p.isWords(el.lo, "WATERMARK", "FOR") {
				return true
			}
		}
	}
	if !c.accept("WITH") || !c.punct("(") {
		return false
	}
	for _, el := range c.elements() {
		if el.lo < el.hi && p.optionKeyIs(el.lo, "connector") {
			return true
		}
	}
	return false
}

// optionKeyIs reports whether the option starting at token i has key k.
func (p *front) optionKeyIs(i int, k string) bool {
	t := p.toks[i]
	text := p.src[t.start:t.end]
	switch t.kind {
	case tkIdent:
		return strings.EqualFold(text, k)
	case tkQIdent, tkString:
		return text[1:len(text)-1] == k
	}
	return false
}

// parseExt parses one extension statement.
func (p *front) parseExt(f form, seg segment) (Ext, error) {
	c := p.cursor(seg)
	var ext Ext
	var err error
	switch f {
	case formSource, formTable:
		ext, err = c.createSource(f == formTable)
	case formSink:
		ext, err = c.createSink()
	case formSubscribe:
		ext, err = c.subscribe()
	case formCopySubscribe:
		ext, err = c.copySubscribe()
	case formDeclareSubscribe:
		ext, err = c.declareSubscribe()
	case formDrop:
		ext, err = c.dropObject()
	}
	if err != nil {
		return nil, err
	}
	if c.i < c.hi {
		return nil, c.fail()
	}
	return ext, nil
}

// syntaxErrAt is PostgreSQL's syntax error at token i (or at the end of
// the input when i is past the last token).
func (p *front) syntaxErrAt(i int) error {
	if i >= len(p.toks) {
		return repr.Errorf(repr.CodeSyntax, "syntax error at end of input").WithPosition(CharPosition(p.src, len(p.src)))
	}
	t := p.toks[i]
	return repr.Errorf(repr.CodeSyntax, "syntax error at or near \"%s\"", p.src[t.start:t.end]).
		WithPosition(CharPosition(p.src, t.start))
}

// errorAt returns an error of the given code positioned at token i.
func (p *front) errorAt(i int, code, format string, args ...any) error {
	pos := len(p.src)
	if i < len(p.toks) {
		pos = p.toks[i].start
	}
	return repr.Errorf(code, format, args...).WithPosition(CharPosition(p.src, pos))
}
