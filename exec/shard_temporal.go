package exec

import "github.com/eddydb/eddy/repr"

// A temporal filter runs as shards by row: each row's interval, and so
// its output, depends on the row alone. The wall clock it last saw (now,
// logged under tagTemporalNow) is every shard's: the shard owning the
// empty key logs it, and a restore hands it to all (sharedState). A
// spilled shard indexes and loads only its own rows of the store, which
// holds every shard's. The layout of the logged rows is every shard's
// too: a store of the layout by row key alone makes the shards that
// restore its rows row-keyed, and the others follow them before the
// first Step (prepareShards), so that no row is logged in the other.

func (o *temporalOp) shardable() bool { return true }

// inputKey is the row's key encoding, the filter's row key.
func (o *temporalOp) inputKey(buf []byte, _ int, row repr.Row) []byte {
	return repr.AppendRowKey(buf, row)
}

// logShardKey is the row key of a logged row, in either layout (by next
// transition, or by row key alone).
func (o *temporalOp) logShardKey(key, _ []byte) ([]byte, error) {
	switch {
	case len(key) > dueKeyLen && key[0] == tagTemporalDue:
		return key[dueKeyLen:], nil
	case len(key) > 1 && key[0] == tagTemporalRow:
		return key[1:], nil
	}
	return nil, errCorrupt
}

// sharedState reports whether a logged entry is the shared now.
func (o *temporalOp) sharedState(key []byte) bool {
	return len(key) == 1 && key[0] == tagTemporalNow
}

// setOwner keeps a spilled shard to its own rows and makes every shard
// but the one owning the empty key quiet.
func (o *temporalOp) setOwner(owns func([]byte) bool) {
	o.owns, o.quiet = owns, !owns(nil)
}

// prepareShards makes every shard row-keyed (timed false) if one is.
func (o *temporalOp) prepareShards(sh *shardedOp, _ [][][]repr.Update) {
	timed := true
	for _, x := range sh.shards {
		timed = timed && x.op.(*temporalOp).timed
	}
	for _, x := range sh.shards {
		x.op.(*temporalOp).timed = timed
	}
}

// own reports whether row key key is o's (always, unless o is a shard).
func (o *temporalOp) own(key []byte) bool { return o.owns == nil || o.owns(key) }

// temporalsOf returns op's temporal filters: op itself, or each of its
// shards.
func temporalsOf(op operator) []*temporalOp {
	switch o := op.(type) {
	case *temporalOp:
		return []*temporalOp{o}
	case *shardedOp:
		if _, ok := o.key.(*temporalOp); !ok {
			return nil
		}
		out := make([]*temporalOp, len(o.shards))
		for i, sh := range o.shards {
			out[i] = sh.op.(*temporalOp)
		}
		return out
	}
	return nil
}
