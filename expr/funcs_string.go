package expr

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/eddydb/eddy/repr"
)

// String functions of PostgreSQL's functions-string.html beyond the basic
// ones in funcs.go: format, quote_ident/quote_literal/quote_nullable,
// concat_ws, lpad/rpad, initcap, translate, chr/ascii, starts_with, to_hex,
// overlay, substring(s FROM pattern) and pg_typeof. Results match PostgreSQL 15 (tests/slt/scalars2.slt).
func init() {
	t, i4 := repr.Text, repr.Int4
	fn("quote_ident", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewText(quoteIdent(a[0].Text())), nil
	}, t)
	for _, pad := range []struct {
		name string
		left bool
	}{{"lpad", true}, {"rpad", false}} {
		fn(pad.name, t, padImpl(pad.left), t, i4)
		fn(pad.name, t, padImpl(pad.left), t, i4, t)
	}
	fn("initcap", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewText(initcap(a[0].Text())), nil
	}, t)
	fn("translate", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return checkLen(translate(a[0].Text(), a[1].Text(), a[2].Text()))
	}, t, t, t)
	fn("starts_with", repr.Bool, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewBool(strings.HasPrefix(a[0].Text(), a[1].Text())), nil
	}, t, t)
	fn("ascii", i4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		r, _ := utf8.DecodeRuneInString(a[0].Text())
		if a[0].Text() == "" {
			r = 0
		}
		return repr.NewInt(int64(r)), nil
	}, t)
	fn("chr", t, chr, i4)
	for _, it := range []repr.T{repr.Int4, repr.Int8} {
		w := it.Width
		fn("to_hex", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			v := uint64(a[0].Int())
			if w == 32 {
				v = uint64(uint32(a[0].Int()))
			}
			return repr.NewText(strconv.FormatUint(v, 16)), nil
		}, it)
	}
	fn("overlay", t, overlay, t, t, i4)
	fn("overlay", t, overlay, t, t, i4, i4)
	fn("substring", t, regexpSubstring, t, t)
	variadics["format"] = formatFunc
	variadics["concat_ws"] = concatWSFunc
	variadics["quote_literal"] = quoteLiteralFunc("quote_literal", true)
	variadics["quote_nullable"] = quoteLiteralFunc("quote_nullable", false)
	variadics["pg_typeof"] = pgTypeofFunc
}

// textArgs maps unknown literals to text (as concat and format read them)
// and reports whether formatting any argument depends on the time zone.
func textArgs(args []repr.T) ([]repr.T, bool) {
	sig := make([]repr.T, len(args))
	zoned := false
	for i, a := range args {
		sig[i] = a
		if a.Family == repr.FamUnknown {
			sig[i] = repr.Text
		}
		zoned = zoned || zonedType(a)
	}
	return sig, zoned
}

// textParam reports whether an argument of type a may be passed as text.
func textParam(a repr.T) bool {
	return a.Family == repr.FamUnknown || implicitOK(a, repr.Text)
}

// formatFunc instantiates format(formatstr text, VARIADIC "any").
func formatFunc(args []repr.T) (*Func, error) {
	if len(args) == 0 || !textParam(args[0]) {
		return nil, funcError("format", args, false)
	}
	sig, zoned := textArgs(args)
	sig[0] = repr.Text
	return &Func{Name: "format", Args: sig, Ret: repr.Text, zoned: zoned,
		Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			if a[0].IsNull() {
				return repr.Null, nil
			}
			s, err := formatText2(c, a[0].Text(), a[1:], sig[1:])
			if err != nil {
				return repr.Null, err
			}
			return checkLen(s)
		}}, nil
}

func errFormat(msg string) error {
	return repr.Errorf(repr.CodeInvalidParameter, "%s", msg).WithHint("%s", `For a single "%" use "%%".`)
}

var errUnterminated = errFormat("unterminated format() type specifier")

// formatSpec is one parsed %-specifier: argument positions are 1-based, -1
// for "the next argument"; widthPos 0 is "*" without a position.
type formatSpec struct {
	argPos, widthPos int
	minus            bool
	width            int
	conv             byte
}

