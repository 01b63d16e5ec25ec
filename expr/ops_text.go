package expr

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/eddydb/eddy/repr"
)

func init() {
	t := repr.Text
	binop("||", t, t, t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewText(a[0].Text() + a[1].Text()), nil
	})
	binop("||", repr.Bytea, repr.Bytea, repr.Bytea, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewBytea([]byte(a[0].Text() + a[1].Text())), nil
	})
	// text || anynonarray and anynonarray || text format the other operand.
	for i := range 2 {
		f := binop("||", t, t, t, nil)
		f.poly = func(args []repr.T) *Func { return textAnyCat(args, i) }
		f.Args[i] = anyT
	}
	for op, ci := range map[string]bool{"~~": false, "~~*": true} {
		binop(op, t, t, repr.Bool, likeImpl(ci, false))
		binop("!"+op, t, t, repr.Bool, likeImpl(ci, true))
	}
}

// textAnyCat instantiates text || x (anyPos 1) or x || text (anyPos 0),
// converting x with its output function; nil if x is text or unknown.
func textAnyCat(args []repr.T, anyPos int) *Func {
	at := args[anyPos]
	if at.Family == repr.FamUnknown || at.Family == famAny || at.Family == repr.FamArray {
		return nil
	}
	sig := []repr.T{repr.Text, repr.Text}
	sig[anyPos] = at
	return &Func{Name: "||", Args: sig, Ret: repr.Text, Strict: true, zoned: zonedType(at),
		Impl: func(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
			s := [2]string{a[0].Text(), a[1].Text()}
			// PG converts with a cast to text (true -> 'true'), not the output function.
			d, err := castDatum(a[anyPos], at, repr.Text, ctx.Location(), true)
			if err != nil {
				return repr.Null, err
			}
			s[anyPos] = d.Text()
			return repr.NewText(s[0] + s[1]), nil
		}}
}

func likeImpl(caseInsensitive, negate bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		s, pat := a[0].Text(), a[1].Text()
		if caseInsensitive {
			s, pat = strings.ToLower(s), strings.ToLower(pat)
		}
		m, err := like(s, pat)
		if err != nil {
			return repr.Null, err
		}
		return repr.NewBool(m != negate), nil
	}
}

// like matches s against a LIKE pattern: % any sequence, _ any one
// character, backslash escapes the next character. It backtracks only to
// the last %, so it runs in O(len(s)*len(pat)) at worst.
func like(s, pat string) (bool, error) {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(pat) {
			c, n := utf8.DecodeRuneInString(pat[pi:])
			switch c {
			case '%':
				starP, starS, pi = pi+1, si, pi+1
				continue
			case '_':
				_, sn := utf8.DecodeRuneInString(s[si:])
				si, pi = si+sn, pi+1
				continue
			case '\\':
				if pi+1 >= len(pat) {
					return false, repr.Errorf("22025", "LIKE pattern must not end with escape character")
				}
				c, n = utf8.DecodeRuneInString(pat[pi+1:])
				n++
			}
			sc, sn := utf8.DecodeRuneInString(s[si:])
			if sc == c {
				si, pi = si+sn, pi+n
				continue
			}
		}
		if starP < 0 {
			return false, nil
		}
		_, sn := utf8.DecodeRuneInString(s[starS:])
		starS += sn
		si, pi = starS, starP
	}
	for pi < len(pat) && pat[pi] == '%' {
		pi++
	}
	return pi == len(pat), nil
}

var _ = unicode.IsSpace
var _ = time.UTC
