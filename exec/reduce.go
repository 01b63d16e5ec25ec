package exec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// reduceOp groups its input by the key columns and maintains one output
// row per group with positive row count: the key columns then the
// aggregates. A global aggregate (no key) always has exactly one output
// row, emitted at the first Step even on empty input. With no aggregates
// it is DISTINCT.
//
// On a batch it emits, for every group the batch touched, -old and +new
// output rows when they differ (old or new may be absent). The old row is
// not kept: it is recomputed from the group's state when a Step first
// touches the group (output is a function of the state).
//
// State, per live group: a 48-byte group holding the key's key encoding
// followed by its value encoding (one allocation; the map key shares it)
// and the row count; each aggregate's scalar accumulator packed into the
// reduce's arenas by group id (expr.AccClass.Pack: one word for a count,
// two for an integer sum, four and a decimal for a numeric sum); plus a
// multiset of values for min, max, string_agg, the ordered-set and
// DISTINCT aggregates and of display scales for numeric sums and
// variances. Each aggregate's registry entry (expr) states which. Size:
// O(groups × aggregates) plus O(distinct values) for the multisets. A
// group is freed when its row count reaches zero; its id is reused after
// the Step commits.
//
// Float sums use Neumaier's compensated summation and are reset when an
// aggregate has no live input left, but after long histories of
// retractions they can still differ from a from-scratch sum in the last
// bits (integer and numeric sums are exact).
//
// Logged state: {0x01} group-key -> row(key..., rows, accumulators...);
// {0x02} group-key slot value-key -> row(len(group-key), count, value,
// separator) for multiset entries. Only what a Step touched is logged;
// with Input.DeferState group records wait for FlushState (reduce_defer.go).
type reduceOp struct {
	spec  dataflow.Reduce
	aggs  []aggSpec
	width int
	// slotOrdered[s] says whether multiset slot s needs order.
	slotOrdered []bool
	// slotKeys[s] says whether slot s is a key set: the values seen by a
	// DISTINCT count, sum or avg over an append-only input, which never
	// leave, so only their keys are kept (see addDistinctKey).
	slotKeys []bool
	global   bool
	groups   map[string]*group
	// arena holds the groups' packed accumulators and multisets.
	arena groupArena

	// The record of the pending Step, newest last.
	touched  []groupUndo
	wordUndo []int64
	decUndo  []*apd.Decimal
	etouched []entryUndo
	kadded   []keyUndo

	kbuf, ebuf, vbuf []byte
	scratch          repr.Row
	vs               msValues
	ac               expr.Acc // result's, which Final's indirect call would move to the heap

	// sp is the spilled state (reduce_spill.go); nil while in memory.
	sp *residency
	// refine, when set, partitions the shards by part of the group key
	// (shard_refine.go); nil: by the whole group key.
	refine *refinedKey
	// outs holds the last committed Step's output rows (reduce_outs.go).
	outs outCache
	// deferOK lets Steps with Input.DeferState leave group records to
	// FlushState; dirty holds the groups they touched since the last
	// flush, each once (reduce_defer.go).
	deferOK bool
	dirty   []*group
	// slotRuns[s] says whether slot s logs its entries in runs when the
	// Reduce defers; runSeq numbers the runs, runq holds the multisets
	// owing FlushState a run (reduce_runs.go).
	slotRuns  []bool
	runq      []runRef
	converted []*multiset
	rbuf      []byte
	// slotLazy[s] says whether slot s may hold lazy values (nil: none
	// may); lzTouched holds the multisets the pending Step appended to,
	// lbuf their keys when settled (multiset_lazy.go).
	slotLazy  []bool
	lzTouched []*multiset
	lbuf      []byte
}

// group is the state of one group but its accumulators and multisets,
// which the arena holds at id.
type group struct {
	// enc is the key encoding of the key columns (enc[:klen], the map key
	// and the logged group key) followed by their value encoding, from
	// which the output row's key columns are decoded.
	enc   string
	rows  int64
	stamp uint64
	id    int32
	klen  int32
	// out is g's index in outs, if its row there is still g's.
	out int32
	in  bool
	// dirty: g is in its Reduce's dirty list (reduce_defer.go).
	dirty bool
}

