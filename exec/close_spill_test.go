package exec

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// closingJoinPlans are the plans of intervalPlans with an interval join
// (q4, q9 and q7 shapes, outer joins with strict bounds, a bound on an
// equi-join key, q5 over a join) and the window join of windowPlans (q8).
var closingJoinPlans = []string{
	intervalPlans[0], intervalPlans[1], intervalPlans[2], intervalPlans[3],
	intervalPlans[4], intervalPlans[5], intervalPlans[7], windowPlans[3],
}

// TestSpilledClosingJoinEqualsInMemory is TestSpilledJoinEqualsInMemory
// for interval and window joins over event-time streams whose
// watermarks advance at random: spilled (at random checkpoints, or by a
// restart within a random bound) a join frees exactly the rows the same
// join in memory frees, at the same Steps (the logged state, deletions
// included, is compared at every checkpoint), and emits the same rows.
func TestSpilledClosingJoinEqualsInMemory(t *testing.T) {
	runs := checkSpilled(t, closingJoinPlans, func(text string, rng *rand.Rand) (*spillRun, error) {
		return runSpilled(strings.ReplaceAll(text, "%e", ""), rng, false)
	})
	spilled := map[string]int{}
	for _, r := range runs {
		for op, n := range r.spilledOps {
			spilled[op] += n
		}
	}
	t.Logf("spills by operator: %v", spilled)
	for _, op := range []string{"*exec.intervalJoin", "*exec.windowJoin", "small side kept"} {
		if spilled[op] == 0 {
			t.Errorf("no %s spilled", op)
		}
	}
}

// TestSpilledCloseSpreadsOverSteps is TestSpilledClosingJoinEqualsInMemory
// with spilled closes of at most 2 rows per Step (spillCloseRows): the
// spilled join emits exactly what the join in memory emits at every
// Step, its logged state holds the in-memory state and the rows whose
// close it deferred, and once Steps without input have let it free them
// all, it is the same state. Its close indexes rebuild their keys at
// every commit (keysRebuildMin 0).
func TestSpilledCloseSpreadsOverSteps(t *testing.T) {
	defer func(n, k int) { spillCloseRows, keysRebuildMin = n, k }(spillCloseRows, keysRebuildMin)
	spillCloseRows, keysRebuildMin = 2, 0
	lagged, drained := 0, 0
	checkSpilled(t, closingJoinPlans, func(text string, rng *rand.Rand) (*spillRun, error) {
		r, err := newSpillRun(strings.ReplaceAll(text, "%e", ""), false)
		if err != nil {
			return nil, err
		}
		r.lag = true
		if r, err = r.run(rng, []int64{0, 300, 3000}[rng.IntN(3)]); err != nil {
			return nil, err
		}
		n, err := r.drainCloses()
		lagged, drained = lagged+r.lagged, drained+n
		return r, err
	})
	// Sides keyed by time (join_time.go) delete a closed bucket's stored
	// rows at once, so only the names lag, not the store (lagged counts
	// checkpoints whose spilled store held deferred rows).
	t.Logf("%d checkpoints with deferred closes in the store, %d Steps to catch up", lagged, drained)
	if drained <= 50 {
		t.Fatal("no close was deferred")
	}
}

// drainCloses feeds r Steps without input, their watermarks past every
// row, until no spilled close index holds a row (at least one Step: a
// join restored in memory holds the deferred rows in its in-memory
// index), then checks that both stores are equal; it returns the Steps
// it took.
func (r *spillRun) drainCloses() (int, error) {
	wm := map[repr.CollectionID]int64{}
	for _, c := range r.sp.Sources() {
		wm[c] = r.win.wm[c] + 10_000*int64(time.Second/time.Microsecond)
	}
	steps := 0
	for t := uint64(61); t == 61 || pendingCloses(r.sp) > 0; t++ {
		if steps++; steps > 1000 {
			return steps, fmt.Errorf("%d closes still pending after %d Steps", pendingCloses(r.sp), steps)
		}
		in := Input{Updates: map[repr.CollectionID][]repr.Update{}, Watermarks: maps.Clone(wm)}
		if err := r.feed(t, in, false); err != nil {
			return steps, fmt.Errorf("draining step %d: %w", t, err)
		}
	}
	r.lag = false
	return steps, r.checkpoint(rand.New(rand.NewPCG(1, 1)), 0)
}

