package exec

import (
	"fmt"

	"github.com/eddydb/eddy/repr"
)

// The exchange in front of a sharded node, run by its parts (timely
// dataflow's Exchange pact, in place). A node's input arrives in parts:
// the outputs of the shards of a sharded node before it, or of the parts
// of a stateless chain (dataflow_parts.go), or a whole batch split by
// position. Part j routes its updates to shard k's bucket xb[j][k] by
// key hash, every part on its own goroutine; then shard k gathers
// xb[0][k], xb[1][k], ... in part order, on its own goroutine, before it
// steps. Since the parts' concatenation is the input and each bucket
// keeps its part's order, shard k sees its keys' updates in input order,
// exactly as a partition of the whole input by one goroutine would give
// it (partition).

// bucket is what one part sends to one shard in a Step: per input, its
// updates in order, and the keys of input 0's when the operator takes
// them.
type bucket struct {
	ins  [][]repr.Update
	keys inKeys
}

// exchange routes the input's parts to the shards' buckets, concurrently
// (one goroutine per part); the shards gather them as they step
// (stepParallel). An input not in one part per shard is split by
// position first; one whose parts are already partitioned by this node's
// key (co-partitioned: keyedBy, shard_copart.go) is not routed, shard k
// takes its part k.
func (o *shardedOp) exchange(ins [][][]repr.Update, keyedBy []int) error {
	o.begin(len(ins))
	n := len(o.shards)
	o.same, o.cur = o.same[:0], ins
	routed := false
	for in, parts := range ins {
		same := len(parts) == n && in < len(keyedBy) && keyedBy[in] >= 0 && keyedBy[in] == o.from[in]
		o.same = append(o.same, same)
		routed = routed || !same
		if !same && len(parts) != n {
			ins[in] = splitParts(concatParts(parts), n)
		}
	}
	for len(o.xb) < n {
		o.xb = append(o.xb, make([]bucket, n))
	}
	if !routed {
		return nil
	}
	errs := make([]error, n)
	parallel(n, func(j int) { errs[j] = o.route(j, ins) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// route sends part j of every input to the buckets of its keys' shards,
// with shard j's operator's key (the shards' operators key alike) and
// buffer.
func (o *shardedOp) route(j int, ins [][][]repr.Update) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("dataflow exchange panicked: %v", r)
		}
	}()
	n, sh := len(o.shards), o.shards[j]
	key, bs := sh.op.(keyed), o.xb[j]
	for k := range bs {
		for len(bs[k].ins) < len(ins) {
			bs[k].ins = append(bs[k].ins, nil)
		}
	}
	for in, parts := range ins {
		if o.same[in] {
			continue
		}
		keep := in == 0 && o.passKeys
		for _, u := range parts[j] {
			sh.kbuf = key.inputKey(sh.kbuf[:0], in, u.Row)
			b := &bs[shardOf(sh.kbuf, n)]
			b.ins[in] = append(b.ins[in], u)
			if keep {
				b.keys.add(sh.kbuf)
			}
		}
	}
	return nil
}

// gather appends to shard k's input what every part sent it, in part
// order, and empties those buckets (only shard k's goroutine touches
// them); of a co-partitioned input it takes part k whole, encoding its
// keys if the operator takes them (and, under verifyCopartition, checking
// that each hashes to k).
func (o *shardedOp) gather(k int) error {
	sh := o.shards[k]
	for in, same := range o.same {
		if !same {
			continue
		}
		sh.ins[in] = append(sh.ins[in], o.cur[in][k]...)
		if (in == 0 && o.passKeys) || verifyCopartition {
			if err := sh.keyParts(in, o.cur[in][k], k, len(o.shards), in == 0 && o.passKeys); err != nil {
				return err
			}
		}
	}
	for j := range o.shards {
		b := &o.xb[j][k]
		for in := range b.ins {
			sh.ins[in] = append(sh.ins[in], b.ins[in]...)
			clear(b.ins[in])
			b.ins[in] = b.ins[in][:0]
		}
		sh.keys.appendAll(&b.keys)
		b.keys.reset()
	}
	return nil
}

// verifyCopartition makes a shard check that every update of a
// co-partitioned input is its own (tests set it).
var verifyCopartition = false

// keyParts encodes the keys of us, input in's updates for shard k of n,
// keeping them if keep, and under verifyCopartition fails unless each
// hashes to k.
func (sh *shard) keyParts(in int, us []repr.Update, k, n int, keep bool) error {
	key := sh.op.(keyed)
	for _, u := range us {
		sh.kbuf = key.inputKey(sh.kbuf[:0], in, u.Row)
		if keep {
			sh.keys.add(sh.kbuf)
		}
		if verifyCopartition && shardOf(sh.kbuf, n) != k {
			return fmt.Errorf("exec: co-partitioned input %d of shard %d holds a row of shard %d: %v", in, k, shardOf(sh.kbuf, n), u.Row)
		}
	}
	return nil
}

// trimExchange lets go of buckets past shardKeepBytes (see trim).
func (o *shardedOp) trimExchange() {
	for _, row := range o.xb {
		for k := range row {
			b := &row[k]
			for in, us := range b.ins {
				if int64(cap(us))*updateBytes > shardKeepBytes {
					b.ins[in] = nil
				}
			}
			if cap(b.keys.buf) > shardKeepBytes {
				b.keys = inKeys{}
			}
		}
	}
}

// partsLen returns the number of updates in parts.
func partsLen(ins [][][]repr.Update) int {
	total := 0
	for _, parts := range ins {
		for _, us := range parts {
			total += len(us)
		}
	}
	return total
}

// concatParts returns the concatenation of parts, in order: parts[0]
// itself when it is the only one, else a fresh slice.
func concatParts(parts [][]repr.Update) []repr.Update {
	if len(parts) == 1 {
		return parts[0]
	}
	n := 0
	for _, us := range parts {
		n += len(us)
	}
	out := make([]repr.Update, 0, n)
	for _, us := range parts {
		out = append(out, us...)
	}
	return out
}

// splitParts splits us by position into n parts of nearly equal length
// (each capped at its end, so appending to one never writes into the
// next), whose concatenation is us.
func splitParts(us []repr.Update, n int) [][]repr.Update {
	parts := make([][]repr.Update, n)
	for k := range n {
		a, b := k*len(us)/n, (k+1)*len(us)/n
		parts[k] = us[a:b:b]
	}
	return parts
}
