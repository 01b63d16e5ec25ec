package exec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/sql/types"
)

// topkOp keeps, per group of the key columns, the rows ranked Offset+1
// through Offset+Limit by the sort columns, ties broken by the whole row
// (rows with multiplicity n occupy n consecutive ranks). On a batch it
// emits, for each touched group, the difference between the group's old
// and new top set.
//
// State: per group, every live row in sort order with its count, and the
// current top set. Size: O(live input rows), or, with spec.AppendOnly and
// a Limit, O(Offset+Limit) rows per group: rows ranked past them are
// dropped, which is sound only because no retraction can ever make room
// above them (a retraction that arrives anyway fails the Step). Time per Step: a
// binary search and a slice insertion per input row, and O(Offset+Limit)
// per touched group to recompute its top set. Logged as row-key ->
// row(count, columns...). With spec.Rank each output row carries its
// 1-based position in the group as an extra column; a change then also
// re-emits the rows whose positions moved.
type topkOp struct {
	spec          dataflow.TopK
	groups        map[string]*kgroup
	rowsTouched   []krowUndo
	groupsTouched []kgroupUndo
	kbuf, sbuf    []byte
	vbuf          []byte
	scratch       types.Row
}

// kgroup is one group: its rows sorted by sort key and its top set.
type kgroup struct {
	key   string
	rows  []*krow
	top   []topEntry
	stamp uint64
	in    bool
}

// krow is one distinct row. sk is its sort key: the order columns'
// encoding followed by the row's key encoding, which is rk = sk[ord:].
type krow struct {
	row   types.Row
	sk    string
	ord   int
	n     int64
	stamp uint64
	in    bool
}

// topEntry is a row in the top set with the number of its copies there.
type topEntry struct {
	r *krow
	n int64
}

type krowUndo struct {
	g       *kgroup
	r       *krow
	n       int64
	existed bool
}

type kgroupUndo struct {
	g       *kgroup
	top     []topEntry
	existed bool
}

func newTopK(spec dataflow.TopK, in []types.T) (*topkOp, error) {
	if err := checkCols(spec.Key, len(in)); err != nil {
		return nil, err
	}
	for _, c := range spec.Order {
		if err := checkCols([]int{c.Col}, len(in)); err != nil {
			return nil, err
		}
	}
	if spec.Offset < 0 {
		return nil, fmt.Errorf("TopK offset %d is negative", spec.Offset)
	}
	return &topkOp{spec: spec, groups: make(map[string]*kgroup)}, nil
}

// appendSortKey appends the order-column encoding of row to buf: per
// column a NULL marker placed first or last, or the value's key encoding,
// complemented for DESC (the encodings are prefix-free, so complementing
// reverses their order).
func appendSortKey(buf []byte, row types.Row, order []dataflow.SortCol) []byte {
	for _, c := range order {
		v := row[c.Col]
		switch {
		case v.IsNull() && c.NullsFirst:
			buf = append(buf, 0x00)
			continue
		case v.IsNull():
			buf = append(buf, 0x02)
			continue
		}
		// AppendKey writes a one-byte non-NULL marker, overwritten by ours.
		start := len(buf)
		buf = types.AppendKey(buf, v)
		buf[start] = 0x01
		start++
		if c.Desc {
			for i := start; i < len(buf); i++ {
				buf[i] = ^buf[i]
			}
		}
	}
	return buf
}

func (o *topkOp) step(s *stepCtx, ins [][]Update) ([]Update, error) {
	for _, u := range ins[0] {
		if u.Diff < 0 && o.spec.AppendOnly {
			return nil, errRetractAppendOnly
		}
		g := o.group(s, u.Row)
		o.sbuf = appendSortKey(o.sbuf[:0], u.Row, o.spec.Order)
		ord := len(o.sbuf)
		o.sbuf = types.AppendRowKey(o.sbuf, u.Row)
		i, found := g.search(o.sbuf)
		if !found {
			// The row is kept beyond this Step: copied out of whatever
			// slab chunk it came from, so it does not pin the chunk's
			// other rows (a trimmed top-k keeps few of them).
			r := &krow{row: slices.Clone(u.Row), sk: string(o.sbuf), ord: ord, stamp: s.epoch, in: true}
			g.rows = slices.Insert(g.rows, i, r)
			o.rowsTouched = append(o.rowsTouched, krowUndo{g: g, r: r})
		}
		r := g.rows[i]
		if r.stamp != s.epoch {
			r.stamp = s.epoch
			o.rowsTouched = append(o.rowsTouched, krowUndo{g: g, r: r, n: r.n, existed: true})
		}
		r.n += u.Diff
	}
	return o.finish(s), nil
}

