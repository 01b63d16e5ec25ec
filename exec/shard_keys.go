package exec

import "github.com/eddydb/eddy/repr"

// The keys by which the keyed operators run as shards (shard.go): each
// computes, for an input row and for a logged state entry, the same key
// encoding, that of the key its state is partitioned by.

func (o *reduceOp) shardable() bool { return !o.global }

// inputKey is the group key.
func (o *reduceOp) inputKey(buf []byte, _ int, row repr.Row) []byte {
	return repr.AppendColsKey(buf, row, o.spec.Key)
}

// stateKey is the group key of a group record or multiset entry (whose
// value starts with the group key's length).
func (o *reduceOp) stateKey(key, value []byte) ([]byte, error) {
	if len(key) == 0 {
		return nil, errCorrupt
	}
	switch key[0] {
	case tagGroup:
		return key[1:], nil
	case tagEntry:
		r, err := repr.DecodeRow(value)
		if err != nil || len(r) == 0 {
			return nil, errCorrupt
		}
		if n := r[0].Int(); n >= 0 && int(n) < len(key) {
			return key[1 : 1+n], nil
		}
	}
	return nil, errCorrupt
}
