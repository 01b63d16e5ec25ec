package storage

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/btree"
)

var entryTreeSeed = flag.Uint64("entrytree-seed", 0, "seed of TestEntryTreeRandom (0: several fixed seeds)")

// TestEntryTreeRandom runs random insertions, replacements, deletions,
// lookups, range scans and clones on an entryTree and on google/btree
// ordered by entryLess, in several key orders (random, increasing as a
// serial key, decreasing, a sliding window, inserts rolled back from the
// end), and fails on any difference, on a broken invariant of the tree,
// or when a write after Clone changes the other tree.
func TestEntryTreeRandom(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6}
	if *entryTreeSeed != 0 {
		seeds = []uint64{*entryTreeSeed}
	}
	for _, seed := range seeds {
		for _, pattern := range []string{"random", "ascending", "descending", "window", "rollback"} {
			t.Run(fmt.Sprintf("%s/seed=%d", pattern, seed), func(t *testing.T) {
				runEntryTree(t, rand.New(rand.NewPCG(seed, 0)), pattern)
			})
		}
	}
}

// treeKey returns the key of number k: an integer-like 9-byte key, or a
// key of 20 bytes that shares its first 12 with others (so that the
// prefixes tie and the bytes decide), or the empty key for 0.
func treeKey(k uint64) []byte {
	switch {
	case k == 0:
		return []byte{}
	case k%3 == 0:
		b := append([]byte("sharedprefix"), make([]byte, 8)...)
		binary.BigEndian.PutUint64(b[12:], k)
		return b
	}
	b := []byte{0x2a, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint64(b[1:], k)
	return b
}

// treeEntry returns an entry for key k whose value records version v.
func treeEntry(k uint64, v int64) entry {
	key := treeKey(k)
	kv := append(append([]byte{}, key...), byte(v), byte(v>>8))
	return newEntry(kv, len(key), v)
}

func sameEntry(a, b entry) bool {
	return bytes.Equal(a.kv, b.kv) && a.klen == b.klen && a.count == b.count && a.pfx == b.pfx && a.pfx2 == b.pfx2
}

func runEntryTree(t *testing.T, rng *rand.Rand, pattern string) {
	tr := newEntryTree()
	ref := btree.NewG(btreeDegree, entryLess)
	type clone struct {
		tr  *entryTree
		ref *btree.BTreeG[entry]
	}
	var clones []clone
	const ops = 20000
	next, low := uint64(1), uint64(1) // serial keys: next to insert, oldest live
	var recent []uint64
	for op := 0; op < ops; op++ {
		var k uint64
		insert := rng.IntN(10) < 7
		switch pattern {
		case "random":
			k = rng.Uint64N(8000)
		case "ascending":
			k, insert = next, true
			next++
		case "descending":
			k, insert = 1<<40-uint64(op), true
		case "window":
			if insert || low >= next {
				k, insert = next, true
				next++
			} else {
				k = low
				low++
			}
		case "rollback":
			if insert || len(recent) == 0 {
				k, insert = next, true
				next++
				recent = append(recent, k)
			} else {
				k = recent[len(recent)-1]
				recent = recent[:len(recent)-1]
			}
		}
		v := int64(op + 1)
		if insert {
			e := treeEntry(k, v)
			o1, f1 := tr.ReplaceOrInsert(e)
			o2, f2 := ref.ReplaceOrInsert(e)
			if f1 != f2 || f1 && !sameEntry(o1, o2) {
				t.Fatalf("op %d: ReplaceOrInsert(%d) = %v %v, want %v %v", op, k, o1.count, f1, o2.count, f2)
			}
		} else {
			p := probe(treeKey(k))
			o1, f1 := tr.Delete(p)
			o2, f2 := ref.Delete(p)
			if f1 != f2 || f1 && !sameEntry(o1, o2) {
				t.Fatalf("op %d: Delete(%d) = %v %v, want %v %v", op, k, o1.count, f1, o2.count, f2)
			}
		}
		if tr.Len() != ref.Len() {
			t.Fatalf("op %d: Len %d, want %d", op, tr.Len(), ref.Len())
		}
		q := rng.Uint64N(max(next, 8000))
		g1, ok1 := tr.Get(probe(treeKey(q)))
		g2, ok2 := ref.Get(probe(treeKey(q)))
		if ok1 != ok2 || ok1 && !sameEntry(g1, g2) {
			t.Fatalf("op %d: Get(%d) = %v, want %v", op, q, ok1, ok2)
		}
		if op%97 == 0 {
			compareScan(t, tr, ref, probe(treeKey(q)), rng.IntN(300))
		}
		if op%1000 == 0 {
			checkTree(t, tr)
			if len(clones) < 4 {
				clones = append(clones, clone{tr.Clone(), ref.Clone()})
			}
			// A clone must not see the writes made since it was taken,
			// and writing to it must not change the original.
			for i, c := range clones {
				compareScan(t, c.tr, c.ref, probe(nil), -1)
				checkTree(t, c.tr)
				if rng.IntN(2) == 0 {
					e := treeEntry(rng.Uint64N(max(next, 8000)), -int64(op))
					c.tr.ReplaceOrInsert(e)
					c.ref.ReplaceOrInsert(e)
					p := probe(treeKey(rng.Uint64N(max(next, 8000))))
					c.tr.Delete(p)
					c.ref.Delete(p)
				} else if rng.IntN(3) == 0 {
					clones[i] = clone{c.tr.Clone(), c.ref.Clone()}
				}
			}
		}
	}
	compareScan(t, tr, ref, probe(nil), -1)
	checkTree(t, tr)
	var keys []entry // delete everything, in random order
	ref.Ascend(func(e entry) bool { keys = append(keys, e); return true })
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, e := range keys {
		if _, ok := tr.Delete(probe(e.key())); !ok {
			t.Fatalf("Delete of a present key failed")
		}
		ref.Delete(e)
		if ref.Len()%3000 == 0 {
			checkTree(t, tr)
			compareScan(t, tr, ref, probe(nil), -1)
		}
	}
	if tr.Len() != 0 {
		t.Fatalf("Len %d after deleting everything", tr.Len())
	}
	tr.Ascend(func(entry) bool { t.Fatalf("an entry survived"); return false })
}

// compareScan compares the first limit entries (-1: all) from from on.
func compareScan(t *testing.T, tr *entryTree, ref *btree.BTreeG[entry], from entry, limit int) {
	t.Helper()
	var a, b []entry
	tr.AscendGreaterOrEqual(from, func(e entry) bool { a = append(a, e); return limit < 0 || len(a) < limit })
	ref.AscendGreaterOrEqual(from, func(e entry) bool { b = append(b, e); return limit < 0 || len(b) < limit })
	if len(a) != len(b) {
		t.Fatalf("scan from %x: %d entries, want %d", from.key(), len(a), len(b))
	}
	for i := range a {
		if !sameEntry(a[i], b[i]) {
			t.Fatalf("scan from %x: entry %d differs", from.key(), i)
		}
	}
	if limit < 0 {
		n := 0
		tr.Ascend(func(entry) bool { n++; return true })
		if n != tr.Len() {
			t.Fatalf("Ascend saw %d entries, Len %d", n, tr.Len())
		}
	}
}

// checkTree checks the tree's invariants: item counts, key order within
// and across nodes, one child more than items in inner nodes, leaves at
// one depth, and Len.
func checkTree(t *testing.T, tr *entryTree) {
	t.Helper()
	if tr.root == nil {
		if tr.n != 0 {
			t.Fatalf("nil root with Len %d", tr.n)
		}
		return
	}
	leafDepth, count := -1, 0
	var walk func(n *enode, depth int, lo, hi *entry)
	walk = func(n *enode, depth int, lo, hi *entry) {
		if n != tr.root && (len(n.items) < 1 || len(n.items) > maxItems) {
			t.Fatalf("node of %d items", len(n.items))
		}
		count += len(n.items)
		for i := range n.items {
			if i > 0 && cmpEntry(&n.items[i-1], &n.items[i]) >= 0 ||
				lo != nil && cmpEntry(lo, &n.items[i]) >= 0 || hi != nil && cmpEntry(&n.items[i], hi) >= 0 {
				t.Fatalf("items out of order")
			}
		}
		if n.children == nil {
			if leafDepth >= 0 && leafDepth != depth {
				t.Fatalf("leaves at depths %d and %d", leafDepth, depth)
			}
			leafDepth = depth
			return
		}
		if len(n.children) != len(n.items)+1 {
			t.Fatalf("%d children for %d items", len(n.children), len(n.items))
		}
		for i, c := range n.children {
			clo, chi := lo, hi
			if i > 0 {
				clo = &n.items[i-1]
			}
			if i < len(n.items) {
				chi = &n.items[i]
			}
			walk(c, depth+1, clo, chi)
		}
	}
	walk(tr.root, 0, nil, nil)
	if count != tr.n {
		t.Fatalf("%d entries in nodes, Len %d", count, tr.n)
	}
}

// TestEntryTreeSerialFill checks that keys inserted in increasing order
// leave full leaves behind them (splitAt), not half-full ones.
func TestEntryTreeSerialFill(t *testing.T) {
	tr := newEntryTree()
	const n = 100000
	for k := uint64(1); k <= n; k++ {
		if k%3 != 0 { // integer-like keys only: increasing as keys
			tr.ReplaceOrInsert(treeEntry(k, 1))
		}
	}
	checkTree(t, tr)
	leaves, items := 0, 0
	var walk func(n *enode)
	walk = func(n *enode) {
		if n.children == nil {
			leaves++
			items += len(n.items)
			return
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(tr.root)
	if fill := float64(items) / float64(leaves*maxItems); fill < 0.95 {
		t.Fatalf("serial keys fill leaves to %.2f", fill)
	}
}

// TestEntryTreeSparse runs random deletions and insertions, checking the
// tree after each, on trees built with as few items per node as the
// invariants allow (1 to 3 below the root): the shapes that splitAt's
// leaves lead to, where merging two children can leave one that must
// grow again and a deletion can empty the root and the child below it.
func TestEntryTreeSparse(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		tr := newEntryTree()
		ref := btree.NewG(btreeDegree, entryLess)
		// A tree of depth 1 to 4 whose nodes hold 1 to 3 items, keyed in
		// order afterwards (so every shape is valid).
		next := uint64(1)
		var build func(depth int) *enode
		build = func(depth int) *enode {
			n := &enode{cow: tr.cow}
			items := 1 + rng.IntN(3)
			for i := 0; i <= items; i++ {
				if depth > 0 {
					n.children = append(n.children, build(depth-1))
				}
				if i < items {
					n.items = append(n.items, treeEntry(next*3+1, 1))
					next += 1 + rng.Uint64N(3)
				}
			}
			return n
		}
		var order func(n *enode) // the children were built first: renumber in order
		order = func(n *enode) {
			for i := range n.items {
				if n.children != nil {
					order(n.children[i])
				}
				n.items[i] = treeEntry(next*3+1, 1)
				next++
			}
			if n.children != nil {
				order(n.children[len(n.items)])
			}
		}
		tr.root = build(1 + rng.IntN(4))
		next = 1
		order(tr.root)
		tr.n = int(next - 1)
		tr.Ascend(func(e entry) bool { ref.ReplaceOrInsert(e); return true })
		checkTree(t, tr)
		for op := 0; op < 400 && ref.Len() > 0; op++ {
			if rng.IntN(5) == 0 {
				e := treeEntry(uint64(rng.IntN(10000))*3+2, int64(op))
				tr.ReplaceOrInsert(e)
				ref.ReplaceOrInsert(e)
			} else {
				var all []entry
				ref.Ascend(func(e entry) bool { all = append(all, e); return true })
				e := all[rng.IntN(len(all))]
				if _, ok := tr.Delete(probe(e.key())); !ok {
					t.Fatalf("seed %d op %d: Delete of a present key failed", seed, op)
				}
				ref.Delete(e)
			}
			checkTree(t, tr)
			compareScan(t, tr, ref, probe(nil), -1)
		}
	}
}
