package repr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

// Exact keys. AppendKey folds the representations of one value together
// (2 and 2.00, -0 and 0 floats, '1 day' and '24 hours'): equal values
// encode alike, so keys group, join and deduplicate by =. A store of rows
// (a table or view without a primary key) must not: PostgreSQL keeps each
// row as written (a table holding 2 and 2.00 returns both, and a DELETE of
// the row printed 2.00 leaves the 2). AppendRowKeyExact is the row's key
// followed, only when some value of the row has other representations, by
// a suffix naming this one, so such rows are stored apart while still
// sorting and prefix-matching as their AppendRowKey.

// Suffix tags of AppendRowKeyExact. Both sort below keyValue and keyNull,
// so a suffixed key sorts right after its AppendRowKey and before any
// longer key.
const (
	exactHints byte = 0x00 // AppendKeyHints follow: the row decodes from its key
	exactRow   byte = 0x01 // AppendRow follows
)

// MultiRep reports whether d has representations that print differently
// but are equal under = (so AppendKey folds them): numerics (scale,
// -0), float zeros (-0), intervals ('1 day' and '24 hours'), jsonb
// (numbers: 1.0 and 1), arrays and records (of any of those).
func MultiRep(d Datum) bool {
	switch d.fam {
	case FamNumeric:
		return d.dec.Form == apd.Finite
	case FamFloat:
		return d.Float() == 0
	case FamInterval, FamJSONB, FamArray, FamRecord:
		return true
	}
	return false
}

// RowMultiRep reports whether some datum of r is MultiRep.
func RowMultiRep(r Row) bool {
	for _, d := range r {
		if MultiRep(d) {
			return true
		}
	}
	return false
}

// AppendRowKeyExact appends AppendRowKey(r) and, when RowMultiRep(r), a
// suffix that tells r's representation from the others of the same key:
// exactHints and AppendKeyHints(r) when r decodes from its key, else
// exactRow and AppendRow(r). Rows have equal exact keys exactly when they
// are identical (up to NaN payloads).
func AppendRowKeyExact(buf []byte, r Row) []byte {
	buf, _ = AppendRowKeyExactHints(buf, r)
	return buf
}

// AppendRowKeyExactHints is AppendRowKeyExact that also returns where in
// the result AppendKeyHints(r) begins when the key ends with them (a
// collection storing r in its keyed form copies them rather than
// computing them again), else -1.
func AppendRowKeyExactHints(buf []byte, r Row) ([]byte, int) {
	buf = AppendRowKey(buf, r)
	if !RowMultiRep(r) {
		return buf, -1
	}
	n := len(buf)
	if out, ok := AppendKeyHints(append(buf, exactHints), r); ok {
		return out, n + 1
	}
	return AppendRow(append(buf[:n], exactRow), canonicalNaN(r)), -1
}

// AppendKeyExact is AppendRowKeyExact for one datum: AppendKey(d), then
// a suffix naming d's representation when MultiRep(d). Values equal
// under Compare sort together, and among them by representation, so the
// least (or greatest) exact key of a multiset is always one of the
// values it holds.
func AppendKeyExact(buf []byte, d Datum) []byte {
	if !MultiRep(d) {
		return AppendKey(buf, d)
	}
	return AppendRowKeyExact(buf, Row{d})
}

// canonicalNaN returns r with every float NaN replaced by math.NaN(), so
// that NaN payloads (not significant) do not make keys differ.
func canonicalNaN(r Row) Row {
	var out Row
	for i, d := range r {
		if d.fam == FamFloat && math.IsNaN(d.Float()) && math.Float64bits(d.Float()) != math.Float64bits(math.NaN()) {
			if out == nil {
				out = append(Row(nil), r...)
			}
			out[i] = NewFloat(math.NaN())
		}
	}
	if out == nil {
		return r
	}
	return out
}

// DecodeRowKeyExact decodes a row from an AppendRowKeyExact key whose
// suffix (if any) is exactHints and the given hints: the counterpart of
// DecodeRowKey for exact keys.
func DecodeRowKeyExact(key, hints []byte) (Row, error) {
	if r, err := DecodeRowKey(key, hints); err == nil {
		if RowMultiRep(r) {
			return nil, errCorrupt // such a row's key carries a suffix
		}
		return r, nil
	}
	n := len(key) - 1 - len(hints)
	if n < 0 || key[n] != exactHints || string(key[n+1:]) != string(hints) {
		return nil, errCorrupt
	}
	r, err := DecodeRowKey(key[:n], hints)
	if err == nil && !RowMultiRep(r) {
		return nil, errCorrupt
	}
	return r, err
}
