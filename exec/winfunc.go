package exec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// windowOp is the Window operator: it outputs every input row followed by
// the values of its window functions at the row's position in its
// partition (the Key columns), ordered by the sort columns and then by the
// whole row (so the order is total: copies of a row are adjacent).
//
// On a batch it applies the net change of each distinct row to its
// partition (inserting or removing copies: a removed copy is retracted
// with the values it was emitted with), then recomputes, per touched
// partition, only the positions whose values may have changed, and emits
// a retraction and an insertion for each row whose values did change. For
// a change at positions [a, b) (the changed row's copies after the batch;
// a == b if it left) and its peer group [pa, pb) (rows with its sort key),
// a function whose value at position j reads the positions j+s .. j+e is
// recomputed over [a-e, b-s) (see wreach): lag(k) over [a, b+k), lead(k)
// over [a-k, b), a ROWS frame of p PRECEDING and f FOLLOWING over
// [a-f, b+p), a frame starting UNBOUNDED PRECEDING (running aggregates,
// row_number, rank, dense_rank) from a to the partition's end, a RANGE
// bound at CURRENT ROW widened to the peer group, and percent_rank,
// cume_dist, ntile and frames ending UNBOUNDED FOLLOWING from the
// partition's start. Frames that count values or peer groups reach by
// those instead (winbound.go): a RANGE frame with offsets from the first
// row whose frame end admits the changed value to the last whose start
// does (binary searches), a GROUPS frame the groups within its offsets
// of the changed group, and lag or lead with an offset column the
// largest offset the partition has seen. Exclusion only removes rows
// from a frame, so it reaches no further. Rows before a keep their
// positions and the rows after b keep their neighbours, so nothing else
// can change: the work of a batch is proportional to the recomputed
// positions, never the whole partition for lag, lead and bounded frames.
// Positions are recomputed in
// order, continuing from the position before each recomputed range (its
// values are current): dense_rank adds one to its predecessor's, and a
// running aggregate (frame start UNBOUNDED PRECEDING) keeps as its slots
// the accumulator of its frame (expr.AccClass.Append), which the next
// position extends with the rows its frame adds. Sliding frames evaluate
// with an accumulator that also retracts the rows leaving the frame (each
// of up to three pieces when EXCLUDE splits it), and min/max with a
// monotonic deque per piece, so each position costs O(1) amortized.
//
// State: per partition, every live row in order, one entry per copy
// (72 bytes plus the row, its sort key and its slots: one datum per
// function, Class.Width()+1 for a running sum or avg). Size: O(live input
// rows × functions). Positions are kept in chunks of at most 512 entries
// (wseq), so a change moves at most a chunk. Logged as part-key ++
// sort-key ++ row-key ++ copy-index -> row(columns..., slots...), one key
// per copy whose slots changed.
type windowOp struct {
	spec   dataflow.Window
	funcs  []wfunc
	ncols  int
	width  int
	peers  bool
	parts  map[string]*wpart
	record []wundo
	// touched lists the partitions of the pending Step.
	touched []*wpart
	spans   []wspan
	states  []wstate
	kbuf    []byte
	vbuf    []byte
	pbuf    []byte // scratch of ensurePart
	scratch repr.Row

	// sp is the spilled state (winfunc_spill.go); nil while in memory.
	sp *residency
	// pg pages the one partition of a spilled Window without PARTITION
	// BY (winpage.go); nil while in memory. restoring is set from the
	// first restored copy to restored, and pageErr is an error of paging
	// in the middle of a restore, which restored returns.
	pg        *wpager
	restoring bool
	pageErr   error
}

// wpart is one partition: its key and positions, and the rows the
// pending Step changed (their sort keys and rows).
type wpart struct {
	key     string
	seq     wseq
	changed []went
	stamp   uint64
	// maxN is, per function with an offset column (lag, lead), the
	// largest absolute offset of a row ever inserted: a bound on how far
	// its rows read (it never shrinks; a restart recomputes it).
	maxN []int64
}

// wundo is one change of the pending Step: an insertion of n copies at
// pos, the removal of e from pos, e's old slots out at pos (set), or a
// partition added to or dropped from the map.
type wundo struct {
	p    *wpart
	kind uint8
	pos  int
	n    int
	e    went
	out  []repr.Datum
}

const (
	undoInsert uint8 = iota
	undoRemove
	undoSet
	undoAddPart
	undoDropPart
)

// wspan is a range [lo, hi) of positions to recompute.
type wspan struct{ lo, hi int }

