package exec

import (
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// sourceOp feeds the updates of its collection at each Step. Two Source
// nodes on one collection both receive them.
//
// With an event-time column (eventCol >= 0) it keeps the collection's
// watermark: it drops every update whose event time is below the
// watermark as it was before the Step (a NULL event time counts as below
// any watermark: it cannot be placed in event time), adds their
// multiplicities to the late counter, and then advances the watermark to
// the Step's (watermarks only grow). Over a collection whose deletions
// nothing checks (dataflow.Source.Retracts) it also holds the rows at or
// above the watermark and drops, counting it with the late changes, what
// a deletion takes beyond them (see heldRows). Without an event-time
// column it is stateless.
//
// Logged state (event-time sources only, when it changed): {0x01} ->
// row(watermark, late); held rows as heldRows logs them.
type sourceOp struct {
	coll     repr.CollectionID
	eventCol int
	wm, late int64
	// prevWM and prevLate are the state before the pending Step.
	prevWM, prevLate int64
	kbuf, vbuf       []byte
	// held is the held rows (nil unless the Source retracts).
	held *heldRows
}

// tagSource is the state key of a sourceOp.
const tagSource byte = 0x01

func newSource(op dataflow.Source) *sourceOp {
	o := &sourceOp{coll: op.Collection, eventCol: -1, wm: NoWatermark, prevWM: NoWatermark}
	if op.HasEventTime {
		o.eventCol = op.EventTimeCol
		if op.Retracts {
			o.held = newHeldRows()
		}
	}
	return o
}

func (o *sourceOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	if o.eventCol < 0 {
		return ins[0], nil
	}
	o.prevWM, o.prevLate = o.wm, o.late
	out := o.dropLate(ins[0])
	if o.held != nil {
		var dropped int64
		out, dropped = o.held.apply(s, s.prefix, o.eventCol, out)
		o.late += dropped
	}
	if w, ok := s.watermarks[o.coll]; ok && w > o.wm {
		o.wm = w
		if o.held != nil {
			o.held.prune(s, s.prefix, o.wm)
		}
	}
	if o.wm != o.prevWM || o.late != o.prevLate {
		o.kbuf = append(append(o.kbuf[:0], s.prefix...), tagSource)
		o.vbuf = repr.AppendRow(o.vbuf[:0], repr.Row{repr.NewInt(o.wm), repr.NewInt(o.late)})
		s.log.set(o.kbuf, o.vbuf)
	}
	return out, nil
}

// dropLate returns the updates of in that are not late, counting the
// others; it copies only if some update is late.
func (o *sourceOp) dropLate(in []repr.Update) []repr.Update {
	if o.wm == NoWatermark {
		return in
	}
	var out []repr.Update
	for i, u := range in {
		if v := u.Row[o.eventCol]; !v.IsNull() && !below(v, o.wm) {
			if out != nil {
				out = append(out, u)
			}
			continue
		}
		if out == nil {
			out = append(make([]repr.Update, 0, len(in)), in[:i]...)
		}
		o.late += max(u.Diff, -u.Diff)
	}
	if out == nil {
		return in
	}
	return out
}

func (o *sourceOp) commit() {
	o.prevWM, o.prevLate = o.wm, o.late
	if o.held != nil {
		o.held.commit()
	}
}

func (o *sourceOp) rollback() {
	o.wm, o.late = o.prevWM, o.prevLate
	if o.held != nil {
		o.held.rollback()
	}
}

func (o *sourceOp) restore(key, value []byte) error {
	if len(key) > 0 && key[0] == tagHeld && o.held != nil {
		return o.held.restore(o.eventCol, key[1:], value)
	}
	r, err := repr.DecodeRow(value)
	if err != nil || len(key) != 1 || key[0] != tagSource || len(r) != 2 || o.eventCol < 0 {
		return errCorrupt
	}
	o.wm, o.late = r[0].Int(), r[1].Int()
	o.prevWM, o.prevLate = o.wm, o.late
	return nil
}

func (o *sourceOp) restored() error { return nil }
