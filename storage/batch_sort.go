package storage

import "math/bits"

// sortDigits sorts writes by digit, then tail (cmpDigits's order), not
// stably. It is slices.SortFunc(ops, cmpDigits) without a call through a
// function value per comparison, which a generic sort over a struct makes:
// the comparisons were most of the checkpoint's sort, itself a tenth of a
// prepared INSERT's CPU. An introsort: quicksort with the median of three
// as pivot, heapsort past 2·log2(n) levels, insertion sort below 12.
func sortDigits(ops []batchWrite) {
	quickDigits(ops, 2*bits.Len(uint(len(ops))))
}

// lessDigits reports whether x orders before y by digit, then tail.
func lessDigits(x, y *batchWrite) bool {
	return x.digit < y.digit || x.digit == y.digit && x.tail < y.tail
}

// quickDigits sorts ops, recursing on the smaller side of each partition
// (so at most log2(n) frames) and falling back to heapsort when depth
// levels did not suffice.
func quickDigits(ops []batchWrite, depth int) {
	for len(ops) > 12 {
		if depth == 0 {
			heapDigits(ops)
			return
		}
		depth--
		p := partitionDigits(ops)
		if p < len(ops)-p {
			quickDigits(ops[:p], depth)
			ops = ops[p:]
		} else {
			quickDigits(ops[p:], depth)
			ops = ops[:p]
		}
	}
	insertionDigits(ops)
}

// partitionDigits reorders ops (at least 3) around the median of its
// first, middle and last writes (Hoare's scheme) and returns p, 0 < p <
// len(ops), such that every write of ops[:p] orders at or before every
// write of ops[p:]. Writes equal to the pivot stop both scans, so runs of
// equal digits (a group's key written at every commit) split evenly.
func partitionDigits(ops []batchWrite) int {
	n, m := len(ops), len(ops)/2
	if lessDigits(&ops[m], &ops[0]) {
		ops[m], ops[0] = ops[0], ops[m]
	}
	if lessDigits(&ops[n-1], &ops[m]) {
		ops[n-1], ops[m] = ops[m], ops[n-1]
		if lessDigits(&ops[m], &ops[0]) {
			ops[m], ops[0] = ops[0], ops[m]
		}
	}
	pivot := batchWrite{digit: ops[m].digit, tail: ops[m].tail}
	i, j := -1, n
	for {
		for i++; lessDigits(&ops[i], &pivot); i++ {
		}
		for j--; lessDigits(&pivot, &ops[j]); j-- {
		}
		if i >= j {
			return j + 1
		}
		ops[i], ops[j] = ops[j], ops[i]
	}
}

// insertionDigits sorts a few writes.
func insertionDigits(ops []batchWrite) {
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && lessDigits(&ops[j], &ops[j-1]); j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
}

// heapDigits sorts ops by heapsort (quickDigits's bound on bad pivots).
func heapDigits(ops []batchWrite) {
	for i := len(ops)/2 - 1; i >= 0; i-- {
		siftDigits(ops, i)
	}
	for end := len(ops) - 1; end > 0; end-- {
		ops[0], ops[end] = ops[end], ops[0]
		siftDigits(ops[:end], 0)
	}
}

// siftDigits moves ops[i] down the max-heap ops to its place.
func siftDigits(ops []batchWrite, i int) {
	for {
		c := 2*i + 1
		if c >= len(ops) {
			return
		}
		if c+1 < len(ops) && lessDigits(&ops[c], &ops[c+1]) {
			c++
		}
		if !lessDigits(&ops[i], &ops[c]) {
			return
		}
		ops[i], ops[c] = ops[c], ops[i]
		i = c
	}
}
