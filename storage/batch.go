package storage

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"

	"github.com/cockroachdb/pebble/v2"
)

// Batch is a set of writes that DB.Commit applies atomically. A Batch is
// used by one goroutine at a time. Keys and values are copied in, so
// callers may reuse their buffers right after each call.
//
// Writes are buffered in an arena and handed to Pebble at Commit sorted
// by key, keeping only the last write of each key (between range
// deletions, which stay barriers in their place). The result is the same
// as applying the writes in order, but Pebble's memtable insertion, a skip
// list that remembers where the previous key went, then costs a few
// comparisons per key instead of a search from the top: a commit's keys
// arrive in the order of the rows that caused them (rows, groups, state
// entries interleaved), and that search dominated large commits.
//
// The arena is a list of chunks that are never reallocated: a write that
// does not fit in the current chunk's free capacity goes to the next one,
// so growth allocates a new chunk instead of copying everything written so
// far (a checkpoint batch reaches tens of MiB).
type Batch struct {
	db *pebble.DB
	pb *pebble.Batch // built by Commit; kept to reuse its memory
	// pbSize is what the last build needed of pb's buffer.
	pbSize int
	// chunks[:n] hold the writes, in order; chunks[n:] are empty spares
	// kept for reuse. A chunk's capacity never changes once allocated.
	chunks [][]byte
	n      int
	used   int // bytes of keys and values in chunks[:n]
	held   int // sum of the capacities of all chunks
	ops    []batchWrite
	// opsHint is how many writes the batch held when Reset dropped ops
	// (too large to keep): the next first write sizes ops for that many
	// and a quarter more at once, instead of doubling up to it again (a
	// checkpoint's records were a quarter of a prepared INSERT's
	// allocated bytes, with growslice's copies).
	opsHint int
	err     error // first invalid operation; Commit returns it
	// independent: see SetIndependent (async.go).
	independent bool
	// keep bounds the chunks Reset keeps (Options.BatchKeep; 0:
	// keepBytes).
	keep int
}

// batchWrite is one write: kind, key chunks[c][k0:k1] and value (or range
// end) chunks[c][k1:v1], where at = c<<32 | k0. Every write starts at a
// distinct at, increasing in write order (an empty key and value take one
// byte of padding), so at also orders writes.
type batchWrite struct {
	at     uint64
	k1, v1 uint32
	kind   opKind
	// tail and digit are sortOps's scratch: how many bytes of the key
	// remain past the offset being sorted on (9: more than 8), and the
	// next 8 of them.
	tail  uint8
	digit uint64
}

const (
	// minChunk is the first chunk's size; each next one doubles, up to
	// maxChunk, so small batches stay small.
	minChunk = 4 << 10
	maxChunk = 1 << 20
	// keepBytes bounds the chunks Reset keeps for reuse, and half of it
	// (recordsKept) the write records' slice, unless the store's Options.BatchKeep
	// sets a smaller bound: a checkpoint batch under a small memory
	// budget must not leave tens of MiB of spares standing between
	// checkpoints (they count against the budget).
	keepBytes = 16 << 20
)

type opKind uint8

const (
	opSet opKind = iota
	opDelete
	opDeleteRange
)

// NewBatch returns an empty batch for db.
func (db *DB) NewBatch() *Batch { return &Batch{db: db.pdb, keep: db.batchKeep} }

// add appends an operation with key and value (or range end).
func (b *Batch) add(kind opKind, key, value []byte) {
	size := len(key) + len(value)
	c := b.room(max(size, 1))
	ch := b.chunks[c]
	k0 := len(ch)
	ch = append(ch, key...)
	k1 := len(ch)
	ch = append(ch, value...)
	v1 := len(ch)
	if size == 0 {
		ch = append(ch, 0) // padding: the next write starts after this one
	}
	b.chunks[c] = ch
	b.used += size
	if cap(b.ops) == 0 && b.opsHint > 0 {
		b.ops, b.opsHint = make([]batchWrite, 0, b.opsHint+b.opsHint/4), 0
	}
	b.ops = append(b.ops, batchWrite{at: uint64(c)<<32 | uint64(k0),
		k1: uint32(k1), v1: uint32(v1), kind: kind})
}

