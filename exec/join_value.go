package exec

import (
	"encoding/binary"

	"github.com/eddydb/eddy/repr"
)

// The logged value of a join's arranged row has two forms:
//
//	row(count, matches, columns...)                       full form
//	keyedJoinValue varint(count) varint(matches)
//	    uvarint(join key length) hints                     keyed form
//
// The keyed form is used when the row decodes exactly from its row key
// (repr.AppendKeyHints: no float or interval column): the state key
// (tag, join key, row key) already holds every column, so the value
// carries only the counts, where the row key starts, and the decoding
// hints. It halves the bytes a stored row costs (q7's bids: the row
// was written twice, in the key and in the value), and with them the
// WAL, memtable, flush and compaction bytes of state that is written
// and deleted again within seconds (issue 8: spilled window state). A
// full-form value starts with its column count (at least 2), never
// with keyedJoinValue, so state written before the keyed form still
// restores.
const keyedJoinValue = 0x00

// logValue returns r's logged value in o.vbuf: the keyed form when its
// columns decode from its row key, else the full form (r's encoding as
// it is). row, if not nil, is r's columns (the row r was created from),
// else r is decoded.
func (o *joinOp) logValue(side int, r *jrow, row repr.Row) []byte {
	if v, ok := o.keyedValue(side, r, row); ok {
		return v
	}
	o.counts[0], o.counts[1] = repr.NewInt(r.n), repr.NewInt(r.matches)
	o.vbuf = repr.AppendRowHeader(o.vbuf[:0], 2+o.widths[side])
	o.vbuf = repr.AppendDatums(o.vbuf, o.counts)
	o.vbuf = append(o.vbuf, r.enc...)
	return o.vbuf
}

// keyedValue returns r's keyed-form value in o.vbuf, or false when a
// column of r does not decode exactly from its key (or r does not
// decode: the full form then logs its bytes as they are).
func (o *joinOp) keyedValue(side int, r *jrow, row repr.Row) ([]byte, bool) {
	row, err := o.columnsOf(side, r, row)
	if err != nil {
		return nil, false
	}
	jk := 0
	if o.keyed {
		o.cbuf = repr.AppendColsKey(o.cbuf[:0], row, o.sides[side].keyCols) // scratch: log has copied the state key
		jk = len(o.cbuf)
	}
	v := append(o.vbuf[:0], keyedJoinValue)
	v = binary.AppendVarint(v, r.n)
	v = binary.AppendVarint(v, r.matches)
	v = binary.AppendUvarint(v, uint64(jk))
	v, ok := repr.AppendKeyHints(v, row)
	o.vbuf = v
	return v, ok
}

// decodeLogged decodes a logged value of side (either form) under state
// key skey (the key after its tag: join key and row key, or row key
// alone when unkeyed): the row's columns, count and match count.
func (o *joinOp) decodeLogged(side int, skey, value []byte) (row repr.Row, n, matches int64, err error) {
	if len(value) > 0 && value[0] == keyedJoinValue {
		return o.decodeKeyed(side, skey, value[1:])
	}
	r, err := repr.DecodeRow(value)
	if err != nil || len(r) != 2+o.widths[side] {
		return nil, 0, 0, errCorrupt
	}
	return r[2:], r[0].Int(), r[1].Int(), nil
}

// decodeKeyed decodes a keyed-form value v (past its first byte) of
// side under state key skey.
func (o *joinOp) decodeKeyed(side int, skey, v []byte) (row repr.Row, n, matches int64, err error) {
	var ints [3]int64
	for i := range ints {
		var k int
		if i < 2 {
			ints[i], k = binary.Varint(v)
		} else {
			var u uint64
			u, k = binary.Uvarint(v)
			ints[i] = int64(min(u, uint64(len(skey))+1))
		}
		if k <= 0 {
			return nil, 0, 0, errCorrupt
		}
		v = v[k:]
	}
	if ints[2] > int64(len(skey)) {
		return nil, 0, 0, errCorrupt
	}
	row, err = repr.DecodeRowKeyExact(skey[ints[2]:], v)
	if err != nil || len(row) != o.widths[side] {
		return nil, 0, 0, errCorrupt
	}
	return row, ints[0], ints[1], nil
}
