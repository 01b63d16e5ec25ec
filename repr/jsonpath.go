package repr

import "errors"

// jsonpath values (PostgreSQL's SQL/JSON path type) are stored as the
// text PostgreSQL prints for them: the parsed path printed back in its
// normal form. The parser lives in expr/jsonpath, above repr, and
// installs itself with SetJSONPathInput; repr only carries the text.

// FamJSONPath is the family of the jsonpath type.
const FamJSONPath Family = FamEnum + 1

// JSONPath is the jsonpath type.
var JSONPath = T{Family: FamJSONPath}

// OIDJSONPath is jsonpath's pg_type OID (its array type is 4073).
const OIDJSONPath uint32 = 4072

// jsonpathBinaryVersion is the version byte before the text in
// jsonpath_send's binary form.
const jsonpathBinaryVersion = 1

// jsonPathInput parses jsonpath text and returns its normal form.
var jsonPathInput func(string) (string, error)

// SetJSONPathInput installs the jsonpath parser (expr/jsonpath's init
// calls it); it returns the normalised text of a valid path or a user
// error (42601 for syntax errors).
func SetJSONPathInput(f func(string) (string, error)) { jsonPathInput = f }

// ParseJSONPath reads jsonpath text into a datum holding its normal form.
func ParseJSONPath(s string) (Datum, error) {
	if jsonPathInput == nil {
		return Null, errors.New("jsonpath parser not installed")
	}
	norm, err := jsonPathInput(s)
	if err != nil {
		return Null, err
	}
	return NewJSONPath(norm), nil
}

// NewJSONPath returns the jsonpath datum of already normalised text.
func NewJSONPath(normal string) Datum { return Datum{fam: FamJSONPath, s: normal} }

// firstByte is b's first byte, or 0 when b is empty (for error messages).
func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