// room returns the index of the chunk in use that the next size bytes go
// to, starting a new chunk (a spare if one is large enough) when the last
// one in use lacks the free capacity. A write larger than maxChunk gets a
// chunk of its own size.
func (b *Batch) room(size int) int {
	if b.n > 0 {
		if last := b.chunks[b.n-1]; cap(last)-len(last) >= size {
			return b.n - 1
		}
	}
	if b.n < len(b.chunks) && cap(b.chunks[b.n]) >= size {
		b.n++
		return b.n - 1
	}
	want := minChunk
	if b.n > 0 {
		want = min(2*cap(b.chunks[b.n-1]), maxChunk)
	}
	want = max(want, size)
	ch := make([]byte, 0, want)
	b.held += want
	if b.n < len(b.chunks) { // the spare is too small: replace it
		b.held -= cap(b.chunks[b.n])
		b.chunks[b.n] = ch
	} else {
		b.chunks = append(b.chunks, ch)
	}
	b.n++
	return b.n - 1
}

// Set writes key = value.
func (b *Batch) Set(key, value []byte) { b.add(opSet, key, value) }

// Delete removes key.
func (b *Batch) Delete(key []byte) { b.add(opDelete, key, nil) }

// DeletePrefix removes every key starting with prefix: those already
// committed and those Set earlier in this batch (later Sets survive, as
// batch operations apply in order). A prefix with no upper bound (empty or
// all 0xFF) is refused: Commit will fail.
func (b *Batch) DeletePrefix(prefix []byte) {
	end := prefixEnd(prefix)
	if end == nil {
		if b.err == nil {
			b.err = fmt.Errorf("storage: DeletePrefix(%q): prefix has no upper bound", prefix)
		}
		return
	}
	b.add(opDeleteRange, prefix, end)
}

// DeleteRange removes every key k with start <= k < end (a barrier like
// DeletePrefix).
func (b *Batch) DeleteRange(start, end []byte) { b.add(opDeleteRange, start, end) }

// Used returns the bytes of keys and values written since the last Reset.
func (b *Batch) Used() int { return b.used }

// Len returns the number of operations in the batch.
func (b *Batch) Len() int { return len(b.ops) }

// Size returns the bytes of keys and values the batch holds or last held
// (its arena's capacity: every chunk it keeps).
func (b *Batch) Size() int { return b.held }

// Reset empties the batch for reuse. It keeps its chunks as spares, up to
// keepBytes of them (or the store's Options.BatchKeep), and its write
// records' slice up to half of that (recordsKept).
func (b *Batch) Reset() {
	keep := keepBytes
	if b.keep > 0 {
		keep = min(b.keep, keepBytes)
	}
	kept := 0
	for i, ch := range b.chunks {
		if kept+cap(ch) > keep {
			clear(b.chunks[i:])
			b.chunks = b.chunks[:i]
			break
		}
		kept += cap(ch)
		b.chunks[i] = ch[:0]
	}
	b.n, b.used, b.held = 0, 0, kept
	n := len(b.ops)
	b.ops, b.err = b.ops[:0], nil
	if cap(b.ops)*int(unsafe.Sizeof(batchWrite{})) > recordsKept(keep) {
		b.ops, b.opsHint = nil, n
	}
}

// recordsKept is the largest write-records slice (in bytes) that Reset
// keeps, given the bound keep on its chunks. Half: a checkpoint batch of a
// second of prepared INSERTs (~130,000 writes, 32 bytes each) then reuses
// its slice, where a quarter dropped it at every checkpoint and the next
// one allocated, zeroed and often doubled ~5 MiB again (4.8% of the
// write path's CPU; BENCHMARKS.md, write path).
func recordsKept(keep int) int { return keep / 2 }

