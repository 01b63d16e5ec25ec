package sql

import (
	"fmt"
	"math"
	"slices"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// Probe-only joins. A queryFeed feeds its largest input last, after every
// other input is whole. An inner equi-join one of whose sides reads only
// that input (a Source of it, or one MFP over it, read by nothing else)
// then needs no arrangement of that side: every change of the other side
// comes before the first of its rows, when its arrangement would still be
// empty, and each of its rows only probes the other side's. The join is
// rewritten as a shared join (dataflow.Join.Shared, exec's sharedJoin:
// dS⋈P + dP⋈S') whose shared side S reads probeIndex, an arrangement that
// is always empty (probeArrangements): as the other side's changes all
// come before S's, S' is empty when they look it up. So a join of a large
// table with small ones streams holding the small sides, not the large
// one (the join of two large tables still arranges the smaller).

// probeIndex is the index id of the empty arrangement probe-only sides
// read (no catalog object has it).
const probeIndex = math.MaxUint64

// probeArrangements serves probeIndex (empty) and passes every other
// lookup to the engine's shared arrangements (nil: none).
type probeArrangements struct{ shared exec.Arrangements }

// Lookup implements exec.Arrangements.
func (a probeArrangements) Lookup(index uint64, key []byte, d *repr.ColDecoder, fn func(repr.Row, int64) bool) error {
	if index == probeIndex {
		return nil
	}
	if a.shared == nil {
		return fmt.Errorf("shared arrangement %d is not available to this query", index)
	}
	return a.shared.Lookup(index, key, d, fn)
}

// probeOnly returns plan with the inner joins reading last (the input fed
// last) as one side made probe-only, or nil when none qualifies: last has
// exactly one Source node, read by nothing else than the join or than
// one MFP read only by the join.
func probeOnly(plan *dataflow.Plan, last repr.CollectionID) *dataflow.Plan {
	if hasLoop(plan) {
		return nil
	}
	consumers := make([]int, len(plan.Nodes))
	src := -1
	for i, n := range plan.Nodes {
		for _, in := range n.Inputs {
			consumers[in]++
		}
		if s, ok := n.Op.(dataflow.Source); ok && s.Collection == last {
			if src >= 0 {
				return nil // a self-join: both sides change together
			}
			src = i
		}
	}
	if src < 0 || consumers[src] != 1 {
		return nil
	}
	for i, n := range plan.Nodes {
		j, ok := n.Op.(dataflow.Join)
		if !ok || j.Kind != dataflow.InnerJoin || j.AppendOnly || j.Shared != nil || len(j.LeftKey) == 0 {
			continue
		}
		for side, in := range n.Inputs {
			if in == src || (consumers[in] == 1 && isMFPOver(plan, in, src)) {
				out := *plan
				out.Nodes = slices.Clone(plan.Nodes)
				j.Shared = &dataflow.SharedArrangement{Side: side, Index: probeIndex}
				out.Nodes[i].Op = j
				return &out
			}
		}
	}
	return nil
}

// isMFPOver reports whether node in is an MFP reading node src.
func isMFPOver(plan *dataflow.Plan, in, src int) bool {
	_, ok := plan.Nodes[in].Op.(dataflow.MFP)
	return ok && plan.Nodes[in].Inputs[0] == src
}

// probeDataflow returns the dataflow of plan with the joins reading f's
// last input probe-only, and the arrangements its Steps read; df and arr
// unchanged when no join qualifies (or the rewritten plan does not
// build: a shared side's key must be source columns).
func probeDataflow(plan *dataflow.Plan, f *queryFeed, df *exec.Dataflow, arr exec.Arrangements) (*exec.Dataflow, exec.Arrangements) {
	if len(f.scans) == 0 || disableProbeOnly {
		return df, arr
	}
	p := probeOnly(plan, f.scans[len(f.scans)-1].id)
	if p == nil {
		return df, arr
	}
	pdf, err := exec.Build(p)
	if err != nil {
		return df, arr
	}
	probeJoinCount.Add(1)
	return pdf, probeArrangements{arr}
}

// probeRather reports whether plan should run without shared
// arrangements: its largest input is large (read in chunks of a scan),
// shared does not read it from an index, and a join of plan can probe
// with it (probeOnly), so that join would otherwise arrange the largest
// input privately while sharing a smaller side. The caller holds e.mu
// shared.
func (e *Engine) probeRather(plan, shared *dataflow.Plan) bool {
	var largest repr.CollectionID
	rows := feedChunk
	for _, n := range plan.Nodes {
		if src, ok := n.Op.(dataflow.Source); ok {
			if c := e.colls[uint64(src.Collection)]; c != nil && c.Len() > rows {
				largest, rows = src.Collection, c.Len()
			}
		}
	}
	return largest != 0 && !disableProbeOnly && !slices.Contains(sharedCollections(shared), largest) &&
		probeOnly(plan, largest) != nil
}

// disableProbeOnly keeps every join's arrangements (tests compare).
var disableProbeOnly = false
