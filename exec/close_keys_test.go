package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestKeyTabInterns checks that a keyTab gives one id per distinct key,
// across its growth, and that its strings keep their bytes after later
// keys are added.
func TestKeyTabInterns(t *testing.T) {
	var tab keyTab
	ids := map[string]uint32{}
	var strs []string
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		k := fmt.Sprintf("k%d", rng.IntN(5000))
		if i%7 == 0 {
			k = "" // the empty key too
		}
		id := tab.intern(k)
		if prev, ok := ids[k]; ok && prev != id {
			t.Fatalf("key %q: id %d, then %d", k, prev, id)
		}
		ids[k] = id
		strs = append(strs, tab.str(id))
		if got := tab.str(id); got != k {
			t.Fatalf("key %q read back as %q", k, got)
		}
	}
	if tab.len() != len(ids) {
		t.Fatalf("%d keys held, %d distinct", tab.len(), len(ids))
	}
	for k, id := range ids {
		if tab.str(id) != k {
			t.Fatalf("key %q read back as %q", k, tab.str(id))
		}
	}
	for _, s := range strs {
		if _, ok := ids[s]; !ok {
			t.Fatalf("an earlier string changed to %q", s)
		}
	}
}

// TestNameHeapRebuilds drives a nameHeap whose keys rebuild at every
// commit (keysRebuildMin 0) through random adds, closing Steps, commits
// and rollbacks: every name is freed exactly once, by a Step that
// commits, no earlier than its value allows, with the join key it was
// filed with, and each Step's names in key order.
func TestNameHeapRebuilds(t *testing.T) {
	defer func(n int) { keysRebuildMin = n }(keysRebuildMin)
	keysRebuildMin = 0
	rng := rand.New(rand.NewPCG(3, 4))
	var x nameHeap
	keyOf := map[uint64]string{}
	valOf := map[uint64]int64{}
	freed := map[uint64]bool{}
	rebuilds, wm, next := 0, int64(0), uint64(0)
	for step := 0; step < 3000; step++ {
		for n := rng.IntN(40); n > 0; n-- {
			next++
			k := fmt.Sprintf("p%03d", rng.IntN(200))
			v := wm + int64(rng.IntN(50))
			keyOf[next], valOf[next] = k, v
			x.add(v, keyRef{k, next})
		}
		wm += int64(rng.IntN(4))
		took := x.take(wm, 1+rng.IntN(30))
		var prev keyRef
		for i, e := range took {
			ref := x.ref(e)
			if ref.key != keyOf[ref.hash] || e.v >= wm || e.v != valOf[ref.hash] {
				t.Fatalf("step %d: took %+v (key %q), filed under %q at %d, watermark %d", step, e, ref.key, keyOf[ref.hash], valOf[ref.hash], wm)
			}
			if i > 0 && (prev.key > ref.key || prev.key == ref.key && prev.hash > ref.hash) {
				t.Fatalf("step %d: %v before %v", step, prev, ref)
			}
			prev = ref
		}
		if rng.IntN(4) == 0 {
			x.rollback()
			continue
		}
		for _, e := range took {
			if freed[e.hash] {
				t.Fatalf("step %d: name %d freed twice", step, e.hash)
			}
			freed[e.hash] = true
		}
		before := x.kept
		x.commit()
		if x.kept != before || x.keys.len() == 0 {
			rebuilds++
		}
	}
	for x.pending() > 0 {
		for _, e := range x.take(wm+100, 1<<20) {
			if freed[e.hash] {
				t.Fatalf("name %d freed twice", e.hash)
			}
			freed[e.hash] = true
		}
		x.commit()
	}
	if len(freed) != len(keyOf) {
		t.Fatalf("%d names freed of %d", len(freed), len(keyOf))
	}
	if rebuilds == 0 {
		t.Fatal("keys never rebuilt")
	}
}
