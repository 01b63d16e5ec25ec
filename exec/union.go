package exec

import "github.com/eddydb/eddy/repr"

// unionOp concatenates the updates of its inputs (UNION ALL). Stateless.
type unionOp struct{ stateless }

func (unionOp) step(_ *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	if len(ins) == 1 {
		return ins[0], nil
	}
	n := 0
	for _, in := range ins {
		n += len(in)
	}
	out := make([]repr.Update, 0, n)
	for _, in := range ins {
		out = append(out, in...)
	}
	return out, nil
}
