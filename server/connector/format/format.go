package format

import (
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// A Decoder turns one raw record into row changes for its columns.
//
// Decode appends the record's changes to out. On error (a bad record) it
// returns a *repr.Error and appends nothing. Decode never panics on any
// input (fuzzed). A Decoder is not safe for concurrent use: it reuses
// scratch buffers across calls.
type Decoder interface {
	Decode(key, value []byte, out *Changes) error
}

// Kind is what a Change does to the collection.
type Kind uint8

// The change kinds. Insert and Delete are the (row, diff) updates of the
// dataflow; Upsert and Tombstone are by key and need the caller's table
// state to become updates (a -1 of the old row, if any, and a +1 of the new).
const (
	Insert    Kind = iota + 1 // Row is added: diff +1
	Delete                    // Row is removed: diff -1
	Upsert                    // Row replaces the row with the same Key, if any
	Tombstone                 // the row with Key, if any, is removed; Row is nil
)

// String returns the kind's name as the golden files print it.
func (k Kind) String() string {
	switch k {
	case Insert:
		return "insert"
	case Delete:
		return "delete"
	case Upsert:
		return "upsert"
	case Tombstone:
		return "tombstone"
	}
	return "invalid"
}

// Change is one decoded change.
//
// Invariants: Row has one datum per column, in column order, each NULL or of
// the column type's family (nil for Tombstone). Key has one datum per key
// column, in the order the key columns were given, and is nil when the
// decoder has no key columns (never for Upsert and Tombstone).
type Change struct {
	Kind Kind
	Row  repr.Row
	Key  repr.Row
}

// Diff is the change's multiplicity: +1 for Insert, -1 for Delete, and 0
// for the by-key kinds, whose diffs depend on the caller's state.
func (c Change) Diff() int64 {
	switch c.Kind {
	case Insert:
		return 1
	case Delete:
		return -1
	}
	return 0
}

// Changes accumulates decoded changes. Its zero value is ready to use.
//
// Rows are carved out of slabs shared by many rows, so decoding does not
// allocate per row; a slab is never reused, so rows stay valid after Reset
// and may be retained by the caller.
type Changes struct {
	List []Change
	slab []repr.Datum
}

// slabSize is the number of datums allocated at once for rows.
const slabSize = 2048

// Reset empties the list, keeping its capacity. Rows handed out before
// stay valid.
func (c *Changes) Reset() { c.List = c.List[:0] }

// Len is the number of changes.
func (c *Changes) Len() int { return len(c.List) }

// newRow returns a row of n NULL datums.
func (c *Changes) newRow(n int) repr.Row {
	if len(c.slab) < n {
		c.slab = make([]repr.Datum, max(slabSize, n))
	}
	r := c.slab[:n:n]
	c.slab = c.slab[n:]
	return r
}

// add appends a change.
func (c *Changes) add(k Kind, row, key repr.Row) {
	c.List = append(c.List, Change{Kind: k, Row: row, Key: key})
}

// keyOf returns the key columns' values of row, or nil without key columns.
func (c *Changes) keyOf(row repr.Row, keyCols []int) repr.Row {
	if len(keyCols) == 0 {
		return nil
	}
	k := c.newRow(len(keyCols))
	for i, col := range keyCols {
		k[i] = row[col]
	}
	return k
}

// The FORMAT and ENCODE names.
const (
	FormatPlain    = "plain"
	FormatUpsert   = "upsert"
	FormatDebezium = "debezium"
	EncodeJSON     = "json"
	EncodeCSV      = "csv"
)

// NewDecoder returns the decoder for FORMAT format ENCODE encode (names are
// case-insensitive) filling cols. keyCols are indexes into cols of the key
// (PRIMARY KEY) columns: required for UPSERT, optional otherwise (they make
// every Change carry Key and must be non-null). opts are the ENCODE options
// (CSV: delimiter, without_header). Unsupported combinations are 0A000;
// bad options are 22023.
func NewDecoder(format, encode string, cols []connector.Column, keyCols []int, opts map[string]string) (Decoder, error) {
	format, encode = strings.ToLower(format), strings.ToLower(encode)
	for _, k := range keyCols {
		if k < 0 || k >= len(cols) {
			return nil, repr.Errorf(repr.CodeInvalidParameter, "key column %d out of range", k)
		}
	}
	switch encode {
	case EncodeJSON:
		return newJSONDecoder(format, cols, keyCols, opts)
	case EncodeCSV:
		if format != FormatPlain {
			return nil, repr.Unsupported("FORMAT %s ENCODE CSV", strings.ToUpper(format))
		}
		return newCSVDecoder(cols, keyCols, opts)
	}
	return nil, repr.Unsupported("ENCODE %s", strings.ToUpper(encode))
}

// rejectOptions returns 22023 for the first option not in allowed.
func rejectOptions(opts map[string]string, allowed ...string) error {
	for k := range opts {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			return repr.Errorf(repr.CodeInvalidParameter, "unrecognized encode option %q", k)
		}
	}
	return nil
}

// checkKey returns 23502 if a key column of row is NULL.
func checkKey(row repr.Row, cols []connector.Column, keyCols []int) error {
	for _, k := range keyCols {
		if row[k].IsNull() {
			return repr.Errorf(repr.CodeNotNullViolation, "missing or null value for key column %q", cols[k].Name)
		}
	}
	return nil
}
