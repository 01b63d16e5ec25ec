package exec

import (
	"bytes"
	"maps"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// TestShardedTemporalEqualsSingle is TestShardedEqualsSingle over the
// temporal filters of TestSpilledTemporalEqualsInMemory, with a wall
// clock that advances by random steps: run as shards by row, a filter
// gives the same outputs, logs the same state (now once) and reports the
// same next transition as one filter on 1, 2 and 4 workers, across
// rollbacks and restores that change the count.
func TestShardedTemporalEqualsSingle(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^14))
	for iter := range 6 * len(temporalSpillPlans) {
		shardParallelMin = []int{0, 1 << 30}[iter%2]
		text := temporalSpillPlans[iter/2%len(temporalSpillPlans)]
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := BuildWorkers(p, 2); err != nil || len(temporalsOf(d.ops[1])) != 2 || !d.Temporal() {
			t.Fatalf("the filter does not run as 2 shards (%v)", err)
		}
		r := &spillRun{live: map[repr.CollectionID][]repr.Update{}}
		now := temporalBase
		next := func(_ *Dataflow, step uint64) Input {
			now += int64(rng.IntN(13)-1) * 1_000_000
			return Input{Updates: r.temporalBatch(rng, step, now), Now: now}
		}
		commit := func(in Input) {
			for c, us := range in.Updates {
				r.live[c] = retime(Consolidate(append(r.live[c], us...)))
			}
		}
		if err := runSharded(p, rng, 40, next, commit); err != nil {
			t.Fatalf("seed %d, inline below %d, plan:\n%s\n%v", seed, shardParallelMin, text, err)
		}
	}
}

// TestShardedRowKeyedTemporalRestores checks that a temporal filter's
// state logged by row key alone (the layout before rows were logged by
// time) restored into four shards, some of which restore no row, keeps that layout in every shard: the
// sharded filter goes on emitting and logging exactly what the one filter
// that logged it does.
func TestShardedRowKeyedTemporalRestores(t *testing.T) {
	p, err := dataflow.Parse(temporalSpillPlans[0])
	if err != nil {
		t.Fatal(err)
	}
	old, err := BuildWorkers(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	old.ops[1].(*temporalOp).timed = false // the layout before
	store := newMemStore()
	r := &spillRun{live: map[repr.CollectionID][]repr.Update{}}
	step := func(d *Dataflow, store *memStore, ts uint64) string {
		t.Helper()
		rng := rand.New(rand.NewPCG(ts, 3))
		var w opBatch
		now := temporalBase + int64(ts)*5_000_000
		out, err := d.StepInput(nil, ts, Input{Updates: r.temporalBatch(rng, ts, now), Now: now}, &w)
		if err != nil {
			t.Fatal(err)
		}
		d.Commit()
		w.apply(store)
		return formatUpdates(out)
	}
	one := repr.Row{repr.NewInt(1), repr.NewTimestampTZ(temporalBase + 10_000_000)} // valid from 10 s ahead
	var w opBatch
	if _, err := old.StepInput(nil, 1, Input{Updates: map[repr.CollectionID][]repr.Update{1: {{Row: one, Time: 1, Diff: 1}}}, Now: temporalBase}, &w); err != nil {
		t.Fatal(err)
	}
	old.Commit()
	w.apply(store)
	d, err := BuildWorkers(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Restore(store); err != nil {
		t.Fatal(err)
	}
	empty := 0
	for _, o := range temporalsOf(d.ops[1]) {
		if len(o.rows) == 0 {
			empty++
		}
	}
	if empty == 0 || empty == 4 {
		t.Fatalf("%d of 4 shards restored no row: the test needs some of each", empty)
	}
	oldStore := newMemStore()
	maps.Copy(oldStore.m, store.m)
	for ts := uint64(2); ts <= 30; ts++ {
		a := step(d, store, ts)
		if b := step(old, oldStore, ts); a != b {
			t.Fatalf("step %d: the sharded filter emitted\n%s\nthe one that ran on\n%s", ts, a, b)
		}
	}
	if !maps.EqualFunc(store.m, oldStore.m, bytes.Equal) {
		t.Fatalf("the sharded filter's state differs from the one that ran on:\n%s\n%s", formatStore(store), formatStore(oldStore))
	}
}
