package exec

import (
	"unsafe"

	"github.com/eddydb/eddy/exec/dataflow"
)

// OperatorInfo describes one node of a running dataflow (for
// eddy_catalog.eddy_dataflow_operators).
type OperatorInfo struct {
	Node int
	// Op is the operator's name as the plan prints it.
	Op string
	// StateRows and StateBytes are the rows (groups, arranged rows) the
	// operator keeps and their estimated heap bytes; -1 when the operator
	// cannot tell cheaply (or keeps no state of that kind).
	StateRows, StateBytes int64
}

// stateSizer is implemented by the operators that can report their
// state's size cheaply: in time independent of the state's size beyond a
// bounded sample (bytes are estimated from up to sizeSample entries).
type stateSizer interface {
	stateSize() (rows, bytes int64)
}

// sizeSample bounds the entries a state size estimate reads.
const sizeSample = 256

// mapEntryOverhead is the estimated bytes a Go map spends per entry beyond
// its key and value (buckets, tophash, load factor).
const mapEntryOverhead = 48

// Operators describes every node of d, in plan order.
func (d *Dataflow) Operators() []OperatorInfo {
	out := make([]OperatorInfo, len(d.plan.Nodes))
	for i, n := range d.plan.Nodes {
		out[i] = OperatorInfo{Node: i, Op: dataflow.OpName(n.Op), StateRows: -1, StateBytes: -1}
		if s, ok := d.ops[i].(stateSizer); ok {
			out[i].StateRows, out[i].StateBytes = s.stateSize()
		}
	}
	return out
}

// scaleSample extrapolates a sample's total bytes (of sampled of n
// entries) to all n.
func scaleSample(n, sampled int, sampledBytes int64) int64 {
	if sampled == 0 {
		return 0
	}
	return int64(n) * sampledBytes / int64(sampled)
}

// decimalBytes estimates an accumulator's apd.Decimal with a small
// coefficient.
const decimalBytes = 56

// stateSize reports the groups and an estimate of their bytes: each
// group's entry and key and its multisets (DISTINCT values, MIN/MAX under
// retractions, string_agg, numeric scales), sampled over up to sizeSample
// groups, and the arena's accumulator and multiset slots.
func (o *reduceOp) stateSize() (rows, bytes int64) {
	s := sample{n: len(o.groups)}
	for _, g := range o.groups {
		size := int64(len(g.enc)) + int64(unsafe.Sizeof(*g)) + mapEntryOverhead
		for _, ms := range o.sets(g) {
			if ms != nil {
				size += ms.stateSize()
			}
		}
		if !s.add(1, size) {
			break
		}
	}
	_, bytes = s.total()
	slot := int64(o.arena.words)*8 + int64(o.arena.decs)*(8+decimalBytes) + int64(o.arena.sets)*8
	return int64(len(o.groups)), bytes + int64(o.arena.allocated)*slot
}

// btreeItemBytes estimates a B-tree's bytes per item: its pointer in a
// node and the node's share (btree.NewG(16): nodes of up to 31 items,
// half to fully used).
const btreeItemBytes = 12

// stateSize estimates ms's bytes: its struct and its entries (a key set's
// keys; else each entry's struct, key, value and separator), read from a
// sample of up to sizeSample entries, and the slice, map and B-tree that
// index them.
func (ms *multiset) stateSize() int64 {
	size := int64(unsafe.Sizeof(*ms))
	if ms.keys != nil {
		s := sample{n: len(ms.keys)}
		for k := range ms.keys {
			if !s.add(1, int64(len(k))+16+mapEntryOverhead) {
				break
			}
		}
		_, b := s.total()
		return size + b
	}
	var s sample
	switch {
	case ms.m != nil:
		// The table's slots (16 bytes each) shared among the entries;
		// lazy values (multiset_lazy.go) beside them.
		s.n = ms.m.n
		size += int64(cap(ms.lz)) * lazyValBytes
		slot := int64(16*len(ms.m.slots)) / int64(max(ms.m.n, 1))
		for _, sl := range ms.m.slots {
			if sl.e != nil && !s.add(1, sl.e.heapBytes()+slot) {
				break
			}
		}
	default:
		s.n = len(ms.small)
		for _, e := range ms.small {
			if !s.add(1, e.heapBytes()) {
				break
			}
		}
		size += int64(cap(ms.small)) * 8
	}
	if ms.t != nil {
		size += int64(ms.t.Len()) * btreeItemBytes
	}
	_, b := s.total()
	return size + b
}

// heapBytes estimates e's bytes: its struct, key, value and separator.
func (e *mentry) heapBytes() int64 {
	n := int64(unsafe.Sizeof(*e)) + int64(len(e.key)) + datumHeapBytes(e.val)
	if e.sep != nil {
		n += datumBytes + datumHeapBytes(*e.sep)
	}
	return n
}

// stateSize reports the distinct rows kept and an estimate of their bytes.
func (o *thresholdOp) stateSize() (rows, bytes int64) {
	sampled, size := 0, int64(0)
	for _, r := range o.rows {
		if sampled == sizeSample {
			break
		}
		sampled++
		size += int64(len(r.enc)) + int64(unsafe.Sizeof(*r)) + mapEntryOverhead
	}
	return int64(len(o.rows)), scaleSample(len(o.rows), sampled, size)
}

// stateSize reports the rows arranged on both sides and an estimate of
// the bytes of their entries.
func (o *joinOp) stateSize() (rows, bytes int64) {
	for i := range o.sides {
		r, b := o.sides[i].stateSize()
		rows, bytes = rows+r, bytes+b
	}
	return rows, bytes
}

// stateSize reports js's arranged rows and its entries' estimated bytes
// (every allocated entry, plus the sampled encodings of the live ones,
// plus the chain table).
func (js *joinSide) stateSize() (rows, bytes int64) {
	sampled, size := 0, int64(0)
scan:
	for _, chunk := range js.chunks {
		for k := range chunk {
			if sampled == sizeSample {
				break scan
			}
			if chunk[k].in() {
				sampled++
				size += int64(len(chunk[k].enc))
			}
		}
	}
	entry := int64(unsafe.Sizeof(jrow{}))
	return int64(js.live), int64(js.allocated)*entry + scaleSample(js.live, sampled, size) + int64(len(js.buckets))*mapEntryOverhead + 4*int64(len(js.heads))
}

// stateSize reports the private side's arrangement (the shared side's
// rows belong to the index, listed in eddy_indexes).
func (o *sharedJoin) stateSize() (rows, bytes int64) { return o.j.stateSize() }
