package expr

import (
	"testing"

	"github.com/eddydb/eddy/repr"
)

// BenchmarkEvalArith evaluates (#0 + #1) * 2 > 10 over int4 rows.
func BenchmarkEvalArith(b *testing.B) {
	e, err := ParseExpr("(#0 + #1) * 2 > 10", []repr.T{repr.Int4, repr.Int4})
	if err != nil {
		b.Fatal(err)
	}
	rows := make([]repr.Row, 1024)
	for i := range rows {
		rows[i] = repr.Row{repr.NewInt(int64(i)), repr.NewInt(int64(i % 7))}
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

// BenchmarkEvalNumericMul evaluates q1's 0.908 * price::numeric over int8
// rows, as the generic call and as Specialize rewrites it.
func BenchmarkEvalNumericMul(b *testing.B) {
	e, err := ParseExpr("0.908 * #0::numeric", []repr.T{repr.Int8})
	if err != nil {
		b.Fatal(err)
	}
	rows := make([]repr.Row, 1024)
	for i := range rows {
		rows[i] = repr.Row{repr.NewInt(int64(i) * 7919)}
	}
	for _, c := range []struct {
		name string
		e    Expr
	}{{"generic", e}, {"specialized", Specialize(e)}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := &Ctx{}
			b.ReportAllocs()
			for b.Loop() {
				for _, r := range rows {
					if _, err := c.e.Eval(ctx, r); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
