package exec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// topkOp keeps, per group of the key columns, the rows ranked Offset+1
// through Offset+Limit by the sort columns, ties broken by the whole row
// (rows with multiplicity n occupy n consecutive ranks). On a batch it
// emits, for each touched group, the difference between the group's old
// and new top set.
//
// State: per group, every live row in sort order with its count. Size:
// O(live input rows), or, with spec.AppendOnly and a Limit, O(Offset+Limit)
// rows per group: rows ranked past them are dropped, which is sound only
// because no retraction can ever make room above them (a retraction that
// arrives anyway fails the Step). A kept row is a 48-byte krow and one
// allocation of its sort key followed by its value encoding
// (repr.AppendRow), decoded only when it is emitted, logged or compared
// with a row of equal sort key; a group is a map entry and a 32-byte
// kgroup; the top set is not stored but derived from the counts
// (appendTop). Time per Step:
// a binary search and a slice insertion per input row, and O(Offset+Limit)
// per touched group to derive its old and new top sets. Logged as {0x01}
// group-key row-key -> row(count, columns...) (so that a group's rows
// are one prefix scan and it can spill: topk_spill.go); state logged by
// row-key alone (before the group key was in the key; row keys start
// with 0x02 or 0x03) restores as before, keeps that layout and never
// spills. With spec.Rank each output row carries its
// 1-based position in the group as an extra column; a change then also
// re-emits the rows whose positions moved.
type topkOp struct {
	spec   dataflow.TopK
	groups map[string]*kgroup
	// ncols is the number of input columns; hdr the length of the
	// column-count header of a kept row's value encoding.
	ncols, hdr    int
	rowsTouched   []krowUndo
	groupsTouched []kgroupUndo
	// oldTops holds the top sets of the touched groups as they were when
	// first touched in this Step (kgroupUndo.top0, top1 index it).
	oldTops          []topEntry
	cur              []topEntry
	expOld, expCur   []*krow
	memo             []memoRow
	kbuf, sbuf, vbuf []byte
	rk1, rk2         []byte
	// rkeys holds the row keys cached in rowsTouched, gkeys the group
	// keys of groupsTouched.
	rkeys, gkeys []byte
	// keyed says rows are logged under their group key (tagKGroup).
	keyed bool
	// sp is the spilled state (topk_spill.go); nil while in memory.
	sp *residency
}

// tagKGroup starts the key of a row logged under its group key.
const tagKGroup byte = 0x01

// kgroup is one group: its rows sorted by sort key, then row key. Its key
// is not kept (the map holds it): a Step that touches the group records
// it, and otherwise it is computed from a row.
type kgroup struct {
	rows  []*krow
	stamp uint64
}

// krow is one distinct row: data is its sort key (the order columns'
// encoding, data[:ord]) followed by its value encoding (data[ord:]). Its
// row key, which breaks sort key ties and keys its log entry, is computed
// from the decoded row when needed. While stamp is the current epoch,
// undo indexes its record in rowsTouched.
type krow struct {
	data  []byte
	n     int64
	stamp uint64
	ord   int32
	undo  int32
}

// sortKey returns r's sort key.
func (r *krow) sortKey() []byte { return r.data[:r.ord] }

// topEntry is a row in the top set with the number of its copies there.
type topEntry struct {
	r *krow
	n int64
}

// krowUndo records r's count before the Step (existed: r was in g.rows).
// It also caches, for the rest of the Step, r's decoded row (the input
// row itself for a row created by the Step) and, if hasRK, its row key
// rkeys[rk0:rk1].
type krowUndo struct {
	g              *kgroup
	r              *krow
	row            repr.Row
	n              int64
	rk0, rk1       int
	hasRK, existed bool
}

// kgroupUndo records a touched group: its key gkeys[key0:key1], whether
// it was in o.groups, and its top set oldTops[top0:top1] before the Step.
type kgroupUndo struct {
	g          *kgroup
	key0, key1 int
	top0, top1 int
	existed    bool
}

// key returns the touched group's key.
func (o *topkOp) key(t *kgroupUndo) []byte { return o.gkeys[t.key0:t.key1] }

// memoRow is a row decoded while emitting one group's ranked changes.
type memoRow struct {
	r   *krow
	row repr.Row
}