// key returns g's key encoding.
func (g *group) key() string { return g.enc[:g.klen] }

// groupUndo is a group's state before the pending Step touched it: its
// row count, its output row (nil if none) and its packed accumulators at
// wordUndo[off:off+words] and decUndo[doff:doff+decs].
type groupUndo struct {
	g         *group
	rows      int64
	out       repr.Row
	existed   bool
	off, doff int
}

// entryUndo is a multiset entry's count before the pending Step.
type entryUndo struct {
	g       *group
	slot    int
	e       *mentry
	n       int64
	existed bool
}

// State key tags of reduceOp.
const (
	tagGroup byte = 0x01
	tagEntry byte = 0x02
)

func newReduce(spec dataflow.Reduce, in []repr.T, out []repr.T) (*reduceOp, error) {
	o := &reduceOp{spec: spec, global: len(spec.Key) == 0, groups: make(map[string]*group)}
	o.width = len(spec.Key) + len(spec.Aggs)
	if len(out) != 0 && len(out) != o.width {
		return nil, fmt.Errorf("reduce has %d output types for %d columns", len(out), o.width)
	}
	if err := checkCols(spec.Key, len(in)); err != nil {
		return nil, err
	}
	slots := 0
	for _, ag := range spec.Aggs {
		if err := checkCols(ag.Cols(), len(in)); err != nil {
			return nil, err
		}
		var arg repr.T
		if ag.Kind != expr.AggCountStar {
			arg = in[ag.Col]
			if _, ok := ag.Kind.Type(arg); !ok {
				return nil, fmt.Errorf("%s(%s) is not supported", ag.Kind, arg.Name())
			}
		}
		a := compileAgg(ag, arg, &slots)
		if ag.DirectKey {
			if a.directPos = slices.Index(spec.Key, ag.DirectCol); a.directPos < 0 {
				return nil, fmt.Errorf("%s: direct argument #%d is not a key column", ag, ag.DirectCol)
			}
			a.directArray = in[ag.DirectCol].Family == repr.FamArray
		}
		a.woff, a.doff = o.arena.words, o.arena.decs
		o.arena.words += a.call.Class.Words()
		o.arena.decs += a.call.Class.Decs()
		if a.scaleSlot >= 0 {
			a.pairOff = o.arena.words
			o.arena.words += 2
		}
		o.aggs = append(o.aggs, a)
	}
	o.arena.sets = slots
	o.slotOrdered = make([]bool, slots)
	o.slotKeys = make([]bool, slots)
	for _, a := range o.aggs {
		if spec.AppendOnly && a.Distinct && !a.def.Multiset && a.valSlot >= 0 {
			o.slotKeys[a.valSlot] = true
		}
		if a.valSlot >= 0 {
			o.slotOrdered[a.valSlot] = a.ordered
		}
		if a.scaleSlot >= 0 {
			o.slotOrdered[a.scaleSlot] = true
		}
	}
	o.initRuns()
	o.initLazy(in)
	return o, nil
}

// checkCols reports a column index outside [0, n).
func checkCols(cols []int, n int) error {
	for _, c := range cols {
		if c < 0 || c >= n {
			return fmt.Errorf("column #%d out of range (%d columns)", c, n)
		}
	}
	return nil
}

func (o *reduceOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	keys := s.inKeys
	s.inKeys = nil // not for the operators this one steps
	for i, u := range ins[0] {
		if err := s.poll(); err != nil {
			return nil, err
		}
		if u.Diff < 0 && o.spec.AppendOnly {
			return nil, errRetractAppendOnlyReduce
		}
		if err := o.add(s, u.Row, u.Diff, keys.at(i)); err != nil {
			return nil, err
		}
	}
	if o.global && o.groups[""] == nil {
		o.kbuf = o.kbuf[:0]
		if err := o.touch(s, o.newGroup(nil), false); err != nil {
			return nil, err
		}
	}
	return o.finish(s)
}