// wfunc is one compiled window function: its slots are
// out[slot:slot+width].
type wfunc struct {
	expr.WinFunc
	slot, width int
	reach       wreach
	// rng is set for a RANGE frame with offsets.
	rng *wrange
	// running marks an aggregate whose frame starts at UNBOUNDED
	// PRECEDING: its slots carry its accumulator (sum, avg: accWidth
	// datums of call.Class.Append, then the largest display scale).
	running  bool
	accWidth int
	call     expr.AggCall
	scales   bool
	// scan marks an aggregate computed from its frame's rows at each
	// position (expr.IsFrameScanAgg): O(frame) per position.
	scan bool
}

// wreach is the positions a function reads relative to the current one,
// j+s .. j+e (inf: unbounded), widened by the peer group of the current
// row at the start (peersFwd: a RANGE frame starting at CURRENT ROW) or
// the end (peersBack: ending at CURRENT ROW); whole means the function
// depends on the partition's size; values and groups mean a RANGE frame
// with offsets or a GROUPS frame (see rangeReach, groupsReach); perRow
// means lag or lead with an offset column, whose reach is the largest
// offset seen in the partition (wpart.maxN).
type wreach struct {
	s, e                int64
	peersFwd, peersBack bool
	whole               bool
	values, groups      bool
	perRow              bool
}

const inf = int64(1) << 60

func newWindow(spec dataflow.Window, in []repr.T) (*windowOp, error) {
	if err := checkCols(spec.Key, len(in)); err != nil {
		return nil, err
	}
	for _, c := range spec.Order {
		if err := checkCols([]int{c.Col}, len(in)); err != nil {
			return nil, err
		}
	}
	o := &windowOp{spec: spec, ncols: len(in), parts: map[string]*wpart{}}
	for _, f := range spec.Funcs {
		wf, err := o.compile(f, in)
		if err != nil {
			return nil, err
		}
		o.funcs = append(o.funcs, wf)
	}
	return o, nil
}

// compile checks f and lays out its slots.
func (o *windowOp) compile(f expr.WinFunc, in []repr.T) (wfunc, error) {
	if err := checkCols(f.Cols(), len(in)); err != nil {
		return wfunc{}, err
	}
	if why := f.Frame.Valid(); why != "" {
		return wfunc{}, fmt.Errorf("window function %s: %s", f, why)
	}
	wf := wfunc{WinFunc: f, slot: o.width, width: 1, reach: reachOf(f)}
	if f.Kind.UsesFrame() && f.Frame.RangeOffsets() {
		rng, err := o.rangeOf(f, in)
		if err != nil {
			return wfunc{}, err
		}
		wf.rng = rng
	}
	if f.NCol >= 0 && in[f.NCol].Family != repr.FamInt {
		return wfunc{}, fmt.Errorf("window function %s: argument #%d is not an integer", f, f.NCol)
	}
	switch f.Kind {
	case expr.WinRank, expr.WinPercentRank, expr.WinCumeDist:
		o.peers = true
	case expr.WinAgg:
		if !expr.IsWindowAgg(f.Agg) {
			return wfunc{}, fmt.Errorf("window aggregate %s is not supported", f.Agg)
		}
		var arg repr.T
		if f.Agg != expr.AggCountStar {
			arg = in[f.Col]
			if _, ok := f.Agg.Type(arg); !ok {
				return wfunc{}, fmt.Errorf("%s(%s) is not supported", f.Agg, arg.Name())
			}
		}
		wf.call = expr.AggCall{Kind: f.Agg, Arg: arg, T: f.T, Class: f.Agg.Def().Class(arg)}
		wf.scan = expr.IsFrameScanAgg(f.Agg)
		wf.scales = expr.NeedsScales(wf.call.Class, arg) && !wf.scan
		wf.running = f.Frame.Start.Kind == expr.UnboundedPreceding && f.Frame.Exclude == expr.ExcludeNoOthers && !wf.scan
		if wf.running && f.Agg != expr.AggMin && f.Agg != expr.AggMax {
			wf.accWidth = wf.call.Class.Width()
			wf.width = wf.accWidth + int(b2i(wf.scales))
		}
	}
	if f.Kind.UsesFrame() && (!f.Frame.Rows() || f.Frame.Exclude > expr.ExcludeCurrentRow) {
		o.peers = true
	}
	o.width += wf.width
	return wf, nil
}