func newTopK(spec dataflow.TopK, in []repr.T) (*topkOp, error) {
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
	hdr := len(binary.AppendUvarint(nil, uint64(len(in))))
	return &topkOp{spec: spec, groups: make(map[string]*kgroup), ncols: len(in), hdr: hdr}, nil
}

// appendSortKey appends the order-column encoding of row to buf: per
// column a NULL marker placed first or last, or the value's key encoding,
// complemented for DESC (the encodings are prefix-free, so complementing
// reverses their order).
func appendSortKey(buf []byte, row repr.Row, order []expr.SortCol) []byte {
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
		buf = repr.AppendKey(buf, v)
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

func (o *topkOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	for _, u := range ins[0] {
		if u.Diff < 0 && o.spec.AppendOnly {
			return nil, errRetractAppendOnly
		}
		g, err := o.group(s, u.Row)
		if err != nil {
			return nil, err
		}
		o.sbuf = appendSortKey(o.sbuf[:0], u.Row, o.spec.Order)
		i, found, rk := o.search(s, g, o.sbuf, u.Row, nil)
		if !found {
			// The row is kept beyond this Step: encoded into its own
			// allocation, so it does not pin the slab chunk it came from
			// (a trimmed top-k keeps few of its rows).
			ord := len(o.sbuf)
			o.sbuf = repr.AppendRow(o.sbuf, u.Row)
			r := &krow{data: slices.Clone(o.sbuf), ord: int32(ord)}
			g.rows = slices.Insert(g.rows, i, r)
			if o.sp != nil { // o.kbuf still holds the group key
				o.sp.grew(o.kbuf, krowCost(r))
			}
			o.touchRow(s, g, r, false)
			t := &o.rowsTouched[r.undo]
			t.row = u.Row
			if rk != nil {
				t.rk0 = len(o.rkeys)
				o.rkeys = append(o.rkeys, rk...)
				t.rk1, t.hasRK = len(o.rkeys), true
			}
		}
		r := g.rows[i]
		o.touchRow(s, g, r, true)
		r.n += u.Diff
	}
	return o.finish(s), nil
}

// touchRow records r's count for rollback the first time the Step touches
// it (existed: r was in g.rows before the Step).
func (o *topkOp) touchRow(s *stepCtx, g *kgroup, r *krow, existed bool) {
	if r.stamp == s.epoch {
		return
	}
	r.stamp, r.undo = s.epoch, int32(len(o.rowsTouched))
	o.rowsTouched = append(o.rowsTouched, krowUndo{g: g, r: r, n: r.n, existed: existed})
}

// group finds or creates row's group, touching it; in a spilled TopK it
// first makes the group resident.
func (o *topkOp) group(s *stepCtx, row repr.Row) (*kgroup, error) {
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.spec.Key)
	if o.sp != nil {
		if err := o.sp.use(o, o.kbuf, true); err != nil {
			return nil, err
		}
	}
	g := o.groups[string(o.kbuf)]
	if g == nil {
		g = &kgroup{}
		o.groups[string(o.kbuf)] = g
		o.touchGroup(s, g, o.kbuf, false)
	} else {
		o.touchGroup(s, g, o.kbuf, true)
	}
	return g, nil
}

// touchGroup records g's key, membership and top set for rollback and for
// finish's diff the first time the Step touches it.
func (o *topkOp) touchGroup(s *stepCtx, g *kgroup, key []byte, existed bool) {
	if g.stamp == s.epoch {
		return
	}
	g.stamp = s.epoch
	key0, top0 := len(o.gkeys), len(o.oldTops)
	o.gkeys = append(o.gkeys, key...)
	o.oldTops = o.appendTop(o.oldTops, g)
	o.groupsTouched = append(o.groupsTouched, kgroupUndo{g: g, key0: key0, key1: len(o.gkeys), top0: top0, top1: len(o.oldTops), existed: existed})
}

// groupKey returns the key of g, which has a row (valid until the next
// call).
func (o *topkOp) groupKey(g *kgroup) []byte {
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], o.row(g.rows[0]), o.spec.Key)
	return o.kbuf
}