// formatText2 implements format()'s specifiers %s, %I and %L with
// positions (%2$s), widths (%5s, %-5s, %*s, %*2$s) and %%, following
// PostgreSQL's text_format: an explicit position moves the "next
// argument" to the one after it.
func formatText2(c *Ctx, f string, args []repr.Datum, ts []repr.T) (string, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i++; i >= len(f) {
			return "", errUnterminated
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		sp, j, err := parseFormatSpec(f, i)
		if err != nil {
			return "", err
		}
		i = j
		if sp.widthPos >= 0 {
			if sp.widthPos > 0 {
				next = sp.widthPos - 1
			}
			if next >= len(args) {
				return "", repr.Errorf(repr.CodeInvalidParameter, "too few arguments for format()")
			}
			w, err := formatWidth(c, args[next], ts[next])
			if err != nil {
				return "", err
			}
			sp.width = w
			next++
		}
		if sp.argPos > 0 {
			next = sp.argPos - 1
		}
		if next >= len(args) {
			return "", repr.Errorf(repr.CodeInvalidParameter, "too few arguments for format()")
		}
		if err := formatOne(&b, c, sp, args[next], ts[next]); err != nil {
			return "", err
		}
		next++
	}
	return b.String(), nil
}

// parseFormatSpec parses the specifier starting at f[i] (after '%') and
// returns it with the index of its conversion character.
func parseFormatSpec(f string, i int) (formatSpec, int, error) {
	sp := formatSpec{argPos: -1, widthPos: -1}
	advance := func() error {
		if i++; i >= len(f) {
			return errUnterminated
		}
		return nil
	}
	n, ok, err := formatDigits(f, &i)
	if err != nil {
		return sp, i, err
	}
	if ok {
		if f[i] != '$' {
			sp.width = n
			return sp.checkConv(f, i)
		}
		if n == 0 {
			return sp, i, errArgZero()
		}
		sp.argPos = n
		if err := advance(); err != nil {
			return sp, i, err
		}
	}
	for f[i] == '-' {
		sp.minus = true
		if err := advance(); err != nil {
			return sp, i, err
		}
	}
	if f[i] == '*' {
		if err := advance(); err != nil {
			return sp, i, err
		}
		sp.widthPos = 0
		n, ok, err := formatDigits(f, &i)
		if err != nil {
			return sp, i, err
		}
		if ok {
			if f[i] != '$' {
				return sp, i, repr.Errorf(repr.CodeInvalidParameter, `width argument position must be ended by "$"`)
			}
			if n == 0 {
				return sp, i, errArgZero()
			}
			sp.widthPos = n
			if err := advance(); err != nil {
				return sp, i, err
			}
		}
	} else {
		n, ok, err := formatDigits(f, &i)
		if err != nil {
			return sp, i, err
		}
		if ok {
			sp.width = n
		}
	}
	return sp.checkConv(f, i)
}

func (sp formatSpec) checkConv(f string, i int) (formatSpec, int, error) {
	switch f[i] {
	case 's', 'I', 'L':
		sp.conv = f[i]
		return sp, i, nil
	}
	_, size := utf8.DecodeRuneInString(f[i:])
	return sp, i, errFormat("unrecognized format() type specifier \"" + f[i:i+size] + "\"")
}

func errArgZero() error {
	return repr.Errorf(repr.CodeInvalidParameter, "format specifies argument 0, but arguments are numbered from 1")
}

// formatDigits reads a decimal number at f[*i]; the string must go on
// after it (else the specifier is unterminated).
func formatDigits(f string, i *int) (int, bool, error) {
	n, ok := 0, false
	for *i < len(f) && f[*i] >= '0' && f[*i] <= '9' {
		if n > (math.MaxInt32-int(f[*i]-'0'))/10 {
			return 0, false, repr.Errorf(repr.CodeNumericOutOfRange, "number is out of range")
		}
		n = n*10 + int(f[*i]-'0')
		ok = true
		*i++
	}
	if *i >= len(f) {
		return 0, false, errUnterminated
	}
	return n, ok, nil
}

// formatWidth reads a width argument (*): NULL is 0, other types go
// through text to integer.
func formatWidth(c *Ctx, d repr.Datum, t repr.T) (int, error) {
	if d.IsNull() {
		return 0, nil
	}
	if t.Family == repr.FamInt && t.Width <= 32 {
		return int(d.Int()), nil
	}
	v, err := parseText(formatText(d, t, c.Location()), repr.Int4, nil)
	if err != nil {
		return 0, err
	}
	return int(v.Int()), nil
}

