package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestMultisetOutgrowsSliceKeepsExtrema checks that a multiset leaving its
// sorted slice for the map answers min and max from the cached extrema
// (no B-tree built) while values only arrive, and from the B-tree once the
// extremum is retracted.
func TestMultisetOutgrowsSliceKeepsExtrema(t *testing.T) {
	ms := newMultiset(true)
	add := func(k string, n int64) *mentry {
		e := ms.find([]byte(k))
		if e == nil {
			e = newEntry([]byte(k), repr.NewInt(int64(len(k))), repr.Null, 0)
			ms.insert(e)
		}
		e.n += n
		ms.counted(e)
		return e
	}
	add("m", 1)
	add("a", 0) // a zero count the Step has not freed yet
	for i := range smallSet + 4 {
		add(fmt.Sprintf("k%02d", i), 1)
	}
	if ms.m == nil {
		t.Fatal("multiset did not leave its slice")
	}
	if lo, hi := ms.min(), ms.max(); lo.key != "k00" || hi.key != "m" {
		t.Fatalf("min %q max %q, want k00 and m", lo.key, hi.key)
	}
	if ms.t != nil {
		t.Fatal("append-only values built the B-tree")
	}
	add("m", -1)
	if hi := ms.max(); hi.key != fmt.Sprintf("k%02d", smallSet+3) {
		t.Fatalf("max after retraction %q", hi.key)
	}
}

// TestMultisetCachedExtremaKeys checks the map's cached extrema against a
// scan of every entry as values of short (inline-copied) and long keys
// arrive in random order (only arriving: the cache answers), then some leaving.
func TestMultisetCachedExtremaKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, uint64(smallSet)))
	for _, long := range []int{0, 20} {
		ms := newMultiset(true)
		live := map[string]int64{}
		for i := range 500 {
			k := fmt.Sprintf("%0*d", max(long, 4), rng.IntN(1000))
			n := int64(1)
			if i >= 400 && i%3 == 0 && live[k] > 0 {
				n = -1
			}
			e := ms.find([]byte(k))
			if e == nil {
				e = newEntry([]byte(k), repr.NewInt(int64(i)), repr.Null, 0)
				ms.insert(e)
			}
			e.n += n
			live[k] += n
			ms.counted(e)
			var lo, hi string
			for k, c := range live {
				if c > 0 && (lo == "" || k < lo) {
					lo = k
				}
				if c > 0 && k > hi {
					hi = k
				}
			}
			if gl, gh := ms.min(), ms.max(); gl.key != lo || gh.key != hi {
				t.Fatalf("key length %d, step %d: min %q max %q, want %q %q", long, i, gl.key, gh.key, lo, hi)
			}
			lv, _ := ms.minVal()
			hv, _ := ms.maxVal()
			if lv != ms.min().val || hv != ms.max().val {
				t.Fatalf("key length %d, step %d: values %v %v, entries' %v %v", long, i, lv, hv, ms.min().val, ms.max().val)
			}
		}
	}
}

// TestMultisetMixedKeyLengths checks a map-held multiset whose keys are
// both inline (up to inlineKey bytes, held in the entry) and longer: find, size, all and remove against a reference,
// with keys of every length around inlineKey and keys that differ only
// in their length (trailing zero bytes, which inline keys pad with).
func TestMultisetMixedKeyLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ms := newMultiset(true)
	ref := map[string]*mentry{}
	key := func() string {
		b := make([]byte, rng.IntN(inlineKey+4))
		for i := range b {
			b[i] = byte(rng.IntN(3)) // zero bytes often
		}
		return string(b)
	}
	for i := range 3000 {
		k := key()
		e := ms.find([]byte(k))
		if e != ref[k] {
			t.Fatalf("step %d: find(%q) = %p, want %p", i, k, e, ref[k])
		}
		switch {
		case e == nil:
			e = newEntry([]byte(k), repr.NewInt(int64(i)), repr.Null, 1)
			ms.insert(e)
			ref[k] = e
		case rng.IntN(2) == 0:
			e.n = 0
			ms.counted(e)
			ms.remove(e)
			delete(ref, k)
		}
		if ms.size() != len(ref) {
			t.Fatalf("step %d: size %d, want %d", i, ms.size(), len(ref))
		}
	}
	long := 0
	ms.all(func(e *mentry) { long += int(b2i(len(e.key) > inlineKey)) })
	if ms.m == nil || long == 0 || long == ms.size() {
		t.Fatalf("the multiset's table holds %d entries, %d of long keys: not both lengths", ms.size(), long)
	}
	seen := 0
	ms.all(func(e *mentry) {
		if ref[e.key] != e {
			t.Fatalf("all: %q is not the reference's entry", e.key)
		}
		seen++
	})
	if seen != len(ref) {
		t.Fatalf("all: %d entries, want %d", seen, len(ref))
	}
}

// TestEntryTableChurn checks the entry table against a reference map under
// random insertions and deletions from a small key space (long probe runs
// wrap around the end of the slots, and deletion shifts them back): after
// every change each key of the space is found exactly when the reference
// holds it, and each visits every entry once.
func TestEntryTableChurn(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, space := range []int{5, 40, 300} {
		tab := newEntryTable(0)
		ref := map[string]*mentry{}
		for i := range 4000 {
			k := fmt.Sprint(rng.IntN(space))
			if e := ref[k]; e != nil && rng.IntN(3) > 0 {
				tab.del(e)
				delete(ref, k)
			} else if e == nil {
				e = newEntry([]byte(k), repr.Null, repr.Null, 1)
				tab.put(e)
				ref[k] = e
			}
			for j := range space {
				k := fmt.Sprint(j)
				if got := tab.get([]byte(k)); got != ref[k] {
					t.Fatalf("space %d, change %d: get(%q) = %p, want %p", space, i, k, got, ref[k])
				}
			}
			seen := 0
			tab.each(func(e *mentry) {
				if ref[e.key] != e {
					t.Fatalf("space %d, change %d: each visits %q, not the reference's", space, i, e.key)
				}
				seen++
			})
			if seen != len(ref) || tab.n != len(ref) {
				t.Fatalf("space %d, change %d: %d visited, n %d, want %d", space, i, seen, tab.n, len(ref))
			}
		}
	}
}
