package storage

import (
	"encoding/binary"
	"fmt"
	"github.com/cockroachdb/pebble/v2/vfs"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

// BenchmarkCollectionApplyNumeric is BenchmarkCollectionApply over q1's
// view rows (auction, bidder, a numeric price, a timestamp, ~100 bytes of
// text): the numeric makes each row's exact key end with its hints.
func BenchmarkCollectionApplyNumeric(b *testing.B) {
	db := openTest(b, b.TempDir())
	defer func() { _ = db.Close() }()
	batch := db.NewBatch()
	c := NewCollection(1, nil)
	rows := make([]repr.Row, 1<<16)
	for i := range rows {
		price, err := repr.ParseNumeric(fmt.Sprintf("%d.%03d", i*7, i%1000))
		if err != nil {
			b.Fatal(err)
		}
		rows[i] = repr.Row{repr.NewInt(int64(i % 100)), repr.NewInt(int64(i)), repr.NewNumeric(price),
			repr.NewTimestamp(int64(i) * 1000), repr.NewText(strings.Repeat("x", 90+i%20))}
	}
	i := 0
	for b.Loop() {
		row := rows[i%len(rows)]
		diff := int64(1)
		if (i/len(rows))%2 == 1 {
			diff = -1
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
	i, cpu0 := 0, cpuTime()
	for b.Loop() {
		if _, _, ok := c.Get(keys[(i*7919)%n]); !ok {
			b.Fatal("missing row")
		}
		i++
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(i), "cpu-ns/op")
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

// BenchmarkScanPrefixLineitem looks up the lines of one order in a
// lineitem-like table of 400k rows keyed by (order, line), as a delta
// join probes a shared arrangement: "all" decodes each of the order's
// rows whole (16 columns, three of them text), "3cols" only the three a
// join keeps (repr.ColDecoder).
func BenchmarkScanPrefixLineitem(b *testing.B) {
	const orders, lines = 100_000, 4
	c := NewCollection(1, []int{0, 3})
	for o := range orders {
		for l := range lines {
			if err := c.Apply(lineitemRow(int64(o), int64(l)), 1, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	need := make([]bool, 16)
	need[1], need[2], need[5] = true, true, true
	for _, d := range []struct {
		name string
		dec  *repr.ColDecoder
	}{{"all", nil}, {"3cols", &repr.ColDecoder{Need: need}}} {
		b.Run(d.name, func(b *testing.B) {
			i, found, cpu0 := 0, 0, cpuTime()
			for b.Loop() {
				key := repr.AppendKey(nil, repr.NewInt(int64((i*7919)%orders)))
				c.ScanPrefixCols(key, d.dec, func(row repr.Row, _ int64) bool {
					found += len(row)
					return true
				})
				i++
			}
			if found != i*lines*16 {
				b.Fatalf("found %d columns in %d lookups", found, i)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(i), "cpu-ns/op")
		})
	}
}

// lineitemRow is a row shaped like TPC-H's lineitem.
func lineitemRow(order, line int64) repr.Row {
	num := func(s string) repr.Datum {
		d, err := repr.ParseText(s, repr.Numeric, nil)
		if err != nil {
			panic(err)
		}
		return d
	}
	return repr.Row{
		repr.NewInt(order), repr.NewInt(order*7 + line), repr.NewInt(order%1000 + line), repr.NewInt(line),
		num("17.00"), num("21168.23"), num("0.04"), num("0.02"),
		repr.NewText("N"), repr.NewText("O"), repr.NewDate(9000 + int32(line)), repr.NewDate(9010), repr.NewDate(9020),
		repr.NewText("DELIVER IN PERSON        "), repr.NewText("TRUCK     "), repr.NewText("egular courts above the"),
	}
}

// cpuTime is the process's user and system CPU time: on a shared machine
// a benchmark's wall time per op includes waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDiskGuard measures the free-space check every commit pays
// (one statfs of the data directory; compare BenchmarkCommit).
func BenchmarkDiskGuard(b *testing.B) {
	g := newDiskGuard(b.TempDir(), vfs.Default, 64<<20)
	for b.Loop() {
		_ = g.admit(4096, g.reserve/2)
	}
}

// BenchmarkSpilledRead reads a spilled lineitem-like collection (100,000
// orders of 4 lines, keyed by order and line, in the store after one
// checkpoint; an index on the third column) the way a refresh does:
// "get" looks up one row by its whole key, "prefix" one order's lines
// (a delta join's lookup, a DELETE's range), "index" the rows of one
// index key; "sorted" visits the orders in key order (a DELETE's IN
// list), the others scatter them.
func BenchmarkSpilledRead(b *testing.B) {
	const orders, lines = 100_000, 4
	db := openTest(b, b.TempDir())
	defer func() { _ = db.Close() }()
	c := NewCollection(1, []int{0, 3})
	c.AddIndex(2, []int{2}, nil)
	batch := db.NewBatch()
	for o := range orders {
		for l := range lines {
			if err := c.Apply(lineitemRow(int64(o), int64(l)), 1, batch); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := db.Commit(batch); err != nil {
		b.Fatal(err)
	}
	if err := db.pdb.Flush(); err != nil { // read from tables, as after a while
		b.Fatal(err)
	}
	c.Spill(db)
	read := map[string]func(i int) int{
		"get": func(i int) int {
			key := repr.AppendKey(repr.AppendKey(nil, repr.NewInt(int64((i*7919)%orders))), repr.NewInt(2))
			if _, _, ok := c.Get(key); !ok {
				return 0
			}
			return 1
		},
		"prefix":        func(i int) int { return countPrefix(c, int64((i*7919)%orders)) },
		"prefix-sorted": func(i int) int { return countPrefix(c, int64((i*37)%orders)) },
		"index": func(i int) int {
			n := 0
			key := repr.AppendKey(nil, repr.NewInt(int64((i*7919)%1000)))
			_ = c.ScanIndex(2, key, KeyPrefixEnd(key), func(repr.Row, int64) bool { n++; return n < 4 })
			return min(n, 1)
		},
	}
	for _, name := range []string{"get", "prefix", "prefix-sorted", "index"} {
		b.Run(name, func(b *testing.B) {
			i, found, cpu0 := 0, 0, cpuTime()
			for b.Loop() {
				found += read[name](i)
				i++
			}
			if found == 0 {
				b.Fatal("nothing found")
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(i), "cpu-ns/op")
		})
	}
}

// countPrefix returns the number of c's rows of order o.
func countPrefix(c *Collection, o int64) int {
	n := 0
	c.ScanPrefix(repr.AppendKey(nil, repr.NewInt(o)), func(repr.Row, int64) bool { n++; return true })
	return n
}

// BenchmarkBatchSort sorts a checkpoint-like batch of 200,000 writes (as
// emitSorted does, without Pebble), modelled on q20's: a join's state
// rows under a long common prefix (dataflow, node, side tag), a join key
// among 20,000 recent auctions (hot ones repeat within the batch) and a
// growing sequence number, interleaved with a view's rows keyed by the
// whole row.
func BenchmarkBatchSort(b *testing.B) {
	const n = 200_000
	src := &Batch{}
	x := uint64(1)
	var key []byte
	for i := range n {
		x = x*6364136223846793005 + 1442695040888963407
		auction := repr.NewInt(1_000_000 + int64(x>>33)%20_000)
		if i%4 == 0 {
			key = repr.AppendKey(key[:0], auction)
			for c := range 6 {
				key = repr.AppendKey(key, repr.NewInt(int64(x>>(8*c))%1000))
			}
			key = RowKey(9, key)
		} else {
			key = append(StatePrefix(8), repr.AppendKey(nil, repr.NewInt(2))...)
			key = append(key, 1)
			key = repr.AppendKey(key, auction)
			key = binary.BigEndian.AppendUint64(key, uint64(i))
		}
		src.Set(key, []byte("value"))
	}
	ops := make([]batchWrite, n)
	cpu0, i := cpuTime(), 0
	for b.Loop() {
		copy(ops, src.ops)
		src.sortOps(ops)
		i++
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(i), "cpu-ns/op")
}

// BenchmarkDeleteIndexed deletes lineitem-shaped rows, each handed back
// as stored (as a DELETE does), from a keyed collection with an index
// on the part key (as TPC-H's automatic lineitem(l_partkey) index), 1,000
// per op, then inserts them again. cpu-ns/row is the deletes' CPU time
// per row (the process's, so on a quiet machine).
func BenchmarkDeleteIndexed(b *testing.B) {
	const orders, lines, per = 20_000, 4, 1000
	c := NewCollection(1, []int{0, 3})
	c.AddIndex(2, []int{1}, nil)
	rows := make([]repr.Row, 0, orders*lines)
	for o := range orders {
		for l := range lines {
			rows = append(rows, lineitemRow(int64(o), int64(l)))
			if err := c.Apply(rows[len(rows)-1], 1, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	n, cpu := 0, time.Duration(0)
	for b.Loop() {
		cpu0 := cpuTime()
		for i := range per {
			if err := c.Apply(rows[((n+i)*7919)%len(rows)], -1, nil); err != nil {
				b.Fatal(err)
			}
		}
		cpu += cpuTime() - cpu0
		for i := range per {
			if err := c.Apply(rows[((n+i)*7919)%len(rows)], 1, nil); err != nil {
				b.Fatal(err)
			}
		}
		n += per
	}
	b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/row")
}