// formatOne appends one converted argument, padded to the spec's width.
func formatOne(b *strings.Builder, c *Ctx, sp formatSpec, d repr.Datum, t repr.T) error {
	var s string
	switch {
	case d.IsNull() && sp.conv == 'I':
		return repr.Errorf("22004", "null values cannot be formatted as an SQL identifier")
	case d.IsNull() && sp.conv == 'L':
		s = "NULL"
	case d.IsNull():
	default:
		s = formatText(d, t, c.Location())
		switch sp.conv {
		case 'I':
			s = quoteIdent(s)
		case 'L':
			s = quoteLiteral(s)
		}
	}
	w, left := sp.width, sp.minus
	if w < 0 {
		if w == math.MinInt32 {
			return repr.Errorf(repr.CodeNumericOutOfRange, "number is out of range")
		}
		w, left = -w, true
	}
	pad := w - utf8.RuneCountInString(s)
	if b.Len()+len(s)+max(pad, 0) > maxStringBytes {
		return repr.Errorf(repr.CodeProgramLimitExceeded, "requested length too large")
	}
	if pad > 0 && !left {
		b.WriteString(strings.Repeat(" ", pad))
	}
	b.WriteString(s)
	if pad > 0 && left {
		b.WriteString(strings.Repeat(" ", pad))
	}
	return nil
}

// concatWSFunc instantiates concat_ws(sep text, VARIADIC "any"): NULL if
// the separator is NULL, NULL arguments skipped.
func concatWSFunc(args []repr.T) (*Func, error) {
	if len(args) < 2 || !textParam(args[0]) {
		return nil, funcError("concat_ws", args, false)
	}
	sig, zoned := textArgs(args)
	sig[0] = repr.Text
	return &Func{Name: "concat_ws", Args: sig, Ret: repr.Text, zoned: zoned,
		Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			if a[0].IsNull() {
				return repr.Null, nil
			}
			var b strings.Builder
			first := true
			for i, d := range a[1:] {
				if d.IsNull() {
					continue
				}
				if !first {
					b.WriteString(a[0].Text())
				}
				first = false
				b.WriteString(formatText(d, sig[i+1], c.Location()))
			}
			return checkLen(b.String())
		}}, nil
}

// quoteLiteralFunc instantiates quote_literal / quote_nullable over text
// or anyelement (converted with a cast to text, as PostgreSQL's SQL
// wrappers do). quote_nullable(NULL) is the string NULL.
func quoteLiteralFunc(name string, strict bool) func([]repr.T) (*Func, error) {
	return func(args []repr.T) (*Func, error) {
		if len(args) != 1 {
			return nil, funcError(name, args, false)
		}
		at := args[0]
		if at.Family == repr.FamUnknown || (at.Family == repr.FamText && at.Kind != repr.KindChar) {
			at = repr.Text
		}
		return &Func{Name: name, Args: []repr.T{at}, Ret: repr.Text, Strict: strict,
			zoned: zonedType(at),
			Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
				if a[0].IsNull() {
					return repr.NewText("NULL"), nil
				}
				d, err := castDatum(a[0], at, repr.Text, c.Location(), true)
				if err != nil {
					return repr.Null, err
				}
				return repr.NewText(quoteLiteral(d.Text())), nil
			}}, nil
	}
}

// quoteLiteral quotes s as a string literal: quotes doubled, and with any
// backslash an E'...' literal with backslashes doubled (quote_literal_cstr).
func quoteLiteral(s string) string {
	var b strings.Builder
	if strings.IndexByte(s, '\\') >= 0 {
		b.WriteByte('E')
	}
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' || s[i] == '\\' {
			b.WriteByte(s[i])
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('\'')
	return b.String()
}

