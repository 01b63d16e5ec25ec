package exec

import "unsafe"

// stateLog buffers the state changes of one Step so that they reach the
// StateWriter only if the whole Step succeeds. Keys and values live in one
// arena reused across Steps, so logging does not allocate per change once
// the arena has grown to the size of a Step's changes.
//
// When off (the Step has no StateWriter, as for ad-hoc queries) set and del
// do nothing.
type stateLog struct {
	buf []byte
	ops []logOp
	off bool
	// ranges is set when the Step's StateWriter is a PrefixDeleter
	// (prefixdel.go): delPrefix may then be used.
	ranges bool
	// direct, when set, takes every change at once instead of the
	// buffer: FlushState cannot fail part way, so its changes need no
	// buffering, and buffering them cost a checkpoint's worth of state
	// writes (all multiset runs and group records) copied into a buffer
	// that the next, smaller Step then dropped (reuse) and the next
	// checkpoint grew again by doubling.
	direct StateWriter
}

// logOp is one Set (v >= 0), Delete (v == -1) or DeletePrefix (v ==
// opDelPrefix) of buf[k0:k1] (value buf[k1:v]).
type logOp struct{ k0, k1, v int }

func (l *stateLog) reset() { l.buf, l.ops = reuse(l.buf), reuse(l.ops) }

// reuse empties s for the next Step, keeping its array unless it is
// past reuseBytes and the Step that filled it last used under a quarter
// of it: so a burst (a watermark closing a million rows of a join at
// once) does not pin its buffers for good, while Steps of a steady size
// keep theirs.
func reuse[T any](s []T) []T {
	var z T
	if len(s) < cap(s)/4 && int64(cap(s))*int64(unsafe.Sizeof(z)) > reuseBytes {
		return nil
	}
	return s[:0]
}

// reuseBytes is the size of a Step's buffer that reuse always keeps.
const reuseBytes = 1 << 20

// set logs key := value.
func (l *stateLog) set(key, value []byte) {
	if l.off {
		return
	}
	if l.direct != nil {
		l.direct.Set(key, value)
		return
	}
	k0 := len(l.buf)
	l.buf = append(l.buf, key...)
	k1 := len(l.buf)
	l.buf = append(l.buf, value...)
	l.ops = append(l.ops, logOp{k0, k1, len(l.buf)})
}

// del logs the deletion of key.
func (l *stateLog) del(key []byte) {
	if l.off {
		return
	}
	if l.direct != nil {
		l.direct.Delete(key)
		return
	}
	k0 := len(l.buf)
	l.buf = append(l.buf, key...)
	l.ops = append(l.ops, logOp{k0, len(l.buf), -1})
}

// flush hands every logged change to w in order. The slices passed to w
// are reused by the next Step (see StateWriter).
func (l *stateLog) flush(w StateWriter) {
	for i, op := range l.ops {
		if op.v == opDelPrefix {
			w.(PrefixDeleter).DeletePrefix(l.buf[op.k0:op.k1])
		} else if op.v == opDelRange {
			end := l.ops[i+1]
			w.(PrefixDeleter).DeleteRange(l.buf[op.k0:op.k1], l.buf[end.k0:end.k1])
		} else if op.v == opRangeEnd {
			continue
		} else if op.v < 0 {
			w.Delete(l.buf[op.k0:op.k1])
		} else {
			w.Set(l.buf[op.k0:op.k1], l.buf[op.k1:op.v])
		}
	}
}
