package expr

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

// parse_ident(text [, strict boolean]) splits a qualified SQL identifier
// into its parts, as PostgreSQL's parse_ident: a quoted part keeps its case
// and "" stands for a quote; an unquoted part (a letter or _ first, then
// letters, digits, _ and $) is folded to lower case; parts are separated
// by '.', with white space allowed around each. With strict false, text
// after the last identifier is ignored. Grafana's column picker parses
// the chosen table name with it.

func init() {
	parse := func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		strict := len(a) < 2 || a[1].Bool()
		parts, err := parseIdent(a[0].Text(), strict)
		if err != nil {
			return repr.Null, err
		}
		elems := make([]repr.Datum, len(parts))
		for i, p := range parts {
			elems[i] = repr.NewText(p)
		}
		return repr.NewArray(elems), nil
	}
	ret := repr.ArrayOf(repr.Text)
	fn("parse_ident", ret, parse, repr.Text)
	fn("parse_ident", ret, parse, repr.Text, repr.Bool)
}

// parseIdent splits s into identifier parts (see above).
func parseIdent(s string, strict bool) ([]string, error) {
	bad := func(detail string) error {
		err := repr.Errorf(repr.CodeInvalidParameter, "string is not a valid identifier: %q", s)
		if detail != "" {
			err = err.WithDetail("%s", detail)
		}
		return err
	}
	var parts []string
	i := skipSpace(s, 0)
	for {
		part, next, err := identPart(s, i, bad)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
		i = skipSpace(s, next)
		if i < len(s) && s[i] == '.' {
			i = skipSpace(s, i+1)
			if i >= len(s) {
				return nil, bad("No valid identifier after \".\".")
			}
			continue
		}
		if i < len(s) && strict {
			return nil, bad("")
		}
		return parts, nil
	}
}

// identPart reads one quoted or unquoted identifier at s[i:].
func identPart(s string, i int, bad func(string) error) (string, int, error) {
	if i < len(s) && s[i] == '"' {
		var b strings.Builder
		for j := i + 1; j < len(s); j++ {
			if s[j] != '"' {
				b.WriteByte(s[j])
				continue
			}
			if j+1 < len(s) && s[j+1] == '"' {
				b.WriteByte('"')
				j++
				continue
			}
			if b.Len() == 0 {
				return "", 0, bad("Quoted identifier must not be empty.")
			}
			return b.String(), j + 1, nil
		}
		return "", 0, bad("String has unclosed double quotes.")
	}
	j := i
	for j < len(s) && (isIdentStart(s[j]) || j > i && (s[j] >= '0' && s[j] <= '9' || s[j] == '$')) {
		j++
	}
	if j == i {
		if i > 0 && s[i-1] == '.' || i < len(s) && s[i] == '.' {
			return "", 0, bad("No valid identifier before \".\".")
		}
		return "", 0, bad("")
	}
	return strings.ToLower(s[i:j]), j, nil
}

// isIdentStart reports whether c may start an unquoted identifier (bytes
// of multibyte characters count as letters, as in PostgreSQL's scanner).
func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