// quoteIdent quotes s unless it is a lower-case identifier that is not a
// reserved (non-unreserved) keyword, as PostgreSQL's quote_identifier.
func quoteIdent(s string) string {
	safe := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; safe && i < len(s); i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe && !reservedKeywords[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// reservedKeywords are PostgreSQL 15's keywords that are not unreserved
// (SELECT word FROM pg_get_keywords() WHERE catcode <> 'U'): identifiers
// spelled like them need quotes.
var reservedKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric
		authorization between bigint binary bit boolean both case cast char character check
		coalesce collate collation column concurrently constraint create cross
		current_catalog current_date current_role current_schema current_time
		current_timestamp current_user dec decimal default deferrable desc distinct do else
		end except exists extract false fetch float for foreign freeze from full grant
		greatest group grouping having ilike in initially inner inout int integer intersect
		interval into is isnull join lateral leading least left like limit localtime
		localtimestamp national natural nchar none normalize not notnull null nullif numeric
		offset on only or order out outer overlaps overlay placing position precision
		primary real references returning right row select session_user setof similar
		smallint some substring symmetric table tablesample then time timestamp to trailing
		treat trim true union unique user using values varchar variadic verbose when where
		window with xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
		xmlparse xmlpi xmlroot xmlserialize xmltable`) {
		m[w] = true
	}
	return m
}()

// padImpl is lpad/rpad(s, n [, fill]): s padded with fill (a space by
// default) to n characters, or truncated to n from the right.
func padImpl(left bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		s, n, fill := a[0].Text(), a[1].Int(), " "
		if len(a) == 3 {
			fill = a[2].Text()
		}
		if n <= 0 {
			return repr.NewText(""), nil
		}
		r := []rune(s)
		if int64(len(r)) >= n || fill == "" {
			return repr.NewText(string(r[:min(int64(len(r)), n)])), nil
		}
		if n*int64(utf8.UTFMax) > maxStringBytes {
			return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "requested length too large")
		}
		f := []rune(fill)
		pad := make([]rune, 0, n-int64(len(r)))
		for i := 0; int64(len(pad)) < n-int64(len(r)); i++ {
			pad = append(pad, f[i%len(f)])
		}
		if left {
			return repr.NewText(string(pad) + s), nil
		}
		return repr.NewText(s + string(pad)), nil
	}
}

// initcap upper-cases the first letter of each alphanumeric word and
// lower-cases the rest. Like PostgreSQL under the C locale (Eddy's only
// one), letters and digits are ASCII: other characters separate words
// and keep their case.
func initcap(s string) string {
	b := []byte(s)
	inWord := false
	for i, c := range b {
		lower, upper := c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z'
		switch {
		case !inWord && lower:
			b[i] = c - 'a' + 'A'
		case inWord && upper:
			b[i] = c - 'A' + 'a'
		}
		inWord = lower || upper || c >= '0' && c <= '9'
	}
	return string(b)
}

// translate replaces each character of s found in from by the character at
// the same position of to, deleting it when to is shorter.
func translate(s, from, to string) string {
	f, t := []rune(from), []rune(to)
	var b strings.Builder
	for _, r := range s {
		i := -1
		for j, c := range f {
			if c == r {
				i = j
				break
			}
		}
		switch {
		case i < 0:
			b.WriteRune(r)
		case i < len(t):
			b.WriteRune(t[i])
		}
	}
	return b.String()
}

// chr returns the character with code point n (UTF-8).
func chr(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	n := a[0].Int()
	switch {
	case n == 0:
		return repr.Null, repr.Errorf("54000", "null character not permitted")
	case n < 0:
		return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "character number must be positive")
	case n > utf8.MaxRune:
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "requested character too large for encoding: %d", n)
	case n >= 0xD800 && n <= 0xDFFF:
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "requested character not valid for encoding: %d", n)
	}
	return repr.NewText(string(rune(n))), nil
}

// pgTypeofFunc instantiates pg_typeof("any"): the argument's type name as
// regtype prints it (format_type without modifiers). Eddy has no regtype,
// so the result is text.
func pgTypeofFunc(args []repr.T) (*Func, error) {
	if len(args) != 1 {
		return nil, funcError("pg_typeof", args, false)
	}
	name := repr.NewText(bare(args[0]).Name())
	return &Func{Name: "pg_typeof", Args: []repr.T{args[0]}, Ret: repr.Text,
		Impl: func(*Ctx, []repr.Datum) (repr.Datum, error) { return name, nil }}, nil
}

// overlay(s PLACING r FROM start [FOR count]) replaces count characters
// (default: r's length) of s from start with r.
func overlay(c *Ctx, a []repr.Datum) (repr.Datum, error) {
	start := a[2].Int()
	count := int64(utf8.RuneCountInString(a[1].Text()))
	if len(a) == 4 {
		count = a[3].Int()
	}
	head, err := substr(c, []repr.Datum{a[0], repr.NewInt(1), repr.NewInt(start - 1)})
	if err != nil {
		return repr.Null, err
	}
	tail, err := substr(c, []repr.Datum{a[0], repr.NewInt(start + count)})
	if err != nil {
		return repr.Null, err
	}
	return checkLen(head.Text() + a[1].Text() + tail.Text())
}

// regexpSubstring is substring(s FROM pattern): the part of s matching
// the POSIX pattern, or its first parenthesized subexpression; NULL if
// there is no match.
func regexpSubstring(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	re, _, err := compileRegexp(a[1].Text(), "", false)
	if err != nil {
		return repr.Null, err
	}
	s := a[0].Text()
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return repr.Null, nil
	}
	if re.NumSubexp() > 0 {
		m = m[2:]
	}
	if m[0] < 0 {
		return repr.Null, nil
	}
	return repr.NewText(s[m[0]:m[1]]), nil
}

// QuoteIdent is PostgreSQL's quote_identifier: s as is when it is a
// lower-case identifier that is not a reserved keyword, else double-quoted.
func QuoteIdent(s string) string { return quoteIdent(s) }