// rangeOf checks a RANGE frame with offsets (one ORDER BY column of a
// type with in_range, offsets of its offset type) and returns what
// evaluating it needs.
func (o *windowOp) rangeOf(f expr.WinFunc, in []repr.T) (*wrange, error) {
	if len(o.spec.Order) != 1 {
		return nil, fmt.Errorf("window function %s: RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column", f)
	}
	oc := o.spec.Order[0]
	r := &wrange{col: oc.Col, t: in[oc.Col], desc: oc.Desc}
	fam, ok := rangeOffsetType(r.t)
	for _, b := range []expr.FrameBound{f.Frame.Start, f.Frame.End} {
		if b.HasOffset() && (!ok || b.Value.Family() != fam) {
			return nil, fmt.Errorf("window function %s: RANGE offset %s for ORDER BY type %s", f, b, r.t.Name())
		}
	}
	if f.Frame.Start.HasOffset() {
		r.startBad = badRangeOffset(r.t, f.Frame.Start.Value)
	}
	if f.Frame.End.HasOffset() {
		r.endBad = badRangeOffset(r.t, f.Frame.End.Value)
	}
	return r, nil
}

// reachOf returns the positions f's value at a position reads.
func reachOf(f expr.WinFunc) wreach {
	switch f.Kind {
	case expr.WinRowNumber, expr.WinRank, expr.WinDenseRank:
		return wreach{s: -inf, e: 0}
	case expr.WinPercentRank, expr.WinCumeDist, expr.WinNtile:
		return wreach{whole: true}
	case expr.WinLag, expr.WinLead:
		if f.NCol >= 0 {
			return wreach{perRow: true}
		}
		if f.Kind == expr.WinLag {
			return wreach{s: -f.N, e: -f.N}
		}
		return wreach{s: f.N, e: f.N}
	}
	var r wreach
	fr := f.Frame
	switch {
	case fr.RangeOffsets():
		return wreach{values: true}
	case fr.Mode == expr.GroupsMode:
		return wreach{groups: true}
	}
	switch st := fr.Start; st.Kind {
	case expr.UnboundedPreceding:
		r.s = -inf
	case expr.Preceding:
		r.s = -st.Offset
	case expr.Following:
		r.s = st.Offset
	case expr.CurrentRow:
		r.peersFwd = !fr.Rows()
	}
	switch en := fr.End; en.Kind {
	case expr.UnboundedFollowing:
		r.e = inf
	case expr.Preceding:
		r.e = -en.Offset
	case expr.Following:
		r.e = en.Offset
	case expr.CurrentRow:
		r.peersBack = !fr.Rows()
	}
	return r
}

func (o *windowOp) step(s *stepCtx, ins [][]repr.Update) (out []repr.Update, err error) {
	if o.pg != nil {
		defer func() {
			if r := recover(); r != nil {
				le, ok := r.(wloadErr)
				if !ok {
					panic(r)
				}
				out, err = nil, fmt.Errorf("window: loading a chunk: %w", le.err)
			}
		}()
	}
	for i := range o.funcs {
		if r := o.funcs[i].rng; r != nil {
			r.ctx, r.firstErr = s.ctx, nil
		}
	}
	for _, u := range Consolidate(ins[0]) {
		if out, err = o.apply(s, u, out); err != nil {
			return nil, err
		}
	}
	for _, p := range o.touched {
		if out, err = o.recompute(s, p, out); err != nil {
			return nil, err
		}
		if p.seq.n == 0 {
			delete(o.parts, p.key)
			o.record = append(o.record, wundo{p: p, kind: undoDropPart})
		}
	}
	return out, nil
}

// part finds or creates row's partition, recording it as touched; in a
// spilled Window it first makes the partition resident.
func (o *windowOp) part(s *stepCtx, row repr.Row) (*wpart, error) {
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.spec.Key)
	if o.sp != nil {
		if err := o.ensurePart(o.kbuf); err != nil {
			return nil, err
		}
		o.kbuf = append(o.kbuf[:0], o.pbuf...)
	}
	p := o.parts[string(o.kbuf)]
	if p == nil {
		p = &wpart{key: string(o.kbuf), seq: wseq{pg: o.pg}}
		o.parts[p.key] = p
		o.record = append(o.record, wundo{p: p, kind: undoAddPart})
	}
	if p.stamp != s.epoch {
		p.stamp = s.epoch
		o.touched = append(o.touched, p)
	}
	return p, nil
}