// group finds or creates row's group, touching it.
func (o *topkOp) group(s *stepCtx, row types.Row) *kgroup {
	o.kbuf = types.AppendColsKey(o.kbuf[:0], row, o.spec.Key)
	g := o.groups[string(o.kbuf)]
	if g == nil {
		g = &kgroup{key: string(o.kbuf), in: true, stamp: s.epoch}
		o.groups[g.key] = g
		o.groupsTouched = append(o.groupsTouched, kgroupUndo{g: g})
	} else if g.stamp != s.epoch {
		g.stamp = s.epoch
		o.groupsTouched = append(o.groupsTouched, kgroupUndo{g: g, top: g.top, existed: true})
	}
	return g
}

// search finds the position of sort key sk in g.rows.
func (g *kgroup) search(sk []byte) (int, bool) {
	return slices.BinarySearchFunc(g.rows, sk, func(r *krow, sk []byte) int { return strings.Compare(r.sk, string(sk)) })
}

// errRetractAppendOnly fails a Step that breaks the AppendOnly promise,
// rather than answer from state that no longer holds the rows it needs.
var errRetractAppendOnly = fmt.Errorf("internal error: a retraction reached a top-k planned for an append-only input")

// finish emits the top-set changes of touched groups and logs touched rows.
func (o *topkOp) finish(s *stepCtx) []Update {
	var out []Update
	for _, t := range o.groupsTouched {
		cur := o.top(t.g)
		if o.spec.Rank {
			out = diffRanked(out, t.g.top, cur, o.spec.Offset, s.t)
		} else {
			out = diffTop(out, t.g.top, cur, s.t)
		}
		t.g.top = cur
		if o.spec.AppendOnly && o.spec.Limit >= 0 {
			o.trim(s, t.g)
		}
	}
	for _, t := range o.rowsTouched {
		o.log(s, t.g, t.r)
	}
	for _, t := range o.groupsTouched {
		if len(t.g.rows) == 0 && t.g.in {
			delete(o.groups, t.g.key)
			t.g.in = false
		}
	}
	return out
}

// trim drops g's rows ranked entirely past Offset+Limit (an append-only
// input only): their counts go to zero, recorded for rollback, so that
// finish logs their deletion and frees them.
func (o *topkOp) trim(s *stepCtx, g *kgroup) {
	hi := o.spec.Offset + o.spec.Limit
	pos := int64(0)
	for _, r := range g.rows {
		if pos >= hi && r.n > 0 {
			if r.stamp != s.epoch {
				r.stamp = s.epoch
				o.rowsTouched = append(o.rowsTouched, krowUndo{g: g, r: r, n: r.n, existed: true})
			}
			r.n = 0
		}
		pos += max(r.n, 0)
	}
}

// top computes g's top set: the rows overlapping ranks Offset+1..Offset+Limit.
func (o *topkOp) top(g *kgroup) []topEntry {
	lo, hi := o.spec.Offset, int64(math.MaxInt64)
	if o.spec.Limit >= 0 {
		hi = lo + o.spec.Limit
	}
	var top []topEntry
	pos := int64(0)
	for _, r := range g.rows {
		if pos >= hi {
			break
		}
		if r.n <= 0 {
			continue
		}
		if n := min(pos+r.n, hi) - max(pos, lo); n > 0 {
			top = append(top, topEntry{r, n})
		}
		pos += r.n
	}
	return top
}

// diffTop appends the updates turning top set old into cur (both in sort order).
func diffTop(out []Update, old, cur []topEntry, t Time) []Update {
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		c := 1
		switch {
		case i == len(old):
			c = 1
		case j == len(cur):
			c = -1
		default:
			c = strings.Compare(old[i].r.sk, cur[j].r.sk)
		}
		switch {
		case c < 0:
			out = append(out, Update{Row: old[i].r.row, Time: t, Diff: -old[i].n})
			i++
		case c > 0:
			out = append(out, Update{Row: cur[j].r.row, Time: t, Diff: cur[j].n})
			j++
		default:
			if d := cur[j].n - old[i].n; d != 0 {
				out = append(out, Update{Row: cur[j].r.row, Time: t, Diff: d})
			}
			i, j = i+1, j+1
		}
	}
	return out
}

