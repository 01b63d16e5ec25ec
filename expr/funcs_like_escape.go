package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/eddydb/eddy/repr"
)

// like_escape(pattern, escape) rewrites a LIKE pattern written with the
// escape character escape into one with backslash escapes, which is how
// PostgreSQL's parser plans x LIKE p ESCAPE e (as x LIKE like_escape(p,
// e); also ILIKE and NOT LIKE). An empty escape turns escaping off: every
// backslash becomes a literal one. An escape of more than one character
// is 22025.
func init() {
	t := repr.Text
	fn("like_escape", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		out, err := likeEscape(a[0].Text(), a[1].Text())
		if err != nil {
			return repr.Null, err
		}
		return repr.NewText(out), nil
	}, t, t)
}

// likeEscape is PostgreSQL's do_like_escape.
func likeEscape(p, e string) (string, error) {
	if e == "" {
		return strings.ReplaceAll(p, `\`, `\\`), nil
	}
	esc, size := utf8.DecodeRuneInString(e)
	if size != len(e) {
		return "", repr.Errorf("22025", "invalid escape string").WithHint("Escape string must be empty or one character.")
	}
	if esc == '\\' {
		return p, nil
	}
	var b strings.Builder
	afterEscape := false
	for _, c := range p {
		switch {
		case c == esc && !afterEscape:
			b.WriteByte('\\')
			afterEscape = true
		case c == '\\':
			b.WriteByte('\\')
			if !afterEscape {
				b.WriteByte('\\')
			}
			afterEscape = false
		default:
			b.WriteRune(c)
			afterEscape = false
		}
	}
	return b.String(), nil
}