// apply adds u's net change to its partition: u.Diff copies inserted
// after the row's existing copies, or removed from the last one back
// (each retracted with its values and its log key deleted).
func (o *windowOp) apply(s *stepCtx, u repr.Update, out []repr.Update) ([]repr.Update, error) {
	p, err := o.part(s, u.Row)
	if err != nil {
		return nil, err
	}
	sk := appendSortKey(nil, u.Row, o.spec.Order)
	p.changed = append(p.changed, went{row: u.Row, sk: sk})
	if u.Diff > 0 {
		if o.sp != nil { // o.pbuf still holds the partition key
			o.sp.grew(o.pbuf, u.Diff*o.entryCost(len(p.key)+2*len(sk)))
		}
		o.noteN(p, u.Row)
		pos := p.seq.search(sk, u.Row, true)
		for k := range u.Diff {
			p.seq.insert(pos+int(k), went{row: u.Row, sk: sk})
		}
		o.record = append(o.record, wundo{p: p, kind: undoInsert, pos: pos, n: int(u.Diff)})
		return out, nil
	}
	lo, hi := p.seq.search(sk, u.Row, false), p.seq.search(sk, u.Row, true)
	if int64(hi-lo) < -u.Diff {
		return nil, fmt.Errorf("internal error: window: retraction of %d copies of a row with %d", -u.Diff, hi-lo)
	}
	for pos := hi - 1; pos >= hi+int(u.Diff); pos-- {
		e := p.seq.remove(pos)
		o.record = append(o.record, wundo{p: p, kind: undoRemove, pos: pos, e: e})
		out = append(out, repr.Update{Row: o.outRow(s, e.row, o.results(e.out)), Time: s.t, Diff: -1})
		s.log.del(o.logKey(s, p, &e, pos-lo))
	}
	return out, nil
}

