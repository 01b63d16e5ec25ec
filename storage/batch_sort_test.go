package storage

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// cmpDigits orders writes by digit, then tail: sortDigits's order.
func cmpDigits(x, y batchWrite) int {
	if x.digit != y.digit {
		return cmp.Compare(x.digit, y.digit)
	}
	return cmp.Compare(x.tail, y.tail)
}

// TestSortDigits checks sortDigits (and its heapsort fallback alone)
// against slices.SortFunc with cmpDigits on inputs of every shape the
// checkpoint gives it: random, few distinct digits (a group's key written
// at every commit), sorted, reversed, equal, and sizes around the
// insertion sort's threshold. The sorted writes must be a permutation of
// the input (each at once) in cmpDigits's order.
func TestSortDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	shapes := map[string]func(i, n int) (uint64, uint8){
		"random":   func(int, int) (uint64, uint8) { return rng.Uint64(), uint8(rng.IntN(10)) },
		"few":      func(int, int) (uint64, uint8) { return uint64(rng.IntN(4)), uint8(9) },
		"sorted":   func(i, _ int) (uint64, uint8) { return uint64(i / 3), uint8(i % 3) },
		"reversed": func(i, n int) (uint64, uint8) { return uint64(n - i), 9 },
		"equal":    func(int, int) (uint64, uint8) { return 7, 9 },
		"repeated": func(i, _ int) (uint64, uint8) { return uint64(i % 1000), 9 },
	}
	for name, gen := range shapes {
		for _, n := range []int{0, 1, 2, 3, 11, 12, 13, 14, 100, 1000, 5000} {
			ops := make([]batchWrite, n)
			for i := range ops {
				ops[i].digit, ops[i].tail = gen(i, n)
				ops[i].at = uint64(i)
			}
			for _, sorter := range []struct {
				name string
				fn   func([]batchWrite)
			}{{"sortDigits", sortDigits}, {"heapDigits", heapDigits}} {
				got := slices.Clone(ops)
				sorter.fn(got)
				want := slices.Clone(ops)
				slices.SortFunc(want, cmpDigits)
				seen := make([]bool, n)
				for i := range got {
					if cmpDigits(got[i], want[i]) != 0 {
						t.Fatalf("%s, %s, %d writes: write %d is %d/%d, want %d/%d", sorter.name, name, n, i,
							got[i].digit, got[i].tail, want[i].digit, want[i].tail)
					}
					if seen[got[i].at] {
						t.Fatalf("%s, %s, %d writes: write %d twice", sorter.name, name, n, got[i].at)
					}
					seen[got[i].at] = true
				}
			}
		}
	}
}
