package repr

// codeCharacterNotInRepertoire is SQLSTATE 22021, raised for text that is
// not valid UTF-8 or contains NUL.
const codeCharacterNotInRepertoire = "22021"

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
