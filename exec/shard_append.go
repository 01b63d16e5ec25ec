package exec

import "github.com/eddydb/eddy/repr"

// An append-only join (appendJoin) runs as shards by join key, as joinOp
// does, but its state keys carry a sequence number that grows with every
// stored row across all keys. So that the store holds the same keys for
// every worker count, the driver numbers the Step's stored rows as the
// single join would (left input first, each input in order) before the
// shards step, and hands each shard the numbers of its own rows
// (prepareShards). The next sequence number, logged under appendSeqKey,
// belongs to every shard: the shard owning the empty key logs it (the
// others are quiet), and a restore hands it to all (sharedState).

func (o *appendJoin) shardable() bool { return len(o.sides[0].keyCols) > 0 }

// inputKey is the join key of the row's side.
func (o *appendJoin) inputKey(buf []byte, in int, row repr.Row) []byte {
	return repr.AppendColsKey(buf, row, o.sides[in].keyCols)
}

// logShardKey is the join key of a logged row: its key between the side
// tag and the sequence number.
func (o *appendJoin) logShardKey(key, _ []byte) ([]byte, error) {
	if len(key) < 9 || key[0] < 1 || key[0] > 2 {
		return nil, errCorrupt
	}
	return key[1 : len(key)-8], nil
}

// sharedState reports whether a logged entry belongs to every shard: the
// next sequence number does.
func (o *appendJoin) sharedState(key []byte) bool {
	return len(key) == 1 && key[0] == appendSeqKey
}

// prepareShards numbers the rows the Step will store as one appendJoin
// would, from the largest next sequence number of the shards (equal
// unless restored from a store older than the sequence record), and gives
// each shard its rows' numbers and that next number once they are stored.
func (o *appendJoin) prepareShards(sh *shardedOp, ins [][][]repr.Update) {
	next := uint64(0)
	for _, x := range sh.shards {
		next = max(next, x.op.(*appendJoin).seq)
	}
	for _, x := range sh.shards {
		a := x.op.(*appendJoin)
		a.seqs = a.seqs[:0]
	}
	n := len(sh.shards)
	for side, parts := range ins {
		for _, us := range parts {
			for _, u := range us {
				if !o.stores(side, u) {
					continue
				}
				o.kbuf = o.inputKey(o.kbuf[:0], side, u.Row)
				a := sh.shards[shardOf(o.kbuf, n)].op.(*appendJoin)
				a.seqs = append(a.seqs, next)
				next++
			}
		}
	}
	for _, x := range sh.shards {
		a := x.op.(*appendJoin)
		if a.seqs == nil {
			a.seqs = []uint64{}
		}
		a.seq = next
	}
}

// setOwner makes every shard but the one owning the empty key quiet: one
// shard logs the shared next sequence number, and prints it in DebugState.
func (o *appendJoin) setOwner(owns func([]byte) bool) { o.quiet = !owns(nil) }
