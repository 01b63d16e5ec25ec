package repr

import "strings"

// jsonbEqForm returns a jsonb value's canonical text with its numbers
// at their fewest digits: trailing fractional zeros (and the point they
// leave) removed and -0 as 0. A jsonb key (appendJSONBKey) decodes to
// that form, so a value decodes from its key exactly when jsonbEqForm
// leaves it unchanged (keyLossless). It returns s itself when nothing
// changes, the common case, without allocating.
func jsonbEqForm(s string) string {
	if !strings.ContainsAny(s, ".-") {
		return s
	}
	var out []byte
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			out = append(out, s[i:j]...)
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == '+' || s[j] == '-') {
				j++
			}
			out = append(out, normNumber(s[i:j])...)
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	if string(out) == s {
		return s
	}
	return string(out)
}

// normNumber strips a number's trailing fractional zeros and makes -0 0
// (jsonb's canonical text has no exponents: numeric output).
func normNumber(n string) string {
	if strings.ContainsAny(n, "eE") {
		return n
	}
	if strings.IndexByte(n, '.') >= 0 {
		n = strings.TrimRight(n, "0")
		n = strings.TrimSuffix(n, ".")
	}
	if strings.Trim(n, "-0") == "" {
		return "0"
	}
	return n
}