// applied lets go of the Pebble batch after a commit when it is larger
// than Pebble's Reset would keep anyway: build would replace it, so
// keeping it only holds its memory until the next commit.
func (b *Batch) applied() {
	if b.pb != nil && b.pbSize > pebbleRetained {
		_ = b.pb.Close()
		b.pb = nil
	}
}

// Close releases the batch; it must not be used afterwards.
func (b *Batch) Close() error {
	if b.pb == nil {
		return nil
	}
	err := b.pb.Close()
	b.pb = nil
	return err
}

// key returns op's key.
func (b *Batch) key(op batchWrite) []byte { return b.chunks[op.at>>32][uint32(op.at):op.k1] }

// value returns op's value (or range end).
func (b *Batch) value(op batchWrite) []byte { return b.chunks[op.at>>32][op.k1:op.v1] }

// build fills a Pebble batch with the writes: each run between range
// deletions sorted by key with only each key's last write kept, then the range deletion.
func (b *Batch) build() *pebble.Batch {
	// Pebble's batch is one contiguous buffer that doubles as it grows and
	// that Reset drops above pebbleRetained, so a large batch (a checkpoint
	// is tens of MiB) is sized up front instead of copied at each doubling.
	need := pebbleHeader + b.used + pebbleOpOverhead*len(b.ops)
	b.pbSize = need
	switch {
	case b.pb != nil && need <= pebbleRetained:
		b.pb.Reset()
	default:
		if b.pb != nil {
			_ = b.pb.Close()
		}
		b.pb = b.db.NewBatchWithSize(need)
	}
	start := 0
	for i := 0; i <= len(b.ops); i++ {
		if i < len(b.ops) && b.ops[i].kind != opDeleteRange {
			continue
		}
		b.emitSorted(b.ops[start:i])
		if i < len(b.ops) {
			op := b.ops[i]
			_ = b.pb.DeleteRange(b.key(op), b.value(op), nil)
		}
		start = i + 1
	}
	return b.pb
}

// Sizes of Pebble's batch encoding, for build's estimate: the batch
// header, an upper bound on one record's overhead (kind byte and two
// uvarint lengths), and the buffer size Reset keeps.
const (
	pebbleHeader     = 12
	pebbleOpOverhead = 1 + 2*binary.MaxVarintLen32
	pebbleRetained   = 1 << 20
)

// emitSorted writes ops (no range deletions) to b.pb in key order, the
// last write of each key only. It reorders ops in place.
func (b *Batch) emitSorted(ops []batchWrite) {
	b.sortOps(ops)
	for i, op := range ops {
		if i+1 < len(ops) && bytes.Equal(b.key(op), b.key(ops[i+1])) {
			continue // a later write of the same key wins
		}
		if op.kind == opSet {
			_ = b.pb.Set(b.key(op), b.value(op), nil) // fails only on a closed batch
		} else {
			_ = b.pb.Delete(b.key(op), nil)
		}
	}
}

// sortOps sorts ops by key, then in write order (cmpOps's order). It
// sorts by 8-byte digits of the keys, most significant first (a radix
// sort's order with comparison sorts per digit): each op's digit at the
// offset is read once into the op (digit, tail), the ops are sorted by
// it without touching the keys, and each run of ops whose keys go on
// past an equal digit is sorted by the next digit. A checkpoint's keys
// share long prefixes (kind, collection or dataflow id, operator node,
// side tag) and live scattered over tens of MiB of chunks, where a
// bytes.Compare per comparison missed the cache twice: it took 9% of
// q20's spilled CPU (BENCHMARKS.md).
//
// Writes already in order at the start (a table's rows under a serial
// key, committed one after another until the checkpoint, before the
// views' and operators' writes that the checkpoint's flush appends) are
// left in place: only the rest is sorted, then merged with them.
func (b *Batch) sortOps(ops []batchWrite) {
	k := 1
	for k < len(ops) && b.cmpOps(ops[k-1], ops[k]) <= 0 {
		k++
	}
	switch {
	case k >= len(ops):
	case k < len(ops)/4:
		b.sortFrom(ops, 0)
	default:
		b.sortFrom(ops[k:], 0)
		b.mergeSorted(ops, k)
	}
}