// search finds the position in g.rows of the row with sort key sk, whose
// row is row or, if row is nil, whose row key is rk. Row keys break sort
// key ties only; it returns the row key it computed from row, if any
// (valid until the next search). s is nil outside a Step.
func (o *topkOp) search(s *stepCtx, g *kgroup, sk []byte, row repr.Row, rk []byte) (int, bool, []byte) {
	haveRK := row == nil
	i, found := slices.BinarySearchFunc(g.rows, sk, func(r *krow, sk []byte) int {
		if c := bytes.Compare(r.sortKey(), sk); c != 0 {
			return c
		}
		if !haveRK {
			o.rk2 = repr.AppendRowKey(o.rk2[:0], row)
			rk, haveRK = o.rk2, true
		}
		return bytes.Compare(o.rowKey(s, g, r), rk)
	})
	if row == nil {
		return i, found, nil
	}
	return i, found, rk
}

// rowKey returns the row key of r, a row of g. In a Step it touches r and
// caches the key in r's undo record, so that a row often tied with others
// (many input rows with its sort key) is decoded once per Step; outside
// one (s nil) the result is valid until the next call.
func (o *topkOp) rowKey(s *stepCtx, g *kgroup, r *krow) []byte {
	if s == nil {
		o.rk1 = repr.AppendRowKey(o.rk1[:0], o.row(r))
		return o.rk1
	}
	o.touchRow(s, g, r, true)
	t := &o.rowsTouched[r.undo]
	if !t.hasRK {
		t.rk0 = len(o.rkeys)
		o.rkeys = repr.AppendRowKey(o.rkeys, o.row(r))
		t.rk1, t.hasRK = len(o.rkeys), true
	}
	return o.rkeys[t.rk0:t.rk1]
}

// compare orders two kept rows of g as g.rows does.
func (o *topkOp) compare(s *stepCtx, g *kgroup, a, b *krow) int {
	if a == b {
		return 0
	}
	if c := bytes.Compare(a.sortKey(), b.sortKey()); c != 0 {
		return c
	}
	return bytes.Compare(o.rowKey(s, g, a), o.rowKey(s, g, b))
}

// row returns r's row: cached in r's undo record if the Step touched r,
// else decoded afresh. Emitted rows may share it.
func (o *topkOp) row(r *krow) repr.Row {
	if i := int(r.undo); i < len(o.rowsTouched) && o.rowsTouched[i].r == r {
		t := &o.rowsTouched[i]
		if t.row == nil {
			t.row = r.decode()
		}
		return t.row
	}
	return r.decode()
}

// decode decodes r's value encoding, which r's constructor produced.
func (r *krow) decode() repr.Row {
	row, err := repr.DecodeRow(r.data[r.ord:])
	if err != nil {
		panic(fmt.Sprintf("top-k: undecodable kept row: %v", err))
	}
	return row
}

// errRetractAppendOnly fails a Step that breaks the AppendOnly promise,
// rather than answer from state that no longer holds the rows it needs.
var errRetractAppendOnly = fmt.Errorf("internal error: a retraction reached a top-k planned for an append-only input")

// finish emits the top-set changes of touched groups and logs touched rows.
func (o *topkOp) finish(s *stepCtx) []repr.Update {
	var out []repr.Update
	for _, t := range o.groupsTouched {
		if o.spec.AppendOnly && o.spec.Limit >= 0 {
			// Trimmed rows lie past the top set, which thus stays; they
			// are touched before their retraction is emitted, which then
			// caches their decoded rows for log.
			o.trim(s, t.g)
		}
		old := o.oldTops[t.top0:t.top1]
		o.cur = o.appendTop(o.cur[:0], t.g)
		if o.spec.Rank {
			out = o.diffRanked(s, out, old, o.cur)
		} else {
			out = o.diffTop(s, t.g, out, old, o.cur)
		}
	}
	for i := range o.rowsTouched {
		o.log(s, &o.rowsTouched[i])
	}
	for i := range o.groupsTouched {
		t := &o.groupsTouched[i]
		if len(t.g.rows) == 0 && o.groups[string(o.key(t))] == t.g {
			delete(o.groups, string(o.key(t)))
		}
		t.g.shrink()
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
			o.touchRow(s, g, r, true)
			r.n = 0
		}
		pos += max(r.n, 0)
	}
}

// appendTop appends g's top set to buf: the rows overlapping ranks
// Offset+1..Offset+Limit.
func (o *topkOp) appendTop(buf []topEntry, g *kgroup) []topEntry {
	lo, hi := o.spec.Offset, int64(math.MaxInt64)
	if o.spec.Limit >= 0 {
		hi = lo + o.spec.Limit
	}
	pos := int64(0)
	for _, r := range g.rows {
		if pos >= hi {
			break
		}
		if r.n <= 0 {
			continue
		}
		if n := min(pos+r.n, hi) - max(pos, lo); n > 0 {
			buf = append(buf, topEntry{r, n})
		}
		pos += r.n
	}
	return buf
}

