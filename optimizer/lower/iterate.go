package lower

import (
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// loopScope is the Iterate whose body is being lowered: its LoopVar's ID,
// its Variable node, and the memo of the body nodes that read the
// variable (lowered once per loop, never shared with another loop whose
// LoopVar happens to have the same ID).
type loopScope struct {
	id, v int
	memo  map[ir.Rel]int
	reads map[ir.Rel]bool
}

// readsVar reports (memoized) whether rel reads the scope's LoopVar.
func (sc *loopScope) readsVar(rel ir.Rel) bool {
	if r, ok := sc.reads[rel]; ok {
		return r
	}
	r := false
	if v, ok := rel.(*ir.LoopVar); ok {
		r = v.ID == sc.id
	}
	for _, c := range rel.Children() {
		r = sc.readsVar(c) || r
	}
	sc.reads[rel] = r
	return r
}

// lowerIterate lowers an Iterate to Variable, body, Fixpoint. The body's
// subtrees that do not read the variable (the non-recursive term, the
// tables the recursive term joins) are lowered first, before the
// Variable: they are loop-invariant, so their operators run once per
// Step, not once per iteration, and keep no per-iteration state. The body
// is left with the operators that read the variable. A body that does not
// read it at all gets an identity MFP, so the Fixpoint reads a body node.
// A recursion inside a recursive term is 0A000: loops do not nest.
func (l *lowerer) lowerIterate(it *ir.Iterate) (int, error) {
	if l.loop != nil {
		return 0, repr.Unsupported("WITH RECURSIVE inside the recursive term of another")
	}
	sc := &loopScope{id: it.ID, memo: map[ir.Rel]int{}, reads: map[ir.Rel]bool{}}
	if err := l.hoist(it.Body, sc); err != nil {
		return 0, err
	}
	sc.v = l.add(dataflow.Variable{Name: it.Name, Limit: it.Limit, Rows: it.Rows}, it.Types)
	l.loop = sc
	res, err := l.lower(it.Body)
	l.loop = nil
	if err != nil {
		return 0, err
	}
	if res <= sc.v {
		res = l.add(dataflow.MFP{Project: identity(len(it.Types))}, it.Types, res)
	}
	return l.add(dataflow.Fixpoint{}, it.Types, sc.v, res), nil
}

// hoist lowers the maximal subtrees of rel that do not read sc's variable.
func (l *lowerer) hoist(rel ir.Rel, sc *loopScope) error {
	if !sc.readsVar(rel) {
		_, err := l.lower(rel)
		return err
	}
	for _, c := range rel.Children() {
		if err := l.hoist(c, sc); err != nil {
			return err
		}
	}
	return nil
}
