package exec

// The state of a sharded node (shard.go) spills shard by shard: each
// shard is a spiller of its own keys under the node's prefix, with an
// equal part of the node's cache.

func (o *shardedOp) spillers() []spiller {
	out := make([]spiller, len(o.shards))
	for i, sh := range o.shards {
		out[i] = spillerOf(sh.op)
	}
	return out
}

// spillSize sums the shards'; the node can spill when every shard can.
func (o *shardedOp) spillSize() (int64, bool) {
	var n int64
	ok := true
	for _, s := range o.spillers() {
		b, can := s.spillSize()
		n, ok = n+b, ok && can
	}
	return n, ok
}

func (o *shardedOp) spillTo(r StateReader, prefix []byte, cache int64) bool {
	if _, ok := o.spillSize(); !ok || o.owesState() {
		return false
	}
	spilled := false
	for _, s := range o.spillers() {
		spilled = s.spillTo(r, prefix, cache/int64(len(o.shards))) || spilled
	}
	return spilled
}

// owesState reports whether a shard's Reduce owes group records
// (reduce_defer.go): the node then spills no shard, rather than some.
func (o *shardedOp) owesState() bool {
	for _, sh := range o.shards {
		if r, ok := sh.op.(*reduceOp); ok && len(r.dirty) > 0 {
			return true
		}
	}
	return false
}

func (o *shardedOp) spilledStats() (spilled bool, resident, loads, evictions int64) {
	for _, s := range o.spillers() {
		sp, r, l, e := s.spilledStats()
		spilled = spilled || sp
		resident, loads, evictions = resident+r, loads+l, evictions+e
	}
	return spilled, resident, loads, evictions
}

func (o *shardedOp) flushedState() {
	for _, s := range o.spillers() {
		s.flushedState()
	}
}

// restoreSized routes the entry to its shard; the node may stop when that
// shard may.
func (o *shardedOp) restoreSized(key, value []byte) (int64, bool, error) {
	if o.shared(key) {
		var n int64
		stop := true
		for _, sh := range o.shards {
			b, can, err := spillerOf(sh.op).restoreSized(key, value)
			if err != nil {
				return 0, false, err
			}
			n, stop = n+b, stop && can
		}
		return n, stop, nil
	}
	sh, err := o.shardOfState(key, value)
	if err != nil {
		return 0, false, err
	}
	return spillerOf(sh.op).restoreSized(key, value)
}

func (o *shardedOp) forget() {
	for _, s := range o.spillers() {
		s.forget()
	}
}

// stateSize sums the shards' (a shard without a size counts as empty).
func (o *shardedOp) stateSize() (rows, bytes int64) {
	for _, sh := range o.shards {
		if s, ok := sh.op.(stateSizer); ok {
			r, b := s.stateSize()
			rows, bytes = rows+r, bytes+b
		}
	}
	return rows, bytes
}