// diffTop appends the updates turning top set old into cur (both in sort order).
func (o *topkOp) diffTop(s *stepCtx, g *kgroup, out []repr.Update, old, cur []topEntry) []repr.Update {
	t := s.t
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		c := 1
		switch {
		case i == len(old):
			c = 1
		case j == len(cur):
			c = -1
		default:
			c = o.compare(s, g, old[i].r, cur[j].r)
		}
		switch {
		case c < 0:
			out = append(out, repr.Update{Row: o.row(old[i].r), Time: t, Diff: -old[i].n})
			i++
		case c > 0:
			out = append(out, repr.Update{Row: o.row(cur[j].r), Time: t, Diff: cur[j].n})
			j++
		default:
			if d := cur[j].n - old[i].n; d != 0 {
				out = append(out, repr.Update{Row: o.row(cur[j].r), Time: t, Diff: d})
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
func (o *topkOp) diffRanked(s *stepCtx, out []repr.Update, old, cur []topEntry) []repr.Update {
	o.expOld, o.expCur = expandTop(o.expOld[:0], old), expandTop(o.expCur[:0], cur)
	o.memo = o.memo[:0]
	for i := range max(len(o.expOld), len(o.expCur)) {
		var or, cr *krow
		if i < len(o.expOld) {
			or = o.expOld[i]
		}
		if i < len(o.expCur) {
			cr = o.expCur[i]
		}
		if or == cr {
			continue
		}
		rank := repr.NewInt(o.spec.Offset + int64(i) + 1)
		if or != nil {
			out = append(out, repr.Update{Row: o.ranked(s, or, rank), Time: s.t, Diff: -1})
		}
		if cr != nil {
			out = append(out, repr.Update{Row: o.ranked(s, cr, rank), Time: s.t, Diff: 1})
		}
	}
	return out
}

// ranked returns a fresh row: r's columns followed by rank. A row moving
// by one position is emitted twice, so the last few decoded rows of the
// group are remembered.
func (o *topkOp) ranked(s *stepCtx, r *krow, rank repr.Datum) repr.Row {
	var row repr.Row
	for i := len(o.memo) - 1; i >= max(0, len(o.memo)-4); i-- {
		if o.memo[i].r == r {
			row = o.memo[i].row
			break
		}
	}
	if row == nil {
		row = o.row(r)
		o.memo = append(o.memo, memoRow{r, row})
	}
	out := s.slab.row(len(row) + 1)
	copy(out, row)
	out[len(row)] = rank
	return out
}

// expandTop appends the top set's rows by position, one entry per copy.
func expandTop(buf []*krow, top []topEntry) []*krow {
	for _, e := range top {
		for range e.n {
			buf = append(buf, e.r)
		}
	}
	return buf
}

// log logs the touched row t.r if its count changed, and frees it if its
// count is zero.
func (o *topkOp) log(s *stepCtx, t *krowUndo) {
	r := t.r
	if t.existed && r.n == t.n {
		return
	}
	var rk []byte
	if t.hasRK {
		rk = o.rkeys[t.rk0:t.rk1]
	}
	o.kbuf = o.appendLogKey(o.kbuf[:0], s.prefix, o.row(r), rk)
	if r.n == 0 {
		s.log.del(o.kbuf)
		t.g.remove(r)
		return
	}
	o.vbuf = o.appendCounted(o.vbuf[:0], r)
	s.log.set(o.kbuf, o.vbuf)
}

// appendLogKey appends to buf the state key of a kept row: the node's
// prefix, the group key if keyed, and the row key (rk, or computed from
// row if nil).
func (o *topkOp) appendLogKey(buf, prefix []byte, row repr.Row, rk []byte) []byte {
	buf = append(buf, prefix...)
	if o.keyed {
		buf = repr.AppendColsKey(append(buf, tagKGroup), row, o.spec.Key)
	}
	if rk != nil {
		return append(buf, rk...)
	}
	return repr.AppendRowKey(buf, row)
}

// appendCounted appends the value encoding of the row (r.n, r's
// columns...) to buf. The value encoding (repr/rowcodec.go) is a
// uvarint column count followed by each column's encoding, so the count
// column is spliced in front of the encoding r keeps.
func (o *topkOp) appendCounted(buf []byte, r *krow) []byte {
	buf = binary.AppendUvarint(buf, uint64(o.ncols+1))
	n := len(buf)
	buf = repr.AppendRow(buf, repr.Row{repr.NewInt(r.n)})
	buf = append(buf[:n], buf[n+1:]...) // drop the one-column header
	return append(buf, r.data[int(r.ord)+o.hdr:]...)
}

// remove removes r from g.rows if it is there.
func (g *kgroup) remove(r *krow) {
	if i := slices.Index(g.rows, r); i >= 0 {
		g.rows = slices.Delete(g.rows, i, i+1)
	}
}

// shrink gives g.rows a backing array of its length if it is less than
// half full (a trimmed group's rows briefly grow in a Step, then shrink).
func (g *kgroup) shrink() {
	if cap(g.rows) > 2*len(g.rows) {
		g.rows = slices.Clone(g.rows)
	}
}

// insert inserts r into g.rows at its place.
func (o *topkOp) insert(g *kgroup, r *krow) {
	i, _, _ := o.search(nil, g, r.sortKey(), o.row(r), nil)
	g.rows = slices.Insert(g.rows, i, r)
}

// commit forgets the Step's record; a spilled TopK then evicts clean
// groups past its cache.
func (o *topkOp) commit() {
	o.forget()
	if o.sp != nil {
		o.sp.trim(o)
	}
}

// forget clears the record of the pending Step.
func (o *topkOp) forget() {
	clear(o.rowsTouched) // drop the cached rows
	o.rowsTouched, o.groupsTouched = o.rowsTouched[:0], o.groupsTouched[:0]
	clear(o.oldTops)
	o.oldTops, o.rkeys, o.gkeys = o.oldTops[:0], o.rkeys[:0], o.gkeys[:0]
	clear(o.memo[:cap(o.memo)])
	clear(o.expOld[:cap(o.expOld)])
	clear(o.expCur[:cap(o.expCur)])
	clear(o.cur[:cap(o.cur)])
}

func (o *topkOp) rollback() {
	for i := len(o.rowsTouched) - 1; i >= 0; i-- {
		t := &o.rowsTouched[i]
		t.r.n = t.n
		in := slices.Contains(t.g.rows, t.r)
		switch {
		case !t.existed && in:
			t.g.remove(t.r)
		case t.existed && !in:
			o.insert(t.g, t.r)
		}
	}
	for i := len(o.groupsTouched) - 1; i >= 0; i-- {
		t := &o.groupsTouched[i]
		in := o.groups[string(o.key(t))] == t.g
		switch {
		case !t.existed && in:
			delete(o.groups, string(o.key(t)))
		case t.existed && !in:
			o.groups[string(o.key(t))] = t.g
		}
	}
	o.forget()
}

// restore loads a kept row. A key starting with tagKGroup holds the
// group key before the row key; any other is a row key alone, which
// makes o log that older layout from then on.
func (o *topkOp) restore(key, value []byte) error {
	_, err := o.restoreRow(key, value)
	return err
}

// restoreRow is restore, returning the row's estimated bytes.
func (o *topkOp) restoreRow(key, value []byte) (int64, error) {
	r, err := repr.DecodeRow(value)
	if err != nil || len(r) != o.ncols+1 {
		return 0, errCorrupt
	}
	row := r[1:]
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.spec.Key)
	if o.keyed = len(key) > 0 && key[0] == tagKGroup; o.keyed {
		if !bytes.HasPrefix(key[1:], o.kbuf) {
			return 0, errCorrupt
		}
		key = key[1+len(o.kbuf):]
	}
	g := o.groups[string(o.kbuf)]
	if g == nil {
		g = &kgroup{}
		o.groups[string(o.kbuf)] = g
	}
	o.sbuf = appendSortKey(o.sbuf[:0], row, o.spec.Order)
	ord := len(o.sbuf)
	i, _, _ := o.search(nil, g, o.sbuf, nil, key)
	o.sbuf = repr.AppendRow(o.sbuf, row)
	kr := &krow{data: slices.Clone(o.sbuf), ord: int32(ord), n: r[0].Int()}
	g.rows = slices.Insert(g.rows, i, kr)
	return krowCost(kr), nil
}

func (o *topkOp) restored() error { return nil }