// pendingCloses counts the names filed in d's spilled close indexes.
func pendingCloses(d *Dataflow) int {
	n := 0
	for _, op := range d.ops {
		n += pendingClosesOf(op)
	}
	return n
}

// pendingClosesOf counts the names filed in op's spilled close indexes
// (in every shard's, when op is sharded).
func pendingClosesOf(op operator) int {
	n := 0
	switch o := op.(type) {
	case *shardedOp:
		for _, sh := range o.shards {
			n += pendingClosesOf(sh.op)
		}
	case *intervalJoin:
		for _, b := range o.bounds {
			n += b.idx.sp.pending()
		}
	case *windowJoin:
		n += o.idx[0].sp.pending() + o.idx[1].sp.pending()
	}
	return n
}

// keyByJoinKey makes node's window or interval join (every shard's) log
// its state keyed by join key, as joins did before they were keyed by
// time (and as joins restored from such state still do), in both of r's
// dataflows: white-box, before any Step.
func (r *spillRun) keyByJoinKey(node int) {
	for _, d := range []*Dataflow{r.mem, r.sp} {
		ops := []operator{d.ops[node]}
		if s, ok := d.ops[node].(*shardedOp); ok {
			ops = ops[:0]
			for _, sh := range s.shards {
				ops = append(ops, sh.op)
			}
		}
		for _, op := range ops {
			closingJoin(op).tm = nil
		}
	}
}

// closingJoin returns the joinOp of a window or interval join, nil for
// other operators.
func closingJoin(op operator) *joinOp {
	switch o := op.(type) {
	case *intervalJoin:
		return o.joinOp
	case *windowJoin:
		return o.joinOp
	}
	return nil
}