// add folds one update into its group; key is the row's group key
// encoding when the partition computed it already (else nil).
func (o *reduceOp) add(s *stepCtx, row repr.Row, diff int64, key []byte) error {
	if key != nil {
		o.kbuf = append(o.kbuf[:0], key...)
	} else {
		o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.spec.Key)
	}
	if err := o.ensureGroup(o.kbuf); err != nil {
		return err
	}
	g := o.groups[string(o.kbuf)]
	switch {
	case g == nil:
		o.vbuf = o.vbuf[:0]
		for _, c := range o.spec.Key {
			o.vbuf = repr.AppendDatums(o.vbuf, row[c:c+1])
		}
		g = o.newGroup(o.vbuf)
		s.grown += int64(len(g.enc)) + o.groupBytes()
		if o.sp != nil {
			o.sp.grew(o.kbuf, int64(len(g.enc))+o.groupBytes())
		}
		if err := o.touch(s, g, false); err != nil {
			return err
		}
	case g.stamp != s.epoch:
		if err := o.touch(s, g, true); err != nil {
			return err
		}
	}
	g.rows += diff
	for ai := range o.aggs {
		o.accumulate(s, g, ai, row, diff)
	}
	return nil
}

// newGroup creates and registers the group whose key encoding is in kbuf
// and whose key columns' value encoding is vals.
func (o *reduceOp) newGroup(vals []byte) *group {
	enc := make([]byte, 0, len(o.kbuf)+len(vals))
	enc = append(append(enc, o.kbuf...), vals...)
	g := &group{enc: string(enc), klen: int32(len(o.kbuf)), id: o.arena.alloc(), in: true}
	o.groups[g.key()] = g
	return g
}

// touch records g's state before the pending Step changes it, and its
// output row unless the Reduce emits on close (which emits none before).
func (o *reduceOp) touch(s *stepCtx, g *group, existed bool) error {
	g.stamp = s.epoch
	u := groupUndo{g: g, rows: g.rows, existed: existed, off: len(o.wordUndo), doff: len(o.decUndo)}
	if existed && !o.spec.EmitOnClose {
		if err := o.oldOutput(s, g, &u); err != nil {
			return err
		}
	}
	o.touched = append(o.touched, u)
	o.wordUndo = append(o.wordUndo, o.arena.wordsOf(g.id)...)
	o.decUndo = append(o.decUndo, o.arena.decsOf(g.id)...)
	return nil
}

// oldOutput sets u.out to g's output row before the pending Step: the
// row the last committed Step emitted for g if it touched g, else
// computed from g's state.
func (o *reduceOp) oldOutput(s *stepCtx, g *group, u *groupUndo) error {
	if r, ok := o.outs.get(g); ok {
		u.out = r
		return nil
	}
	var err error
	u.out, err = o.output(s.slab, g)
	return err
}

// acc returns aggregate a's accumulator in g, unpacked.
func (o *reduceOp) acc(g *group, a *aggSpec) expr.Acc {
	return a.call.Class.Unpack(o.arena.wordsOf(g.id)[a.woff:], o.arena.decsOf(g.id)[a.doff:])
}

// setAcc packs ac as aggregate a's accumulator in g.
func (o *reduceOp) setAcc(g *group, a *aggSpec, ac *expr.Acc) {
	a.call.Class.Pack(ac, o.arena.wordsOf(g.id)[a.woff:], o.arena.decsOf(g.id)[a.doff:])
}

// sets returns g's multisets, one per slot.
func (o *reduceOp) sets(g *group) []*multiset { return o.arena.setsOf(g.id) }

