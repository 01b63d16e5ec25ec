package storage

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// BenchmarkWindowChurn models the store of a spilled window or interval
// join (Nexmark q7's bids): each op is one checkpoint that writes
// churnStep new rows (key: tag, join key, row key, about 100 bytes; the
// value of a q7 bid logged in full, 73 bytes, or in the keyed form
// that leaves the columns to the key, 9) and
// closes the churnStep oldest, the way closeRange does: it walks their
// stored keys in key order (Next within a gap, a seek past it) and
// deletes each. About churnLive rows are open at a time, so a row lives
// for churnLive/churnStep checkpoints: written, flushed, compacted, then
// deleted. It reports the bytes Pebble's compactions wrote and read per
// checkpoint beside the time, and the cost of a load (every stored row
// of one join key, as a probe of the other side reads them).
//
// The time= variants key the same rows by (tag, time bucket, join key,
// row key), a bucket being time= checkpoints' rows: a bucket closes once
// all its rows are due, as one range deletion and no read, and a load
// reads the join key's rows in each open bucket (one seek per bucket).
func BenchmarkWindowChurn(b *testing.B) {
	for _, v := range []int{73, 9} {
		b.Run(fmt.Sprintf("value=%d", v), func(b *testing.B) { benchChurn(b, v, 0) })
	}
	for _, g := range []int{1, 4} {
		b.Run(fmt.Sprintf("value=9/time=%d", g), func(b *testing.B) { benchChurn(b, 9, g) })
	}
}

