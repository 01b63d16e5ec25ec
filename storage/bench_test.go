package storage

import (
	"fmt"
	"sync"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// BenchmarkCommit measures synced commits of a small batch (one row key)
// with 1 and 8 concurrent committers. ns/op is wall time per commit; with
// group commit, conc=8 should show many more commits/s than conc=1,
// because one WAL fsync covers every batch queued behind it.
func BenchmarkCommit(b *testing.B) {
	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("conc=%d", conc), func(b *testing.B) {
			db := openTest(b, b.TempDir())
			defer func() { _ = db.Close() }()
			work := make(chan int)
			var wg sync.WaitGroup
			for g := range conc {
				wg.Add(1)
				go func() {
					defer wg.Done()
					commitWorker(b, db, uint64(g), work)
				}()
			}
			i := 0
			for b.Loop() {
				work <- i
				i++
			}
			close(work)
			wg.Wait()
			b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "commits/s")
		})
	}
}

// commitWorker commits one 100-byte row per value received from work.
func commitWorker(b *testing.B, db *DB, g uint64, work chan int) {
	batch := db.NewBatch()
	defer func() { _ = batch.Close() }()
	value := make([]byte, 100)
	for i := range work {
		batch.Set(RowKey(g, fmt.Appendf(nil, "%d", i)), value)
		if err := db.Commit(batch); err != nil {
			b.Error(err)
			return
		}
		batch.Reset()
	}
}

// benchRow returns a typical narrow row: (id, name, amount).
func benchRow(i int64) repr.Row {
	return repr.Row{repr.NewInt(i), repr.NewText(fmt.Sprintf("name-%d", i)), repr.NewFloat(float64(i) / 3)}
}

// BenchmarkCollectionApply inserts distinct rows into a multiset, logging
// to a batch that is reset every 1000 rows.
func BenchmarkCollectionApply(b *testing.B) {
	db := openTest(b, b.TempDir())
	defer func() { _ = db.Close() }()
	batch := db.NewBatch()
	c := NewCollection(1, nil)
	rows := make([]repr.Row, 1<<16)
	for i := range rows {
		rows[i] = benchRow(int64(i))
	}
	i := 0
	for b.Loop() {
		row := rows[i%len(rows)]
		diff := int64(1)
		if (i/len(rows))%2 == 1 {
			diff = -1 // second pass retracts, so the collection stays bounded
		}
		if err := c.Apply(row, diff, batch); err != nil {
			b.Fatal(err)
		}
		if i++; i%1000 == 0 {
			batch.Reset()
		}
	}
}

// BenchmarkCollectionGet looks up rows by primary key in a collection of
// 100k rows.
func BenchmarkCollectionGet(b *testing.B) {
	const n = 100_000
	c := NewCollection(1, []int{0})
	keys := make([][]byte, n)
	for i := range n {
		row := benchRow(int64(i))
		if err := c.Apply(row, 1, nil); err != nil {
			b.Fatal(err)
		}
		keys[i] = c.Key(nil, row)
	}
	i := 0
	for b.Loop() {
		if _, _, ok := c.Get(keys[(i*7919)%n]); !ok {
			b.Fatal("missing row")
		}
		i++
	}
}

// BenchmarkCommitLargeBatch commits batches of 2,000 keys in random order
// (as a view's state changes arrive: by group, not by key), 16-byte keys
// under a common prefix and 30-byte values, as one synced commit each.
// ns/op is per batch; keys/s is the figure that matters.
func BenchmarkCommitLargeBatch(b *testing.B) {
	const n = 2000
	db := openTest(b, b.TempDir())
	defer func() { _ = db.Close() }()
	batch := db.NewBatch()
	defer func() { _ = batch.Close() }()
	value := make([]byte, 30)
	x := uint64(1)
	var key []byte
	keys := 0
	for b.Loop() {
		for range n {
			x = x*6364136223846793005 + 1442695040888963407 // LCG: scattered keys
			key = repr.AppendKey(key[:0], repr.NewInt(int64(x>>33)))
			batch.Set(RowKey(7, key), value)
		}
		if err := db.Commit(batch); err != nil {
			b.Fatal(err)
		}
		batch.Reset()
		keys += n
	}
	b.ReportMetric(float64(keys)/b.Elapsed().Seconds(), "keys/s")
}
