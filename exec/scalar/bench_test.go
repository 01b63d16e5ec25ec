package scalar

import (
	"testing"

	"github.com/eddydb/eddy/sql/types"
)

// BenchmarkEvalArith evaluates (#0 + #1) * 2 > 10 over int4 rows.
func BenchmarkEvalArith(b *testing.B) {
	e, err := ParseExpr("(#0 + #1) * 2 > 10", []types.T{types.Int4, types.Int4})
	if err != nil {
		b.Fatal(err)
	}
	rows := make([]types.Row, 1024)
	for i := range rows {
		rows[i] = types.Row{types.NewInt(int64(i)), types.NewInt(int64(i % 7))}
	}
	ctx := &Ctx{}
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range rows {
			if _, err := e.Eval(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
