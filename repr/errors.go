package repr

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// codeCharacterNotInRepertoire is SQLSTATE 22021, raised for text that is
// not valid UTF-8 or contains NUL.
const codeCharacterNotInRepertoire = "22021"

// ErrInvalidUTF8 returns PostgreSQL's 22021 for s, which is not valid
// UTF-8: `invalid byte sequence for encoding "UTF8": 0xe2 0x28`, naming
// the bytes of the first bad sequence (as many as its lead byte
// announces, as PostgreSQL's report_invalid_encoding does).
func ErrInvalidUTF8(s string) error {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	if i >= len(s) {
		return nil
	}
	want := 1
	switch c := s[i]; {
	case c&0xe0 == 0xc0:
		want = 2
	case c&0xf0 == 0xe0:
		want = 3
	case c&0xf8 == 0xf0:
		want = 4
	}
	var hex []string
	for _, c := range []byte(s[i:min(i+want, len(s))]) {
		hex = append(hex, fmt.Sprintf("0x%02x", c))
	}
	return Errorf(codeCharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", strings.Join(hex, " "))
}

// codeIntervalFieldOverflow is SQLSTATE 22015, interval_field_overflow.
const codeIntervalFieldOverflow = "22015"

// errSyntax is PostgreSQL's 22P02 `invalid input syntax for type T: "s"`.
func errSyntax(t T, s string) error {
	return Errorf(CodeInvalidText, "invalid input syntax for type %s: %q", t.baseName(), s)
}

// errRange is the integer/float input out-of-range error (22003).
func errRange(t T, s string) error {
	if t.Family == FamFloat {
		return Errorf(CodeNumericOutOfRange, "%q is out of range for type %s", s, t.baseName())
	}
	return Errorf(CodeNumericOutOfRange, "value %q is out of range for type %s", s, t.baseName())
}

// errIntOutOfRange is the arithmetic overflow error: "integer out of range".
func errIntOutOfRange(width int32) error {
	return Errorf(CodeNumericOutOfRange, "%s out of range", Int(width).baseName())
}

// errDatetimeSyntax is 22007 `invalid input syntax for type date: "s"`.
func errDatetimeSyntax(t T, s string) error {
	name := map[Family]string{FamTime: "time", FamTimestamp: "timestamp"}[t.Family]
	if name == "" {
		name = t.baseName()
	}
	return Errorf(CodeDatetimeFormat, "invalid input syntax for type %s: %q", name, s)
}

// errDatetimeRange is 22008 `date/time field value out of range: "s"`.
func errDatetimeRange(s string) error {
	return Errorf(CodeDatetimeOverflow, "date/time field value out of range: %q", s)
}

// Int returns the integer type of the given width in bits (16, 32 or 64).
func Int(width int32) T { return T{Family: FamInt, Width: width} }

// baseName is Name without modifiers, as input-function errors print it.
func (t T) baseName() string {
	switch t.Family {
	case FamNumeric:
		return "numeric"
	case FamText:
		if t.Kind == KindChar {
			return "character"
		}
	}
	u := t
	u.Length, u.Precision, u.Scale = 0, 0, 0
	return u.Name()
}
