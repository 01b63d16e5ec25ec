package exec

import (
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Two-phase global aggregates (BuildWorkers). A global Reduce (no key:
// one group) has no key to run as shards by, but when every one of its
// aggregates has an exact merge (expr.AggKind.Mergeable) a large Step
// runs in two phases: the input is cut into n contiguous runs, each
// folded into a partial state (aggPartial) by a shard of the driver's
// runners, then the Reduce merges the partials, in run order, into its
// group and emits as one operator would (mergeParts). Below
// shardParallelMin updates, the Reduce steps alone.
//
// Determinism: a partial is the run's rows consolidated per aggregate
// (scalar accumulators added up; min/max and DISTINCT value entries
// summed per key, in first-seen order; an append-only min/max's
// extremum), and merging the runs in order touches the group's state as
// folding their rows in order does: the same counts, sums (exact for
// every mergeable class), multiset entries, each entry created with the
// value of its key's first row. So the group's state, the logged state
// and the output are those of the single Reduce for every n (an entry a
// run both added and removed is replayed with a zero count, so that it is
// still created, and logged deleted, as one fold would). The Reduce's own
// state is never split: a restore, a rollback and a change of n see the
// single operator's.

// globalReduce is a global Reduce whose large Steps fold their input in
// parts (see above). It is the Reduce for everything but step.
//
// A merge replays each part's value entries (min, max, DISTINCT) into the
// group's multisets, the work one fold does per row: when the values are
// mostly distinct, folding in parts only adds the partials' work. So a
// Step whose merge replayed entries for more than half its updates makes
// the next globalBackoff Steps run whole, after which the parts are tried
// again. Either way the state and output are the same (see above): the
// choice is only one of speed.
type globalReduce struct {
	*reduceOp
	parts   []*shard // one per worker; their operators are *aggPartial
	backoff int      // Steps left to run whole
}

// globalFoldOne says a global Reduce on one worker folds its large Steps
// as one part too: a partial's fold adds each row to a plain accumulator
// (expr.Acc), where the Reduce's own unpacks and packs the group's
// accumulators per row and aggregate (65 words for a bit_or), so one part
// and a merge cost about half the CPU of the Reduce's fold
// (BenchmarkGlobalAggregate). Tests turn it off to compare the parts with
// the Reduce's own fold.
var globalFoldOne = true

// globalBackoff is the number of Steps a globalReduce runs whole after a
// merge that replayed too many entries (tests set it to 0).
var globalBackoff = 63

// splitGlobal makes every global Reduce of d whose aggregates all merge a
// globalReduce of n parts (one part: the same fold on the Step's
// goroutine, unless globalFoldOne is off).
func (d *Dataflow) splitGlobal(n int) {
	if n == 1 && !globalFoldOne {
		return
	}
	for i, op := range d.ops {
		o, ok := op.(*reduceOp)
		if !ok || !o.global || o.spec.EmitOnClose || !o.mergeable() {
			continue
		}
		g := &globalReduce{reduceOp: o}
		for range n {
			g.parts = append(g.parts, &shard{op: newAggPartial(o)})
		}
		d.ops[i] = g
		d.workers = n
	}
}

// mergeable reports whether every aggregate of o has an exact merge.
func (o *reduceOp) mergeable() bool {
	for i := range o.aggs {
		if a := &o.aggs[i]; !a.Kind.Mergeable(a.call.Arg, a.Distinct) {
			return false
		}
	}
	return true
}

func (o *globalReduce) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	in := ins[0]
	if len(in) == 0 || len(in) < shardParallelMin || o.backoff > 0 {
		o.backoff = max(o.backoff-1, 0)
		return o.reduceOp.step(s, ins)
	}
	if err := o.fold(s, in); err != nil {
		return nil, err
	}
	if 2*o.replays() > len(in) {
		o.backoff = globalBackoff
	}
	return o.mergeParts(s)
}

// replays returns the number of value entries the parts' merge replays.
func (o *globalReduce) replays() int {
	n := 0
	for _, sh := range o.parts {
		for ai := range o.aggs {
			if a := &o.aggs[ai]; a.def.Extremum == 0 || !o.spec.AppendOnly {
				n += len(sh.op.(*aggPartial).aggs[ai].ents)
			}
		}
	}
	return n
}

// fold cuts in into one contiguous run per part and folds each on its
// own goroutine (the first on the Step's).
func (o *globalReduce) fold(s *stepCtx, in []repr.Update) error {
	n := len(o.parts)
	for k, sh := range o.parts {
		sh.ins = append(sh.ins[:0], in[k*len(in)/n:(k+1)*len(in)/n])
	}
	parallel(n, func(k int) { o.parts[k].run(s, false) })
	var err error
	for _, sh := range o.parts {
		s.work += uint64(sh.work)
		sh.ins[0], sh.out = nil, nil // the runs are the caller's: not release
		if sh.err != nil && err == nil {
			err = sh.err
		}
	}
	if err != nil {
		for _, sh := range o.parts {
			sh.op.(*aggPartial).reset()
		}
	}
	return err
}

// mergeParts merges the parts' partial states in order into the group
// and finishes the Step as step does. The parts are empty afterwards,
// whether it fails or not.
func (o *globalReduce) mergeParts(s *stepCtx) ([]repr.Update, error) {
	defer func() {
		for _, sh := range o.parts {
			sh.op.(*aggPartial).reset()
		}
	}()
	g, err := o.globalGroup(s)
	if err != nil {
		return nil, err
	}
	for _, sh := range o.parts {
		p := sh.op.(*aggPartial)
		g.rows += p.rows
		for ai := range o.aggs {
			o.mergeAgg(s, g, ai, &p.aggs[ai])
		}
	}
	return o.finish(s)
}

// globalGroup returns the global group, created or touched for this Step
// as add does.
func (o *reduceOp) globalGroup(s *stepCtx) (*group, error) {
	o.kbuf = o.kbuf[:0]
	g := o.groups[""]
	switch {
	case g == nil:
		g = o.newGroup(nil)
		s.grown += o.groupBytes()
		return g, o.touch(s, g, false)
	case g.stamp != s.epoch:
		return g, o.touch(s, g, true)
	}
	return g, nil
}

// mergeAgg merges a run's partial state of aggregate ai into g, as
// accumulate does for each of the run's rows.
func (o *reduceOp) mergeAgg(s *stepCtx, g *group, ai int, pa *partAgg) {
	a := &o.aggs[ai]
	switch {
	case a.Kind == expr.AggCountStar:
		o.arena.wordsOf(g.id)[a.woff] += pa.acc.N
	case a.def.Extremum != 0 && o.spec.AppendOnly:
		if len(pa.ents) > 0 {
			o.keepExtremum(s, g, a, pa.ents[0].val, pa.ents[0].n)
		}
	case a.def.Multiset:
		for i := range pa.ents {
			e := &pa.ents[i]
			o.ebuf = append(o.ebuf[:0], e.key...)
			o.addEntry(s, g, a.valSlot, e.val, e.sep, e.n)
		}
	case a.Distinct:
		ac := o.acc(g, a)
		o.mergeDistinct(s, g, a, &ac, pa)
		o.setAcc(g, a, &ac)
	default:
		ac := o.acc(g, a)
		ac.Merge(a.call.Class, &pa.acc)
		o.setAcc(g, a, &ac)
		for _, sc := range pa.scales {
			o.addScale(s, g, a, sc.scale, sc.n)
		}
	}
}

// mergeDistinct replays a run's distinct values into the group's value
// multiset (or key set) of a DISTINCT aggregate, adding to ac each value
// whose count turns positive and removing each that drops to zero.
func (o *reduceOp) mergeDistinct(s *stepCtx, g *group, a *aggSpec, ac *expr.Acc, pa *partAgg) {
	for i := range pa.ents {
		e := &pa.ents[i]
		if o.slotKeys[a.valSlot] {
			if o.addDistinctKey(s, g, a.valSlot, e.val) {
				o.addValue(s, g, a, ac, e.val, 1)
			}
			continue
		}
		o.ebuf = append(o.ebuf[:0], e.key...)
		old, cur := o.addEntry(s, g, a.valSlot, e.val, repr.Null, e.n)
		if d := b2i(cur > 0) - b2i(old > 0); d != 0 {
			o.addValue(s, g, a, ac, e.val, d)
		}
	}
}

// aggPartial folds a run of a global Reduce's input into partial states,
// one per aggregate (partAgg). It is an operator only so that the shard
// runners can step it: it emits nothing and logs nothing; its state lives
// from a fold to the merge that resets it, within one Step.
type aggPartial struct {
	aggs       []partAgg
	specs      []aggSpec // the Reduce's, read only
	appendOnly bool
	rows       int64
	kbuf       []byte
}

// partAgg is one aggregate's partial state: the sum of its accumulator
// (count(*) and the scalar aggregates) and the counts of its numeric
// display scales, or its value entries in first-seen order (min, max and
// DISTINCT; an append-only min/max keeps only its extremum's).
type partAgg struct {
	acc    expr.Acc
	scales []scaleCount
	ents   []partEntry
	index  map[string]int32
}

// partEntry is a value's summed count in a run, with the value and
// separator of its first row.
type partEntry struct {
	key      string
	val, sep repr.Datum
	n        int64
}

// scaleCount is a display scale's summed count in a run.
type scaleCount struct{ scale, n int64 }

// partialKeepEntries bounds the entries a partial keeps allocated between
// Steps.
const partialKeepEntries = 1 << 12

func newAggPartial(o *reduceOp) *aggPartial {
	return &aggPartial{aggs: make([]partAgg, len(o.aggs)), specs: o.aggs, appendOnly: o.spec.AppendOnly}
}

func (p *aggPartial) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	for _, u := range ins[0] {
		if err := s.poll(); err != nil {
			return nil, err
		}
		if u.Diff < 0 && p.appendOnly {
			return nil, errRetractAppendOnlyReduce
		}
		p.rows += u.Diff
		for ai := range p.aggs {
			p.add(ai, u.Row, u.Diff)
		}
	}
	return nil, nil
}

