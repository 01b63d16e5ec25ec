package exec

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// sessionOp is the SessionWindow operator: it appends to each input row
// the bounds [window_start, window_end) of the session the row belongs to.
// Sessions are formed per group (the Key columns): two rows of a group
// whose times t1 <= t2 satisfy t2 - t1 < gap are in one session, and
// sessions are the transitive closure of that relation. A session whose
// rows have times first..last is [first, last + gap) — the union of the
// rows' windows [t, t + gap), as in Flink and RisingWave.
//
// On a batch it recomputes, per touched group, only the sessions near the
// updated times ("dirty" below). An old dirty session that no longer exists
// with the same bounds is retracted row by row; a new one that did not
// exist is inserted row by row; a session with the same bounds before and
// after holds the same rows except the updated ones, so it emits just the
// updates that fall in it, with its bounds. Why that is enough: let
// T be the times updated in a group. A session of the old state none of
// whose rows lies in (t - gap, t + gap) for any t in T is also a session
// of the new state: no row inside its span changed, no new row is closer
// than gap to it, and its neighbours stay at least gap away (removing rows
// never brings rows closer). Symmetrically for new sessions. So the
// changed ("dirty") sessions are exactly those with a row within gap of an
// updated time, before and after the update. A row joining a session
// re-emits the whole session (its window_end or window_start moves), which
// is inherent in giving every row its session's bounds: a session of n
// rows costs O(n) per extending row.
//
// On a frontier nothing is emitted; with a watermark wm on the time column
// (the Step's, after its updates) every session with window_end <= wm is
// closed: its rows are freed and their deletion logged.
//
// Watermarks of the output (derived in watermark.go): the key columns keep
// their input watermarks, window_end gets the time column's watermark wm,
// every other column gets none. Proof for window_end: an update in a later
// Step has time t >= wm (earlier ones are late, dropped at the source). It
// only touches dirty sessions, each of which has a row s with
// s > t - gap >= wm - gap, before or after the update; so its last row is
// > wm - gap and its window_end = last + gap > wm. The same argument shows
// closing is safe: a session with window_end <= wm has every row at or
// below wm - gap, so it can never be dirty again (and its rows can never be
// deleted: a deletion is an update at its own time < wm, which is late).
// window_start has no watermark: a session may be arbitrarily long, so
// extending it late re-emits an old window_start (gap 5s, rows every 4s
// from 0 to 100 with wm = 100: a row at 103 retracts and re-inserts the
// session [0, 105) as [0, 108)); for the same reason the input's time and
// other columns lose theirs. A downstream Reduce grouped by key,
// window_start and window_end thus closes a session's group once the
// watermark passes its window_end (windowReduce), in the same Step in which
// this operator frees its rows.
//
// State: per group, every live row with its count, sorted by (time, row);
// O(live rows), bounded by the rows of open sessions when the time column
// has a watermark. Rows with a NULL time are dropped (they belong to no
// session). Logged as group-key ++ time-key ++ row-key -> row(count,
// columns...). Spilled, only the groups a Step reads stay in memory, with
// the close index (session_spill.go).
type sessionOp struct {
	spec dataflow.SessionWindow
	// tt is the time column's type (of window_start and window_end too).
	tt      repr.T
	groups  map[string]*sgroup
	touched []sgroupUndo
	// idx files group keys under the window_end of their first session
	// (keys, not groups, so that it holds no rows when spilled).
	idx closeIndex[string]
	// sp is the residency of a spilled SessionWindow (nil: in memory;
	// session_spill.go); pbuf is scratch for its keys.
	sp   *residency
	pbuf []byte
	// ks is the spilled state of a SessionWindow without Key columns
	// (nil: in memory; session_kspill.go); kerr an error of spilling it
	// in the middle of a restore, which restored returns.
	ks   *kspill
	kerr error
	// dirty are the groups with updates in the current Step.
	dirty []*sgroup
	// oldS and newS are scratch space for update.
	oldS, newS []sbounds
	kbuf, vbuf []byte
	scratch    repr.Row
	// owns, when set (a shard of a sharded node: shard_keys.go), tells
	// which group keys are this shard's, for rebuilding the close index
	// from a store that holds every shard's groups.
	owns func(key []byte) bool
}

