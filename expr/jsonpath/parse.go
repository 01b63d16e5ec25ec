package jsonpath

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/expr/are"
	"github.com/eddydb/eddy/repr"
)

func init() { repr.SetJSONPathInput(Normalize) }

// Normalize parses jsonpath text and returns the text PostgreSQL prints
// for it.
func Normalize(s string) (string, error) {
	p, err := Parse(s)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

// Parse parses jsonpath text (PostgreSQL 15's jsonpath_gram.y). Syntax
// errors are 42601; an empty path is 22P02.
func Parse(s string) (*Path, error) {
	if !utf8.ValidString(s) {
		return nil, repr.ErrInvalidUTF8(s)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return nil, repr.Errorf("22021", "invalid byte sequence for encoding \"UTF8\": 0x00")
	}
	p := &parser{lx: lexer{s: s}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type jsonpath: %q", s)
	}
	path := &Path{}
	if p.isKeyword("strict") || p.isKeyword("lax") {
		path.Strict = p.isKeyword("strict")
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.unexpected()
	}
	if err := check(e, false, false); err != nil {
		return nil, err
	}
	path.Expr = e
	return path, nil
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 1000

type parser struct {
	lx    lexer
	tok   token
	depth int
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	p.tok = t
	return err
}

func (p *parser) unexpected() error {
	if p.tok.kind == tEOF {
		return errSyntax("")
	}
	return errSyntax(p.lx.s[p.tok.pos:p.lx.i])
}

func (p *parser) isPunct(s string) bool { return p.tok.kind == tPunct && p.tok.val == s }

// isKeyword reports whether the token is keyword kw. null, true and false
// must be lowercase; the other keywords are case-insensitive.
func (p *parser) isKeyword(kw string) bool {
	if p.tok.kind != tIdent || p.lx.s[p.tok.pos] == '\\' {
		return false
	}
	switch kw {
	case "null", "true", "false":
		return p.tok.val == kw
	}
	return strings.EqualFold(p.tok.val, kw)
}

func (p *parser) expectPunct(s string) error {
	if !p.isPunct(s) {
		return p.unexpected()
	}
	return p.advance()
}

func (p *parser) expectKeyword(kw string) error {
	if !p.isKeyword(kw) {
		return p.unexpected()
	}
	return p.advance()
}

// binary builds a binary item whose operands must both be predicates
// (logic) or both expressions.
func (p *parser) binary(k Kind, l, r *Item, logic bool) (*Item, error) {
	if l.isPredicate() != logic || r.isPredicate() != logic {
		return nil, p.unexpected()
	}
	return &Item{Kind: k, Left: l, Right: r}, nil
}

func (p *parser) or() (*Item, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, repr.Errorf(repr.CodeProgramLimitExceeded, "stack depth limit exceeded")
	}
	return p.chain("||", KOr, p.and)
}

func (p *parser) and() (*Item, error) { return p.chain("&&", KAnd, p.not) }

// chain parses sub (op sub)*: left-associative predicates of kind.
func (p *parser) chain(op string, kind Kind, sub func() (*Item, error)) (*Item, error) {
	l, err := sub()
	for err == nil && p.isPunct(op) {
		var r *Item
		if err = p.advance(); err == nil {
			if r, err = sub(); err == nil {
				l, err = p.binary(kind, l, r, true)
			}
		}
	}
	return l, err
}

// not parses ! delimited_predicate, or a comparison.
func (p *parser) not() (*Item, error) {
	if !p.isPunct("!") {
		return p.comparison()
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if !p.isPunct("(") && !p.isKeyword("exists") {
		return nil, p.unexpected()
	}
	a, err := p.unary()
	if err != nil {
		return nil, err
	}
	if !a.isPredicate() {
		return nil, p.unexpected()
	}
	return &Item{Kind: KNot, Left: a}, nil
}

var compOps = map[string]Kind{"==": KEqual, "!=": KNotEqual, "<>": KNotEqual, "<": KLess,
	">": KGreater, "<=": KLessOrEqual, ">=": KGreaterOrEqual}

func (p *parser) comparison() (*Item, error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	switch {
	case p.tok.kind == tPunct && compOps[p.tok.val] != 0:
		k := compOps[p.tok.val]
		if err := p.advance(); err != nil {
			return nil, err
		}
		r, err := p.additive()
		if err != nil {
			return nil, err
		}
		return p.binary(k, l, r, false)
	case p.isKeyword("starts"):
		return p.startsWith(l)
	case p.isKeyword("like_regex"):
		return p.likeRegex(l)
	}
	return l, nil
}

func (p *parser) startsWith(l *Item) (*Item, error) {
	if l.isPredicate() {
		return nil, p.unexpected()
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("with"); err != nil {
		return nil, err
	}
	var r *Item
	switch p.tok.kind {
	case tString:
		r = &Item{Kind: KString, Str: p.tok.val}
	case tVariable:
		r = &Item{Kind: KVariable, Str: p.tok.val}
	default:
		return nil, p.unexpected()
	}
	return &Item{Kind: KStartsWith, Left: l, Right: r}, p.advance()
}

func (p *parser) likeRegex(l *Item) (*Item, error) {
	if l.isPredicate() {
		return nil, p.unexpected()
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tString {
		return nil, p.unexpected()
	}
	it := &Item{Kind: KLikeRegex, Left: l, Str: p.tok.val}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.isKeyword("flag") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != tString {
			return nil, p.unexpected()
		}
		f, err := parseFlags(p.tok.val)
		if err != nil {
			return nil, err
		}
		it.Flags = f
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	re, err := compileRegex(it.Str, it.Flags)
	if err != nil {
		return nil, err
	}
	it.re = re
	return it, nil
}

// parseFlags reads like_regex's flag string.
func parseFlags(s string) (uint8, error) {
	var f uint8
	for _, c := range s {
		switch c {
		case 'i':
			f |= FlagI
		case 's':
			f |= FlagS
		case 'm':
			f |= FlagM
		case 'x':
			f |= FlagX
		case 'q':
			f |= FlagQ
		default:
			return 0, repr.Errorf(repr.CodeSyntax, "invalid input syntax for type jsonpath").
				WithDetail("Unrecognized flag character %q in LIKE_REGEX predicate.", string(c))
		}
	}
	return f, nil
}

// compileRegex compiles a like_regex pattern as PostgreSQL's
// jspConvertRegexFlags reads XQuery's flags into ARE flags: "." and [^...]
// stop at a newline unless s, ^ and $ anchor at newlines with m, q quotes
// the pattern, x is not implemented. The pattern is an ARE, translated by
// package are as the SQL regular expression operators' are.
func compileRegex(pattern string, flags uint8) (*are.Regexp, error) {
	var f are.Flags
	if flags&FlagI != 0 {
		f |= are.ICase
	}
	switch {
	case flags&FlagQ != 0:
		f |= are.Quote
	case flags&FlagX != 0:
		return nil, repr.Errorf(repr.CodeFeatureNotSupported, "XQuery \"x\" flag (expanded regular expressions) is not implemented")
	default:
		if flags&FlagS == 0 {
			f |= are.NLStop
		}
		if flags&FlagM != 0 {
			f |= are.NLAnch
		}
	}
	re, err := are.Compile(pattern, f)
	if err != nil {
		return nil, err
	}
	return re, nil
}

func (p *parser) additive() (*Item, error) {
	l, err := p.multiplicative()
	for err == nil && (p.isPunct("+") || p.isPunct("-")) {
		k := KAdd
		if p.tok.val == "-" {
			k = KSub
		}
		var r *Item
		if err = p.advance(); err == nil {
			if r, err = p.multiplicative(); err == nil {
				l, err = p.binary(k, l, r, false)
			}
		}
	}
	return l, err
}

func (p *parser) multiplicative() (*Item, error) {
	l, err := p.unary()
	for err == nil && (p.isPunct("*") || p.isPunct("/") || p.isPunct("%")) {
		k := map[string]Kind{"*": KMul, "/": KDiv, "%": KMod}[p.tok.val]
		var r *Item
		if err = p.advance(); err == nil {
			if r, err = p.unary(); err == nil {
				l, err = p.binary(k, l, r, false)
			}
		}
	}
	return l, err
}

// unary parses unary plus and minus; on a numeric literal they fold, as
// PostgreSQL's makeItemUnary does.
func (p *parser) unary() (*Item, error) {
	if !p.isPunct("+") && !p.isPunct("-") {
		return p.accessorExpr()
	}
	minus := p.tok.val == "-"
	if err := p.advance(); err != nil {
		return nil, err
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, repr.Errorf(repr.CodeProgramLimitExceeded, "stack depth limit exceeded")
	}
	a, err := p.unary()
	if err != nil {
		return nil, err
	}
	if a.isPredicate() {
		return nil, p.unexpected()
	}
	if a.Kind == KNumeric && a.Next == nil {
		if minus {
			a.Num = new(apd.Decimal).Neg(a.Num)
		}
		return a, nil
	}
	k := KPlus
	if minus {
		k = KMinus
	}
	return &Item{Kind: k, Left: a}, nil
}

// accessorExpr parses a primary and the accessors that follow it.
func (p *parser) accessorExpr() (*Item, error) {
	head, err := p.primary()
	if err != nil || head.Kind == KExists || head.Kind == KIsUnknown {
		return head, err
	}
	tail := head
	for tail.Next != nil {
		tail = tail.Next
	}
	for {
		acc, err := p.accessor()
		if err != nil || acc == nil {
			return head, err
		}
		tail.Next = acc
		tail = acc
	}
}

// primary parses a literal, $, @, last, a variable, exists (...) or a
// parenthesised expression or predicate.
func (p *parser) primary() (*Item, error) {
	t := p.tok
	var it *Item
	switch {
	case t.kind == tString:
		it = &Item{Kind: KString, Str: t.val}
	case t.kind == tVariable:
		it = &Item{Kind: KVariable, Str: t.val}
	case t.kind == tInt || t.kind == tNumeric:
		d, err := repr.ParseNumeric(t.val)
		if err != nil {
			return nil, err
		}
		it = &Item{Kind: KNumeric, Num: d}
	case p.isKeyword("null"):
		it = &Item{Kind: KNull}
	case p.isKeyword("true"), p.isKeyword("false"):
		it = &Item{Kind: KBool, Bool: t.val == "true"}
	case p.isKeyword("last"):
		it = &Item{Kind: KLast}
	case p.isKeyword("exists"):
		return p.exists()
	case p.isPunct("$"):
		it = &Item{Kind: KRoot}
	case p.isPunct("@"):
		it = &Item{Kind: KCurrent}
	case p.isPunct("("):
		return p.parenthesised()
	default:
		return nil, p.unexpected()
	}
	return it, p.advance()
}

func (p *parser) exists() (*Item, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	a, err := p.or()
	if err != nil {
		return nil, err
	}
	if a.isPredicate() {
		return nil, p.unexpected()
	}
	return &Item{Kind: KExists, Left: a}, p.expectPunct(")")
}

// parenthesised parses ( expr ) or ( predicate ), and (predicate) is unknown.
func (p *parser) parenthesised() (*Item, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	a, err := p.or()
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	if a.isPredicate() && p.isKeyword("is") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expectKeyword("unknown"); err != nil {
			return nil, err
		}
		return &Item{Kind: KIsUnknown, Left: a}, nil
	}
	return a, nil
}

var methods = map[string]Kind{"type": KType, "size": KSize, "abs": KAbs, "floor": KFloor,
	"ceiling": KCeiling, "double": KDouble, "keyvalue": KKeyValue}

// accessor parses one accessor (.key, .*, .**, .method(), [...], ?(...)),
// or returns nil when none follows.
func (p *parser) accessor() (*Item, error) {
	switch {
	case p.isPunct("."):
		if err := p.advance(); err != nil {
			return nil, err
		}
		return p.dotAccessor()
	case p.isPunct("["):
		return p.arrayAccessor()
	case p.isPunct("?"):
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		a, err := p.or()
		if err != nil {
			return nil, err
		}
		if !a.isPredicate() {
			return nil, p.unexpected()
		}
		return &Item{Kind: KFilter, Left: a}, p.expectPunct(")")
	}
	return nil, nil
}

func (p *parser) dotAccessor() (*Item, error) {
	t := p.tok
	switch {
	case t.kind == tString:
		return &Item{Kind: KKey, Str: t.val}, p.advance()
	case p.isPunct("*"):
		return &Item{Kind: KAnyKey}, p.advance()
	case p.isPunct("**"):
		return p.anyPath()
	case t.kind != tIdent:
		return nil, p.unexpected()
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if !p.isPunct("(") || p.lx.s[t.pos] == '\\' {
		return &Item{Kind: KKey, Str: t.val}, nil
	}
	name := strings.ToLower(t.val)
	if name == "datetime" {
		return p.datetime()
	}
	k, ok := methods[name]
	if !ok {
		return nil, p.unexpected()
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	return &Item{Kind: k}, p.expectPunct(")")
}

func (p *parser) datetime() (*Item, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	it := &Item{Kind: KDatetime}
	if p.tok.kind == tString {
		it.Str, it.Bool = p.tok.val, true
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return it, p.expectPunct(")")
}

// anyPath parses .** and its optional {level [to level]}.
func (p *parser) anyPath() (*Item, error) {
	it := &Item{Kind: KAny, First: 0, Last: AnyLast}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if !p.isPunct("{") {
		return it, nil
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	first, err := p.anyLevel()
	if err != nil {
		return nil, err
	}
	it.First, it.Last = first, first
	if p.isKeyword("to") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if it.Last, err = p.anyLevel(); err != nil {
			return nil, err
		}
	}
	return it, p.expectPunct("}")
}

func (p *parser) anyLevel() (uint32, error) {
	if p.isKeyword("last") {
		return AnyLast, p.advance()
	}
	if p.tok.kind != tInt {
		return 0, p.unexpected()
	}
	v, err := strconv.ParseUint(p.tok.val, 10, 32)
	if err != nil || v == uint64(AnyLast) {
		return 0, p.unexpected()
	}
	return uint32(v), p.advance()
}

// arrayAccessor parses [*] or [subscript, ...].
func (p *parser) arrayAccessor() (*Item, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.isPunct("*") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		return &Item{Kind: KAnyArray}, p.expectPunct("]")
	}
	it := &Item{Kind: KIndexArray}
	for {
		from, err := p.subscriptExpr()
		if err != nil {
			return nil, err
		}
		sub := Subscript{From: from}
		if p.isKeyword("to") {
			if err := p.advance(); err != nil {
				return nil, err
			}
			if sub.To, err = p.subscriptExpr(); err != nil {
				return nil, err
			}
		}
		it.Subs = append(it.Subs, sub)
		if !p.isPunct(",") {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return it, p.expectPunct("]")
}

func (p *parser) subscriptExpr() (*Item, error) {
	e, err := p.additive()
	if err == nil && e.isPredicate() {
		return nil, p.unexpected()
	}
	return e, err
}

// check enforces what the grammar does not: @ only inside filters, last
// only inside array subscripts (PostgreSQL's flattenJsonPathParseItem).
func check(it *Item, inFilter, inSubscript bool) error {
	for ; it != nil; it = it.Next {
		switch it.Kind {
		case KCurrent:
			if !inFilter {
				return repr.Errorf(repr.CodeSyntax, "@ is not allowed in root expressions")
			}
		case KLast:
			if !inSubscript {
				return repr.Errorf(repr.CodeSyntax, "LAST is allowed only in array subscripts")
			}
		case KFilter:
			if err := check(it.Left, true, inSubscript); err != nil {
				return err
			}
			continue
		case KIndexArray:
			for _, s := range it.Subs {
				if err := check(s.From, inFilter, true); err != nil {
					return err
				}
				if err := check(s.To, inFilter, true); err != nil {
					return err
				}
			}
			continue
		}
		if err := check(it.Left, inFilter, inSubscript); err != nil {
			return err
		}
		if err := check(it.Right, inFilter, inSubscript); err != nil {
			return err
		}
	}
	return nil
}
