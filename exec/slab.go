package exec

import "github.com/eddydb/eddy/repr"

// rowSlab allocates output rows from large chunks so that operators do not
// allocate once per row. Rows handed out are never reused (rows are
// immutable once emitted, and operators may keep them in their state), so a
// chunk stays alive as long as any of its rows does.
//
// Chunks start small and double up to slabChunk, so that a dataflow built
// for one small query (a point read returning a row) does not pay for a
// chunk of thousands of datums, while a large step still allocates rarely.
//
// decs serves the decimals of numerics that operators decode from their
// compact state into output rows (joinOp), under the same rule.
type rowSlab struct {
	buf  []repr.Datum
	next int // size of the next chunk
	decs repr.DecimalSlab
	// allocated counts the bytes of the chunks allocated and rows the rows
	// handed out, ever: a Step's memory account reads their growth
	// (memory.go).
	allocated, rows int64
}

// slabChunk is the largest number of datums allocated at once;
// slabFirstChunk the first.
const (
	slabChunk      = 4096
	slabFirstChunk = 32
)

// release lets go of the current chunk, so that the rows handed out
// (which stay valid) do not keep later rows' memory alive, and starts
// the next chunk small again: a slab released after every Step (a
// worker's or a shard's) then allocates for what each Step uses, not a
// fresh chunk of the largest size an earlier Step grew to (at 4,096
// datums, ~190 KB allocated and zeroed per worker per Step however few
// rows it emits).
func (s *rowSlab) release() {
	s.buf, s.next = nil, 0
}

// row returns a fresh row of n datums (all NULL) whose capacity is n, so
// appending to it never writes into a neighbour.
func (s *rowSlab) row(n int) repr.Row {
	if n == 0 {
		return repr.Row{} // a zero-width row is a row, never nil (absent)
	}
	if cap(s.buf)-len(s.buf) < n {
		size := max(s.next, slabFirstChunk)
		s.next = min(2*size, slabChunk)
		s.buf = make([]repr.Datum, 0, max(size, n))
		s.allocated += int64(cap(s.buf)) * datumBytes
	}
	s.rows++
	l := len(s.buf)
	s.buf = s.buf[:l+n]
	return s.buf[l : l+n : l+n]
}

// concat returns a fresh row holding a followed by b.
func (s *rowSlab) concat(a, b repr.Row) repr.Row {
	r := s.row(len(a) + len(b))
	copy(r, a)
	copy(r[len(a):], b)
	return r
}
