package repr

import (
	"encoding/hex"
)

// A uuid datum holds its 16 bytes in s, so it compares, hashes and
// key-encodes as bytea does (byte order is PostgreSQL's uuid order).

// NewUUID returns the uuid datum of 16 bytes.
func NewUUID(b [16]byte) Datum { return Datum{fam: FamUUID, s: string(b[:])} }

// appendUUID appends the canonical text form: lower-case hex in groups of
// 8-4-4-4-12.
func appendUUID(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf = append(buf, '-')
		}
		buf = append(buf, "0123456789abcdef"[s[i]>>4], "0123456789abcdef"[s[i]&15])
	}
	return buf
}

// parseUUID reads 32 hex digits, optionally in braces and with a hyphen
// after any group of four digits, as PostgreSQL's uuid_in.
func parseUUID(s string) (Datum, error) {
	bad := func() (Datum, error) {
		return Null, Errorf(CodeInvalidText, "invalid input syntax for type uuid: \"%s\"", s)
	}
	in := s
	braces := len(in) > 0 && in[0] == '{'
	if braces {
		in = in[1:]
	}
	var digits []byte
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case len(digits) == 32:
			if braces && c == '}' && i == len(in)-1 {
				braces = false
				continue
			}
			return bad()
		case c == '-' && len(digits) > 0 && len(digits)%4 == 0 && i+1 < len(in) && in[i+1] != '-':
			continue
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			digits = append(digits, c)
		default:
			return bad()
		}
	}
	if len(digits) != 32 || braces {
		return bad()
	}
	var b [16]byte
	if _, err := hex.Decode(b[:], digits); err != nil {
		return bad()
	}
	return NewUUID(b), nil
}
