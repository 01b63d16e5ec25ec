package exec

import "github.com/eddydb/eddy/repr"

// negateOp emits every input update with its diff negated. Stateless.
type negateOp struct{ stateless }

func (negateOp) step(_ *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	out := make([]repr.Update, len(ins[0]))
	for i, u := range ins[0] {
		out[i] = repr.Update{Row: u.Row, Time: u.Time, Diff: -u.Diff}
	}
	return out, nil
}