// diffRanked appends the updates turning top set old into cur when rows
// carry their rank: both sets hold consecutive positions from offset+1,
// so they are compared position by position, and a row whose position
// changes is retracted at the old rank and inserted at the new one.
func diffRanked(out []Update, old, cur []topEntry, offset int64, t Time) []Update {
	o, c := expandTop(old), expandTop(cur)
	for i := range max(len(o), len(c)) {
		var or, cr *krow
		if i < len(o) {
			or = o[i]
		}
		if i < len(c) {
			cr = c[i]
		}
		if or == cr {
			continue
		}
		rank := types.NewInt(offset + int64(i) + 1)
		if or != nil {
			out = append(out, Update{Row: append(or.row[:len(or.row):len(or.row)], rank), Time: t, Diff: -1})
		}
		if cr != nil {
			out = append(out, Update{Row: append(cr.row[:len(cr.row):len(cr.row)], rank), Time: t, Diff: 1})
		}
	}
	return out
}

// expandTop lists the top set's rows by position, one entry per copy.
func expandTop(top []topEntry) []*krow {
	var out []*krow
	for _, e := range top {
		for range e.n {
			out = append(out, e.r)
		}
	}
	return out
}

// log logs r and frees it if its count is zero.
func (o *topkOp) log(s *stepCtx, g *kgroup, r *krow) {
	o.kbuf = append(append(o.kbuf[:0], s.prefix...), r.sk[r.ord:]...)
	if r.n == 0 {
		s.log.del(o.kbuf)
		if r.in {
			g.remove(r)
		}
		return
	}
	o.scratch = append(append(o.scratch[:0], types.NewInt(r.n)), r.row...)
	o.vbuf = types.AppendRow(o.vbuf[:0], o.scratch)
	s.log.set(o.kbuf, o.vbuf)
}

func (g *kgroup) remove(r *krow) {
	if i, ok := g.search([]byte(r.sk)); ok {
		g.rows = slices.Delete(g.rows, i, i+1)
	}
	r.in = false
}

func (g *kgroup) insert(r *krow) {
	i, _ := g.search([]byte(r.sk))
	g.rows = slices.Insert(g.rows, i, r)
	r.in = true
}

func (o *topkOp) commit() {
	o.rowsTouched, o.groupsTouched = o.rowsTouched[:0], o.groupsTouched[:0]
}

func (o *topkOp) rollback() {
	for i := len(o.rowsTouched) - 1; i >= 0; i-- {
		t := &o.rowsTouched[i]
		t.r.n = t.n
		switch {
		case !t.existed && t.r.in:
			t.g.remove(t.r)
		case t.existed && !t.r.in:
			t.g.insert(t.r)
		}
	}
	for i := len(o.groupsTouched) - 1; i >= 0; i-- {
		t := &o.groupsTouched[i]
		t.g.top = t.top
		switch {
		case !t.existed && t.g.in:
			delete(o.groups, t.g.key)
			t.g.in = false
		case t.existed && !t.g.in:
			o.groups[t.g.key] = t.g
			t.g.in = true
		}
	}
	o.commit()
}

func (o *topkOp) restore(key, value []byte) error {
	r, err := types.DecodeRow(value)
	if err != nil || len(r) < 1 {
		return errCorrupt
	}
	row := r[1:]
	o.kbuf = types.AppendColsKey(o.kbuf[:0], row, o.spec.Key)
	g := o.groups[string(o.kbuf)]
	if g == nil {
		g = &kgroup{key: string(o.kbuf), in: true}
		o.groups[g.key] = g
	}
	o.sbuf = appendSortKey(o.sbuf[:0], row, o.spec.Order)
	ord := len(o.sbuf)
	o.sbuf = append(o.sbuf, key...)
	g.insert(&krow{row: row, sk: string(o.sbuf), ord: ord, n: r[0].Int()})
	return nil
}

func (o *topkOp) restored() error {
	for _, g := range o.groups {
		g.top = o.top(g)
	}
	return nil
}