// accumulate adds diff copies of row's argument to aggregate ai of g.
func (o *reduceOp) accumulate(s *stepCtx, g *group, ai int, row repr.Row, diff int64) {
	a := &o.aggs[ai]
	if a.Kind == expr.AggCountStar {
		o.arena.wordsOf(g.id)[a.woff] += diff
		return
	}
	v := row[a.Col]
	switch {
	case v.IsNull():
		return
	case a.def.Extremum != 0 && o.spec.AppendOnly:
		o.keepExtremum(s, g, a, v, diff)
		return
	case a.def.Multiset:
		sep := repr.Null
		if a.def.Shape == expr.AggBinary {
			sep = row[a.Sep]
		}
		o.entryKey(a, row, v)
		o.addEntry(s, g, a.valSlot, v, sep, diff)
		return
	case a.Distinct && o.slotKeys[a.valSlot]:
		if !o.addDistinctKey(s, g, a.valSlot, v) {
			return
		}
		diff = 1
	case a.Distinct:
		o.ebuf = repr.AppendKey(o.ebuf[:0], v)
		old, cur := o.addEntry(s, g, a.valSlot, v, repr.Null, diff)
		if diff = b2i(cur > 0) - b2i(old > 0); diff == 0 {
			return
		}
	}
	ac := o.acc(g, a)
	o.addValue(s, g, a, &ac, v, diff)
	o.setAcc(g, a, &ac)
}

// errRetractAppendOnlyReduce fails a Step that breaks the AppendOnly
// promise: the min/max state no longer holds the values it would need.
var errRetractAppendOnlyReduce = fmt.Errorf("internal error: a retraction reached an aggregate planned for an append-only input")

// keepExtremum is min/max over an append-only input: the multiset keeps
// only the extremum (one live entry). A value past it replaces it (the old
// one's count drops to zero, so finish logs its deletion and frees it); a
// value short of it is dropped, as no retraction can ever bring it back.
func (o *reduceOp) keepExtremum(s *stepCtx, g *group, a *aggSpec, v repr.Datum, diff int64) {
	o.ebuf = repr.AppendKeyExact(o.ebuf[:0], v) // as appendEntryKey
	cur := liveEntry(o.sets(g)[a.valSlot])
	if cur != nil {
		c := strings.Compare(string(o.ebuf), cur.key)
		if a.def.Extremum < 0 {
			c = -c
		}
		if c < 0 {
			return
		}
	}
	o.addEntry(s, g, a.valSlot, v, repr.Null, diff)
	if cur != nil && cur.key != string(o.ebuf) {
		o.ebuf = append(o.ebuf[:0], cur.key...)
		o.addEntry(s, g, a.valSlot, cur.val, repr.Null, -cur.n)
	}
}

