package storage

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// refWrite is one write as the reference model applies it.
type refWrite struct {
	kind       opKind
	key, value string
}

// TestBatchChunks drives a Batch with writes whose keys and values
// straddle chunk sizes (so most transactions cross chunk boundaries),
// rolls random transactions back across chunks, commits, resets, and
// compares the database with a map that applies the same writes in order.
func TestBatchChunks(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	rng := rand.New(rand.NewPCG(1, 2))
	ref := map[string]string{}
	b := db.NewBatch()
	defer func() { _ = b.Close() }()

	size := func() int {
		switch rng.IntN(10) {
		case 0: // around a chunk: the first one, the largest, or beyond
			base := []int{minChunk, 2 * minChunk, maxChunk, maxChunk + maxChunk/2}[rng.IntN(4)]
			return base - 8 + rng.IntN(16)
		case 1:
			return 0
		default:
			return rng.IntN(300)
		}
	}
	key := func() []byte {
		k := []byte{'k', byte('a' + rng.IntN(6))}
		if rng.IntN(3) == 0 {
			k = append(k, byte('a'+rng.IntN(6)))
		}
		if rng.IntN(20) == 0 { // a long key, padded after the short part
			k = append(k, strings.Repeat("p", size())...)
		}
		return k
	}
	value := func() []byte {
		v := make([]byte, size())
		for i := range v {
			v[i] = byte(rng.Uint32())
		}
		return v
	}
	apply := func(ws []refWrite) {
		for _, w := range ws {
			switch w.kind {
			case opSet:
				ref[w.key] = w.value
			case opDelete:
				delete(ref, w.key)
			case opDeleteRange:
				for k := range ref {
					if strings.HasPrefix(k, w.key) {
						delete(ref, k)
					}
				}
			}
		}
	}

	crossings := 0
	for round := range 12 {
		var pending []refWrite
		for range 1 + rng.IntN(8) {
			m := b.Mark()
			usedBefore := b.Used()
			var tx []refWrite
			for range rng.IntN(40) {
				k := key()
				switch r := rng.IntN(20); {
				case r < 14:
					v := value()
					b.Set(k, v)
					tx = append(tx, refWrite{opSet, string(k), string(v)})
				case r < 19:
					b.Delete(k)
					tx = append(tx, refWrite{opDelete, string(k), ""})
				default:
					p := k[:2]
					b.DeletePrefix(p)
					tx = append(tx, refWrite{opDeleteRange, string(p), ""})
				}
			}
			if rng.IntN(3) == 0 {
				crossed := b.n > m.n
				b.RollbackTo(m)
				if b.Used() != usedBefore || b.Len() != m.ops {
					t.Fatalf("round %d: after RollbackTo Used=%d Len=%d, want %d %d",
						round, b.Used(), b.Len(), usedBefore, m.ops)
				}
				if got := b.Mark(); got != m {
					t.Fatalf("round %d: after RollbackTo at %+v, want %+v", round, got, m)
				}
				checkSpares(t, b)
				if crossed {
					crossings++
				}
				continue
			}
			pending = append(pending, tx...)
		}
		checkSpares(t, b)
		if want := usedOf(pending); b.Used() != want {
			t.Fatalf("round %d: Used=%d, want %d", round, b.Used(), want)
		}
		if b.Size() < b.Used() {
			t.Fatalf("round %d: Size=%d < Used=%d", round, b.Size(), b.Used())
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		apply(pending)
		checkAgainst(t, db, ref)
		b.Reset()
		if b.Used() != 0 || b.Len() != 0 || b.Size() > keepBytes {
			t.Fatalf("round %d: after Reset Used=%d Len=%d Size=%d", round, b.Used(), b.Len(), b.Size())
		}
		checkSpares(t, b)
	}
	if crossings < 5 {
		t.Fatalf("only %d rollbacks crossed a chunk boundary", crossings)
	}
}

// checkSpares fails unless every chunk past those in use is empty.
func checkSpares(t *testing.T, b *Batch) {
	t.Helper()
	for i, ch := range b.chunks[b.n:] {
		if len(ch) != 0 {
			t.Fatalf("spare chunk %d holds %d bytes", b.n+i, len(ch))
		}
	}
}

// usedOf returns the arena bytes ws take in a Batch.
func usedOf(ws []refWrite) int {
	n := 0
	for _, w := range ws {
		n += len(w.key) + len(w.value)
		if w.kind == opDeleteRange {
			n += len(prefixEnd([]byte(w.key)))
		}
	}
	return n
}

// checkAgainst fails unless db holds exactly ref.
func checkAgainst(t *testing.T, db *DB, ref map[string]string) {
	t.Helper()
	seen := 0
	err := db.Scan(nil, func(k, v []byte) error {
		want, ok := ref[string(k)]
		if !ok {
			t.Fatalf("db has %q, the reference does not", k)
		}
		if !bytes.Equal(v, []byte(want)) {
			t.Fatalf("db %q: value of %d bytes, want %d bytes", k, len(v), len(want))
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(ref) {
		t.Fatalf("db has %d keys, the reference %d", seen, len(ref))
	}
}

// TestBatchResetKeepsBounded checks that Reset keeps at most keepBytes of
// chunks and that a kept batch is reused without allocating new chunks.
func TestBatchResetKeepsBounded(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	v := make([]byte, maxChunk/2+1)
	for i := range 3 * keepBytes / maxChunk {
		b.Set([]byte{'k', byte(i >> 8), byte(i)}, v)
	}
	if b.Size() < 2*keepBytes {
		t.Fatalf("Size=%d, want >= %d", b.Size(), 2*keepBytes)
	}
	b.Reset()
	if b.Size() > keepBytes || b.Size() == 0 {
		t.Fatalf("after Reset Size=%d, want in (0, %d]", b.Size(), keepBytes)
	}
	kept := b.Size()
	for i := range 10 {
		b.Set([]byte{'k', byte(i)}, v)
	}
	if b.Size() != kept {
		t.Fatalf("reuse allocated: Size %d -> %d", kept, b.Size())
	}
}

// TestBatchKeepOption checks that a store's Options.BatchKeep bounds the
// chunks its batches keep at Reset, and the write records they keep to
// half of it (recordsKept), below keepBytes.
func TestBatchKeepOption(t *testing.T) {
	o := quietOptions()
	o.BatchKeep = 2 << 20
	db, err := Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	v := make([]byte, 100)
	for i := range 80_000 { // 8 MiB of values, 80,000 records (2.5 MiB)
		b.Set(binary.BigEndian.AppendUint32([]byte{'k'}, uint32(i)), v)
	}
	b.Reset()
	if b.Size() > o.BatchKeep || b.Size() == 0 {
		t.Fatalf("after Reset Size=%d, want in (0, %d]", b.Size(), o.BatchKeep)
	}
	if cap(b.ops) != 0 {
		t.Fatalf("after Reset the records' slice kept %d entries; want none past %d bytes", cap(b.ops), recordsKept(o.BatchKeep))
	}
}

// TestBatchResetSizesRecords checks that a batch whose write records were
// too many to keep sizes them at its next first write for as many as it
// held (a checkpoint after a checkpoint), and for few again after a
// batch of few.
func TestBatchResetSizesRecords(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	n := recordsKept(keepBytes)/int(unsafe.Sizeof(batchWrite{})) + 1000
	var k [4]byte
	for i := range n {
		binary.BigEndian.PutUint32(k[:], uint32(i))
		b.Set(k[:], nil)
	}
	b.Reset()
	if cap(b.ops) != 0 {
		t.Fatalf("Reset kept %d write records, over the bound", cap(b.ops))
	}
	b.Set([]byte("a"), nil)
	if cap(b.ops) < n {
		t.Fatalf("first write after Reset sized %d records, want >= %d", cap(b.ops), n)
	}
	b.Reset() // one write: sized for about one next time
	if b.Set([]byte("b"), nil); cap(b.ops) >= n {
		t.Fatalf("a batch of one write sized %d records", cap(b.ops))
	}
}

// TestBatchEmptyWritesOrdered checks that writes with an empty key and
// value still sort in write order, so the last one of a key wins.
func TestBatchEmptyWritesOrdered(t *testing.T) {
	b := &Batch{}
	b.Set(nil, nil)
	b.Delete(nil)
	b.Set(nil, nil)
	for i := 1; i < len(b.ops); i++ {
		if b.cmpOps(b.ops[i-1], b.ops[i]) >= 0 {
			t.Fatalf("write %d does not sort before write %d", i-1, i)
		}
	}
	if b.Used() != 0 {
		t.Fatalf("Used=%d, want 0", b.Used())
	}
}

// TestBatchSortOps checks sortOps against cmpOps's order over random
// keys built to trip a digit-wise sort: long shared prefixes, keys that
// are prefixes of others (ending within a digit or on its boundary),
// zero bytes where a shorter key is padded, repeated keys (which must
// stay in write order) and empty keys. Every other round starts with a
// run of writes already in order (sortOps sorts only the rest and merges
// them), which the rest repeats keys of.
func TestBatchSortOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 400 {
		b := &Batch{}
		prefix := bytes.Repeat([]byte{'s'}, rng.IntN(20))
		var keys [][]byte
		for range 1 + rng.IntN(300) {
			k := append([]byte(nil), prefix[:rng.IntN(len(prefix)+1)]...)
			for range rng.IntN(20) {
				k = append(k, []byte{0, 1, 0xff, 's'}[rng.IntN(4)])
			}
			keys = append(keys, k)
		}
		if round%2 == 1 {
			n := rng.IntN(len(keys) + 1)
			slices.SortFunc(keys[:n], bytes.Compare)
			for i := n; i < len(keys); i++ {
				if n > 0 && rng.IntN(3) == 0 {
					keys[i] = keys[rng.IntN(n)]
				}
			}
		}
		for _, k := range keys {
			b.Set(k, nil)
		}
		got := slices.Clone(b.ops)
		b.sortOps(got)
		want := slices.Clone(b.ops)
		slices.SortFunc(want, b.cmpOps)
		for i := range want {
			if got[i].at != want[i].at {
				t.Fatalf("round %d: write %d is %q (at %d), want %q (at %d)", round, i,
					b.key(got[i]), got[i].at, b.key(want[i]), want[i].at)
			}
		}
	}
}

// TestBatchReleasesLargeBuffers checks that a committed batch larger than
// Pebble keeps on Reset lets go of its Pebble batch, that a small one keeps
// it for reuse, and that Reset drops a write-record slice past
// recordsKept(keepBytes).
func TestBatchReleasesLargeBuffers(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	b.Set([]byte("small"), []byte("v"))
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if b.pb == nil {
		t.Fatal("a small committed batch dropped its Pebble batch")
	}
	b.Reset()
	n := recordsKept(keepBytes)/int(unsafe.Sizeof(batchWrite{})) + 1
	for i := range n {
		b.Set(binary.BigEndian.AppendUint32([]byte("k"), uint32(i)), []byte("v"))
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if b.pb != nil {
		t.Fatalf("a committed batch of %d writes kept its Pebble batch", n)
	}
	b.Reset()
	if cap(b.ops) != 0 {
		t.Fatalf("Reset kept %d write records", cap(b.ops))
	}
	v, ok, err := db.Get(binary.BigEndian.AppendUint32([]byte("k"), uint32(n-1)))
	if err != nil || !ok || string(v) != "v" {
		t.Fatalf("Get after commit: %q %v %v", v, ok, err)
	}
}
