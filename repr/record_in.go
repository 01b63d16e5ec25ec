package repr

import "strings"

// ParseRecordText is record_in's parse of a row of n columns: a
// parenthesized, comma-separated list whose fields may be double-quoted
// ("" inside quotes is a quote) and backslash-escaped; an empty unquoted
// field is NULL (nil), "" the empty string. Malformed input is 22P02 with
// PostgreSQL's detail.
func ParseRecordText(s string, n int) ([]*string, *Error) {
	malformed := func(detail string) *Error {
		return Errorf("22P02", "malformed record literal: \"%s\"", s).WithDetail("%s", detail)
	}
	rest := strings.TrimLeft(s, " \t\n\r\v\f")
	if !strings.HasPrefix(rest, "(") {
		return nil, malformed("Missing left parenthesis.")
	}
	rest = rest[1:]
	var out []*string
	for {
		f, tail, ok := recordField(rest)
		if !ok {
			return nil, malformed("Unexpected end of input.")
		}
		out, rest = append(out, f), tail[1:]
		switch {
		case tail[0] == ')' && len(out) < n:
			return nil, malformed("Too few columns.")
		case tail[0] == ',' && len(out) == n:
			return nil, malformed("Too many columns.")
		case tail[0] == ')':
			if strings.TrimLeft(rest, " \t\n\r\v\f") != "" {
				return nil, malformed("Junk after right parenthesis.")
			}
			return out, nil
		}
	}
}

// recordField reads one field of a record literal up to the comma or
// right parenthesis that ends it (tail starts there): nil when empty and
// unquoted. ok is false when the input ends first.
func recordField(s string) (field *string, tail string, ok bool) {
	var b strings.Builder
	quoted, seen := false, false
	i := 0
	for ; i < len(s); i++ {
		ch := s[i]
		if !quoted && (ch == ',' || ch == ')') {
			break
		}
		seen = true
		switch {
		case ch == '\\':
			if i++; i >= len(s) {
				return nil, "", false
			}
			b.WriteByte(s[i])
		case ch == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case ch == '"':
			quoted = !quoted
		default:
			b.WriteByte(ch)
		}
	}
	if i >= len(s) {
		return nil, "", false
	}
	if !seen {
		return nil, s[i:], true
	}
	str := b.String()
	return &str, s[i:], true
}