// add folds diff copies of row into aggregate ai's partial state, as
// reduceOp.accumulate would into a group's.
func (p *aggPartial) add(ai int, row repr.Row, diff int64) {
	a, pa := &p.specs[ai], &p.aggs[ai]
	if a.Kind == expr.AggCountStar {
		pa.acc.N += diff
		return
	}
	v := row[a.Col]
	switch {
	case v.IsNull():
	case a.def.Extremum != 0 && p.appendOnly:
		p.kbuf = repr.AppendKey(p.kbuf[:0], v)
		pa.keepBest(p.kbuf, v, diff, a.def.Extremum)
	case a.def.Multiset:
		sep := repr.Null
		if a.def.Shape == expr.AggBinary {
			sep = row[a.Sep]
		}
		p.kbuf = appendEntryKey(p.kbuf[:0], a, row, v)
		pa.addEntry(p.kbuf, v, sep, diff)
	case a.Distinct:
		p.kbuf = repr.AppendKey(p.kbuf[:0], v)
		pa.addEntry(p.kbuf, v, repr.Null, diff)
	default:
		pa.acc.Add(a.call.Class, v, diff)
		if a.scaleSlot >= 0 && v.Numeric().Form == apd.Finite {
			pa.addScale(int64(displayScale(v.Numeric())), diff)
		}
	}
}

