package exec

import "github.com/eddydb/eddy/repr"

// constantOp emits its rows with diff +1 at the first Step of the dataflow
// and nothing afterwards. State: one flag, logged at key {0x01} when the
// rows are emitted, so that a restored dataflow does not emit them again.
type constantOp struct {
	rows    []repr.Row
	emitted bool
	// fresh is set when the pending Step emitted the rows.
	fresh bool
}

// constantKey is the state key (after the node prefix) of the flag.
const constantKey = 0x01

func (o *constantOp) step(s *stepCtx, _ [][]repr.Update) ([]repr.Update, error) {
	if o.emitted {
		return nil, nil
	}
	o.emitted, o.fresh = true, true
	s.log.set(append(s.prefix, constantKey), nil)
	out := make([]repr.Update, len(o.rows))
	for i, r := range o.rows {
		out[i] = repr.Update{Row: r, Time: s.t, Diff: 1}
	}
	return out, nil
}

func (o *constantOp) commit() { o.fresh = false }

func (o *constantOp) rollback() {
	if o.fresh {
		o.emitted, o.fresh = false, false
	}
}

func (o *constantOp) restore(key, _ []byte) error {
	if len(key) != 1 || key[0] != constantKey {
		return errCorrupt
	}
	o.emitted = true
	return nil
}

func (o *constantOp) restored() error { return nil }
