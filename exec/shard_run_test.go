package exec

import (
	"bytes"
	"sync"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// TestShardKeysFollowInput checks the keys a Reduce's and a Threshold's
// shards take from the partition: shard k holds, for its i-th input
// update, the key encoding the operator would compute for it, and that
// key hashes to k.
func TestShardKeysFollowInput(t *testing.T) {
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int8, text
%1 = Reduce key=[#1] aggs=[count(*)] <- %0
%2 = Threshold <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildWorkers(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	var in []repr.Update
	for i := range 200 {
		in = append(in, repr.Update{Row: repr.Row{repr.NewInt(int64(i)), repr.NewText(string(rune('a' + i%7)))}, Diff: 1})
	}
	for _, node := range []int{1, 2} {
		o, ok := d.ops[node].(*shardedOp)
		if !ok || !o.passKeys {
			t.Fatalf("node %d: %T is not sharded with keys passed", node, d.ops[node])
		}
		o.partition([][][]repr.Update{{in}})
		seen := 0
		for k, sh := range o.shards {
			if len(sh.keys.ends) != len(sh.ins[0]) {
				t.Fatalf("node %d shard %d: %d keys for %d updates", node, k, len(sh.keys.ends), len(sh.ins[0]))
			}
			for i, u := range sh.ins[0] {
				want := o.key.inputKey(nil, 0, u.Row)
				if got := sh.keys.at(i); !bytes.Equal(got, want) || shardOf(got, 3) != k {
					t.Fatalf("node %d shard %d update %d: key %x, want %x of shard %d", node, k, i, got, want, shardOf(want, 3))
				}
			}
			seen += len(sh.ins[0])
			sh.release()
		}
		if seen != len(in) {
			t.Fatalf("node %d: shards hold %d of %d updates", node, seen, len(in))
		}
	}
}

// TestHandOffPastPoolRunsInline checks that a shard handed off to a full
// pool (here one of no runners, so no parked runner takes it) runs on
// the caller's goroutine before handOff returns.
func TestHandOffPastPoolRunsInline(t *testing.T) {
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int8
%1 = Threshold <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	s := &stepCtx{ctx: &expr.Ctx{}, log: &stateLog{}, slab: &rowSlab{}}
	sh := &shard{op: d.ops[1], ins: [][]repr.Update{{{Row: repr.Row{repr.NewInt(7)}, Diff: 2}}}}
	var wg sync.WaitGroup
	wg.Add(1)
	newRunnerPool(0).handOff(poolTask{fn: func(int) { sh.run(s, false) }, wg: &wg})
	if sh.err != nil || len(sh.out) != 1 || sh.out[0].Diff != 2 {
		t.Fatalf("the shard did not run inline: out %v, err %v", sh.out, sh.err)
	}
	wg.Wait()
}

// TestShardedRawOutputOutlivesCommit checks that a sharded output node's
// raw Step output (StepInputRaw, which shares the node's memory) is
// still intact after Commit: it stays valid until the next Step, as a
// single operator's does (a view's maintenance reads it after
// committing; clearing it at commit handed views empty rows).
func TestShardedRawOutputOutlivesCommit(t *testing.T) {
	defer func(n int) { shardParallelMin = n }(shardParallelMin)
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int8, int8
%1 = Reduce key=[#0] aggs=[count(*)] <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	for _, min := range []int{0, 1 << 30} {
		shardParallelMin = min
		d, err := BuildWorkers(p, 2)
		if err != nil {
			t.Fatal(err)
		}
		var in []repr.Update
		for i := range 100 {
			in = append(in, repr.Update{Row: repr.Row{repr.NewInt(int64(i % 10)), repr.NewInt(int64(i))}, Diff: 1})
		}
		out, err := d.StepInputRaw(&expr.Ctx{}, 1, Input{Updates: map[repr.CollectionID][]repr.Update{1: in}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.Commit()
		if len(out) != 10 {
			t.Fatalf("%d output updates, want 10", len(out))
		}
		for _, u := range out {
			if len(u.Row) != 2 || u.Diff != 1 || u.Row[1].Int() != 10 {
				t.Fatalf("inline below %d: output after Commit: %v", min, out)
			}
		}
	}
}