// mergeSorted merges the sorted ops[:k] and ops[k:] into cmpOps's order,
// from the end down, holding a copy of ops[k:] while it writes over it.
func (b *Batch) mergeSorted(ops []batchWrite, k int) {
	tail := slices.Clone(ops[k:])
	i, j := k-1, len(tail)-1
	for w := len(ops) - 1; j >= 0; w-- {
		if i >= 0 && b.cmpOps(ops[i], tail[j]) > 0 {
			ops[w] = ops[i]
			i--
		} else {
			ops[w] = tail[j]
			j--
		}
	}
}

// sortFrom sorts ops, whose keys all have the same first off bytes, by
// key from byte off on, then in write order. Digits the keys share (their
// common prefix) need no sort, only a look at the next one. The sort by
// digit is unstable, which keeps it linear when few digits repeat over
// many writes (a batch of two collections' keys: two first digits), so
// the write order is restored where it matters, among equal keys.
func (b *Batch) sortFrom(ops []batchWrite, off int) {
	for b.digitsFrom(ops, off) {
		if ops[0].tail <= 8 {
			slices.SortFunc(ops, cmpAt) // equal keys
			return
		}
		off += 8
	}
	sortDigits(ops)
	for lo := 0; lo < len(ops); {
		hi := lo + 1
		for hi < len(ops) && ops[hi].digit == ops[lo].digit && ops[hi].tail == ops[lo].tail {
			hi++
		}
		switch {
		case hi-lo == 1:
		case ops[lo].tail > 8:
			b.sortFrom(ops[lo:hi], off+8)
		default:
			slices.SortFunc(ops[lo:hi], cmpAt)
		}
		lo = hi
	}
}

// digitsFrom sets every op's digit and tail at off and reports whether
// they are all the same.
func (b *Batch) digitsFrom(ops []batchWrite, off int) bool {
	same := true
	for i := range ops {
		ops[i].digit, ops[i].tail = keyDigit(b.key(ops[i]), off)
		same = same && ops[i].digit == ops[0].digit && ops[i].tail == ops[0].tail
	}
	return same
}

// keyDigit returns the 8 bytes of key from off on as a big-endian number
// (zero-padded past the key's end) and how many bytes of the key remain
// from off (9: more than 8), which orders a key before the longer keys it
// is a prefix of.
func keyDigit(key []byte, off int) (uint64, uint8) {
	rest := key[off:]
	if len(rest) >= 8 {
		return binary.BigEndian.Uint64(rest), uint8(min(len(rest), 9))
	}
	var d uint64
	for i, c := range rest {
		d |= uint64(c) << (56 - 8*i)
	}
	return d, uint8(len(rest))
}

// cmpAt orders writes in write order.
func cmpAt(x, y batchWrite) int { return cmp.Compare(x.at, y.at) }

// cmpOps orders writes by key, then in write order (at), so the
// sort is stable without a stable sort's cost.
func (b *Batch) cmpOps(x, y batchWrite) int {
	if c := bytes.Compare(b.key(x), b.key(y)); c != 0 {
		return c
	}
	return cmp.Compare(x.at, y.at)
}

// Prefixed returns a writer that prepends prefix to every key before
// writing it to b. It satisfies exec.StateWriter.
func (b *Batch) Prefixed(prefix []byte) *PrefixedWriter {
	return &PrefixedWriter{b: b, buf: append([]byte(nil), prefix...), n: len(prefix)}
}

// PrefixedWriter writes keys relative to a prefix into a Batch. It reuses
// one key buffer, so Set and Delete do not allocate.
type PrefixedWriter struct {
	b   *Batch
	buf []byte // prefix, then scratch
	n   int    // len(prefix)
}

