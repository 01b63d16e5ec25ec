package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Batch is a set of writes that DB.Commit applies atomically. A Batch is
// used by one goroutine at a time. Keys and values are copied in, so
// callers may reuse their buffers right after each call.
type Batch struct {
	pb  *pebble.Batch
	err error // first invalid operation; Commit returns it
	n   int   // operations since the last Reset
}

// NewBatch returns an empty batch for db.
func (db *DB) NewBatch() *Batch { return &Batch{pb: db.pdb.NewBatch()} }

// Set writes key = value.
func (b *Batch) Set(key, value []byte) {
	b.n++
	_ = b.pb.Set(key, value, nil) // only fails on a closed or read-only batch
}

// Delete removes key.
func (b *Batch) Delete(key []byte) {
	b.n++
	_ = b.pb.Delete(key, nil)
}

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
	b.n++
	_ = b.pb.DeleteRange(prefix, end, nil)
}

// Len returns the number of operations in the batch.
func (b *Batch) Len() int { return b.n }

// Reset empties the batch for reuse.
func (b *Batch) Reset() {
	b.pb.Reset()
	b.err, b.n = nil, 0
}

// Close releases the batch; it must not be used afterwards.
func (b *Batch) Close() error { return b.pb.Close() }

// Prefixed returns a writer that prepends prefix to every key before
// writing it to b. It satisfies exec.StateWriter.
func (b *Batch) Prefixed(prefix []byte) *PrefixedWriter {
	return &PrefixedWriter{b: b, buf: append([]byte(nil), prefix...), n: len(prefix)}
}

// PrefixedWriter writes keys relative to a prefix into a Batch. It reuses
// one key buffer, so Set and Delete do not allocate (Pebble copies keys).
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
