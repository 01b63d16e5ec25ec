package exec

import (
	"container/heap"
	"fmt"
	"math"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// temporalOp is the temporal filter (dataflow.TemporalFilter): it keeps
// each input row while lo <= now < hi, where [lo, hi) is the row's
// validity interval (the largest Lower bound, the smallest Upper bound)
// and now is the Step's wall-clock time (Input.Now). Since the bounds
// read only the row, the interval is fixed when the row arrives, so the
// operator only has to remember when each row's output changes next.
//
// On a Step it first advances now (now never goes back: a smaller
// Input.Now leaves it unchanged) and emits, at the Step's logical time,
// +n for every remembered row whose lo was reached and -n for every row
// whose hi was reached (nothing for a row whose whole interval passed
// between two Steps). Then it handles the Step's updates at the new now:
// an update of a row valid now passes through (so a deletion of a row that
// is in the output leaves it immediately), and the multiplicity of a row
// with a transition ahead is adjusted (a deletion cancels the row's
// pending insertion or expiry). Rows whose interval is empty or already
// over are dropped. Correct under retractions: the output at every Step is
// exactly the input multiset restricted to the rows valid at that now.
//
// State: each row with a transition ahead (lo > now, or a finite hi >
// now) with its net multiplicity and interval, plus a min-heap of (next
// transition, row) ordered by time. A row that is valid with no upper
// bound, or expired, is forgotten: its later retraction is decided from
// its interval alone. So the state grows with the rows inside the window
// (and those waiting to enter it), never with history. The heap holds
// stale items for rows deleted or rescheduled; they are skipped when
// popped and compacted away when they outnumber the live ones. Spilled,
// it keeps only the rows its Steps touch in memory and reads the others
// from the store as they come due (temporal_spill.go).
//
// Logged state: {0x01} -> row(now) when now changes; {0x03} ++ key(at) ++
// row key -> row(n, lo, hi, row...) per touched row, at its next
// transition (moved when the row enters, deleted when forgotten), so the
// store lists the rows in the order they come due and a spilled filter
// reads only those (temporal_spill.go). State logged before by row key
// alone ({0x02} ++ row key) restores as it was and keeps that layout
// (timed false), which does not spill.
type temporalOp struct {
	spec dataflow.TemporalFilter
	// now is the wall-clock time of the last Step (minInt64 before any).
	now, prevNow int64
	rows         map[string]*tentry
	queue        tqueue
	touched      []tundo
	kbuf, vbuf   []byte
	scratch      repr.Row
	// timed: rows are logged by next transition (tagTemporalDue).
	timed bool
	// sp and due are the spilled state (nil: in memory): the resident
	// rows and the index of the store's rows by time (temporal_spill.go).
	sp  *residency
	due []tbucket
	// loadAt is the next transition of the row loadKey loads; dueErr
	// is the failure of the scan that built due.
	loadAt int64
	dueErr error
	dbuf   []byte
	// owns, when set (a shard of a sharded filter: shard_temporal.go),
	// tells which row keys are this shard's, for reading a store that
	// holds every shard's rows; quiet marks a shard that leaves logging
	// now (shared by all shards) to the shard owning the empty key.
	owns  func(key []byte) bool
	quiet bool
}

// tentry is one remembered row. Invariant: while in rows, at ==
// next(now) < noBound, and the queue holds an item (at, key).
type tentry struct {
	row    repr.Row
	key    string
	n      int64
	lo, hi int64
	at     int64
	stamp  uint64
	in     bool
}

// tundo is an entry as it was before the pending Step.
type tundo struct {
	e       *tentry
	n, at   int64
	existed bool
}

// titem is one scheduled transition in the queue.
type titem struct {
	at  int64
	key string
}

// tqueue is a min-heap of transitions ordered by (at, key).
type tqueue []titem

func (q tqueue) Len() int { return len(q) }
func (q tqueue) Less(i, j int) bool {
	return q[i].at < q[j].at || q[i].at == q[j].at && q[i].key < q[j].key
}
func (q tqueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *tqueue) Push(x any)   { *q = append(*q, x.(titem)) }
func (q *tqueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// The bounds of a row without a lower or an upper bound.
const (
	noLower int64 = math.MinInt64
	noBound int64 = math.MaxInt64
)

// State key tags of a temporalOp.
const (
	tagTemporalNow byte = 0x01
	tagTemporalRow byte = 0x02
	tagTemporalDue byte = 0x03
)

func newTemporal(spec dataflow.TemporalFilter, in []repr.T) (*temporalOp, error) {
	for _, e := range append(append([]expr.Expr(nil), spec.Lower...), spec.Upper...) {
		if f := e.Type().Family; f != repr.FamTimestampTZ && f != repr.FamTimestamp {
			return nil, fmt.Errorf("TemporalFilter bound %s is not a timestamp", e)
		}
		if maxCol(e) >= len(in) {
			return nil, fmt.Errorf("TemporalFilter bound %s reads a column out of range", e)
		}
		if expr.IsVolatile(e) {
			return nil, fmt.Errorf("TemporalFilter bound %s is volatile", e)
		}
	}
	return &temporalOp{spec: spec, now: noLower, prevNow: noLower, rows: map[string]*tentry{}, timed: true}, nil
}

// next is e's next transition after now: lo while pending, then hi.
func (e *tentry) next(now int64) int64 { return nextOf(e.lo, e.hi, now) }

// nextOf is the next transition after now of a row valid in [lo, hi).
func nextOf(lo, hi, now int64) int64 {
	if now < lo {
		return lo
	}
	return hi
}

func (o *temporalOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	o.prevNow = o.now
	now := max(o.now, s.now)
	if err := o.loadDue(now); err != nil {
		return nil, err
	}
	out := o.advance(s, now)
	o.now = now
	for _, u := range ins[0] {
		lo, hi, err := o.interval(s.ctx, u.Row)
		if err != nil {
			return nil, err
		}
		if lo >= hi || hi <= now {
			continue // never valid, or already expired
		}
		if lo <= now {
			out = append(out, repr.Update{Row: u.Row, Time: s.t, Diff: u.Diff})
		}
		if lo > now || hi != noBound {
			if err := o.remember(s, u.Row, u.Diff, lo, hi); err != nil {
				return nil, err
			}
		}
	}
	o.log(s)
	o.compact()
	return out, nil
}

// advance emits the transitions of the remembered rows up to now.
func (o *temporalOp) advance(s *stepCtx, now int64) []repr.Update {
	var out []repr.Update
	for len(o.queue) > 0 && o.queue[0].at <= now {
		it := heap.Pop(&o.queue).(titem)
		e := o.rows[it.key]
		if e == nil || e.at != it.at {
			continue // stale: the row was deleted or rescheduled
		}
		o.touch(s, e)
		wasIn := e.lo <= o.now && o.now < e.hi
		isIn := e.lo <= now && now < e.hi
		switch {
		case isIn && !wasIn:
			out = append(out, repr.Update{Row: e.row, Time: s.t, Diff: e.n})
		case wasIn && !isIn:
			out = append(out, repr.Update{Row: e.row, Time: s.t, Diff: -e.n})
		}
		o.reschedule(e, now)
	}
	return out
}

// reschedule queues e's next transition after now, or forgets e if it
// has none.
func (o *temporalOp) reschedule(e *tentry, now int64) {
	e.at = e.next(now)
	if e.at == noBound || e.at <= now || e.n == 0 {
		delete(o.rows, e.key)
		e.in = false
		return
	}
	heap.Push(&o.queue, titem{at: e.at, key: e.key})
}

// interval evaluates the row's validity interval [lo, hi); a NULL bound
// makes it empty.
func (o *temporalOp) interval(ctx *expr.Ctx, row repr.Row) (lo, hi int64, err error) {
	lo, hi = noLower, noBound
	for _, e := range o.spec.Lower {
		v, err := e.Eval(ctx, row)
		if err != nil || v.IsNull() {
			return noBound, noBound, err
		}
		lo = max(lo, v.Micros())
	}
	for _, e := range o.spec.Upper {
		v, err := e.Eval(ctx, row)
		if err != nil || v.IsNull() {
			return noBound, noBound, err
		}
		hi = min(hi, v.Micros())
	}
	return lo, hi, nil
}

// remember adds diff to the multiplicity of a row with a transition
// ahead (making it resident first in a spilled filter).
func (o *temporalOp) remember(s *stepCtx, row repr.Row, diff, lo, hi int64) error {
	o.kbuf = repr.AppendRowKey(o.kbuf[:0], row)
	if err := o.ensureRow(o.kbuf, nextOf(lo, hi, o.now)); err != nil {
		return err
	}
	e := o.rows[string(o.kbuf)]
	if e == nil {
		e = &tentry{row: row, key: string(o.kbuf), lo: lo, hi: hi, at: noBound}
		o.touch(s, e)
		o.rows[e.key], e.in = e, true
		if o.sp != nil {
			o.sp.grew(o.kbuf, o.entryCost(e))
		}
	} else {
		o.touch(s, e)
	}
	e.n += diff
	if e.n == 0 {
		delete(o.rows, e.key)
		e.in = false
	} else if e.at == noBound {
		o.reschedule(e, o.now)
	}
	return nil
}

// touch records e's state before the pending Step (once per Step).
func (o *temporalOp) touch(s *stepCtx, e *tentry) {
	if e.stamp == s.epoch {
		return
	}
	e.stamp = s.epoch
	o.touched = append(o.touched, tundo{e: e, n: e.n, at: e.at, existed: e.in})
}

// log writes now (if it changed) and every touched row: under its new
// key, and deleting its old one if that differs (timed) or the row was
// forgotten.
func (o *temporalOp) log(s *stepCtx) {
	if o.now != o.prevNow && !o.quiet {
		o.kbuf = append(append(o.kbuf[:0], s.prefix...), tagTemporalNow)
		o.vbuf = repr.AppendRow(o.vbuf[:0], repr.Row{repr.NewInt(o.now)})
		s.log.set(o.kbuf, o.vbuf)
	}
	for _, t := range o.touched {
		e := t.e
		if t.existed && (!e.in || o.timed && t.at != e.at) {
			s.log.del(o.rowKey(s.prefix, t.at, e.key))
		}
		if !e.in {
			continue
		}
		o.scratch = append(append(o.scratch[:0], repr.NewInt(e.n), repr.NewInt(e.lo), repr.NewInt(e.hi)), e.row...)
		o.vbuf = repr.AppendRow(o.vbuf[:0], o.scratch)
		s.log.set(o.rowKey(s.prefix, e.at, e.key), o.vbuf)
	}
}

// rowKey returns, in o.kbuf, the state key under prefix of the row of
// row key key whose next transition is at.
func (o *temporalOp) rowKey(prefix []byte, at int64, key string) []byte {
	o.kbuf = append(o.kbuf[:0], prefix...)
	if !o.timed {
		o.kbuf = append(o.kbuf, tagTemporalRow)
	} else {
		o.kbuf = appendDueKey(o.kbuf, at)
	}
	o.kbuf = append(o.kbuf, key...)
	return o.kbuf
}

// compact rebuilds the queue from the live rows when stale items
// outnumber them, so cancelled rows do not pin memory until their time.
func (o *temporalOp) compact() {
	if len(o.queue) <= 2*len(o.rows)+64 {
		return
	}
	o.queue = o.queue[:0]
	for _, e := range o.rows {
		o.queue = append(o.queue, titem{at: e.at, key: e.key})
	}
	heap.Init(&o.queue)
}

func (o *temporalOp) commit() { o.touched = o.touched[:0]; o.prevNow = o.now }

func (o *temporalOp) rollback() {
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		e := t.e
		e.n, e.at = t.n, t.at
		switch {
		case !t.existed && e.in:
			delete(o.rows, e.key)
			e.in = false
		case t.existed:
			o.rows[e.key], e.in = e, true
			heap.Push(&o.queue, titem{at: e.at, key: e.key})
		}
	}
	o.now = o.prevNow
	o.commit()
}

func (o *temporalOp) restore(key, value []byte) error {
	r, err := repr.DecodeRow(value)
	switch {
	case err != nil || len(key) == 0:
		return errCorrupt
	case key[0] == tagTemporalNow && len(key) == 1 && len(r) == 1:
		o.now, o.prevNow = r[0].Int(), r[0].Int()
		return nil
	case len(r) < 3:
		return errCorrupt
	case key[0] == tagTemporalRow:
		o.timed = false // the layout before: keep it
		key = key[1:]
	case key[0] == tagTemporalDue && len(key) > dueKeyLen:
		key = key[dueKeyLen:]
	default:
		return errCorrupt
	}
	e := decodeTentry(string(key), r)
	o.rows[e.key] = e
	return nil
}

// decodeTentry returns the entry of row key key logged as r (n, lo, hi,
// row...).
func decodeTentry(key string, r repr.Row) *tentry {
	return &tentry{row: r[3:], key: key, n: r[0].Int(), lo: r[1].Int(), hi: r[2].Int(), in: true}
}

// restored schedules every restored row relative to the restored now.
func (o *temporalOp) restored() error {
	for _, e := range o.rows {
		e.at = e.next(o.now)
		o.queue = append(o.queue, titem{at: e.at, key: e.key})
	}
	heap.Init(&o.queue)
	return nil
}

// nextTransition returns the earliest time at which the output changes
// without new input, dropping stale items from the top of the queue (and
// tightening the store's index, if spilled).
func (o *temporalOp) nextTransition() (int64, bool) {
	at, ok := o.nextStored()
	for len(o.queue) > 0 {
		it := o.queue[0]
		if e := o.rows[it.key]; e != nil && e.at == it.at {
			if !ok || it.at < at {
				return it.at, true
			}
			break
		}
		heap.Pop(&o.queue)
	}
	return at, ok
}

// debug lists the remembered rows and the operator's now.
func (o *temporalOp) debug() []string {
	var lines []string
	if !o.quiet {
		lines = append(lines, fmt.Sprintf("now=%s", fmtMicros(o.now)))
	}
	for _, e := range o.rows {
		lines = append(lines, fmt.Sprintf("row %s x%d valid=[%s, %s) next=%s",
			dataflow.FormatRow(e.row), e.n, fmtMicros(e.lo), fmtMicros(e.hi), fmtMicros(e.at)))
	}
	return lines
}

// fmtMicros prints a wall-clock time as a timestamptz literal, or -inf/+inf.
func fmtMicros(v int64) string {
	switch v {
	case noLower:
		return "-inf"
	case noBound:
		return "+inf"
	}
	return repr.NewTimestampTZ(v).String()
}

// Temporal reports whether the dataflow has a temporal filter, whose
// output changes as wall-clock time passes (see NextTransition).
func (d *Dataflow) Temporal() bool {
	for _, op := range d.ops {
		if len(temporalsOf(op)) > 0 {
			return true
		}
	}
	return false
}

// NextTransition returns the earliest wall-clock time (Input.Now units) at
// which a temporal filter of d changes its output without new input: a
// Step with Now at or past it emits something. ok is false when no
// transition is pending. It may tidy internal queues but changes no state.
func (d *Dataflow) NextTransition() (at int64, ok bool) {
	at = noBound
	for _, op := range d.ops {
		for _, t := range temporalsOf(op) {
			if v, has := t.nextTransition(); has && v < at {
				at, ok = v, true
			}
		}
	}
	return at, ok
}