// recompute recomputes the positions of p that the Step's changes may
// have changed (see windowOp) and emits the rows whose values changed.
func (o *windowOp) recompute(s *stepCtx, p *wpart, out []repr.Update) ([]repr.Update, error) {
	o.spans = o.spans[:0]
	for i := range p.changed {
		c := &p.changed[i]
		a, b := p.seq.search(c.sk, c.row, false), p.seq.search(c.sk, c.row, true)
		pa, pb := -1, -1
		for fi := range o.funcs {
			lo, hi := o.reachSpan(p, fi, c, a, b, &pa, &pb)
			lo, hi = min(lo, a), max(hi, b)
			if lo < hi {
				o.spans = append(o.spans, wspan{lo, hi})
			}
		}
		for fi := range o.funcs {
			if err := o.funcs[fi].takeErr(); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(o.spans, func(x, y wspan) int { return cmp.Compare(x.lo, y.lo) })
	for i := 0; i < len(o.spans); {
		sp := o.spans[i]
		for i++; i < len(o.spans) && o.spans[i].lo <= sp.hi; i++ {
			sp.hi = max(sp.hi, o.spans[i].hi)
		}
		var err error
		if out, err = o.eval(s, p, sp.lo, sp.hi, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// reachSpan returns the positions [lo, hi) of p whose values of function
// fi a change of entry c (now at [a, b)) may change; pa and pb cache the
// peers of c's sort key (-1: not yet searched).
func (o *windowOp) reachSpan(p *wpart, fi int, c *went, a, b int, pa, pb *int) (int, int) {
	f := &o.funcs[fi]
	r, n := f.reach, p.seq.n
	switch {
	case r.whole:
		return 0, n
	case r.values:
		return f.rangeReach(&p.seq, c)
	case r.groups:
		return f.groupsReach(&p.seq, c.sk)
	case r.perRow:
		m := p.maxN[fi]
		return shift(a, -m, n), shift(b, m, n)
	}
	lo, hi := shift(a, -max(r.e, 0), n), shift(b, max(-r.s, 0), n)
	if r.peersBack || r.peersFwd {
		if *pa < 0 {
			*pa, *pb = p.seq.search(c.sk, nil, false), p.seq.search(c.sk, nil, true)
		}
		if r.peersBack {
			lo = min(lo, *pa)
		}
		if r.peersFwd {
			hi = max(hi, *pb)
		}
	}
	return lo, hi
}

// noteN records, in p.maxN, the offsets of row read from columns.
func (o *windowOp) noteN(p *wpart, row repr.Row) {
	for fi := range o.funcs {
		f := &o.funcs[fi]
		if !f.reach.perRow {
			continue
		}
		if p.maxN == nil {
			p.maxN = make([]int64, len(o.funcs))
		}
		if v := row[f.NCol]; !v.IsNull() {
			p.maxN[fi] = max(p.maxN[fi], v.Int(), -v.Int())
		}
	}
}

// shift returns pos+d clamped to [0, n].
func shift(pos int, d int64, n int) int {
	return int(min(max(int64(pos)+d, 0), int64(n)))
}

// outRow returns a fresh output row: row followed by vals.
func (o *windowOp) outRow(s *stepCtx, row repr.Row, vals []repr.Datum) repr.Row {
	return s.slab.concat(row, vals)
}

// results returns the function values of the slots out (in o.scratch,
// valid until the next call).
func (o *windowOp) results(out []repr.Datum) []repr.Datum {
	o.scratch = o.scratch[:0]
	for i := range o.funcs {
		o.scratch = append(o.scratch, o.funcs[i].result(out))
	}
	return o.scratch
}

// result returns f's value from its slots.
func (f *wfunc) result(out []repr.Datum) repr.Datum {
	sl := out[f.slot : f.slot+f.width]
	if f.accWidth == 0 {
		return sl[0]
	}
	ac := f.call.Class.Decode(sl[:f.accWidth])
	call := f.call
	if f.scales {
		call.Scale = int32(sl[f.accWidth].Int())
	}
	d, err := f.call.Kind.Def().Final(&call, &ac, nil)
	if err != nil {
		panic(err) // the value was computed once already, without error
	}
	return d
}

// logKey returns the log key of e, copy number idx of its row in p.
func (o *windowOp) logKey(s *stepCtx, p *wpart, e *went, idx int) []byte {
	o.kbuf = append(append(append(o.kbuf[:0], s.prefix...), p.key...), e.sk...)
	o.kbuf = repr.AppendRowKey(o.kbuf, e.row)
	return repr.AppendKey(o.kbuf, repr.NewInt(int64(idx)))
}

// logSet logs e's row and slots.
func (o *windowOp) logSet(s *stepCtx, p *wpart, e *went, idx int) {
	if s.log.off {
		return
	}
	k := o.logKey(s, p, e, idx)
	r := append(append(o.scratch[:0], e.row...), e.out...)
	o.vbuf = repr.AppendRow(o.vbuf[:0], r)
	o.scratch = r[:0]
	s.log.set(k, o.vbuf)
}

func (o *windowOp) commit() {
	clear(o.record)
	o.record = o.record[:0]
	for _, p := range o.touched {
		clear(p.changed)
		p.changed = p.changed[:0]
	}
	clear(o.touched)
	o.touched = o.touched[:0]
	if o.sp != nil {
		o.sp.trim(o)
	}
	if o.pg != nil {
		o.pg.trim(o.pagedSeq())
	}
}

func (o *windowOp) rollback() {
	for i := len(o.record) - 1; i >= 0; i-- {
		u := &o.record[i]
		switch u.kind {
		case undoInsert:
			for range u.n {
				u.p.seq.remove(u.pos)
			}
		case undoRemove:
			u.p.seq.insert(u.pos, u.e)
		case undoSet:
			u.p.seq.at(u.pos).out = u.out
		case undoAddPart:
			delete(o.parts, u.p.key)
		case undoDropPart:
			o.parts[u.p.key] = u.p
		}
	}
	o.commit()
}

// restore loads one logged copy: it goes after the copies of its row
// already restored, which precede it in key order.
func (o *windowOp) restore(key, value []byte) error {
	e, err := o.decodeEnt(value)
	if err != nil {
		return err
	}
	o.restoring = true
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], e.row, o.spec.Key)
	p := o.parts[string(o.kbuf)]
	if p == nil {
		p = &wpart{key: string(o.kbuf)}
		o.parts[p.key] = p
	}
	p.seq.insert(p.seq.search(e.sk, e.row, true), e)
	o.noteN(p, e.row)
	return nil
}

func (o *windowOp) restored() error {
	o.restoring = false
	return o.pageErr
}

// debug prints each partition (in key order) as its rows with their
// function values.
func (o *windowOp) debug() []string {
	keys := make([]string, 0, len(o.parts))
	for k := range o.parts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var lines []string
	for _, k := range keys {
		p := o.parts[k]
		var rows []string
		cur := newCur(&p.seq)
		for j := range p.seq.n {
			e := cur.at(j)
			rows = append(rows, dataflow.FormatRow(e.row)+" "+dataflow.FormatRow(o.results(e.out)))
		}
		lines = append(lines, "partition "+strings.Join(rows, ", "))
	}
	return lines
}

// errNtile and errNthValue are PostgreSQL's errors for a bucket count or
// position that is not positive.
var (
	errNtile    = repr.Errorf("22014", "argument of ntile must be greater than zero")
	errNthValue = repr.Errorf("22016", "argument of nth_value must be greater than zero")
)

// ntile returns the 1-based bucket of position j among n positions split
// into k buckets, the first n%k of them one larger (PostgreSQL's).
func ntile(j, n, k int64) int64 {
	q, r := n/k, n%k
	if big := r * (q + 1); j < big {
		return j/(q+1) + 1
	} else {
		return (j-big)/q + r + 1
	}
}

// percent is a/b as a float, 0 when b is 0.
func percent(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
