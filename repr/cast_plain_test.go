package repr

import "testing"

// TestPlainNumbersCast checks plainNumber's premise: pg_cast has a cast
// between any two of int2, int4, int8, float4, float8 and numeric, and
// plainNumber holds for exactly those among the supported scalar types
// named here (an oid is a 32-bit int but not plain).
func TestPlainNumbersCast(t *testing.T) {
	plain := []T{Int2, Int4, Int8, Float4, Float8, Numeric, NumericPS(10, 2)}
	for _, a := range plain {
		if !plainNumber(a) {
			t.Errorf("plainNumber(%s) = false", a.Name())
		}
		for _, b := range plain {
			if CastContextOf(a, b) == CastNone {
				t.Errorf("no cast from %s to %s", a.Name(), b.Name())
			}
		}
	}
	for _, x := range []T{Bool, Text, Date, Timestamp, IntervalT, OIDT, RegClass} {
		if plainNumber(x) {
			t.Errorf("plainNumber(%s) = true", x.Name())
		}
	}
}
