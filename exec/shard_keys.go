package exec

import "github.com/eddydb/eddy/repr"

// The keys by which the keyed operators run as shards (shard.go): each
// computes, for an input row and for a logged state entry, the same key
// encoding, that of the key its state is partitioned by.

// shardPreparer is a keyed operator whose shards need more than their
// part of the input before a Step: prepareShards is called with the
// node's whole input once it is partitioned, before any shard steps
// (ins[in] holds input in's parts, whose concatenation is the input).
type shardPreparer interface {
	prepareShards(sh *shardedOp, ins [][][]repr.Update)
}

// The preparers (a signature that drifts would silently stop being one).
var (
	_ shardPreparer = (*appendJoin)(nil)
	_ shardPreparer = (*temporalOp)(nil)
)

// sharedStater is a keyed operator some of whose logged entries belong to
// every shard rather than to the shard of a key: a restore hands those to
// all shards.
type sharedStater interface {
	sharedState(key []byte) bool
}

// shared reports whether a logged entry of o's node belongs to every
// shard.
func (o *shardedOp) shared(key []byte) bool {
	s, ok := o.key.(sharedStater)
	return ok && s.sharedState(key)
}

func (o *reduceOp) shardable() bool { return !o.global }

// inputKey is the group key, or the part of it the shards are
// partitioned by (refine).
func (o *reduceOp) inputKey(buf []byte, _ int, row repr.Row) []byte {
	if o.refine != nil {
		return repr.AppendColsKey(buf, row, o.refine.cols)
	}
	return repr.AppendColsKey(buf, row, o.spec.Key)
}

// logShardKey is the group key of a group record or multiset entry (whose
// value starts with the group key's length), or the part of it the shards
// are partitioned by (refine).
func (o *reduceOp) logShardKey(key, value []byte) ([]byte, error) {
	if len(key) == 0 {
		return nil, errCorrupt
	}
	var gk []byte
	switch key[0] {
	case tagGroup:
		gk = key[1:]
	case tagEntry:
		r, err := repr.DecodeRow(value)
		if err != nil || len(r) == 0 {
			return nil, errCorrupt
		}
		if n := r[0].Int(); n >= 0 && int(n) < len(key) {
			gk = key[1 : 1+n]
		}
	}
	if gk == nil {
		return nil, errCorrupt
	}
	if o.refine != nil {
		return o.refine.fromGroupKey(gk)
	}
	return gk, nil
}

func (o *joinOp) shardable() bool { return len(o.sides[0].keyCols) > 0 }

// inputKey is the join key of the row's side.
func (o *joinOp) inputKey(buf []byte, in int, row repr.Row) []byte {
	return repr.AppendColsKey(buf, row, o.sides[in].keyCols)
}

// logShardKey is the join key of a logged row, computed from its columns
// (in any layout: keyed by time, by join key or by row key).
func (o *joinOp) logShardKey(key, value []byte) ([]byte, error) {
	if len(key) == 0 || key[0] < 1 || key[0] > 6 || key[0] > 4 && len(key) < 9 {
		return nil, errCorrupt
	}
	side := int(key[0]-1) % 2
	body := key[1:]
	if key[0] > 4 {
		body = key[9:]
	}
	row, _, _, err := o.decodeLogged(side, body, value)
	if err != nil {
		return nil, err
	}
	return repr.AppendColsKey(nil, row, o.sides[side].keyCols), nil
}

func (o *topkOp) shardable() bool { return len(o.spec.Key) > 0 }

// inputKey is the partition key.
func (o *topkOp) inputKey(buf []byte, _ int, row repr.Row) []byte {
	return repr.AppendColsKey(buf, row, o.spec.Key)
}

// logShardKey is the partition key of a logged row (count, columns...).
func (o *topkOp) logShardKey(_, value []byte) ([]byte, error) {
	r, err := repr.DecodeRow(value)
	if err != nil || len(r) != o.ncols+1 {
		return nil, errCorrupt
	}
	return repr.AppendColsKey(nil, r[1:], o.spec.Key), nil
}

func (o *thresholdOp) shardable() bool { return true }

// inputKey is the whole row's.
func (o *thresholdOp) inputKey(buf []byte, _ int, row repr.Row) []byte {
	return repr.AppendRowKey(buf, row)
}

// logShardKey is the logged key itself, the row's key encoding.
func (o *thresholdOp) logShardKey(key, _ []byte) ([]byte, error) { return key, nil }

func (o *sessionOp) shardable() bool { return len(o.spec.Key) > 0 }

// inputKey is the session group key.
func (o *sessionOp) inputKey(buf []byte, _ int, row repr.Row) []byte {
	return repr.AppendColsKey(buf, row, o.spec.Key)
}

// logShardKey is the group key of a logged row (count, columns...).
func (o *sessionOp) logShardKey(_, value []byte) ([]byte, error) {
	r, err := repr.DecodeRow(value)
	if err != nil || len(r) < 2 {
		return nil, errCorrupt
	}
	return repr.AppendColsKey(nil, r[1:], o.spec.Key), nil
}

func (o *windowOp) shardable() bool { return len(o.spec.Key) > 0 }

// inputKey is the PARTITION BY key.
func (o *windowOp) inputKey(buf []byte, _ int, row repr.Row) []byte {
	return repr.AppendColsKey(buf, row, o.spec.Key)
}

// logShardKey is the partition key of a logged copy (columns, slots...).
func (o *windowOp) logShardKey(_, value []byte) ([]byte, error) {
	e, err := o.decodeEnt(value)
	if err != nil {
		return nil, err
	}
	return repr.AppendColsKey(nil, e.row, o.spec.Key), nil
}

// A windowed Reduce, TopK or join spilled while restoring rebuilds its
// close index from a scan of the store (indexStored, eachStored), which
// holds every shard's keys: owns, set on each shard, keeps only the
// shard's own. So does a spilled SessionWindow's.

func (w *windowReduce) setOwner(owns func([]byte) bool) { w.owns = owns }
func (w *windowTopK) setOwner(owns func([]byte) bool)   { w.owns = owns }
func (o *joinOp) setOwner(owns func([]byte) bool)       { o.owns = owns }
func (o *sessionOp) setOwner(owns func([]byte) bool)    { o.owns = owns }
