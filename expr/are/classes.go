package are

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
)

// PostgreSQL runs an ARE's character classes through the C library's
// wide-character classification (iswalpha, ...) of the database's locale:
// for UTF-8 text in the C.UTF-8 locale Eddy presents, glibc's, which
// classifies all of Unicode. RE2's [[:alpha:]], \w and \s are ASCII-only,
// so the classes that glibc extends beyond ASCII are translated into
// explicit ranges computed from Go's Unicode tables with glibc's rules
// (localedata/unicode-gen): alpha is the Alphabetic property plus the
// non-ASCII decimal digits; upper and lower are the letters with a case
// mapping or the Uppercase/Lowercase property; space is the Unicode
// spaces without the no-break ones; digit, xdigit and blank stay ASCII
// ([[:blank:]] is space and tab in PostgreSQL's regex code whatever the
// locale). Characters assigned after Go's and glibc's Unicode versions
// may classify differently.

// unicodeClass are the predicates of the classes glibc extends beyond
// ASCII, by [:name:].
var unicodeClass = map[string]func(rune) bool{
	"alpha": isUAlpha,
	"alnum": func(r rune) bool { return isUAlpha(r) || isDigit(r) },
	"word":  isUWord,
	"upper": func(r rune) bool {
		return unicode.ToLower(r) != r || unicode.In(r, unicode.Lu, unicode.Other_Uppercase)
	},
	"lower": func(r rune) bool {
		return unicode.ToUpper(r) != r || unicode.In(r, unicode.Ll, unicode.Other_Lowercase)
	},
	"space": isUSpace,
	"cntrl": func(r rune) bool { return unicode.Is(unicode.Cc, r) },
	"print": isUPrint,
	"graph": isUGraph,
	"punct": func(r rune) bool { return isUGraph(r) && !isUAlpha(r) && !isDigit(r) },
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func isUAlpha(r rune) bool {
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_Alphabetic) || unicode.Is(unicode.Nd, r) && !isDigit(r)
}

func isUWord(r rune) bool { return isUAlpha(r) || isDigit(r) || r == '_' }

// isUSpace is glibc's isspace: the ASCII white space and Unicode's space
// separators, except the no-break spaces.
func isUSpace(r rune) bool {
	if r >= '\t' && r <= '\r' || r == ' ' {
		return true
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp) && r != 0xA0 && r != 0x2007 && r != 0x202F
}

func isUPrint(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs, unicode.Cf, unicode.Co)
}

func isUGraph(r rune) bool { return isUPrint(r) && !isUSpace(r) }

// classItems holds, per class, the bracket items (ranges) of the class and
// of its complement, computed once on first use.
var classItems sync.Map // name -> *classText

type classText struct {
	once     sync.Once
	pos, neg string
}

// classRanges returns the RE2 bracket items of class name (its
// complement when neg); ok is false for a class RE2 spells itself.
func classRanges(name string, neg bool) (string, bool) {
	pred, ok := unicodeClass[name]
	if !ok {
		return "", false
	}
	v, _ := classItems.LoadOrStore(name, &classText{})
	ct := v.(*classText)
	ct.once.Do(func() { ct.pos, ct.neg = rangesOf(pred) })
	if neg {
		return ct.neg, true
	}
	return ct.pos, true
}

// rangesOf prints the code points satisfying pred, and the others, as
// bracket ranges.
func rangesOf(pred func(rune) bool) (pos, neg string) {
	var p, n strings.Builder
	start, in := rune(0), pred(0)
	flush := func(b *strings.Builder, lo, hi rune) {
		if lo == hi {
			fmt.Fprintf(b, `\x{%x}`, lo)
		} else {
			fmt.Fprintf(b, `\x{%x}-\x{%x}`, lo, hi)
		}
	}
	for r := rune(1); r <= unicode.MaxRune+1; r++ {
		cur := r <= unicode.MaxRune && pred(r)
		if cur == in && r <= unicode.MaxRune {
			continue
		}
		if in {
			flush(&p, start, r-1)
		} else {
			flush(&n, start, r-1)
		}
		start, in = r, cur
	}
	return p.String(), n.String()
}