// sgroup is the live rows of one group, sorted by (ts, rk).
type sgroup struct {
	key  string
	ents []sentry
	// old is ents as of the start of the Step that last touched g (kept
	// until Commit or Rollback).
	old   []sentry
	pend  []repr.Update
	stamp uint64
	in    bool
}

// sentry is one distinct live row with its time and count (never 0).
type sentry struct {
	ts  int64
	rk  string
	row repr.Row
	n   int64
}

// sgroupUndo is a group's rows before the pending Step.
type sgroupUndo struct {
	g       *sgroup
	old     []sentry
	existed bool
}

// srange is the index range [lo, hi) of a group's rows.
type srange struct{ lo, hi int }

// sbounds is one session: the index range [lo, hi) of its rows and its
// window [start, end) in microseconds.
type sbounds struct {
	lo, hi     int
	start, end int64
}

func newSession(op dataflow.SessionWindow, in []repr.T) (*sessionOp, error) {
	if op.TimeCol < 0 || op.TimeCol >= len(in) {
		return nil, fmt.Errorf("time column #%d out of range", op.TimeCol)
	}
	if f := in[op.TimeCol].Family; f != repr.FamTimestamp && f != repr.FamTimestampTZ {
		return nil, fmt.Errorf("time column #%d is %s, not a timestamp", op.TimeCol, in[op.TimeCol].Name())
	}
	if op.Gap <= 0 {
		return nil, fmt.Errorf("session gap %d must be positive", op.Gap)
	}
	for _, c := range op.Key {
		if c < 0 || c >= len(in) {
			return nil, fmt.Errorf("key column #%d out of range", c)
		}
	}
	return &sessionOp{spec: op, tt: in[op.TimeCol], groups: map[string]*sgroup{}}, nil
}

