package exec

import (
	"bytes"
	"slices"
	"sort"

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
// sequential access goes through a wcur, O(1) per step. A paged wseq (pg
// set: a spilled Window without PARTITION BY, winpage.go) may hold a
// chunk's entries in the store only; every access to a chunk's entries
// goes through ents, which loads them.
type wseq struct {
	chunks []wchunk
	n      int
	pg     *wpager
}

// wchunk is one chunk of a wseq: its entries (nil while paged out) and,
// in a paged wseq, its page (length, bounds and residency).
type wchunk struct {
	e  []went
	pg *wpage
}

// size returns the chunk's number of entries.
func (c *wchunk) size() int {
	if c.e == nil && c.pg != nil {
		return c.pg.n
	}
	return len(c.e)
}

// ents returns the entries of chunk ci, loading them if paged out.
func (s *wseq) ents(ci int) []went {
	if s.pg != nil {
		return s.pg.use(s, ci)
	}
	return s.chunks[ci].e
}

// lastEnt returns the last entry of chunk ci (its row and sort key only
// while paged out), without loading it.
func (s *wseq) lastEnt(ci int) *went {
	c := &s.chunks[ci]
	if c.e == nil {
		return &c.pg.last
	}
	return &c.e[len(c.e)-1]
}

// locate returns the chunk and offset of position i (0 <= i < n).
func (s *wseq) locate(i int) (int, int) {
	for ci := range s.chunks {
		if n := s.chunks[ci].size(); i < n {
			return ci, i
		} else {
			i -= n
		}
	}
	panic("window: position out of range")
}

// at returns the entry at position i (0 <= i < n).
func (s *wseq) at(i int) *went {
	ci, off := s.locate(i)
	return &s.ents(ci)[off]
}

// insert inserts e at position i (0 <= i <= n). It loads what it needs
// before it changes anything (a failed load leaves s as it was).
func (s *wseq) insert(i int, e went) {
	if len(s.chunks) == 0 {
		s.chunks = []wchunk{{e: []went{e}, pg: s.pg.page()}}
		s.n++
		s.pg.added(1)
		return
	}
	ci, off := len(s.chunks)-1, s.chunks[len(s.chunks)-1].size()
	if i < s.n {
		ci, off = s.locate(i)
	}
	c := slices.Insert(s.ents(ci), off, e)
	s.n++
	s.pg.added(1)
	if len(c) <= wchunkMax {
		s.chunks[ci].e = c
		return
	}
	half := len(c) / 2
	right := append(make([]went, 0, wchunkMax), c[half:]...)
	clear(c[half:])
	s.chunks[ci].e = c[:half]
	s.chunks = slices.Insert(s.chunks, ci+1, wchunk{e: right, pg: s.pg.page()})
}

// remove removes and returns the entry at position i. A chunk left at a
// quarter full or less merges with its successor when both fit in one,
// so deletions do not leave a partition in many tiny chunks. It loads
// what it needs before it changes anything.
func (s *wseq) remove(i int) went {
	ci, off := s.locate(i)
	c := s.ents(ci)
	left := len(c) - 1
	var next []went
	if left > 0 && left <= wchunkMax/4 && ci+1 < len(s.chunks) && left+s.chunks[ci+1].size() <= wchunkMax {
		next = s.ents(ci + 1)
	}
	e := c[off]
	c = slices.Delete(c, off, off+1)
	s.n--
	s.pg.added(-1)
	switch {
	case len(c) == 0:
		s.chunks = slices.Delete(s.chunks, ci, ci+1)
	case next != nil:
		s.chunks[ci].e = append(c, next...)
		s.chunks = slices.Delete(s.chunks, ci+1, ci+2)
	default:
		s.chunks[ci].e = c
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
	ci := sort.Search(len(s.chunks), func(ci int) bool { return past(s.lastEnt(ci)) })
	pos := 0
	for i := range s.chunks[:ci] {
		pos += s.chunks[i].size()
	}
	if ci == len(s.chunks) {
		return pos
	}
	c := s.ents(ci)
	return pos + sort.Search(len(c), func(i int) bool { return past(&c[i]) })
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
		if step := min(pos-c.pos, c.s.chunks[c.ci].size()-1-c.off); step > 0 {
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
		c.off, c.pos = c.s.chunks[c.ci].size()-1, c.pos-1
	}
	return &c.s.ents(c.ci)[c.off]
}
