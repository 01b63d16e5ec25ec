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
	// sparse counts the Steps in a row that used under a quarter of
	// buffers past reuseBytes (reset).
	sparse int
	// subs holds the logs spliced in (splice), in order, each flushed
	// where its opSplice op stands; subs[len:cap] are emptied logs whose
	// buffers the next splices hand to the logs they take. subBytes is
	// the size of the spliced logs.
	subs     []stateLog
	subBytes int64
	// keep bounds the bytes of buffers the log keeps between Steps (0:
	// no bound; SetStateLogKeep, trim).
	keep int64
}

// logOp is one Set (v >= 0), Delete (v == -1) or DeletePrefix (v ==
// opDelPrefix) of buf[k0:k1] (value buf[k1:v]).
type logOp struct{ k0, k1, v int }

// reset empties l for the next Step. Its buffers are let go when they
// are past reuseBytes and logShrinkSteps Steps in a row used under a
// quarter of them, not after the first such Step as reuse would: a
// dataflow fed by several sources alternates large Steps with small ones
// (q20: a batch of bids stores every bid, a batch of auctions a few
// rows), and letting go after each small one made every large one grow
// its log again from nothing, copying it log2(size) times. A burst still
// lets go of its buffers logShrinkSteps Steps later.
func (l *stateLog) reset() {
	for i := range l.subs {
		l.subs[i].reset()
	}
	l.subs, l.subBytes = l.subs[:0], 0
	if sparse(l.buf) || sparse(l.ops) {
		l.sparse++
	} else {
		l.sparse = 0
	}
	if l.sparse >= logShrinkSteps {
		l.buf, l.ops, l.sparse = nil, nil, 0
		return
	}
	l.buf, l.ops = l.buf[:0], l.ops[:0]
}

// truncate empties l without judging its buffers' use: a shard's log
// before its Step holds the emptied buffers splice handed it, whose use
// the log they were spliced into judges when it is reset.
func (l *stateLog) truncate() {
	l.buf, l.ops, l.subs, l.subBytes = l.buf[:0], l.ops[:0], l.subs[:0], 0
}

// logShrinkSteps is the number of sparse Steps in a row after which a
// state log lets go of its buffers.
const logShrinkSteps = 16

// sparse reports whether s is past reuseBytes and under a quarter full.
func sparse[T any](s []T) bool {
	var z T
	return len(s) < cap(s)/4 && int64(cap(s))*int64(unsafe.Sizeof(z)) > reuseBytes
}

// reuse empties s for the next Step, keeping its array unless it is
// past reuseBytes and the Step that filled it last used under a quarter
// of it: so a burst (a watermark closing a million rows of a join at
// once) does not pin its buffers for good, while Steps of a steady size
// keep theirs.
func reuse[T any](s []T) []T {
	if sparse(s) {
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
		} else if op.v == opSplice {
			l.subs[op.k0].flush(w)
		} else if op.v < 0 {
			w.Delete(l.buf[op.k0:op.k1])
		} else {
			w.Set(l.buf[op.k0:op.k1], l.buf[op.k1:op.v])
		}
	}
}

// trim lets go of l's buffers, the spliced logs' too, once flushed, when
// they hold more than keep bytes: under a small memory budget a Step's
// log (a spilled Reduce's commit logs every group and multiset run it
// touched, megabytes per 5,000 rows) would otherwise stand in the heap
// until the next Step, however small the budget, where regrowing it next
// time costs a few copies.
func (l *stateLog) trim() {
	if l.keep <= 0 {
		return
	}
	n := int64(cap(l.buf)) + int64(cap(l.ops))*logOpBytes
	for _, sub := range l.subs[:cap(l.subs)] {
		n += int64(cap(sub.buf)) + int64(cap(sub.ops))*logOpBytes
	}
	if n > l.keep {
		l.buf, l.ops, l.subs, l.subBytes, l.sparse = nil, nil, nil, 0, 0
	}
}

// SetStateLogKeep bounds the bytes of buffers d's state log keeps
// between Steps (0: no bound): a memory budget's share (sql).
func (d *Dataflow) SetStateLogKeep(n int64) { d.log.keep = n }

// opSplice marks a spliced log (logOp.v), l.subs[k0].
const opSplice = -5

// splice appends the changes logged in m after l's, as append does, but
// without copying them: l takes m's buffers and hands m the emptied
// buffers of a log it spliced in an earlier Step. A shard's or a part's
// log (shard.go, dataflow_parts.go) is spliced into the Step's after
// every parallel phase, so its buffers go back and forth between the two
// and stay grown as the single Step's log does, where appending copied
// them and the shard let go of its buffers past shardKeepBytes after
// every Step, to grow them again from nothing in the next one (at 2
// workers, q20's state logs allocated 5.8 times what they did at 1).
func (l *stateLog) splice(m *stateLog) {
	if m.off || len(m.ops) == 0 {
		return
	}
	n := len(l.subs)
	if n < cap(l.subs) {
		l.subs = l.subs[:n+1]
	} else {
		l.subs = append(l.subs, stateLog{})
	}
	slot := &l.subs[n]
	spare := *slot
	*slot = *m
	m.buf, m.ops, m.subs, m.subBytes, m.sparse = spare.buf[:0], spare.ops[:0], spare.subs[:0], 0, spare.sparse
	l.ops = append(l.ops, logOp{k0: n, v: opSplice})
	l.subBytes += slot.size()
}

// size returns the bytes the log holds, spliced logs included.
func (l *stateLog) size() int64 {
	return int64(len(l.buf)) + int64(len(l.ops))*logOpBytes + l.subBytes
}
