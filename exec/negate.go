package exec

// negateOp emits every input update with its diff negated. Stateless.
type negateOp struct{ stateless }

func (negateOp) step(_ *stepCtx, ins [][]Update) ([]Update, error) {
	out := make([]Update, len(ins[0]))
	for i, u := range ins[0] {
		out[i] = Update{Row: u.Row, Time: u.Time, Diff: -u.Diff}
	}
	return out, nil
}
