package exec

import "github.com/eddydb/eddy/exec/dataflow"

// sourceOp feeds the updates of its collection at each Step, unchanged.
// Two Source nodes on one collection both receive them. Stateless.
type sourceOp struct {
	stateless
	coll dataflow.CollectionID
}

func (o *sourceOp) step(_ *stepCtx, ins [][]Update) ([]Update, error) { return ins[0], nil }