// benchChurn runs BenchmarkWindowChurn with values of vlen bytes, keyed
// by join key (group 0) or by buckets of group checkpoints.
func benchChurn(b *testing.B, vlen, group int) {
	o := quietOptions()
	o.MemTableSize = 8 << 20 // a 16th of a 128 MiB budget, as sql's storeOptions
	o.CacheSize = 16 << 20
	db, err := Open(b.TempDir(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	w := newChurn(db, vlen, group)
	for range churnLive / churnStep {
		w.step(b, false)
	}
	m0 := db.pdb.Metrics().Total()
	w.loadTime, w.loads, w.loaded = 0, 0, 0
	for b.Loop() {
		w.step(b, true)
	}
	m1 := db.pdb.Metrics().Total()
	n := float64(b.N)
	b.ReportMetric(float64(m1.TableBytesCompacted-m0.TableBytesCompacted)/n/(1<<20), "compactedMB/op")
	b.ReportMetric(float64(m1.TableBytesRead-m0.TableBytesRead)/n/(1<<20), "compactReadMB/op")
	b.ReportMetric(float64(m1.TableBytesFlushed-m0.TableBytesFlushed)/n/(1<<20), "flushedMB/op")
	b.ReportMetric(float64(w.loadTime.Microseconds())/float64(w.loads), "us/load")
	b.ReportMetric(float64(w.loaded)/float64(w.loads), "rows/load")
}

const (
	churnLive  = 200_000
	churnStep  = 10_000
	churnLoads = 200
)

// churn is BenchmarkWindowChurn's state: the open rows' keys, oldest
// first (group 0), or the open buckets (first is the oldest's).
type churn struct {
	db    *DB
	batch *Batch
	rng   *rand.Rand
	open  [][]byte
	seq   uint64
	value []byte
	// group is the checkpoints per time bucket (0: keyed by join key);
	// steps counts checkpoints, first is the oldest open bucket.
	group        int
	steps, first uint64
	// loads, loaded and loadTime count the loads measured, the rows
	// they read and their time.
	loads, loaded int
	loadTime      time.Duration
}

func newChurn(db *DB, vlen, group int) *churn {
	return &churn{db: db, batch: db.NewBatch(), rng: rand.New(rand.NewPCG(1, 2)), value: make([]byte, vlen), group: group}
}

// price draws a join key (a price, skewed to low values).
func (w *churn) price() uint64 { return uint64(w.rng.ExpFloat64() * 2000) }

// key returns a new row's state key: prefix, tag, its time bucket when
// keyed by time, an 8-byte join key, an 80-byte row key.
func (w *churn) key() []byte {
	k := RowKey(7, nil)
	k = append(k, 3)
	if w.group > 0 {
		k = binary.BigEndian.AppendUint64(k, w.steps/uint64(w.group))
	}
	k = binary.BigEndian.AppendUint64(k, w.price())
	w.seq++
	for range 10 {
		k = binary.BigEndian.AppendUint64(k, w.seq*0x9e3779b97f4a7c15)
	}
	return k
}

// step writes churnStep rows and, once churnLive are open, closes the
// oldest churnStep of them (keyed by time: the buckets whose rows are
// all that old), then commits and loads churnLoads join keys.
func (w *churn) step(b *testing.B, close bool) {
	for range churnStep {
		k := w.key()
		if w.group == 0 {
			w.open = append(w.open, k)
		}
		w.batch.Set(k, w.value)
	}
	w.steps++
	switch {
	case close && w.group > 0:
		w.closeBuckets()
	case close:
		closing := slices.Clone(w.open[:churnStep])
		w.open = w.open[churnStep:]
		slices.SortFunc(closing, func(x, y []byte) int { return compareBytes(x, y) })
		w.closeKeys(b, closing)
	}
	if err := w.db.Commit(w.batch); err != nil {
		b.Fatal(err)
	}
	w.batch.Reset()
	w.loadSome(b)
}

// closeBuckets deletes, one range each, the buckets whose rows are all
// at least churnLive/churnStep checkpoints old.
func (w *churn) closeBuckets() {
	g := uint64(w.group)
	for (w.first+1)*g+churnLive/churnStep <= w.steps {
		lo := binary.BigEndian.AppendUint64(append(RowKey(7, nil), 3), w.first)
		hi := binary.BigEndian.AppendUint64(append(RowKey(7, nil), 3), w.first+1)
		w.batch.DeleteRange(lo, hi)
		w.first++
	}
}

// closeKeys finds each of keys (sorted) in the store, as closeRange's
// scan does, and deletes it.
func (w *churn) closeKeys(b *testing.B, keys [][]byte) {
	it, err := w.db.pdb.NewIter(nil)
	if err != nil {
		b.Fatal(err)
	}
	valid := false
	for _, k := range keys {
		for gap := 0; valid && compareBytes(it.Key(), k) < 0 && gap < 32; gap++ {
			valid = it.Next()
		}
		if !valid || compareBytes(it.Key(), k) < 0 {
			valid = it.SeekGE(k)
		}
		if valid && compareBytes(it.Key(), k) == 0 {
			w.batch.Delete(k)
		}
	}
	if err := it.Close(); err != nil {
		b.Fatal(err)
	}
}

// loadSome reads every stored row of churnLoads join keys, timing it:
// one prefix scan keyed by join key, one per open bucket keyed by time.
func (w *churn) loadSome(b *testing.B) {
	start := time.Now()
	it, err := w.db.pdb.NewIter(nil)
	if err != nil {
		b.Fatal(err)
	}
	base := append(RowKey(7, nil), 3)
	var p []byte
	for range churnLoads {
		price := w.price()
		if w.group == 0 {
			p = binary.BigEndian.AppendUint64(append(p[:0], base...), price)
			w.loaded += scanPrefix(it, p)
			continue
		}
		for bk := w.first; bk <= w.steps/uint64(w.group); bk++ {
			p = binary.BigEndian.AppendUint64(append(p[:0], base...), bk)
			p = binary.BigEndian.AppendUint64(p, price)
			w.loaded += scanPrefix(it, p)
		}
	}
	if err := it.Close(); err != nil {
		b.Fatal(err)
	}
	w.loads += churnLoads
	w.loadTime += time.Since(start)
}

// scanPrefix counts it's keys under p.
func scanPrefix(it interface {
	SeekGE([]byte) bool
	Next() bool
	Key() []byte
}, p []byte) int {
	n := 0
	for ok := it.SeekGE(p); ok && len(it.Key()) >= len(p) && compareBytes(it.Key()[:len(p)], p) == 0; ok = it.Next() {
		n++
	}
	return n
}

func compareBytes(x, y []byte) int { return slices.Compare(x, y) }
