package exec

import (
	"encoding/binary"

	"github.com/eddydb/eddy/repr"
)

// Window and interval joins keyed by time. A side whose rows one close
// index frees (a window join's sides; an interval join's side with one
// bound), by a timestamp, logs each row under {0x05 or 0x06} bucket
// join-key row-key, where the bucket is the 8-byte big-endian form of
// the value its close index files it under, in units of 2^timeShift us
// (about a second; timeBucket), or nullBucket when it has none (NULL:
// never freed). The other side of such a join logs under nullBucket.
// So the rows a close frees are one contiguous range of keys: a close
// below value thr frees the rows of the buckets below thr's (freeing
// late, by under a bucket, changes no output: close_spill.go) and logs
// one range deletion of them (prefixdel.go) instead of a deletion per
// row, which a spilled join had to find first by scanning its stored
// keys; Pebble drops the range's sstables whole in delete-only
// compactions rather than rewriting them with point tombstones
// (storage's BenchmarkWindowChurn: compactions wrote 11.9 MB per
// checkpoint keyed by join key, none keyed by time).
//
// A load of a spilled side's join key (join_spill.go) reads the key's
// rows bucket by bucket, from the lowest bucket the side's close index
// files the key under (nameHeap.span) to the highest, seeking past
// buckets without the key (one seek per bucket holding it, and one
// more), and nullBucket's rows if the side has any. A stored row's
// point read is its exact key. Rows of a bucket the pending close has
// passed (closed) are not logged (the range deletion covers them), and
// neither a load nor a point read sees them.
//
// State logged before (tags 3 and 4, or 1 and 2) restores as before and
// makes the join log the older layout (joinOp.tm nil).
type joinTime struct {
	// val computes a row's close value on a timed side; nil on the other.
	val [2]rowValue
	// closed is, per side, the first bucket not deleted yet; mark its
	// value at the last commit.
	closed, mark [2]uint64
	// nulls is set on a timed side that logged or restored a row under
	// nullBucket (a NULL close value): a load reads that bucket too.
	nulls [2]bool
	// names are the close indexes of the timed sides (spilled: their
	// key spans tell a load which buckets to read).
	names [2]*nameHeap
}

// timeShift is log2 of a bucket's width in us: 2^20 us, about 1 s.
const timeShift = 20

// nullBucket is the bucket of rows with no close value.
const nullBucket = ^uint64(0)

// timeBucket returns the bucket of close value v (order-preserving:
// the sign bit flipped).
func timeBucket(v int64) uint64 { return uint64(v>>timeShift) ^ 1<<63 }

// bucketFloor returns the first value of v's bucket.
func bucketFloor(v int64) int64 { return v >> timeShift << timeShift }

// timedType reports whether close values of type t may key a join's
// state by time: timestamps (us).
func timedType(t repr.T) bool {
	return t.Family == repr.FamTimestamp || t.Family == repr.FamTimestampTZ
}

// timeBucketOf returns the bucket of row, a row of side of timed join o.
func (o *joinOp) timeBucketOf(side int, row repr.Row) uint64 {
	f := o.tm.val[side]
	if f == nil {
		return nullBucket
	}
	v, ok := f(row)
	if !ok {
		return nullBucket
	}
	return timeBucket(v)
}

// covered reports whether state key k (after the tag, starting with its
// bucket) of side is in a closed bucket: its range deletion is logged.
func (tm *joinTime) covered(side int, k []byte) bool {
	return len(k) >= 8 && binary.BigEndian.Uint64(k) < tm.closed[side]
}

// noteNull records that side logged or restored state key k (after the
// tag) under nullBucket.
func (tm *joinTime) noteNull(side int, k []byte) {
	if tm.val[side] != nil && len(k) >= 8 && binary.BigEndian.Uint64(k) == nullBucket {
		tm.nulls[side] = true
	}
}

// closeBuckets logs the deletion of side's buckets below thr's, if the
// writer allows range deletions, and returns the value below which the
// close frees rows: the first of thr's bucket (the rows of the buckets
// deleted). Without range deletions it frees below thr, a row at a time.
func (o *joinOp) closeBuckets(s *stepCtx, side int, thr int64) int64 {
	if !s.log.ranges {
		return thr
	}
	tm := o.tm
	b := timeBucket(thr)
	if b > tm.closed[side] {
		o.lbuf = append(append(o.lbuf[:0], s.prefix...), o.tag(side))
		o.lbuf = binary.BigEndian.AppendUint64(o.lbuf, tm.closed[side])
		n := len(o.lbuf)
		o.lbuf = append(o.lbuf, o.lbuf[:n-8]...)
		o.lbuf = binary.BigEndian.AppendUint64(o.lbuf, b)
		s.log.delRange(o.lbuf[:n], o.lbuf[n:])
		tm.closed[side] = b
	}
	return bucketFloor(thr)
}

// loadTimed calls fn with every stored row of side (spilled, of timed
// join o) of join key key in a bucket not closed: nullBucket's, then
// those the side's close index files key under, in bucket order.
func (o *joinOp) loadTimed(side int, key []byte, fn func(k, v []byte) error) error {
	tm, tag := o.tm, o.tag(side)
	if tm.val[side] == nil || tm.nulls[side] {
		o.cbuf = append(binary.BigEndian.AppendUint64(o.cbuf[:0], nullBucket), key...)
		if err := o.sp.scanKey(tag, o.cbuf, fn); err != nil || tm.val[side] == nil {
			return err
		}
	}
	x := tm.names[side]
	if x == nil {
		return nil
	}
	lo, hi, ok := x.span(key)
	if !ok {
		return nil
	}
	for b := max(lo, tm.closed[side]); b <= hi; {
		next := b + 1
		o.cbuf = append(binary.BigEndian.AppendUint64(o.cbuf[:0], b), key...)
		err := o.sp.scanFrom(tag, o.cbuf, 0, func(k, v []byte) error {
			if len(k) < 9 {
				return errCorrupt
			}
			kb := binary.BigEndian.Uint64(k[1:9])
			if kb == b && hasKey(k[9:], string(key)) {
				return fn(k, v)
			}
			next = max(kb, b+1)
			return errStopScan
		})
		switch {
		case err == nil:
			return nil // no key after them
		case err != errStopScan:
			return err
		}
		b = next
	}
	return nil
}

// timedBody returns state key k (tag and what follows) of o past its
// tag and, when o is keyed by time, its bucket.
func (o *joinOp) timedBody(k []byte) []byte {
	if o.tm != nil {
		return k[9:]
	}
	return k[1:]
}

func (tm *joinTime) commit() { tm.mark = tm.closed }

func (tm *joinTime) rollback() { tm.closed = tm.mark }
