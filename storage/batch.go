package storage

import (
	"bytes"
	"fmt"
	"slices"

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
type Batch struct {
	db  *pebble.DB
	pb  *pebble.Batch // built by Commit; kept to reuse its memory
	buf []byte        // arena of keys and values
	ops []batchWrite
	err error // first invalid operation; Commit returns it
}

// batchWrite is one write: kind, key buf[k0:k1] and value (or range end)
// buf[k1:v1].
type batchWrite struct {
	kind       opKind
	k0, k1, v1 int
}

type opKind uint8

const (
	opSet opKind = iota
	opDelete
	opDeleteRange
)

// NewBatch returns an empty batch for db.
func (db *DB) NewBatch() *Batch { return &Batch{db: db.pdb} }

// add appends an operation with key and value (or range end).
func (b *Batch) add(kind opKind, key, value []byte) {
	k0 := len(b.buf)
	b.buf = append(b.buf, key...)
	k1 := len(b.buf)
	b.buf = append(b.buf, value...)
	b.ops = append(b.ops, batchWrite{kind: kind, k0: k0, k1: k1, v1: len(b.buf)})
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
func (b *Batch) Used() int { return len(b.buf) }

// Len returns the number of operations in the batch.
func (b *Batch) Len() int { return len(b.ops) }

// Size returns the bytes of keys and values the batch holds or last held
// (its arena's capacity).
func (b *Batch) Size() int { return cap(b.buf) }

// Reset empties the batch for reuse.
func (b *Batch) Reset() {
	b.buf, b.ops, b.err = b.buf[:0], b.ops[:0], nil
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
func (b *Batch) key(op batchWrite) []byte { return b.buf[op.k0:op.k1] }

// build fills a Pebble batch with the writes: each run between range
// deletions sorted by key with only each key's last write kept, then the range deletion.
func (b *Batch) build() *pebble.Batch {
	if b.pb == nil {
		b.pb = b.db.NewBatch()
	} else {
		b.pb.Reset()
	}
	start := 0
	for i := 0; i <= len(b.ops); i++ {
		if i < len(b.ops) && b.ops[i].kind != opDeleteRange {
			continue
		}
		b.emitSorted(b.ops[start:i])
		if i < len(b.ops) {
			op := b.ops[i]
			_ = b.pb.DeleteRange(b.key(op), b.buf[op.k1:op.v1], nil)
		}
		start = i + 1
	}
	return b.pb
}

// emitSorted writes ops (no range deletions) to b.pb in key order, the
// last write of each key only. It reorders ops in place.
func (b *Batch) emitSorted(ops []batchWrite) {
	if !slices.IsSortedFunc(ops, b.cmpOps) {
		slices.SortFunc(ops, b.cmpOps)
	}
	for i, op := range ops {
		if i+1 < len(ops) && bytes.Equal(b.key(op), b.key(ops[i+1])) {
			continue // a later write of the same key wins
		}
		if op.kind == opSet {
			_ = b.pb.Set(b.key(op), b.buf[op.k1:op.v1], nil) // fails only on a closed batch
		} else {
			_ = b.pb.Delete(b.key(op), nil)
		}
	}
}

// cmpOps orders writes by key, then in write order (arena offset), so the
// sort is stable without a stable sort's cost.
func (b *Batch) cmpOps(x, y batchWrite) int {
	if c := bytes.Compare(b.key(x), b.key(y)); c != 0 {
		return c
	}
	return x.k0 - y.k0
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
func (r *PrefixedReader) Scan(rel []byte, fn func(key, value []byte) error) error {
	full := append(append(make([]byte, 0, len(r.prefix)+len(rel)), r.prefix...), rel...)
	n := len(r.prefix)
	return r.db.Scan(full, func(key, value []byte) error { return fn(key[n:], value) })
}

// Mark is a position in a Batch that RollbackTo returns to.
type Mark struct {
	buf, ops int
	err      error
}

// Mark returns the batch's current position.
func (b *Batch) Mark() Mark { return Mark{buf: len(b.buf), ops: len(b.ops), err: b.err} }

// RollbackTo discards every write made since m was taken, so that one
// transaction of a group commit can fail alone.
func (b *Batch) RollbackTo(m Mark) {
	b.buf, b.ops, b.err = b.buf[:m.buf], b.ops[:m.ops], m.err
}

// Err returns the first invalid operation's error (Commit would fail).
func (b *Batch) Err() error { return b.err }
