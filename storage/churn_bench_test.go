package storage

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
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
// checkpoint beside the time.
func BenchmarkWindowChurn(b *testing.B) {
	for _, v := range []int{73, 9} {
		b.Run(fmt.Sprintf("value=%d", v), func(b *testing.B) { benchChurn(b, v) })
	}
}

// benchChurn runs BenchmarkWindowChurn with values of vlen bytes.
func benchChurn(b *testing.B, vlen int) {
	o := quietOptions()
	o.MemTableSize = 8 << 20 // a 16th of a 128 MiB budget, as sql's storeOptions
	o.CacheSize = 16 << 20
	db, err := Open(b.TempDir(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	w := newChurn(db, vlen)
	for range churnLive / churnStep {
		w.step(b, false)
	}
	m0 := db.pdb.Metrics().Total()
	for b.Loop() {
		w.step(b, true)
	}
	m1 := db.pdb.Metrics().Total()
	n := float64(b.N)
	b.ReportMetric(float64(m1.TableBytesCompacted-m0.TableBytesCompacted)/n/(1<<20), "compactedMB/op")
	b.ReportMetric(float64(m1.TableBytesRead-m0.TableBytesRead)/n/(1<<20), "compactReadMB/op")
	b.ReportMetric(float64(m1.TableBytesFlushed-m0.TableBytesFlushed)/n/(1<<20), "flushedMB/op")
}

const (
	churnLive = 200_000
	churnStep = 10_000
)

// churn is BenchmarkWindowChurn's state: the open rows' keys, oldest
// first.
type churn struct {
	db    *DB
	batch *Batch
	rng   *rand.Rand
	open  [][]byte
	seq   uint64
	value []byte
}

func newChurn(db *DB, vlen int) *churn {
	return &churn{db: db, batch: db.NewBatch(), rng: rand.New(rand.NewPCG(1, 2)), value: make([]byte, vlen)}
}

// key returns a new row's state key: prefix, tag, an 8-byte join key
// (a price, skewed to low values), an 80-byte row key.
func (w *churn) key() []byte {
	k := RowKey(7, nil)
	k = append(k, 3)
	price := uint64(w.rng.ExpFloat64() * 2000)
	k = binary.BigEndian.AppendUint64(k, price)
	w.seq++
	for range 10 {
		k = binary.BigEndian.AppendUint64(k, w.seq*0x9e3779b97f4a7c15)
	}
	return k
}

// step writes churnStep rows and, once churnLive are open, closes the
// oldest churnStep of them, then commits.
func (w *churn) step(b *testing.B, close bool) {
	for range churnStep {
		k := w.key()
		w.open = append(w.open, k)
		w.batch.Set(k, w.value)
	}
	if close {
		closing := slices.Clone(w.open[:churnStep])
		w.open = w.open[churnStep:]
		slices.SortFunc(closing, func(x, y []byte) int { return compareBytes(x, y) })
		w.closeKeys(b, closing)
	}
	if err := w.db.Commit(w.batch); err != nil {
		b.Fatal(err)
	}
	w.batch.Reset()
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

func compareBytes(x, y []byte) int { return slices.Compare(x, y) }
