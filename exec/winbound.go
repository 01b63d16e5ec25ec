package exec

import (
	"bytes"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Frames with RANGE or GROUPS offsets and frame exclusion.
//
// A RANGE offset bound of the current row c admits an entry x by
// PostgreSQL's in_range on the single ORDER BY column (startOK, endOK);
// where c's or x's value is NULL the bound acts as CURRENT ROW (NULLs are
// one peer group, in no non-NULL row's offset frame). Along a partition
// startOK(c, x) is false then true and endOK(c, x) true then false, so a
// frame is a range of positions found by binary search, and as c moves
// forward both ends only move forward: a pass keeps them in trackers and
// advances them (O(1) amortized per position). The same monotonicity in
// c answers which rows a change of entry v affects (rangeReach): those
// from the first c with endOK(c, v) to the last with startOK(c, v).
//
// A GROUPS offset counts peer groups: the start of k PRECEDING is the
// start of the k-th group before the current one. A tracker keeps the
// group boundary and how many groups it is away, moving one group when
// the current row enters the next group (each move one binary search).
// A change affects the rows within the frame's reach in groups of the
// changed sort key's group, or of the gap a vanished group left
// (groupsReach).
//
// EXCLUDE splits a frame into up to three contiguous pieces (before the
// excluded rows, the current row for TIES, after them), each of which
// moves forward monotonically, so aggregates slide over each piece.

// wrange is what a function with RANGE offsets needs: the ORDER BY column
// and its direction, and per bound whether in_range rejects its offset.
type wrange struct {
	col      int
	t        repr.T
	desc     bool
	startBad bool
	endBad   bool
	ctx      *expr.Ctx
	firstErr error
}

// wtrack tracks one frame bound over a pass: a position and, for GROUPS,
// how many groups it lies from the current row's group.
type wtrack struct {
	c    wcur
	init bool
	pos  int
	have int64
	ps   int
}

// startOK reports whether x is at or after the start of c's frame.
func (f *wfunc) startOK(c, x *went) bool {
	b := f.Frame.Start
	switch b.Kind {
	case expr.UnboundedPreceding:
		return true
	case expr.CurrentRow:
		return bytes.Compare(x.sk, c.sk) >= 0
	}
	r := f.rng
	cv, xv := c.row[r.col], x.row[r.col]
	if cv.IsNull() || xv.IsNull() {
		return bytes.Compare(x.sk, c.sk) >= 0
	}
	ok, err := inRange(r.ctx, r.t, xv, cv, b.Value, (b.Kind == expr.Preceding) != r.desc, r.desc, r.startBad)
	if err != nil && r.firstErr == nil {
		r.firstErr = err
	}
	return ok
}

// endOK reports whether x is at or before the end of c's frame.
func (f *wfunc) endOK(c, x *went) bool {
	b := f.Frame.End
	switch b.Kind {
	case expr.UnboundedFollowing:
		return true
	case expr.CurrentRow:
		return bytes.Compare(x.sk, c.sk) <= 0
	}
	r := f.rng
	cv, xv := c.row[r.col], x.row[r.col]
	if cv.IsNull() || xv.IsNull() {
		return bytes.Compare(x.sk, c.sk) <= 0
	}
	ok, err := inRange(r.ctx, r.t, xv, cv, b.Value, (b.Kind == expr.Preceding) != r.desc, !r.desc, r.endBad)
	if err != nil && r.firstErr == nil {
		r.firstErr = err
	}
	return ok
}

// takeErr returns and clears the first in_range error of a pass.
func (f *wfunc) takeErr() error {
	if f.rng == nil {
		return nil
	}
	err := f.rng.firstErr
	f.rng.firstErr = nil
	return err
}

// bounds returns the frame [fs, fe] of position j (entry e, peers
// [ps, pe)) among n, clamped to the partition (empty when fs > fe).
func (f *wfunc) bounds(st *wstate, j, n, ps, pe int, e *went) (fs, fe int) {
	fr := f.Frame
	switch {
	case fr.Mode == expr.RowsMode:
		return f.rowsFrame(j, n)
	case fr.Mode == expr.RangeMode && fr.RangeOffsets():
		return f.rangeStart(st, n, ps, e), f.rangeEnd(st, n, pe, e)
	}
	return f.groupStart(st, n, ps, pe), f.groupEnd(st, n, ps, pe)
}

// rowsFrame is the ROWS frame of position j.
func (f *wfunc) rowsFrame(j, n int) (fs, fe int) {
	fr := f.Frame
	switch b := fr.Start; b.Kind {
	case expr.Preceding:
		fs = shift(j, -b.Offset, n)
	case expr.CurrentRow:
		fs = j
	case expr.Following:
		fs = shift(j, b.Offset, n)
	}
	switch b := fr.End; b.Kind {
	case expr.Preceding:
		fe = shift(j+1, -b.Offset, n) - 1
	case expr.CurrentRow:
		fe = j
	case expr.Following:
		fe = shift(j+1, b.Offset, n) - 1
	case expr.UnboundedFollowing:
		fe = n - 1
	}
	return fs, fe
}

// rangeStart is the start of a RANGE frame with offsets.
func (f *wfunc) rangeStart(st *wstate, n, ps int, e *went) int {
	switch f.Frame.Start.Kind {
	case expr.UnboundedPreceding:
		return 0
	case expr.CurrentRow:
		return ps
	}
	tr := &st.start
	if !tr.init {
		tr.init = true
		tr.pos = st.cur.s.searchFunc(func(x *went) bool { return f.startOK(e, x) })
		return tr.pos
	}
	for tr.pos < n && !f.startOK(e, tr.c.at(tr.pos)) {
		tr.pos++
	}
	return tr.pos
}

// rangeEnd is the end of a RANGE frame with offsets.
func (f *wfunc) rangeEnd(st *wstate, n, pe int, e *went) int {
	switch f.Frame.End.Kind {
	case expr.UnboundedFollowing:
		return n - 1
	case expr.CurrentRow:
		return pe - 1
	}
	tr := &st.end
	if !tr.init {
		tr.init = true
		tr.pos = st.cur.s.searchFunc(func(x *went) bool { return !f.endOK(e, x) })
		return tr.pos - 1
	}
	for tr.pos < n && f.endOK(e, tr.c.at(tr.pos)) {
		tr.pos++
	}
	return tr.pos - 1
}

// groupOffset is bound b in groups from the current one (negative:
// preceding), and whether it is unbounded.
func groupOffset(b expr.FrameBound) (int64, bool) {
	switch b.Kind {
	case expr.Preceding:
		return -b.Offset, false
	case expr.Following:
		return b.Offset, false
	case expr.CurrentRow:
		return 0, false
	}
	return 0, true
}

// groupStart is the start of a RANGE (no offsets) or GROUPS frame: the
// first position of the group d groups from the current one.
func (f *wfunc) groupStart(st *wstate, n, ps, pe int) int {
	d, unb := groupOffset(f.Frame.Start)
	switch {
	case unb:
		return 0
	case d == 0:
		return ps
	case d < 0:
		return st.start.back(-d, n, ps, pe)
	}
	return st.start.fwd(d-1, n, ps, pe)
}

// groupEnd is the end of a RANGE (no offsets) or GROUPS frame: the last
// position of the group d groups from the current one.
func (f *wfunc) groupEnd(st *wstate, n, ps, pe int) int {
	d, unb := groupOffset(f.Frame.End)
	switch {
	case unb:
		return n - 1
	case d == 0:
		return pe - 1
	case d > 0:
		return st.end.fwd(d, n, ps, pe) - 1
	}
	return st.end.back(-d-1, n, ps, pe) - 1
}

// back returns the start of the group m groups before the current one
// (whose peers are [ps, pe)), or 0 if there are fewer.
func (tr *wtrack) back(m int64, n, ps, pe int) int {
	if !tr.init {
		tr.init, tr.pos, tr.have, tr.ps = true, ps, 0, ps
		for tr.have < m && tr.pos > 0 {
			tr.pos = groupStartBefore(&tr.c, tr.pos)
			tr.have++
		}
		return tr.pos
	}
	if ps != tr.ps {
		// The current row entered the next group.
		tr.ps = ps
		if tr.have++; tr.have > m {
			tr.pos = groupEndFrom(&tr.c, tr.pos, n)
			tr.have = m
		}
	}
	return tr.pos
}

// fwd returns the end (exclusive) of the group m groups after the
// current one (whose peers are [ps, pe)), or n if there are fewer.
func (tr *wtrack) fwd(m int64, n, ps, pe int) int {
	if !tr.init {
		tr.init, tr.pos, tr.have, tr.ps = true, pe, 0, ps
	} else if ps != tr.ps {
		tr.ps = ps
		tr.have--
	}
	for tr.have < m && tr.pos < n {
		tr.pos = groupEndFrom(&tr.c, tr.pos, n)
		tr.have++
	}
	return tr.pos
}

// wpiece is one contiguous piece [s, e] of a frame (empty when e < s).
type wpiece struct{ s, e int }

// pieces splits the frame [fs, fe] of position j (peers [ps, pe)) by the
// exclusion into at most three pieces, in order.
func (f *wfunc) pieces(fs, fe, j, ps, pe int) ([3]wpiece, int) {
	switch f.Frame.Exclude {
	case expr.ExcludeCurrentRow:
		return [3]wpiece{{fs, min(fe, j-1)}, {max(fs, j+1), fe}}, 2
	case expr.ExcludeGroup:
		return [3]wpiece{{fs, min(fe, ps-1)}, {max(fs, pe), fe}}, 2
	case expr.ExcludeTies:
		mid := wpiece{j, j - 1}
		if fs <= j && j <= fe {
			mid.e = j
		}
		return [3]wpiece{{fs, min(fe, ps-1)}, mid, {max(fs, pe), fe}}, 3
	}
	return [3]wpiece{{fs, fe}}, 1
}

// nthInPieces returns the position of the k-th (0-based; negative:
// from the end) entry of the pieces, false if there are too few.
func nthInPieces(pc []wpiece, k int64) (int, bool) {
	if k < 0 {
		for i := len(pc) - 1; i >= 0; i-- {
			if l := int64(pc[i].e - pc[i].s + 1); l > 0 {
				if -k <= l {
					return pc[i].e + 1 + int(k), true
				}
				k += l
			}
		}
		return 0, false
	}
	for _, p := range pc {
		if l := int64(p.e - p.s + 1); l > 0 {
			if k < l {
				return p.s + int(k), true
			}
			k -= l
		}
	}
	return 0, false
}

// rangeReach returns the positions [lo, hi) whose RANGE frames contain
// the (inserted or removed) entry v.
func (f *wfunc) rangeReach(s *wseq, v *went) (int, int) {
	lo := s.searchFunc(func(c *went) bool { return f.endOK(c, v) })
	hi := s.searchFunc(func(c *went) bool { return !f.startOK(c, v) })
	return lo, hi
}

// groupsReach returns the positions [lo, hi) whose GROUPS frames may
// contain a change of sort key sk: the groups from the end offset's
// number of groups before sk's group (or gap) to the start offset's
// number after it.
func (f *wfunc) groupsReach(s *wseq, sk []byte) (int, int) {
	c := newCur(s)
	lo, hi := s.search(sk, nil, false), s.search(sk, nil, true)
	e, eu := groupOffset(f.Frame.End)
	if eu {
		lo = 0
	}
	for i := int64(0); i < e && lo > 0; i++ {
		lo = groupStartBefore(&c, lo)
	}
	st, su := groupOffset(f.Frame.Start)
	if su {
		hi = s.n
	}
	for i := int64(0); i < -st && hi < s.n; i++ {
		hi = groupEndFrom(&c, hi, s.n)
	}
	return lo, hi
}

// groupStartBefore returns the first position of the peer group of
// position pos-1 (pos > 0), walking back over it: frames in groups hold
// whole groups, so the walk costs no more than reading them.
func groupStartBefore(c *wcur, pos int) int {
	sk := c.at(pos - 1).sk
	for pos--; pos > 0 && bytes.Equal(c.at(pos-1).sk, sk); pos-- {
	}
	return pos
}

// groupEndFrom returns the end (exclusive) of the peer group of position
// pos (pos < n), walking forward over it.
func groupEndFrom(c *wcur, pos, n int) int {
	sk := c.at(pos).sk
	for pos++; pos < n && bytes.Equal(c.at(pos).sk, sk); pos++ {
	}
	return pos
}