func (o *sessionOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	o.dirty = o.dirty[:0]
	wm := int64(NoWatermark)
	if s.inWM != nil {
		if w := s.inWM[0][o.spec.TimeCol]; w != NoWatermark && w < math.MaxInt64 {
			wm = w
		}
	}
	if o.ks != nil {
		if err := o.kload(ins[0], wm); err != nil {
			return nil, err
		}
	}
	for _, u := range ins[0] {
		if u.Row[o.spec.TimeCol].IsNull() {
			continue
		}
		o.kbuf = repr.AppendColsKey(o.kbuf[:0], u.Row, o.spec.Key)
		if err := o.ensureGroup(o.kbuf); err != nil {
			return nil, err
		}
		g := o.groups[string(o.pbuf)]
		if g == nil {
			g = &sgroup{key: string(o.pbuf), in: true}
			o.groups[g.key] = g
		}
		o.touch(s, g)
		if o.sp != nil && u.Diff > 0 { // o.pbuf still holds the group key
			o.sp.grew(o.pbuf, sentryCost(len(o.pbuf), u.Row))
		}
		if len(g.pend) == 0 {
			o.dirty = append(o.dirty, g)
		}
		g.pend = append(g.pend, u)
	}
	var out []repr.Update
	for _, g := range o.dirty {
		out = o.update(s, g, out)
	}
	clear(o.dirty) // keep no group past the Step (a spill drops them)
	switch g := o.groups[""]; {
	case wm == NoWatermark:
	case o.ks != nil && g != nil:
		o.close(s, g, wm)
	case o.ks == nil:
		var err error
		o.idx.popBelow(wm+1, func(k string) {
			if err == nil {
				err = o.closeKey(s, k, wm)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	o.logTouched(s)
	return out, nil
}

// touch records g's rows before the Step, once per Step.
func (o *sessionOp) touch(s *stepCtx, g *sgroup) {
	if g.stamp == s.epoch {
		return
	}
	existed := len(g.ents) > 0
	g.stamp = s.epoch
	g.old = slices.Clone(g.ents)
	o.touched = append(o.touched, sgroupUndo{g: g, old: g.old, existed: existed})
}

// update applies g's pending updates: it retracts the rows of the dirty
// sessions with their old bounds, applies the updates, and inserts the rows
// of the dirty sessions of the new state with their new bounds.
func (o *sessionOp) update(s *stepCtx, g *sgroup, out []repr.Update) []repr.Update {
	times := make([]int64, 0, len(g.pend))
	for _, u := range g.pend {
		times = append(times, u.Row[o.spec.TimeCol].Micros())
	}
	slices.Sort(times)
	times = slices.Compact(times)
	oldS := o.sessions(g.old, o.dirtyRanges(g.old, times), o.oldS[:0])
	for _, u := range g.pend {
		g.apply(u, u.Row[o.spec.TimeCol].Micros(), &o.kbuf)
	}
	newS := o.sessions(g.ents, o.dirtyRanges(g.ents, times), o.newS[:0])
	if o.ks != nil {
		o.kchanged(oldS, g.ents, newS)
	}
	for _, os := range oldS {
		if !hasBounds(newS, os) {
			out = o.emit(s, g.old[os.lo:os.hi], os, -1, out)
		}
	}
	for _, ns := range newS {
		if !hasBounds(oldS, ns) {
			out = o.emit(s, g.ents[ns.lo:ns.hi], ns, 1, out)
			continue
		}
		for _, u := range g.pend {
			if ts := u.Row[o.spec.TimeCol].Micros(); ts >= ns.start && ts <= g.ents[ns.hi-1].ts {
				out = append(out, repr.Update{Row: o.extend(s, u.Row, ns), Time: s.t, Diff: u.Diff})
			}
		}
	}
	o.oldS, o.newS = oldS, newS
	clear(g.pend)
	g.pend = g.pend[:0]
	if len(g.ents) == 0 {
		delete(o.groups, g.key)
		g.in = false
		return out
	}
	o.index(g)
	return out
}

// apply adds u (whose time is ts) to g's rows, keeping them sorted.
func (g *sgroup) apply(u repr.Update, ts int64, buf *[]byte) {
	*buf = repr.AppendRowKey((*buf)[:0], u.Row)
	i, found := slices.BinarySearchFunc(g.ents, sentry{ts: ts, rk: string(*buf)}, cmpEntry)
	switch {
	case !found:
		g.ents = slices.Insert(g.ents, i, sentry{ts: ts, rk: string(*buf), row: u.Row, n: u.Diff})
	case g.ents[i].n+u.Diff == 0:
		g.ents = slices.Delete(g.ents, i, i+1)
	default:
		g.ents[i].n += u.Diff
	}
}

// cmpEntry orders rows by time, then by row key.
func cmpEntry(a, b sentry) int {
	if c := cmp.Compare(a.ts, b.ts); c != 0 {
		return c
	}
	return strings.Compare(a.rk, b.rk)
}

// dirtyRanges returns, in order, the index ranges of the sessions of ents
// (sorted by time) that have a row within gap of one of times (sorted):
// ts in (t - gap, t + gap).
func (o *sessionOp) dirtyRanges(ents []sentry, times []int64) []srange {
	gap := o.spec.Gap
	var out []srange
	for _, t := range times {
		lo, _ := slices.BinarySearchFunc(ents, satAdd(t, -gap)+1, func(e sentry, v int64) int { return cmp.Compare(e.ts, v) })
		hi, _ := slices.BinarySearchFunc(ents, satAdd(t, gap), func(e sentry, v int64) int { return cmp.Compare(e.ts, v) })
		if lo >= hi {
			continue
		}
		r := o.sessionAround(ents, lo, hi)
		if n := len(out); n > 0 && r.lo < out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// sessionAround widens [lo, hi) to whole sessions.
func (o *sessionOp) sessionAround(ents []sentry, lo, hi int) srange {
	for lo > 0 && ents[lo].ts-ents[lo-1].ts < o.spec.Gap {
		lo--
	}
	for hi < len(ents) && ents[hi].ts-ents[hi-1].ts < o.spec.Gap {
		hi++
	}
	return srange{lo, hi}
}

// sessionEnd returns the end index of the session starting at index lo.
func (o *sessionOp) sessionEnd(ents []sentry, lo int) int {
	hi := lo + 1
	for hi < len(ents) && ents[hi].ts-ents[hi-1].ts < o.spec.Gap {
		hi++
	}
	return hi
}

// emit appends, for every row of the sessions in ranges, the row with its
// session's bounds and diff sign * count.
func (o *sessionOp) emit(s *stepCtx, ents []sentry, b sbounds, sign int64, out []repr.Update) []repr.Update {
	for _, e := range ents {
		out = append(out, repr.Update{Row: o.extend(s, e.row, b), Time: s.t, Diff: sign * e.n})
	}
	return out
}

// extend returns row followed by the session bounds b.
func (o *sessionOp) extend(s *stepCtx, row repr.Row, b sbounds) repr.Row {
	out := s.slab.row(len(row) + 2)
	copy(out, row)
	out[len(row)], out[len(row)+1] = wmDatum(o.tt, b.start), wmDatum(o.tt, b.end)
	return out
}

// sessions appends to out the sessions of ents within ranges.
func (o *sessionOp) sessions(ents []sentry, ranges []srange, out []sbounds) []sbounds {
	for _, r := range ranges {
		for lo := r.lo; lo < r.hi; {
			hi := o.sessionEnd(ents, lo)
			out = append(out, sbounds{lo: lo, hi: hi, start: ents[lo].ts, end: satAdd(ents[hi-1].ts, o.spec.Gap)})
			lo = hi
		}
	}
	return out
}

// hasBounds reports whether ss has a session with b's bounds.
func hasBounds(ss []sbounds, b sbounds) bool {
	for _, x := range ss {
		if x.start == b.start && x.end == b.end {
			return true
		}
	}
	return false
}

// index files g under the window_end of its first session, the least
// watermark that closes any of its sessions.
func (o *sessionOp) index(g *sgroup) {
	if o.ks == nil && len(g.ents) > 0 {
		hi := o.sessionEnd(g.ents, 0)
		o.idx.add(satAdd(g.ents[hi-1].ts, o.spec.Gap), g.key)
	}
}

// closeKey closes the group of key k (if it still lives), making it
// resident first in a spilled SessionWindow.
func (o *sessionOp) closeKey(s *stepCtx, k string, wm int64) error {
	o.kbuf = append(o.kbuf[:0], k...)
	if err := o.ensureGroup(o.kbuf); err != nil {
		return err
	}
	if g := o.groups[k]; g != nil {
		o.close(s, g, wm)
	}
	return nil
}

// close frees g's sessions whose window_end is at or below wm (a prefix
// of its rows) and files g under its next session's end.
func (o *sessionOp) close(s *stepCtx, g *sgroup, wm int64) {
	if !g.in {
		return
	}
	n := 0
	for n < len(g.ents) {
		hi := o.sessionEnd(g.ents, n)
		if satAdd(g.ents[hi-1].ts, o.spec.Gap) > wm {
			break
		}
		n = hi
	}
	if n == 0 {
		return
	}
	o.touch(s, g)
	if o.ks != nil {
		o.kclosed(g.ents[:n])
	}
	g.ents = slices.Clone(g.ents[n:])
	if len(g.ents) == 0 {
		delete(o.groups, g.key)
		g.in = false
		return
	}
	o.index(g)
}

// logTouched logs the rows of each touched group that changed in the Step.
func (o *sessionOp) logTouched(s *stepCtx) {
	if s.log.off {
		return
	}
	for _, t := range o.touched {
		oldE, newE := t.old, t.g.ents
		for len(oldE) > 0 || len(newE) > 0 {
			c := 0
			switch {
			case len(oldE) == 0:
				c = 1
			case len(newE) == 0:
				c = -1
			default:
				c = cmpEntry(oldE[0], newE[0])
			}
			switch {
			case c < 0:
				s.log.del(o.stateKey(s, t.g, oldE[0]))
				oldE = oldE[1:]
			case c > 0:
				o.logEntry(s, t.g, newE[0])
				newE = newE[1:]
			default:
				if oldE[0].n != newE[0].n {
					o.logEntry(s, t.g, newE[0])
				}
				oldE, newE = oldE[1:], newE[1:]
			}
		}
	}
}

// stateKey is the logged key of row e of group g.
func (o *sessionOp) stateKey(s *stepCtx, g *sgroup, e sentry) []byte {
	o.kbuf = append(append(o.kbuf[:0], s.prefix...), g.key...)
	o.kbuf = repr.AppendKey(o.kbuf, wmDatum(o.tt, e.ts))
	return append(o.kbuf, e.rk...)
}

func (o *sessionOp) logEntry(s *stepCtx, g *sgroup, e sentry) {
	k := o.stateKey(s, g, e)
	o.scratch = append(append(o.scratch[:0], repr.NewInt(e.n)), e.row...)
	o.vbuf = repr.AppendRow(o.vbuf[:0], o.scratch)
	s.log.set(k, o.vbuf)
}

func (o *sessionOp) commit() {
	for _, t := range o.touched {
		t.g.old = nil
	}
	clear(o.touched) // the rows before the Step: a copy of each touched group
	o.touched = o.touched[:0]
	o.idx.commit()
	if o.ks != nil {
		o.kcommit()
	}
}

func (o *sessionOp) rollback() {
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		t.g.ents, t.g.pend, t.g.old = t.old, t.g.pend[:0], nil
		t.g.stamp = 0
		switch {
		case t.existed && !t.g.in:
			o.groups[t.g.key] = t.g
			t.g.in = true
		case !t.existed && t.g.in:
			delete(o.groups, t.g.key)
			t.g.in = false
		}
	}
	o.idx.rollback()
	clear(o.touched)
	o.touched = o.touched[:0]
	if o.ks != nil {
		clear(o.ks.pend)
		o.ks.pend = o.ks.pend[:0]
	}
}

func (o *sessionOp) restore(key, value []byte) error {
	e, err := o.decodeSentry(value)
	if err != nil {
		return err
	}
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], e.row, o.spec.Key)
	g := o.groups[string(o.kbuf)]
	if g == nil {
		g = &sgroup{key: string(o.kbuf), in: true}
		o.groups[g.key] = g
	}
	g.ents = append(g.ents, e)
	return nil
}

// restored sorts each group's rows and indexes the groups (the store's,
// if o spilled while restoring).
func (o *sessionOp) restored() error {
	if o.ks != nil || o.kerr != nil {
		return o.kerr
	}
	if o.sp != nil {
		return o.indexStored()
	}
	for _, g := range o.groups {
		slices.SortFunc(g.ents, cmpEntry)
		o.index(g)
	}
	return nil
}

// debug prints one line per session: its group, bounds and rows.
func (o *sessionOp) debug() []string {
	var lines []string
	for _, g := range o.groups {
		for lo := 0; lo < len(g.ents); {
			hi := o.sessionEnd(g.ents, lo)
			rows := make([]string, 0, hi-lo)
			for _, e := range g.ents[lo:hi] {
				rows = append(rows, fmt.Sprintf("%s x%d", dataflow.FormatRow(e.row), e.n))
			}
			lines = append(lines, fmt.Sprintf("session [%s, %s) rows=[%s]", wmDatum(o.tt, g.ents[lo].ts),
				wmDatum(o.tt, satAdd(g.ents[hi-1].ts, o.spec.Gap)), strings.Join(rows, ", ")))
			lo = hi
		}
	}
	return lines
}

// satAdd is a + b clamped to the int64 range.
func satAdd(a, b int64) int64 {
	c := a + b
	switch {
	case b > 0 && c < a:
		return math.MaxInt64
	case b < 0 && c > a:
		return math.MinInt64
	}
	return c
}

// deriveSession gives the key columns their input watermarks and
// window_end the time column's (see sessionOp for the proof); every other
// column gets none.
func deriveSession(op dataflow.SessionWindow, in, out []int64) {
	for _, c := range op.Key {
		out[c] = in[c]
	}
	out[len(in)+1] = in[op.TimeCol]
}

// sessionReport: a SessionWindow is bounded by a watermark on its time
// column, which closes sessions (reported as its window_end column).
func (d *Dataflow) sessionReport(i int, op dataflow.SessionWindow, r StateReport) StateReport {
	we := len(d.plan.Nodes[i].Types) - 1
	r.Col = we
	if !d.wm.off && d.wm.static[d.plan.Nodes[i].Inputs[0]][op.TimeCol] != NoWatermark {
		r.Bounded, r.Why = true, "sessions close when the watermark passes their window_end"
		return r
	}
	r.Col, r.Why = op.TimeCol, "no watermark on the time column"
	return r
}
