package dataflow

import (
	"fmt"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// inferTypes returns the output column types of op over inputs with column
// types in, for operators whose types follow from their inputs.
func inferTypes(op Op, in [][]repr.T) ([]repr.T, error) {
	switch op := op.(type) {
	case Constant:
		// Only a relation of zero columns (the unit row under a constant
		// FlatMap) prints without types.
		for _, r := range op.Rows {
			if len(r) > 0 {
				return nil, fmt.Errorf("Constant needs column types (:: t1, t2, ...)")
			}
		}
		return []repr.T{}, nil
	case Source, Variable:
		return nil, fmt.Errorf("%s needs column types (:: t1, t2, ...)", op.opName())
	case MFP:
		cols := append([]repr.T(nil), in[0]...)
		for _, e := range op.Map {
			cols = append(cols, e.Type())
		}
		out := make([]repr.T, len(op.Project))
		for i, c := range op.Project {
			if c < 0 || c >= len(cols) {
				return nil, fmt.Errorf("MFP projects column #%d of %d", c, len(cols))
			}
			out[i] = cols[c]
		}
		return out, nil
	case Reduce:
		var out []repr.T
		for _, c := range op.Key {
			if c < 0 || c >= len(in[0]) {
				return nil, fmt.Errorf("Reduce key column #%d out of range", c)
			}
			out = append(out, in[0][c])
		}
		for _, a := range op.Aggs {
			out = append(out, a.T)
		}
		return out, nil
	case Join:
		return append(append([]repr.T(nil), in[0]...), in[1]...), nil
	case DeltaJoin:
		var out []repr.T
		for _, ts := range in {
			out = append(out, ts...)
		}
		return out, nil
	case SessionWindow:
		if op.TimeCol < 0 || op.TimeCol >= len(in[0]) {
			return nil, fmt.Errorf("SessionWindow time column #%d out of range", op.TimeCol)
		}
		t := in[0][op.TimeCol]
		return append(append([]repr.T(nil), in[0]...), t, t), nil
	case Window:
		return windowTypes(op, in[0]), nil
	case FlatMap:
		return expr.TableCallTypes(op.Funcs, op.Ordinality, in[0]), nil
	case TopK:
		if op.Rank {
			return append(append([]repr.T(nil), in[0]...), repr.Int8), nil
		}
	}
	return in[0], nil
}