// liveEntry returns an entry of ms with a positive count, nil if none: for
// an append-only min/max, the extremum (its only live entry).
func liveEntry(ms *multiset) *mentry {
	if ms == nil {
		return nil
	}
	var live *mentry
	ms.all(func(e *mentry) {
		if e.n > 0 && live == nil {
			live = e
		}
	})
	return live
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// addValue adds diff copies of the non-NULL value v to accumulator ac
// (and its display scale to the scale multiset, if the aggregate keeps one).
func (o *reduceOp) addValue(s *stepCtx, g *group, a *aggSpec, ac *expr.Acc, v repr.Datum, diff int64) {
	ac.Add(a.call.Class, v, diff)
	if a.scaleSlot >= 0 && v.Numeric().Form == apd.Finite {
		o.addScale(s, g, a, int64(displayScale(v.Numeric())), diff)
	}
}

// displayScale is the number of digits after the decimal point of d.
func displayScale(d *apd.Decimal) int32 { return max(-d.Exponent, 0) }

// keyUndo is a key that the pending Step added to a key set.
type keyUndo struct {
	g    *group
	slot int
	key  string
}

// addDistinctKey adds v's key to key set slot of g and reports whether it
// is new (the DISTINCT aggregate then counts v once). A new key is logged
// at once, in the entry format restoreEntry reads (count 1, no value): the
// Step's log is written only if the Step succeeds, and rollback removes
// the keys the Step added.
func (o *reduceOp) addDistinctKey(s *stepCtx, g *group, slot int, v repr.Datum) bool {
	sets := o.sets(g)
	ms := sets[slot]
	if ms == nil {
		ms = newKeySet()
		sets[slot] = ms
	}
	o.ebuf = repr.AppendKey(o.ebuf[:0], v)
	if _, ok := ms.keys[string(o.ebuf)]; ok {
		return false
	}
	key := string(o.ebuf)
	ms.keys[key] = struct{}{}
	o.kadded = append(o.kadded, keyUndo{g: g, slot: slot, key: key})
	o.kbuf = append(append(append(o.kbuf[:0], s.prefix...), tagEntry), g.key()...)
	o.kbuf = append(append(o.kbuf, byte(slot)), key...)
	r := append(o.scratch[:0], repr.NewInt(int64(g.klen)), repr.NewInt(1), repr.Null, repr.Null)
	o.scratch = r
	o.vbuf = repr.AppendRow(o.vbuf[:0], r)
	s.log.set(o.kbuf, o.vbuf)
	return true
}

// addEntry adds diff to the count of the entry keyed by o.ebuf in multiset
// slot of g, creating it with val and sep if needed, and returns the old
// and new counts. A value added lazily (multiset_lazy.go) reports 0 and
// diff: only min and max take such values, and they ignore the counts.
func (o *reduceOp) addEntry(s *stepCtx, g *group, slot int, val, sep repr.Datum, diff int64) (old, cur int64) {
	sets := o.sets(g)
	ms := sets[slot]
	if ms == nil {
		ms = newMultiset(o.slotOrdered[slot])
		sets[slot] = ms
	}
	if o.slotLazy != nil && o.slotLazy[slot] {
		if o.addLazy(s, g, slot, ms, val, diff) {
			return 0, diff
		}
		if diff < 0 || ms.mayHoldLazy(o.ebuf) {
			o.settle(s, g, slot, ms)
		}
	}
	return o.addIndexed(s, g, slot, ms, o.ebuf, val, sep, diff)
}

// addIndexed is addEntry for the entry keyed by key in the index of ms,
// which lz does not hold (multiset_lazy.go), recording its count before
// the pending Step.
func (o *reduceOp) addIndexed(s *stepCtx, g *group, slot int, ms *multiset, key []byte, val, sep repr.Datum, diff int64) (old, cur int64) {
	e, existed := ms.lookup(key), true
	if e == nil {
		e, existed = newEntry(key, val, sep, 0), false
		ms.insert(e)
	}
	if e.stamp != s.epoch {
		e.stamp = s.epoch
		o.etouched = append(o.etouched, entryUndo{g: g, slot: slot, e: e, n: e.n, existed: existed})
	}
	old = e.n
	e.n += diff
	ms.counted(e)
	return old, e.n
}

// finish computes the output diff of every touched group, logs the
// touched state and frees empty groups and entries.
func (o *reduceOp) finish(s *stepCtx) ([]repr.Update, error) {
	// At most a retraction and an insertion per touched group: sized
	// once rather than doubled up to it.
	var out []repr.Update
	if len(o.touched) > 0 {
		out = make([]repr.Update, 0, 2*len(o.touched))
	}
	for i := range o.touched {
		gu := &o.touched[i]
		g := gu.g
		o.forgetEmpty(g)
		cur, err := o.output(s.slab, g)
		if err != nil {
			return nil, err
		}
		if g.in && !o.spec.EmitOnClose {
			o.outs.put(g, cur)
		}
		if !identicalRows(gu.out, cur) {
			if gu.out != nil {
				out = append(out, repr.Update{Row: gu.out, Time: s.t, Diff: -1})
			}
			if cur != nil {
				out = append(out, repr.Update{Row: cur, Time: s.t, Diff: 1})
			}
		}
		o.logGroup(s, g)
		o.logScales(s, g, o.wordUndo[gu.off:gu.off+o.arena.words])
	}
	for _, eu := range o.etouched {
		if o.inRuns(eu.slot) {
			o.runEntry(s, eu.g, eu.slot, eu.e)
			continue
		}
		o.logEntry(s, eu.g, eu.slot, eu.e)
	}
	if o.deferOK && o.slotRuns != nil {
		for i := range o.touched {
			if g := o.touched[i].g; !g.in {
				o.freeRuns(s, g)
			}
		}
	}
	return out, nil
}

// forgetEmpty resets the accumulators of g with no live input, so that
// float rounding left by retractions does not outlive the values
// (mid-Step a count of zero proves nothing: a deletion may precede its
// insertion within a batch). N is the first word of every packed class
// but AccNone, which has none.
func (o *reduceOp) forgetEmpty(g *group) {
	w, d := o.arena.wordsOf(g.id), o.arena.decsOf(g.id)
	for ai := range o.aggs {
		a := &o.aggs[ai]
		c := a.call.Class
		if c.Words() > 0 && w[a.woff] == 0 {
			clear(w[a.woff : a.woff+c.Words()])
			clear(d[a.doff : a.doff+c.Decs()])
		}
	}
}

// output computes g's output row, nil if the group is empty.
func (o *reduceOp) output(slab *rowSlab, g *group) (repr.Row, error) {
	if !o.global && g.rows <= 0 {
		return nil, nil
	}
	r := slab.row(o.width)
	nk := len(o.spec.Key)
	if err := repr.DecodeDatums(r[:nk], g.enc[g.klen:], &slab.decs); err != nil {
		return nil, err
	}
	for ai := range o.aggs {
		if a := &o.aggs[ai]; a.directPos >= 0 && !a.setDirect(r[:nk]) {
			r[nk+ai] = repr.Null
			continue
		}
		v, err := o.result(g, ai, &slab.decs)
		if err != nil {
			return nil, err
		}
		r[nk+ai] = v
	}
	return r, nil
}

// result computes aggregate ai of g with its registry's Final function,
// taking the result's decimal (if any) from decs.
func (o *reduceOp) result(g *group, ai int, decs *repr.DecimalSlab) (repr.Datum, error) {
	a := &o.aggs[ai]
	sets := o.sets(g)
	a.call.Scale = o.maxScale(g, sets, a)
	a.call.Decs = decs
	o.vs = msValues{extremum: o.spec.AppendOnly && a.def.Extremum != 0}
	if a.valSlot >= 0 {
		o.vs.ms = sets[a.valSlot]
	}
	o.ac = o.acc(g, a)
	return a.def.Final(&a.call, &o.ac, &o.vs)
}

// logGroup frees g if it is empty, then logs its record (or deletion),
// or marks it dirty when the Step defers group records (reduce_defer.go).
func (o *reduceOp) logGroup(s *stepCtx, g *group) {
	if g.rows == 0 && !o.global {
		delete(o.groups, g.key())
		g.in = false
	}
	if o.defers(s) {
		o.markDirty(s, g)
		return
	}
	o.logGroupRecord(s, g)
	if len(o.dirty) > 0 && o.sp == nil {
		// The flush logs the record again, after the deletion it may owe
		// a group of the same key that an earlier Step freed.
		o.markDirty(s, g)
	}
}

// logGroupRecord logs g's current state, or its deletion if g was freed
// (is no longer in o.groups). The logged row starts with the key columns,
// whose value encoding g keeps.
func (o *reduceOp) logGroupRecord(s *stepCtx, g *group) {
	o.kbuf = append(append(append(o.kbuf[:0], s.prefix...), tagGroup), g.key()...)
	if !g.in {
		s.log.del(o.kbuf)
		return
	}
	r := append(o.scratch[:0], repr.NewInt(g.rows))
	for ai := range o.aggs {
		a := &o.aggs[ai]
		ac := o.acc(g, a)
		r = a.call.Class.Append(r, &ac)
	}
	o.scratch = r
	o.vbuf = repr.AppendRowHeader(o.vbuf[:0], len(o.spec.Key)+len(r))
	o.vbuf = append(o.vbuf, g.enc[g.klen:]...)
	o.vbuf = repr.AppendDatums(o.vbuf, r)
	s.log.set(o.kbuf, o.vbuf)
}

// logEntry logs a multiset entry (or its deletion) and frees it if empty.
func (o *reduceOp) logEntry(s *stepCtx, g *group, slot int, e *mentry) {
	o.kbuf = append(append(append(o.kbuf[:0], s.prefix...), tagEntry), g.key()...)
	o.kbuf = append(append(o.kbuf, byte(slot)), e.key...)
	if e.n == 0 || !g.in {
		s.log.del(o.kbuf)
		if e.in {
			o.sets(g)[slot].remove(e)
		}
		return
	}
	r := append(o.scratch[:0], repr.NewInt(int64(g.klen)), repr.NewInt(e.n), e.val, e.separator())
	o.scratch = r
	o.vbuf = repr.AppendRow(o.vbuf[:0], r)
	s.log.set(o.kbuf, o.vbuf)
}

// dropEmpty removes entry e of slot of g from its multiset once it has no
// copies left or its group was freed.
func (o *reduceOp) dropEmpty(g *group, slot int, e *mentry) {
	if (e.n == 0 || !g.in) && e.in {
		o.sets(g)[slot].remove(e)
	}
}

// commit forgets the record of the Step, releasing the ids of the groups
// it freed; the record's rows and pointers are cleared so that they do
// not pin the Step's rows until a later Step overwrites them.
func (o *reduceOp) commit() {
	for i := range o.touched {
		if g := o.touched[i].g; !g.in {
			o.arena.release(g.id)
		}
	}
	o.outs.commit()
	o.runsConverted(true)
	o.lazyEnded(false)
	o.forget()
	if o.sp != nil {
		o.sp.trim(o)
	}
}

// forget clears the record of the pending Step.
func (o *reduceOp) forget() {
	clear(o.touched)
	clear(o.decUndo)
	clear(o.etouched)
	clear(o.kadded)
	o.touched, o.wordUndo, o.decUndo = o.touched[:0], o.wordUndo[:0], o.decUndo[:0]
	o.etouched, o.kadded = o.etouched[:0], o.kadded[:0]
}

// rollback restores every touched entry and group, newest first, and
// releases the ids of the groups the Step created.
func (o *reduceOp) rollback() {
	for _, k := range o.kadded {
		delete(o.sets(k.g)[k.slot].keys, k.key)
	}
	o.lazyEnded(true)
	for i := len(o.etouched) - 1; i >= 0; i-- {
		eu := &o.etouched[i]
		eu.e.n = eu.n
		ms := o.sets(eu.g)[eu.slot]
		switch {
		case !eu.existed && eu.e.in:
			ms.remove(eu.e)
		case eu.existed && !eu.e.in:
			ms.insert(eu.e)
		}
	}
	// Only once every count is restored: an insertion above may have
	// cached extrema from counts not yet restored.
	for i := range o.etouched {
		eu := &o.etouched[i]
		o.sets(eu.g)[eu.slot].invalidate()
	}
	for i := len(o.touched) - 1; i >= 0; i-- {
		gu := &o.touched[i]
		g := gu.g
		g.rows = gu.rows
		copy(o.arena.wordsOf(g.id), o.wordUndo[gu.off:gu.off+o.arena.words])
		copy(o.arena.decsOf(g.id), o.decUndo[gu.doff:gu.doff+o.arena.decs])
		switch {
		case !gu.existed && g.in:
			delete(o.groups, g.key())
			g.in = false
		case gu.existed && !g.in:
			o.groups[g.key()] = g
			g.in = true
		}
		if !gu.existed {
			o.arena.release(g.id)
		}
	}
	o.outs.rollback()
	o.runsConverted(false)
	o.forget()
}