// addEntry adds diff to the count of the entry of key, created with val
// and sep if new.
func (pa *partAgg) addEntry(key []byte, val, sep repr.Datum, diff int64) {
	if i, ok := pa.index[string(key)]; ok {
		pa.ents[i].n += diff
		return
	}
	if pa.index == nil {
		pa.index = make(map[string]int32)
	}
	k := string(key)
	pa.index[k] = int32(len(pa.ents))
	pa.ents = append(pa.ents, partEntry{key: k, val: val, sep: sep, n: diff})
}

// keepBest is keepExtremum over a run: the extremum (ext -1 min, +1 max)
// and its summed count; a value short of it is dropped.
func (pa *partAgg) keepBest(key []byte, v repr.Datum, diff int64, ext int) {
	if len(pa.ents) == 0 {
		pa.ents = append(pa.ents, partEntry{key: string(key), val: v, n: diff})
		return
	}
	e := &pa.ents[0]
	c := strings.Compare(string(key), e.key)
	if ext < 0 {
		c = -c
	}
	switch {
	case c == 0:
		e.n += diff
	case c > 0:
		*e = partEntry{key: string(key), val: v, n: diff}
	}
}

// addScale adds diff to the count of display scale sc.
func (pa *partAgg) addScale(sc, diff int64) {
	for i := range pa.scales {
		if pa.scales[i].scale == sc {
			pa.scales[i].n += diff
			return
		}
	}
	pa.scales = append(pa.scales, scaleCount{scale: sc, n: diff})
}

// reset empties p for the next Step, letting go of large entry buffers
// (their values pin the Step's rows).
func (p *aggPartial) reset() {
	p.rows = 0
	for i := range p.aggs {
		pa := &p.aggs[i]
		pa.acc = expr.Acc{}
		pa.scales = pa.scales[:0]
		clear(pa.ents)
		if cap(pa.ents) > partialKeepEntries {
			pa.ents, pa.index = nil, nil
			continue
		}
		pa.ents = pa.ents[:0]
		clear(pa.index)
	}
}

func (p *aggPartial) commit()                   {}
func (p *aggPartial) rollback()                 { p.reset() }
func (p *aggPartial) restore(_, _ []byte) error { return errCorrupt }
func (p *aggPartial) restored() error           { return nil }