// Set writes prefix+key = value.
func (w *PrefixedWriter) Set(key, value []byte) {
	w.buf = append(w.buf[:w.n], key...)
	w.b.Set(w.buf, value)
}

// Delete removes prefix+key.
func (w *PrefixedWriter) Delete(key []byte) {
	w.buf = append(w.buf[:w.n], key...)
	w.b.Delete(w.buf)
}

// DeletePrefix removes every key starting with prefix+rel (as
// Batch.DeletePrefix). It satisfies exec.PrefixDeleter, which exec uses to
// free a closed window's state with one range deletion.
func (w *PrefixedWriter) DeletePrefix(rel []byte) {
	w.buf = append(w.buf[:w.n], rel...)
	w.b.DeletePrefix(w.buf)
}

// DeleteRange removes every key k with prefix+start <= k < prefix+end
// (as Batch.DeleteRange). It satisfies exec.PrefixDeleter, which exec
// uses to free a time-keyed join's closed buckets with one range
// deletion.
func (w *PrefixedWriter) DeleteRange(start, end []byte) {
	w.buf = append(w.buf[:w.n], start...)
	s := len(w.buf)
	w.buf = append(w.buf, w.buf[:w.n]...)
	w.buf = append(w.buf, end...)
	w.b.DeleteRange(w.buf[:s], w.buf[s:])
}

// PrefixedReader scans keys relative to a prefix. It satisfies
// exec.StateReader.
type PrefixedReader struct {
	db     *DB
	prefix []byte
}

// PrefixedReader returns a reader of the keys under prefix.
func (db *DB) PrefixedReader(prefix []byte) *PrefixedReader {
	return &PrefixedReader{db: db, prefix: append([]byte(nil), prefix...)}
}

// Scan calls fn in key order for every key starting with prefix+rel,
// passing the key with prefix stripped (rel kept).
// It reuses the DB's idle iterator of the prefix (iters.go): a spilled
// join loads one join key per Scan.
func (r *PrefixedReader) Scan(rel []byte, fn func(key, value []byte) error) error {
	it := r.db.takePrefixIter(r.prefix)
	defer r.db.putIter(it)
	return it.scan(rel, fn)
}

// ScanFrom is Scan over the keys starting with prefix+rel that are at or
// after prefix+from.
func (r *PrefixedReader) ScanFrom(rel, from []byte, fn func(key, value []byte) error) error {
	it := r.db.takePrefixIter(r.prefix)
	defer r.db.putIter(it)
	return it.scanFrom(rel, from, fn)
}

// Mark is a position in a Batch that RollbackTo returns to.
type Mark struct {
	n, last   int // chunks in use, and the length of the last one
	used, ops int
	err       error
}

// Mark returns the batch's current position.
func (b *Batch) Mark() Mark {
	m := Mark{n: b.n, used: b.used, ops: len(b.ops), err: b.err}
	if b.n > 0 {
		m.last = len(b.chunks[b.n-1])
	}
	return m
}

// RollbackTo discards every write made since m was taken, so that one
// transaction of a group commit can fail alone. Chunks started since then
// become spares again.
func (b *Batch) RollbackTo(m Mark) {
	for i := m.n; i < b.n; i++ {
		b.chunks[i] = b.chunks[i][:0]
	}
	b.n = m.n
	if m.n > 0 {
		b.chunks[m.n-1] = b.chunks[m.n-1][:m.last]
	}
	b.used, b.ops, b.err = m.used, b.ops[:m.ops], m.err
}

// Err returns the first invalid operation's error (Commit would fail).
func (b *Batch) Err() error { return b.err }

// Append adds o's writes after b's, in o's order, as if they had been
// made to b (an invalid write of o makes Commit fail too). o is unchanged.
func (b *Batch) Append(o *Batch) {
	for _, op := range o.ops {
		b.add(op.kind, o.key(op), o.value(op))
	}
	if b.err == nil {
		b.err = o.err
	}
}
