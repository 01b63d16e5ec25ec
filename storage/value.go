package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/eddydb/eddy/repr"
)

// Row values: the value stored under RowKey(id, key) is either
//
//	uvarint(count) repr.AppendRow(row)
//
// or, for a multiset row that decodes from its key (repr.DecodeRowKey),
//
//	keyedForm uvarint(count) hints
//
// with the key's decoding hints (repr.AppendKeyHints: each column's
// family, and a numeric's exponent), so the row is stored once, as its key. 1 <= count <= MaxInt64 (an entry whose count
// reaches zero is deleted, never stored), so the first form never starts
// with keyedForm (0x00), and a reader without this form rejects it. The
// count comes before the row so a reader can skip rows without decoding
// them.

// keyedForm starts a value whose row is its key (and, in a Collection
// entry, the part after the key).
const keyedForm = 0x00

// appendEntryValue appends the stored value of an entry with count whose
// value part (after its key) is val.
func appendEntryValue(buf, val []byte, count int64) []byte {
	if len(val) > 0 && val[0] == keyedForm {
		buf = append(buf, keyedForm)
		buf = binary.AppendUvarint(buf, uint64(count))
		return append(buf, val[1:]...)
	}
	buf = binary.AppendUvarint(buf, uint64(count))
	return append(buf, val...)
}

// errBadValue reports a stored row value that does not decode.
var errBadValue = errors.New("storage: corrupt row value")

// splitValue returns a stored value's count and its entry value: the
// row's AppendRow bytes, or keyedForm followed by the key's hints.
func splitValue(b []byte) (int64, []byte, error) {
	keyed := len(b) > 0 && b[0] == keyedForm
	if keyed {
		b = b[1:]
	}
	count, k := binary.Uvarint(b)
	if k <= 0 || count == 0 || count > math.MaxInt64 {
		return 0, nil, errBadValue
	}
	if keyed {
		return int64(count), append([]byte{keyedForm}, b[k:]...), nil
	}
	return int64(count), b[k:], nil
}

// decodeStored decodes the value stored under a collection entry's key
// (without the row-key prefix): the row, its count and the entry value
// (splitValue). It never panics on arbitrary input.
func decodeStored(key, value []byte) (repr.Row, int64, []byte, error) {
	count, val, err := splitValue(value)
	if err != nil {
		return nil, 0, nil, err
	}
	row, err := decodeEntryRow(key, val)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%w: %w", errBadValue, err)
	}
	return row, count, val, nil
}
