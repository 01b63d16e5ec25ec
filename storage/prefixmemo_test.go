package storage

import (
	"slices"
	"sync"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestSharedScansConcurrent scans shared prefixes from several goroutines
// at once, as the parallel shards of one Step do, and checks every scan
// against a plain one (run under -race, it checks the memo's locking).
func TestSharedScansConcurrent(t *testing.T) {
	c := NewCollection(1, []int{0, 1})
	for k := int64(0); k < 200; k++ {
		for j := int64(0); j < k%5; j++ {
			if err := c.Apply(repr.Row{repr.NewInt(k), repr.NewInt(j)}, 1, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.ShareScans(true)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int64(0); k < 200; k++ {
				key := repr.AppendRowKey(nil, repr.Row{repr.NewInt((k*7 + int64(g)) % 200)})
				var shared, plain []int64
				c.ScanPrefixColsShared(key, nil, func(r repr.Row, _ int64) bool {
					shared = append(shared, r[1].Int())
					return true
				})
				c.ScanPrefixCols(key, nil, func(r repr.Row, _ int64) bool {
					plain = append(plain, r[1].Int())
					return true
				})
				if len(shared) != len(plain) {
					t.Errorf("key %d: shared scan found %v, plain %v", k, shared, plain)
					return
				}
				for i := range plain {
					if shared[i] != plain[i] {
						t.Errorf("key %d: shared scan found %v, plain %v", k, shared, plain)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestSharedScansBounded fills a memo past its bound: later prefixes are
// scanned (the same rows) without being remembered.
func TestSharedScansBounded(t *testing.T) {
	defer func(n int) { memoEntries = n }(memoEntries)
	memoEntries = 4
	c := NewCollection(1, []int{0, 1})
	for k := int64(0); k < 4; k++ {
		for j := int64(0); j < 3; j++ {
			if err := c.Apply(repr.Row{repr.NewInt(k), repr.NewInt(j)}, 1, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.ShareScans(true)
	for k := int64(0); k < 4; k++ {
		key := repr.AppendRowKey(nil, repr.Row{repr.NewInt(k)})
		n := 0
		c.ScanPrefixColsShared(key, nil, func(repr.Row, int64) bool { n++; return true })
		if want := k < 2; n != 3 || c.remembers(key) != want {
			t.Errorf("key %d: %d rows (want 3), remembered %v (want %v)", k, n, c.remembers(key), want)
		}
	}
}

// TestSharedScansChunksAndReuse remembers more entries than one chunk
// holds (and one prefix larger than a chunk), checks every remembered
// span against a plain scan after all were taken (a later chunk must not
// move or overwrite an earlier span), then stops sharing, changes the
// collection and shares again: the kept memo must not answer from the
// old contents.
func TestSharedScansChunksAndReuse(t *testing.T) {
	c := NewCollection(1, []int{0, 1})
	apply := func(k, j int64, d int64) {
		if err := c.Apply(repr.Row{repr.NewInt(k), repr.NewInt(j)}, d, nil); err != nil {
			t.Fatal(err)
		}
	}
	for k := int64(0); k < 300; k++ {
		n := k % 7
		if k == 150 {
			n = 2*memoChunk + 3
		}
		for j := int64(0); j < n; j++ {
			apply(k, j, 1)
		}
	}
	scan := func(k int64, shared bool) []int64 {
		key := repr.AppendRowKey(nil, repr.Row{repr.NewInt(k)})
		var out []int64
		f := c.ScanPrefixCols
		if shared {
			f = c.ScanPrefixColsShared
		}
		f(key, nil, func(r repr.Row, n int64) bool {
			out = append(out, r[1].Int()*10+n)
			return true
		})
		return out
	}
	check := func(round string) {
		for k := int64(0); k < 300; k++ {
			scan(k, true)
		}
		for k := int64(0); k < 300; k++ {
			if got, want := scan(k, true), scan(k, false); !slices.Equal(got, want) {
				t.Fatalf("%s: key %d: shared scan %v, plain %v", round, k, got, want)
			}
		}
	}
	c.ShareScans(true)
	check("first")
	if c.memo.n < memoChunk {
		t.Fatalf("memo holds %d entries, want more than a chunk (%d)", c.memo.n, memoChunk)
	}
	c.ShareScans(false)
	for k := int64(0); k < 300; k += 3 {
		apply(k, 5000, 1)
		if k%7 > 0 {
			apply(k, 0, -1)
		}
	}
	c.ShareScans(true)
	check("after the change")
}

// BenchmarkSharedScansCommit is one commit's shared lookups as a TPC-H
// refresh of 1,500 orders makes them (SF 1's 0.1%): 1,500 prefixes of
// four entries each (an order's lineitems) in a table of 60,000, each
// looked up by eight views, between ShareScans(true) and (false).
func BenchmarkSharedScansCommit(b *testing.B) {
	c := NewCollection(1, []int{0, 1})
	for k := int64(0); k < 15000; k++ {
		for j := int64(0); j < 4; j++ {
			if err := c.Apply(repr.Row{repr.NewInt(k), repr.NewInt(j), repr.NewText("a lineitem's comment")}, 1, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	keys := make([][]byte, 1500)
	for i := range keys {
		keys[i] = repr.AppendRowKey(nil, repr.Row{repr.NewInt(int64(i) * 10)})
	}
	d := &repr.ColDecoder{Need: []bool{true, true, false}}
	n := 0
	count := func(repr.Row, int64) bool { n++; return true }
	for b.Loop() {
		c.ShareScans(true)
		for range 8 {
			for _, k := range keys {
				c.ScanPrefixColsShared(k, d, count)
			}
		}
		c.ShareScans(false)
	}
	if n != b.N*8*1500*4 {
		b.Fatalf("%d rows found, want %d", n, b.N*8*1500*4)
	}
}