// TestUnkeyedIntervalStateRestores checks that an interval join's state
// logged by row key alone (tags 1 and 2, as before interval joins logged
// by join key) restores as it was logged: the restored join keeps that
// layout, frees the same rows, and never offers to spill.
func TestUnkeyedIntervalStateRestores(t *testing.T) {
	p, err := dataflow.Parse(q7Plan)
	if err != nil {
		t.Fatal(err)
	}
	old, err := BuildWorkers(p, 1) // white-box: one operator per node
	if err != nil {
		t.Fatal(err)
	}
	old.ops[3].(*intervalJoin).keyed = false // the layout before
	old.ops[3].(*intervalJoin).tm = nil
	store := newMemStore()
	var ctx expr.Ctx
	step := func(d *Dataflow, store *memStore, ts uint64, wm int64) error {
		var bids []repr.Update
		for i := range int64(10) {
			n := int64(ts)*10 + i
			bids = append(bids, repr.Update{Row: repr.Row{repr.NewInt(n), repr.NewInt(n % 4), repr.NewTimestamp(n * 100 * usPerMs)}, Time: ts, Diff: 1})
		}
		var w opBatch
		in := Input{Updates: map[repr.CollectionID][]repr.Update{1: bids}, Watermarks: map[repr.CollectionID]int64{1: wm}}
		if _, err := d.StepInput(&ctx, ts, in, &w); err != nil {
			return err
		}
		d.Commit()
		w.apply(store)
		return nil
	}
	for ts := uint64(1); ts <= 20; ts++ {
		if err := step(old, store, ts, int64(ts)*1000*usPerMs); err != nil {
			t.Fatal(err)
		}
	}
	pfx := string(nodePrefix(nil, 3))
	for k := range store.m {
		if strings.HasPrefix(k, pfx) && k[len(pfx)] > 2 {
			t.Fatalf("the unkeyed join logged tag %d", k[len(pfx)])
		}
	}
	d, err := BuildWorkers(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.RestoreWithin(store, 0, 0); err != nil {
		t.Fatal(err)
	}
	j := d.ops[3].(*intervalJoin)
	if j.keyed || j.sp != nil || j.sides[0].live != old.ops[3].(*intervalJoin).sides[0].live {
		t.Fatalf("restored join: keyed %t, spilled %t, %d bids arranged (want unkeyed, in memory, %d)",
			j.keyed, j.sp != nil, j.sides[0].live, old.ops[3].(*intervalJoin).sides[0].live)
	}
	for _, c := range d.SpillCandidates() {
		if c.Node == 3 {
			t.Fatal("the unkeyed interval join is a spill candidate")
		}
	}
	oldStore := newMemStore()
	maps.Copy(oldStore.m, store.m)
	for ts := uint64(21); ts <= 30; ts++ {
		if err := step(d, store, ts, int64(ts)*1000*usPerMs); err != nil {
			t.Fatal(err)
		}
		if err := step(old, oldStore, ts, int64(ts)*1000*usPerMs); err != nil {
			t.Fatal(err)
		}
	}
	if !maps.EqualFunc(store.m, oldStore.m, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Fatal("the restored join's state differs from the one that ran on")
	}
	if got := j.sides[0].live; got == 0 || got >= 300 {
		t.Fatalf("%d bids arranged after 300 bids and watermarks, want some freed of 300", got)
	}
}

// TestSpilledIntervalJoinReadsOnlyTheOtherSide checks that q7's spilled
// interval join (its windows kept in memory, its bids spilled: tag 3)
// never loads a price's open bids for a new bid, nor reads its state
// key (joinSpill.rows counts no row of its hash). A bid the store holds
// (a duplicate, a retraction) costs a point read and loads its price's
// bids; closing frees resident bids in memory and the others in the
// store with one scan of their price's keys, decoding none. Outputs and
// logged state equal the in-memory join's.
func TestSpilledIntervalJoinReadsOnlyTheOtherSide(t *testing.T) {
	r, err := newSpillRun(q7Plan, false)
	if err != nil {
		t.Fatal(err)
	}
	r.keyByJoinKey(3)
	bid := func(i, diff int64) repr.Update {
		return repr.Update{Row: repr.Row{repr.NewInt(i), repr.NewInt(1 + i%4), repr.NewTimestamp(i * usPerMs)}, Diff: diff}
	}
	bids := func(from, to int64) []repr.Update {
		var us []repr.Update
		for i := from; i < to; i++ {
			us = append(us, bid(i, 1))
		}
		return us
	}
	checkpoint := func(step int) {
		r.memPend.apply(r.memStore)
		r.spPend.apply(r.spStore)
		r.memPend.ops, r.spPend.ops = nil, nil
		if !maps.EqualFunc(r.memStore.m, r.spStore.m, func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Fatalf("step %d: stores differ: in memory %d keys, spilled %d keys", step, len(r.memStore.m), len(r.spStore.m))
		}
		r.sp.Flushed()
	}
	sc := &scanCounter{StateReader: r.spStore, node: nodePrefix(nil, 3), scans: map[byte]int{}, rows: map[byte]int{}}
	const sec = 1000 * usPerMs
	steps := []struct {
		bids        []repr.Update
		wm          int64
		scans, rows int // of the bids (tag 3) in this Step
	}{
		{bids: bids(1, 101)},
		{bids: bids(101, 201)},
		// A duplicate of a stored bid of price 2 and the retraction of
		// one of price 3 load their prices' 50 stored bids each.
		{bids: []repr.Update{bid(5, 1), bid(102, -1)}, scans: 4, rows: 102},
		// The watermark closes every bid: the new bid opens a window
		// of price 1, which loads that price's bids, so they are freed
		// in memory, as those of 2 and 3; those of 4 are freed in the
		// store, found by one scan of their keys.
		{bids: bids(30000, 30001), wm: 20 * sec, scans: 2, rows: 100},
	}
	for i, st := range steps {
		if i == 1 {
			if !r.sp.SpillNode(3, sc, 1<<20) {
				t.Fatal("the join did not spill")
			}
			if j := unsharded(r.sp.ops[3]).(*intervalJoin); j.sp.skip != [2]bool{false, true} {
				t.Fatalf("spilled sides kept %v, want the windows (right) only", j.sp.skip)
			}
		}
		for j := range st.bids {
			st.bids[j].Time = uint64(i + 1)
		}
		scans, rows := sc.scans[3], sc.rows[3]
		in := Input{Updates: map[repr.CollectionID][]repr.Update{1: st.bids}, Watermarks: map[repr.CollectionID]int64{1: st.wm}}
		if err := r.feed(uint64(i+1), in, false); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if got, want := [2]int{sc.scans[3] - scans, sc.rows[3] - rows}, [2]int{st.scans, st.rows}; got != want {
			t.Errorf("step %d: %d scans of the bids reading %d rows, want %d and %d", i+1, got[0], got[1], want[0], want[1])
		}
		if sc.scans[4] != 0 {
			t.Errorf("step %d: %d scans of the windows, kept in memory", i+1, sc.scans[4])
		}
		checkpoint(i + 1)
	}
	live := liveBids(r.sp)
	if live != 1 {
		t.Errorf("%d bids arranged after closing all but one", live)
	}
}

// TestSpilledClosingDeletesUnread checks the rows a spilled interval
// join frees in the store unread (q9's shape: an auction is freed by the
// bids' watermark while its own lags): until the checkpoint they are
// dead, so that a later equal auction is a new row, as in memory, not
// the stored one again; a rolled-back Step's dead rows revive.
func TestSpilledClosingDeletesUnread(t *testing.T) {
	r, err := newSpillRun(intervalPlans[1], false)
	if err != nil {
		t.Fatal(err)
	}
	r.keyByJoinKey(3)
	const sec = 1000 * usPerMs
	row := func(k, ts int64) repr.Update {
		return repr.Update{Row: repr.Row{repr.NewInt(k), repr.NewInt(1), repr.NewTimestamp(ts * sec)}, Diff: 1}
	}
	auctions, bids := repr.CollectionID(1), repr.CollectionID(2)
	sc := &scanCounter{StateReader: r.spStore, node: nodePrefix(nil, 3), scans: map[byte]int{}, rows: map[byte]int{}}
	steps := []struct {
		in                   Input
		rollback, checkpoint bool
	}{
		{in: Input{Updates: map[repr.CollectionID][]repr.Update{auctions: {row(1, 10), row(2, 30)}, bids: {row(1, 11), row(2, 31)}}}, checkpoint: true},
		// The bids' watermark frees auction 1 unread, rolled back: it
		// lives on, so an equal auction counts twice.
		{in: Input{Watermarks: map[repr.CollectionID]int64{bids: 20 * sec}}, rollback: true},
		{in: Input{Updates: map[repr.CollectionID][]repr.Update{auctions: {row(1, 10)}}}, checkpoint: true},
		{in: Input{Watermarks: map[repr.CollectionID]int64{bids: 20 * sec}}},
		// Auction 1 again, before the checkpoint deletes the first: a
		// new row, freed at once.
		{in: Input{Updates: map[repr.CollectionID][]repr.Update{auctions: {row(1, 10)}}}, checkpoint: true},
		{in: Input{Updates: map[repr.CollectionID][]repr.Update{auctions: {row(1, 10)}}}, checkpoint: true},
	}
	for i, st := range steps {
		for c, us := range st.in.Updates {
			for j := range us {
				us[j].Time = uint64(i + 1)
			}
			st.in.Updates[c] = us
		}
		if err := r.feed(uint64(i+1), st.in, st.rollback); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if i == 0 {
			r.memPend.apply(r.memStore)
			r.spPend.apply(r.spStore)
			r.memPend.ops, r.spPend.ops = nil, nil
			r.sp.Flushed()
			if !r.sp.SpillNode(3, sc, 0) {
				t.Fatal("the join did not spill")
			}
			if j := unsharded(r.sp.ops[3]).(*intervalJoin); j.sp.skip != [2]bool{} {
				t.Fatalf("spilled sides kept %v, want none", j.sp.skip)
			}
			continue
		}
		if st.checkpoint {
			r.memPend.apply(r.memStore)
			r.spPend.apply(r.spStore)
			r.memPend.ops, r.spPend.ops = nil, nil
			if !maps.EqualFunc(r.memStore.m, r.spStore.m, func(a, b []byte) bool { return string(a) == string(b) }) {
				t.Fatalf("step %d: stores differ: in memory %d keys, spilled %d keys", i+1, len(r.memStore.m), len(r.spStore.m))
			}
			r.sp.Flushed()
		}
	}
	// Auction 1's key scanned to close it at steps 2 and 4, its point
	// read and load at step 3; no point read at step 5 (no row of its
	// hash counted).
	if sc.rows[3] != 4 {
		t.Errorf("the auctions' store rows read: %d, want 4", sc.rows[3])
	}
}

// TestSpilledCloseScansKeyRange checks that a spilled close reads the
// stored rows of the names it frees in key order, one range scan over
// their join keys, and seeks instead only past a gap of more than
// closeGap stored keys without names: q7's bids of prices 1 (five), 50
// and 200 close (their times are past) while one bid each of prices 2
// to 45 and 250 stays open, so the close reads price 1's five rows and
// closeGap+1 of the gap, then seeks to price 50 and reads its row, 200's
// and 250's (past its last name). Logged state equals the in-memory
// join's at every checkpoint.
func TestSpilledCloseScansKeyRange(t *testing.T) {
	// The counts are one join's: build unsharded whatever EDDY_WORKERS says.
	defer func(n int) { buildWorkers = n }(buildWorkers)
	buildWorkers = 1
	r, err := newSpillRun(q7Plan, false)
	if err != nil {
		t.Fatal(err)
	}
	r.keyByJoinKey(3)
	const sec = 1000 * usPerMs
	bid := func(id, price, ts int64) repr.Update {
		return repr.Update{Row: repr.Row{repr.NewInt(id), repr.NewInt(price), repr.NewTimestamp(ts)}, Diff: 1}
	}
	var first []repr.Update
	for i := range int64(5) {
		first = append(first, bid(i, 1, (i+1)*usPerMs))
	}
	first = append(first, bid(10, 50, 6*usPerMs), bid(11, 200, 7*usPerMs))
	for p := int64(2); p <= 45; p++ {
		first = append(first, bid(100+p, p, 25*sec))
	}
	first = append(first, bid(1000, 250, 25*sec))
	sc := &scanCounter{StateReader: r.spStore, node: nodePrefix(nil, 3), scans: map[byte]int{}, rows: map[byte]int{}}
	steps := []struct {
		bids        []repr.Update
		wm          int64
		scans, rows int // of the bids (tag 3) in this Step
	}{
		{bids: first},
		{},
		{wm: 20 * sec, scans: 2, rows: 5 + closeGap + 1 + 3},
	}
	for i, st := range steps {
		if i == 1 && !r.sp.SpillNode(3, sc, 1<<20) {
			t.Fatal("the join did not spill")
		}
		for j := range st.bids {
			st.bids[j].Time = uint64(i + 1)
		}
		scans, rows := sc.scans[3], sc.rows[3]
		in := Input{Updates: map[repr.CollectionID][]repr.Update{1: st.bids}, Watermarks: map[repr.CollectionID]int64{1: st.wm}}
		if err := r.feed(uint64(i+1), in, false); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if got, want := [2]int{sc.scans[3] - scans, sc.rows[3] - rows}, [2]int{st.scans, st.rows}; got != want {
			t.Errorf("step %d: %d scans of the bids reading %d rows, want %d and %d", i+1, got[0], got[1], want[0], want[1])
		}
		r.memPend.apply(r.memStore)
		r.spPend.apply(r.spStore)
		r.memPend.ops, r.spPend.ops = nil, nil
		if !maps.EqualFunc(r.memStore.m, r.spStore.m, func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Fatalf("step %d: stores differ: in memory %d keys, spilled %d keys", i+1, len(r.memStore.m), len(r.spStore.m))
		}
		r.sp.Flushed()
	}
	live := liveBids(r.sp)
	if live != 0 {
		t.Errorf("%d bids arranged after the close, want none (every open bid stored)", live)
	}
}

// TestInMemoryCloseBoundedPerStep checks that an in-memory interval
// join frees at most memCloseRows rows per Step (whole values): q7's
// ten due bids, of distinct times, are freed three per Step by the
// Steps that follow the watermark, while the join emits, and logs,
// what the same join freeing them all at once does (the spilled
// run's dataflow, kept in memory, with no bound).
func TestInMemoryCloseBoundedPerStep(t *testing.T) {
	defer func(n int) { memCloseRows = n }(memCloseRows)
	// The bound is per join (per shard): build unsharded whatever EDDY_WORKERS says.
	defer func(n int) { buildWorkers = n }(buildWorkers)
	buildWorkers = 1
	r, err := newSpillRun(q7Plan, false)
	if err != nil {
		t.Fatal(err)
	}
	const sec = 1000 * usPerMs
	var bids []repr.Update
	for i := range int64(10) {
		bids = append(bids, repr.Update{Row: repr.Row{repr.NewInt(i), repr.NewInt(1 + i%3), repr.NewTimestamp((i + 1) * usPerMs)}, Diff: 1})
	}
	bids = append(bids, repr.Update{Row: repr.Row{repr.NewInt(99), repr.NewInt(7), repr.NewTimestamp(25 * sec)}, Diff: 1})
	open := func(d *Dataflow) int {
		n := 0
		for _, op := range shardsOf(d.ops[3]) {
			n += int(op.(*intervalJoin).sides[0].live)
		}
		return n
	}
	wants := []int{11, 8, 5, 2, 1, 1}
	for i, want := range wants {
		in := Input{Updates: map[repr.CollectionID][]repr.Update{}, Watermarks: map[repr.CollectionID]int64{1: 20 * sec}}
		if i == 0 {
			in = Input{Updates: map[repr.CollectionID][]repr.Update{1: bids}}
		}
		for j := range in.Updates[1] {
			in.Updates[1][j].Time = uint64(i + 1)
		}
		memCloseRows = 3 // r.mem's bound; r.sp frees its rows at once
		memOut, err := r.mem.StepInput(nil, uint64(i+1), in, &r.memPend)
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		memCloseRows = 1 << 30
		spOut, err := r.sp.StepInput(nil, uint64(i+1), in, &r.spPend)
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if fmt.Sprint(memOut) != fmt.Sprint(spOut) {
			t.Errorf("step %d: bounded close emitted %v, unbounded %v", i+1, memOut, spOut)
		}
		if got := open(r.mem); got != want {
			t.Errorf("step %d: %d bids open, want %d", i+1, got, want)
		}
		if got := open(r.sp); i > 0 && got != 1 {
			t.Errorf("step %d: unbounded close left %d bids open, want 1", i+1, got)
		}
	}
	r.memPend.apply(r.memStore)
	r.spPend.apply(r.spStore)
	if !maps.EqualFunc(r.memStore.m, r.spStore.m, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Fatalf("stores differ once the bounded close caught up: %d keys, unbounded %d keys", len(r.memStore.m), len(r.spStore.m))
	}
}

// liveBids counts the bids (side 0) that q7's interval join (node 3 of
// d) keeps arranged, over all its shards.
func liveBids(d *Dataflow) int {
	live := 0
	for _, op := range shardsOf(d.ops[3]) {
		live += int(op.(*intervalJoin).sides[0].live)
	}
	return live
}
