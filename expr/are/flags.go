package are

import (
	"github.com/eddydb/eddy/repr"
)

// Flags are the compile options of an ARE, as PostgreSQL's regcomp reads
// its cflags (REG_ICASE, REG_NLSTOP, REG_NLANCH, REG_EXPANDED, REG_QUOTE).
// The zero value is PostgreSQL's default for the SQL functions: case
// sensitive, . and [^...] match a newline, ^ and $ anchor only at the ends.
type Flags uint8

const (
	// ICase matches case-insensitively (flag i).
	ICase Flags = 1 << iota
	// NLStop keeps . and negated brackets from matching a newline.
	NLStop
	// NLAnch lets ^ and $ match after and before a newline.
	NLAnch
	// Expanded ignores white space and #-comments in the pattern (flag x).
	Expanded
	// Quote reads the whole pattern as a literal string (flag q).
	Quote
	// basic and extended select BRE and ERE syntax (flags b and e), which
	// Translate refuses.
	basic
	extended
)

// ParseFlags reads the flags argument of PostgreSQL's regexp functions as
// parse_re_flags does: i c n m s p w x q t, and g (reported, not a compile
// flag) where allowGlobal. The letters b and e (BRE and ERE syntax) parse
// and are refused by Translate.
func ParseFlags(s string, allowGlobal bool) (Flags, bool, error) {
	var f Flags
	global := false
	for _, c := range s {
		if c == 'g' {
			if !allowGlobal {
				return 0, false, repr.Errorf(repr.CodeInvalidParameter, "invalid regular expression option: \"g\"")
			}
			global = true
			continue
		}
		var ok bool
		if f, ok = f.apply(c); !ok {
			return 0, false, repr.Errorf(repr.CodeInvalidParameter, "invalid regular expression option: %q", string(c))
		}
	}
	return f, global, nil
}

// apply returns f changed by option letter c, as both the flags argument
// and an embedded option (?c) change it; false for an unknown letter.
func (f Flags) apply(c rune) (Flags, bool) {
	switch c {
	case 'i':
		f |= ICase
	case 'c':
		f &^= ICase
	case 'n', 'm':
		f |= NLStop | NLAnch
	case 's':
		f &^= NLStop | NLAnch
	case 'p':
		f = f&^NLAnch | NLStop
	case 'w':
		f = f&^NLStop | NLAnch
	case 'x':
		f |= Expanded
	case 't':
		f &^= Expanded
	case 'q':
		f |= Quote
	case 'b':
		f = f&^extended | basic
	case 'e':
		f = f&^basic | extended
	default:
		return f, false
	}
	return f, true
}

// prefix is the RE2 flag group for f: s unless NLStop, m with NLAnch, i
// with ICase.
func (f Flags) prefix() string {
	p := ""
	if f&NLStop == 0 {
		p += "s"
	}
	if f&NLAnch != 0 {
		p += "m"
	}
	if f&ICase != 0 {
		p += "i"
	}
	if p == "" {
		return ""
	}
	return "(?" + p + ")"
}
