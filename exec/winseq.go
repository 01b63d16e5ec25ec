package exec

import (
	"bytes"
	"slices"

	"github.com/eddydb/eddy/repr"
)

// went is one position of a window partition: one copy of an input row,
// its sort key (the order columns' encoding, see appendSortKey) and its
// function slots (windowOp.width datums; nil for a row inserted by the
// pending Step and not yet computed). Copies of one row are adjacent and
// may share row and sk.
type went struct {
	row repr.Row
	sk  []byte
	out []repr.Datum
}

// wchunkMax is the most entries a chunk of a wseq holds; a fuller chunk
// splits in two. Tests lower it to split and merge chunks often.
var wchunkMax = 512

// wseq is the ordered sequence of a partition's positions, kept in chunks
// of at most wchunkMax entries so that inserting or removing a position
// moves at most a chunk's entries (plus the chunk list when one splits or
// empties), not the whole partition: a partition of a million rows has
// a few thousand chunks. Finding position i walks the chunk lengths;
// sequential access goes through a wcur, O(1) per step.
type wseq struct {
	chunks [][]went
	n      int
}

// locate returns the chunk and offset of position i (0 <= i < n).
func (s *wseq) locate(i int) (int, int) {
	for ci, c := range s.chunks {
		if i < len(c) {
			return ci, i
		}
		i -= len(c)
	}
	panic("window: position out of range")
}

// at returns the entry at position i (0 <= i < n).
func (s *wseq) at(i int) *went {
	ci, off := s.locate(i)
	return &s.chunks[ci][off]
}

// insert inserts e at position i (0 <= i <= n).
func (s *wseq) insert(i int, e went) {
	s.n++
	if len(s.chunks) == 0 {
		s.chunks = [][]went{{e}}
		return
	}
	ci, off := len(s.chunks)-1, len(s.chunks[len(s.chunks)-1])
	if i < s.n-1 {
		ci, off = s.locate(i)
	}
	c := slices.Insert(s.chunks[ci], off, e)
	if len(c) <= wchunkMax {
		s.chunks[ci] = c
		return
	}
	half := len(c) / 2
	right := append(make([]went, 0, wchunkMax), c[half:]...)
	clear(c[half:])
	s.chunks[ci] = c[:half]
	s.chunks = slices.Insert(s.chunks, ci+1, right)
}

// remove removes and returns the entry at position i. A chunk left at a
// quarter full or less merges with its successor when both fit in one,
// so deletions do not leave a partition in many tiny chunks.
func (s *wseq) remove(i int) went {
	ci, off := s.locate(i)
	c := s.chunks[ci]
	e := c[off]
	c = slices.Delete(c, off, off+1)
	s.n--
	switch {
	case len(c) == 0:
		s.chunks = slices.Delete(s.chunks, ci, ci+1)
	case len(c) <= wchunkMax/4 && ci+1 < len(s.chunks) && len(c)+len(s.chunks[ci+1]) <= wchunkMax:
		s.chunks[ci] = append(c, s.chunks[ci+1]...)
		s.chunks = slices.Delete(s.chunks, ci+1, ci+2)
	default:
		s.chunks[ci] = c
	}
	return e
}

// compareEnt orders e against the position (sk, row): by sort key, then,
// unless row is nil, by the whole row.
func compareEnt(e *went, sk []byte, row repr.Row) int {
	c := bytes.Compare(e.sk, sk)
	if c == 0 && row != nil {
		c = repr.CompareRows(e.row, row)
	}
	return c
}

// search returns the first position whose entry is at or after (sk, row)
// (after it, with upper), comparing sort keys only when row is nil: the
// copies of a row, or the peers of a sort key, are [search(false),
// search(true)).
func (s *wseq) search(sk []byte, row repr.Row, upper bool) int {
	return s.searchFunc(func(e *went) bool {
		c := compareEnt(e, sk, row)
		return c > 0 || c == 0 && !upper
	})
}

// searchFunc returns the first position whose entry satisfies past (n if
// none), past being false up to some position and true from there on.
func (s *wseq) searchFunc(past func(*went) bool) int {
	ci, _ := slices.BinarySearchFunc(s.chunks, true, func(c []went, _ bool) int {
		if past(&c[len(c)-1]) {
			return 1
		}
		return -1
	})
	pos := 0
	for _, c := range s.chunks[:ci] {
		pos += len(c)
	}
	if ci == len(s.chunks) {
		return pos
	}
	c := s.chunks[ci]
	off, _ := slices.BinarySearchFunc(c, true, func(e went, _ bool) int {
		if past(&e) {
			return 1
		}
		return -1
	})
	return pos + off
}

// wcur is a cursor over a wseq that is not modified while it is used:
// moving it by d positions costs O(d/chunk + 1), so a pass that moves
// cursors monotonically costs O(1) per position.
type wcur struct {
	s            *wseq
	ci, off, pos int
}

func newCur(s *wseq) wcur { return wcur{s: s, pos: -1} }

// at returns the entry at position pos (0 <= pos < n).
func (c *wcur) at(pos int) *went {
	if c.pos < 0 || pos-c.pos > wchunkMax || c.pos-pos > wchunkMax {
		c.ci, c.off = c.s.locate(pos)
		c.pos = pos
	}
	for c.pos < pos {
		if step := min(pos-c.pos, len(c.s.chunks[c.ci])-1-c.off); step > 0 {
			c.off, c.pos = c.off+step, c.pos+step
			continue
		}
		c.ci, c.off, c.pos = c.ci+1, 0, c.pos+1
	}
	for c.pos > pos {
		if step := min(c.pos-pos, c.off); step > 0 {
			c.off, c.pos = c.off-step, c.pos-step
			continue
		}
		c.ci--
		c.off, c.pos = len(c.s.chunks[c.ci])-1, c.pos-1
	}
	return &c.s.chunks[c.ci][c.off]
}
