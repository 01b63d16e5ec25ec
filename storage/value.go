package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/eddydb/eddy/sql/types"
)

// Row values: the value stored under RowKey(id, key) is
//
//	uvarint(count) types.AppendRow(row)
//
// with 1 <= count <= MaxInt64 (an entry whose count reaches zero is
// deleted, never stored). The count comes first so a reader can skip rows
// without decoding them.

// appendValue appends the stored form of (row, count) to buf.
func appendValue(buf []byte, row types.Row, count int64) []byte {
	buf = binary.AppendUvarint(buf, uint64(count))
	return types.AppendRow(buf, row)
}

// appendValueBytes is appendValue for a row already encoded by
// types.AppendRow.
func appendValueBytes(buf, row []byte, count int64) []byte {
	buf = binary.AppendUvarint(buf, uint64(count))
	return append(buf, row...)
}

// errBadValue reports a stored row value that does not decode.
var errBadValue = errors.New("storage: corrupt row value")

// decodeValue decodes a value written by appendValue. It never panics on
// arbitrary input.
func decodeValue(b []byte) (types.Row, int64, error) {
	count, k := binary.Uvarint(b)
	if k <= 0 || count == 0 || count > math.MaxInt64 {
		return nil, 0, errBadValue
	}
	row, err := types.DecodeRow(b[k:])
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", errBadValue, err)
	}
	return row, int64(count), nil
}
