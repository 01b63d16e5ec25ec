package exec

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// spillPlans are the joins TestSpilledJoinEqualsInMemory runs: inner with
// a residual, outer (%j), a self-join, a two-column key, and a join under
// a Reduce. Sources have columns (k int4, v int4, s text).
var spillPlans = []string{
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#0=#0] residual=[(#1 <= (#4 + %a))] <- %0, %1`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=%j on=[#0=#0] residual=[(#1 <> #4)] <- %0, %1`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Join kind=inner on=[#0=#0] <- %0, %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=%j on=[#0=#0, #2=#2] <- %0, %1`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=%j on=[#1=#1] <- %0, %1
%3 = Reduce key=[#2] aggs=[count(*), sum(#4)] <- %2`,
}

// spillRun is one run of TestSpilledJoinEqualsInMemory: an in-memory
// dataflow and one that spills, fed the same steps, each logging to its
// own store, checkpointed together.
type spillRun struct {
	plan              *dataflow.Plan
	mem, sp           *Dataflow
	memStore, spStore *memStore
	memPend, spPend   opBatch
	live              map[repr.CollectionID][]repr.Update
	// appendOnly makes every batch insert only (append-only plans).
	appendOnly bool
	// win draws the input of plans with watermarks (their rows and
	// watermarks: windowRun.randomInput); nil for the others.
	win *windowRun
	// draw, if set, draws every Step's input instead.
	draw             func(rng *rand.Rand, t uint64) Input
	spilled          bool
	loads, evictions int64
	// spilledOps counts the spills of each operator type.
	spilledOps map[string]int
	// lag lets the spilled store hold keys the in-memory one lacks (rows
	// whose close a spilled join deferred); lagged counts the
	// checkpoints where it did.
	lag    bool
	lagged int
}

// TestSpilledJoinEqualsInMemory checks, over random plans and random
// update streams (inserts, deletes, rolled-back Steps), that a join whose
// arrangements spill (at random checkpoints, with caches from nothing to
// a few keys, restarted at random within a random memory bound) emits
// exactly what the same join in memory emits, and logs exactly the same
// state.
func TestSpilledJoinEqualsInMemory(t *testing.T) { checkSpilledEqualsInMemory(t, spillPlans, false) }

// TestSpilledAppendJoinEqualsInMemory is TestSpilledJoinEqualsInMemory
// for append-only joins (appendJoin) and insert-only streams: the
// appendJoin plans of TestAppendJoinEqualsJoin whose residuals cannot
// fail.
func TestSpilledAppendJoinEqualsInMemory(t *testing.T) {
	runs := checkSpilledEqualsInMemory(t, appendJoinPlans[1:], true)
	for _, r := range runs {
		last := unsharded(r.sp.ops[len(r.sp.ops)-1])
		if _, ok := last.(*appendJoin); !ok && !strings.Contains(r.plan.String(), "Reduce") {
			t.Fatalf("the last node runs as %T, not an appendJoin", last)
		}
	}
}

// TestSpilledAppendJoinSparseKeysEqualsInMemory is
// TestSpilledAppendJoinEqualsInMemory over keys drawn from a wide range,
// with a filter that keeps a few right rows, as q20 joins every bid with
// the few auctions of one category: most probes, from either side, find
// a key the other side never stored, which the spilled join's key
// filters answer without reading the store. Restores within a bound build
// those filters from the store.
func TestSpilledAppendJoinSparseKeysEqualsInMemory(t *testing.T) {
	const plan = `%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = MFP filter=[(#1 > %a)] <- %1
%3 = Join kind=inner on=[#0=#0] append-only=true <- %0, %2`
	var filtered int
	runs := checkSpilled(t, []string{plan}, func(text string, rng *rand.Rand) (*spillRun, error) {
		r, err := newSpillRun(text, true)
		if err != nil {
			return nil, err
		}
		keys := 8 + rng.IntN(120)
		r.draw = func(rng *rand.Rand, t uint64) Input {
			batch := map[repr.CollectionID][]repr.Update{}
			for range rng.IntN(11) {
				c := repr.CollectionID(1 + rng.IntN(2))
				row := randomRow(rng)
				if !row[0].IsNull() {
					row[0] = repr.NewInt(int64(rng.IntN(keys)))
				}
				batch[c] = append(batch[c], repr.Update{Row: row, Time: t, Diff: int64(1 + rng.IntN(2))})
			}
			return Input{Updates: batch}
		}
		if r, err = r.run(rng, []int64{0, 300, 3000}[rng.IntN(3)]); err != nil {
			return nil, err
		}
		n, err := checkKeyFilters(r.sp)
		filtered += n
		return r, err
	})
	if filtered == 0 {
		t.Fatalf("no spilled join's key filters ruled a key out (%d runs)", len(runs))
	}
}

// TestSpilledAppendJoinFilterAddsEachKeyOnce checks that a key whose
// tail comes and goes with every checkpoint (a hot auction's bids, the
// other side never matching) enters its side's key filter once: 5,000
// checkpoints of rows of the same four keys leave the filter its first
// layer (4,096 keys), where adding the key per tail would grow it.
func TestSpilledAppendJoinFilterAddsEachKeyOnce(t *testing.T) {
	r, err := newSpillRun(`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#0=#0] append-only=true <- %0, %1`, true)
	if err != nil {
		t.Fatal(err)
	}
	var before int64
	for i := range 5000 {
		in := map[repr.CollectionID][]repr.Update{1: {{Row: repr.Row{repr.NewInt(int64(i % 4)), repr.NewInt(int64(i)), repr.NewText("a")}, Diff: 1}}}
		if err := r.feed(uint64(i+1), Input{Updates: in}, false); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		r.memPend.apply(r.memStore)
		r.spPend.apply(r.spStore)
		r.memPend.ops, r.spPend.ops = nil, nil
		r.sp.Flushed()
		if i == 0 {
			if !r.sp.SpillNode(2, r.spStore, 1<<20) {
				t.Fatal("the join did not spill")
			}
			before = leftFilterBytes(r.sp.ops[2])
		}
	}
	if after := leftFilterBytes(r.sp.ops[2]); after != before {
		t.Fatalf("the left side's key filter grew from %d to %d bytes over four keys", before, after)
	}
}

// leftFilterBytes sums the left key filters' bytes of an appendJoin's
// shards (or of the join alone).
func leftFilterBytes(op operator) int64 {
	var n int64
	for _, o := range shardsOf(op) {
		n += o.(*appendJoin).filters[0].Bytes()
	}
	return n
}

// checkKeyFilters checks d's spilled appendJoins' key filters: every
// key with a bucket in memory (resident or a tail) must be in its side's
// filter, or the store could come to hold rows the filter rules out. It
// returns how many of those joins rule out a key no run ever draws, to
// show the filters answer "absent" at all.
func checkKeyFilters(d *Dataflow) (int, error) {
	n := 0
	never := repr.AppendColsKey(nil, repr.Row{repr.NewInt(1 << 40)}, []int{0})
	for _, o := range appendJoinsOf(d) {
		if o.sp == nil {
			continue
		}
		for side := range o.sides {
			for k := range o.sides[side].buckets {
				if !o.filters[side].MayContain([]byte(k)) {
					return n, fmt.Errorf("side %d's bucket of key %q is not in its key filter", side, k)
				}
			}
		}
		if !o.filters[0].MayContain(never) && !o.filters[1].MayContain(never) {
			n++
		}
	}
	return n, nil
}

// appendJoinsOf returns d's appendJoins, each shard of a sharded one.
func appendJoinsOf(d *Dataflow) []*appendJoin {
	var out []*appendJoin
	for _, op := range d.ops {
		for _, o := range shardsOf(op) {
			if a, ok := o.(*appendJoin); ok {
				out = append(out, a)
			}
		}
	}
	return out
}

// checkSpilledEqualsInMemory runs 50 random instances of plans in
// memory and spilled (runSpilled; insert-only batches when appendOnly),
// and fails unless they agree and some state spilled, loaded and was
// evicted. It returns the runs.
func checkSpilledEqualsInMemory(t *testing.T, plans []string, appendOnly bool) []*spillRun {
	return checkSpilled(t, plans, func(text string, rng *rand.Rand) (*spillRun, error) {
		return runSpilled(text, rng, appendOnly)
	})
}

// checkSpilled runs 50 random instances of plans through run, and fails
// unless some state spilled, loaded and was evicted. It returns the
// runs.
func checkSpilled(t *testing.T, plans []string, run func(text string, rng *rand.Rand) (*spillRun, error)) []*spillRun {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	var spilled, loads, evictions int64
	var runs []*spillRun
	for iter := range 50 {
		text := instantiate(plans[iter%len(plans)], rng)
		r, err := run(text, rng)
		if err != nil {
			t.Fatalf("seed %d, plan:\n%s\n%v", seed, text, err)
		}
		if r.spilled {
			spilled++
		}
		loads, evictions = loads+r.loads, evictions+r.evictions
		runs = append(runs, r)
	}
	t.Logf("%d runs spilled, %d loads, %d evictions", spilled, loads, evictions)
	if spilled == 0 || loads == 0 || evictions == 0 {
		t.Fatalf("seed %d: nothing exercised: %d runs spilled, %d loads, %d evictions", seed, spilled, loads, evictions)
	}
	return runs
}

// runSpilled runs 60 random steps of plan text (insert-only batches when
// appendOnly, event-time rows and watermarks for plans with watermarks).
func runSpilled(text string, rng *rand.Rand, appendOnly bool) (*spillRun, error) {
	r, err := newSpillRun(text, appendOnly)
	if err != nil {
		return nil, err
	}
	return r.run(rng, []int64{0, 300, 3000}[rng.IntN(3)])
}

// run runs 60 random steps, checkpointing after a third of them, with
// spilled operators caching cache bytes.
func (r *spillRun) run(rng *rand.Rand, cache int64) (*spillRun, error) {
	for step := uint64(1); step <= 60; step++ {
		if err := r.step(rng, step); err != nil {
			return nil, fmt.Errorf("step %d: %w", step, err)
		}
		if rng.IntN(3) == 0 {
			if err := r.checkpoint(rng, cache); err != nil {
				return nil, fmt.Errorf("checkpoint after step %d: %w", step, err)
			}
		}
	}
	_, l, e := r.sp.SpillStats()
	r.loads, r.evictions = r.loads+l, r.evictions+e
	return r, nil
}

// newSpillRun builds plan text twice, in memory and to spill.
func newSpillRun(text string, appendOnly bool) (*spillRun, error) {
	p, err := dataflow.Parse(text)
	if err != nil {
		return nil, err
	}
	r := &spillRun{plan: p, memStore: newMemStore(), spStore: newMemStore(), live: map[repr.CollectionID][]repr.Update{},
		appendOnly: appendOnly, spilledOps: map[string]int{}}
	if r.mem, err = Build(p); err != nil {
		return nil, err
	}
	if r.sp, err = Build(p); err != nil {
		return nil, err
	}
	if strings.Contains(text, "watermark=") {
		r.win = &windowRun{d: r.mem, wm: map[repr.CollectionID]int64{}, inputs: map[repr.CollectionID][]repr.Update{}}
	}
	return r, nil
}

// step feeds both dataflows one random batch and compares their outputs;
// one Step in six is rolled back.
func (r *spillRun) step(rng *rand.Rand, t uint64) error {
	return r.feed(t, r.input(rng, t), rng.IntN(6) == 0)
}

// feed feeds both dataflows in at time t, compares their outputs, and
// rolls both Steps back (rollback) or commits them.
func (r *spillRun) feed(t uint64, in Input, rollback bool) error {
	batch := in.Updates
	var memW, spW opBatch
	memOut, err := r.mem.StepInput(nil, t, in, &memW)
	if err != nil {
		return err
	}
	spOut, err := r.sp.StepInput(nil, t, in, &spW)
	if err != nil {
		return err
	}
	if a, b := formatUpdates(memOut), formatUpdates(spOut); a != b {
		return fmt.Errorf("in memory:\n%s\nspilled:\n%s", a, b)
	}
	a, aok := r.mem.NextTransition()
	if b, bok := r.sp.NextTransition(); a != b || aok != bok {
		return fmt.Errorf("next transition in memory %d %t, spilled %d %t", a, aok, b, bok)
	}
	if rollback {
		r.mem.Rollback()
		r.sp.Rollback()
		return nil
	}
	r.mem.Commit()
	r.sp.Commit()
	r.memPend.ops = append(r.memPend.ops, memW.ops...)
	r.spPend.ops = append(r.spPend.ops, spW.ops...)
	for c, us := range batch {
		for _, u := range us { // live rows' net counts, whatever their times
			u.Time = 0
			r.live[c] = append(r.live[c], u)
		}
		r.live[c] = Consolidate(r.live[c])
	}
	if r.win != nil {
		r.win.committed(in)
	}
	return nil
}

// input draws the next Step's input: a random batch, or for windowed
// plans rows at or above the watermarks and advanced watermarks (past
// every window at the last step).
func (r *spillRun) input(rng *rand.Rand, t uint64) Input {
	if r.draw != nil {
		return r.draw(rng, t)
	}
	if r.win == nil {
		return Input{Updates: r.batch(rng, t)}
	}
	in := r.win.randomInput(rng, t, t == 60)
	r.win.dropNegative(in)
	return in
}

// compareStores fails unless the two stores are equal or, with r.lag,
// the spilled one holds the in-memory one (equal values) and more.
func (r *spillRun) compareStores() error {
	equal := func(a, b []byte) bool { return string(a) == string(b) }
	if maps.EqualFunc(r.memStore.m, r.spStore.m, equal) {
		return nil
	}
	if r.lag {
		held := true
		for k, v := range r.memStore.m {
			if w, ok := r.spStore.m[k]; !ok || !equal(v, w) {
				held = false
			}
		}
		if held {
			r.lagged++
			return nil
		}
	}
	return fmt.Errorf("stores differ:\nin memory %d keys, spilled %d keys", len(r.memStore.m), len(r.spStore.m))
}

// checkpoint writes both pending batches to their stores, compares the
// stores, tells the spilling dataflow, and at random spills its joins or
// restarts it within a random bound.
func (r *spillRun) checkpoint(rng *rand.Rand, cache int64) error {
	r.memPend.apply(r.memStore)
	r.spPend.apply(r.spStore)
	r.memPend.ops, r.spPend.ops = nil, nil
	if err := r.compareStores(); err != nil {
		return err
	}
	r.sp.Flushed()
	switch rng.IntN(4) {
	case 0:
		for _, c := range r.sp.SpillCandidates() {
			if r.sp.SpillNode(c.Node, r.spStore, cache) {
				r.spilled = true
				r.spilledOps[fmt.Sprintf("%T", unsharded(r.sp.ops[c.Node]))]++
				if j := closingJoin(unsharded(r.sp.ops[c.Node])); j != nil && j.sp.skip != [2]bool{} {
					r.spilledOps["small side kept"]++
				}
			}
		}
	case 1:
		_, l, e := r.sp.SpillStats()
		r.loads, r.evictions = r.loads+l, r.evictions+e
		d, err := Build(r.plan)
		if err != nil {
			return err
		}
		if _, err := d.RestoreWithin(r.spStore, int64(rng.IntN(600))-100, cache); err != nil {
			return err
		}
		r.sp = d
		for _, n := range d.SpilledNodes() {
			r.spilled = true
			r.spilledOps[fmt.Sprintf("%T", unsharded(d.ops[n]))]++
		}
	}
	return nil
}

// batch draws up to 10 updates: inserts of random rows, or deletes of
// live ones.
func (r *spillRun) batch(rng *rand.Rand, t uint64) map[repr.CollectionID][]repr.Update {
	out := map[repr.CollectionID][]repr.Update{}
	srcs := r.mem.Sources()
	for range rng.IntN(11) {
		c := srcs[rng.IntN(len(srcs))]
		if live := r.live[c]; len(live) > 0 && !r.appendOnly && rng.IntN(3) == 0 {
			u := live[rng.IntN(len(live))]
			if !slices.ContainsFunc(out[c], func(v repr.Update) bool { return v.Diff < 0 && repr.CompareRows(v.Row, u.Row) == 0 }) {
				out[c] = append(out[c], repr.Update{Row: u.Row, Time: t, Diff: -1})
			}
			continue
		}
		out[c] = append(out[c], repr.Update{Row: randomRow(rng), Time: t, Diff: int64(1 + rng.IntN(2))})
	}
	return out
}

// scanCounter is a StateReader that counts the scans of each tag of a
// node's state (the byte after the node's prefix).
// With rows set, it also counts the rows those scans read.
type scanCounter struct {
	StateReader
	node  []byte
	scans map[byte]int
	rows  map[byte]int
}

func (c *scanCounter) Scan(prefix []byte, fn func(key, value []byte) error) error {
	if len(prefix) <= len(c.node) || string(prefix[:len(c.node)]) != string(c.node) {
		return c.StateReader.Scan(prefix, fn)
	}
	tag := prefix[len(c.node)]
	c.scans[tag]++
	if c.rows == nil {
		return c.StateReader.Scan(prefix, fn)
	}
	return c.StateReader.Scan(prefix, func(k, v []byte) error {
		c.rows[tag]++
		return fn(k, v)
	})
}

// ScanFrom counts as Scan, by the tag of from (a closing range scan's
// tag is prefix's last byte).
func (c *scanCounter) ScanFrom(prefix, from []byte, fn func(key, value []byte) error) error {
	if len(from) <= len(c.node) || string(from[:len(c.node)]) != string(c.node) {
		return c.StateReader.ScanFrom(prefix, from, fn)
	}
	tag := from[len(c.node)]
	c.scans[tag]++
	if c.rows == nil {
		return c.StateReader.ScanFrom(prefix, from, fn)
	}
	return c.StateReader.ScanFrom(prefix, from, func(k, v []byte) error {
		c.rows[tag]++
		return fn(k, v)
	})
}

// TestSpilledAppendJoinLoadsOnlyTheProbedSide checks that a spilled
// appendJoin reads back only the other side's rows of an update's key
// (tag 1: left, 2: right), and only keys its side's key filter does not
// rule out: new left rows read nothing while the right side has no rows
// (its filter is empty), never the left's; a right row then loads the
// left side's rows of its key, the store's in front of those appended
// since the checkpoint, joining them all as in memory; once the right
// side's rows are in the store, left rows load the keys they have (2,
// 3), not others (7); a right row of a key only a tail holds (7) still
// scans (the filter took the key as the tail began), one the left never
// had (8) reads nothing.
func TestSpilledAppendJoinLoadsOnlyTheProbedSide(t *testing.T) {
	r, err := newSpillRun(`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#0=#0] append-only=true <- %0, %1`, true)
	if err != nil {
		t.Fatal(err)
	}
	row := func(k, v int64) repr.Update {
		return repr.Update{Row: repr.Row{repr.NewInt(k), repr.NewInt(v), repr.NewText("a")}, Diff: 1}
	}
	left := func(us ...repr.Update) map[repr.CollectionID][]repr.Update {
		return map[repr.CollectionID][]repr.Update{1: us}
	}
	right := func(us ...repr.Update) map[repr.CollectionID][]repr.Update {
		return map[repr.CollectionID][]repr.Update{2: us}
	}
	checkpoint := func() {
		r.memPend.apply(r.memStore)
		r.spPend.apply(r.spStore)
		r.memPend.ops, r.spPend.ops = nil, nil
		r.sp.Flushed()
	}
	sc := &scanCounter{StateReader: r.spStore, node: nodePrefix(nil, 2), scans: map[byte]int{}}
	steps := []struct {
		batch        map[repr.CollectionID][]repr.Update
		checkpoint   bool
		lscan, rscan int // the scans of each side so far
	}{
		{batch: left(row(1, 1), row(2, 1), row(3, 1)), checkpoint: true},
		{batch: left(row(1, 2), row(2, 2), row(3, 2))},
		{batch: left(row(2, 3))},
		{batch: right(row(2, 0)), lscan: 1, checkpoint: true},
		{batch: right(row(3, 0), row(2, 9)), lscan: 2, checkpoint: true},
		{batch: left(row(2, 4), row(7, 1), row(3, 4)), lscan: 2, rscan: 2},
		{batch: right(row(7, 0), row(8, 0)), lscan: 3, rscan: 2},
	}
	for i, st := range steps {
		if i == 1 && !r.sp.SpillNode(2, sc, 1<<20) {
			t.Fatal("the join did not spill")
		}
		if err := r.feed(uint64(i+1), Input{Updates: st.batch}, false); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if sc.scans[1] != st.lscan || sc.scans[2] != st.rscan {
			t.Fatalf("step %d: %d scans of the left side, %d of the right, want %d and %d", i+1, sc.scans[1], sc.scans[2], st.lscan, st.rscan)
		}
		if st.checkpoint {
			checkpoint()
		}
	}
}
