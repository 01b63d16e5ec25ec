package exec

import (
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// sharedReduce is a grouped Reduce (dataflow.Reduce with Shared set)
// whose groups are read from a shared arrangement led by the group key:
// the rows of the input's source collection, which the coordinator keeps
// anyway (TPC-H Q18's sum(l_quantity) per l_orderkey reads lineitem's own
// key order, (l_orderkey, l_linenumber)). On a batch dG it emits, for
// every group the batch touched, -old and +new output rows when they
// differ, as reduceOp does: new is the aggregate of the group's rows G'
// found in the arrangement as of the Step (which already holds dG), old
// the aggregate of G' - dG. Both are computed by a reduceOp built for the
// Step and dropped after it, fed G' - dG and then dG.
//
// State: none (nothing is logged, nothing to restore or roll back). Each
// Step costs one lookup per touched group and the decode of the group's
// rows, so the arrangement must have few rows per group: the planner
// shares a Reduce only over a table's own primary-key order.
type sharedReduce struct {
	spec   dataflow.Reduce // without Shared, for the Step's reduceOp
	in     []repr.T
	out    []repr.T
	index  uint64
	cols   []int // the lookup key: the group key in the arrangement's order
	shared *sharedReader
	kbuf   []byte
	seen   map[string]struct{}
	prior  []repr.Update
}

// newSharedReduce builds the shared Reduce of node i of p, whose input
// must be a Source or an MFP over one whose key columns are source
// columns.
func newSharedReduce(p *dataflow.Plan, i int, in [][]repr.T) (operator, error) {
	n := &p.Nodes[i]
	spec := n.Op.(dataflow.Reduce)
	sh := spec.Shared
	if len(spec.Key) == 0 || spec.EmitOnClose || spec.AppendOnly {
		return nil, fmt.Errorf("a shared arrangement serves only a plain grouped Reduce")
	}
	spec.Shared = nil
	if _, err := newReduce(spec, in[0], n.Types); err != nil {
		return nil, err
	}
	if err := checkCols(sh.Cols, len(in[0])); err != nil {
		return nil, err
	}
	r, err := newChainReader(p, n.Inputs[0], sh.Cols)
	if err != nil {
		return nil, err
	}
	return &sharedReduce{spec: spec, in: in[0], out: n.Types, index: sh.Index, cols: sh.Cols,
		shared: r, seen: map[string]struct{}{}}, nil
}

// newChainReader returns the reader of input node in of p: a Source, or
// a chain of MFPs over one through which the key columns are source
// columns. The MFPs nearest the Source decode; the others follow.
func newChainReader(p *dataflow.Plan, in int, keys []int) (*sharedReader, error) {
	var chain []int // the MFP nodes above the first one, top first
	cols := keys
	for {
		m, ok := p.Nodes[in].Op.(dataflow.MFP)
		if !ok {
			break
		}
		below := p.Nodes[in].Inputs[0]
		if _, isMFP := p.Nodes[below].Op.(dataflow.MFP); !isMFP {
			break
		}
		next := make([]int, len(cols))
		for i, c := range cols {
			if next[i] = m.Project[c]; next[i] >= len(p.Nodes[below].Types) {
				return nil, fmt.Errorf("shared input's key #%d is computed, not a source column", c)
			}
		}
		chain, cols, in = append(chain, in), next, below
	}
	r, err := newSharedReader(p, in, cols)
	if err != nil {
		return nil, err
	}
	if len(chain) > 0 && r.mfp == nil {
		return nil, fmt.Errorf("shared input %%%d is not a chain of MFPs over a Source", in)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		n := &p.Nodes[chain[i]]
		m, err := newMFP(n.Op.(dataflow.MFP), p.Nodes[n.Inputs[0]].Types)
		if err != nil {
			return nil, err
		}
		r.more = append(r.more, m)
	}
	return r, nil
}

func (o *sharedReduce) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	s.inKeys = nil // the Step's reduceOp computes its own keys
	if len(ins[0]) == 0 {
		return nil, nil
	}
	prior, err := o.groupsBefore(s, ins[0])
	if err != nil {
		return nil, err
	}
	r, err := newReduce(o.spec, o.in, o.out)
	if err != nil {
		return nil, err
	}
	// The Step's reduceOp logs nothing, and its two phases need distinct
	// epochs (a group touched in the first must be touched again).
	sc := *s
	sc.log = &stateLog{off: true}
	sc.epoch = 1
	if _, err := r.step(&sc, [][]repr.Update{prior}); err != nil {
		return nil, err
	}
	r.commit()
	sc.epoch = 2
	out, err := r.step(&sc, ins)
	s.work = sc.work
	return out, err
}

// groupsBefore returns the rows of every group the batch ups touches as
// they were before the Step: the arrangement's rows of the group (as of
// the Step), then ups negated.
func (o *sharedReduce) groupsBefore(s *stepCtx, ups []repr.Update) ([]repr.Update, error) {
	clear(o.seen)
	prior := o.prior[:0]
	var err error
	for _, u := range ups {
		o.kbuf = repr.AppendColsKey(o.kbuf[:0], u.Row, o.cols)
		if _, ok := o.seen[string(o.kbuf)]; ok {
			continue
		}
		o.seen[string(o.kbuf)] = struct{}{}
		if prior, err = o.shared.lookup(s, o.index, o.kbuf, o.cols, prior); err != nil {
			return nil, err
		}
	}
	for _, u := range ups {
		prior = append(prior, repr.Update{Row: u.Row, Time: u.Time, Diff: -u.Diff})
	}
	o.prior = prior
	return prior, nil
}

// commit clears the Step's rows so that they do not outlive it.
func (o *sharedReduce) commit() {
	clear(o.prior)
	o.prior = o.prior[:0]
}

func (o *sharedReduce) rollback() { o.commit() }
func (o *sharedReduce) restore(_, _ []byte) error {
	return fmt.Errorf("a shared Reduce keeps no state")
}
func (o *sharedReduce) restored() error { return nil }

// stateSize reports no state: the groups' rows belong to the arrangement.
func (o *sharedReduce) stateSize() (rows, bytes int64) { return 0, 0 }
