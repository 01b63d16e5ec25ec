package expr

import (
	"github.com/eddydb/eddy/repr"
)

// Bitwise operators on smallint, integer and bigint: & | # (xor) and
// prefix ~ over two values of one width, and << >> by an integer count,
// the result truncated to the width as PostgreSQL's int2shl and friends
// do. The shift count is taken modulo the width of the machine word the
// C implementation shifts in (32 bits for smallint and integer, 64 for
// bigint), as x86 does, so no count makes Go's shift panic. pgjdbc's
// getIndexInfo tests DESC with (indoption[i] & 1::smallint).

func init() {
	for _, w := range []int32{16, 32, 64} {
		registerIntBits(repr.T{Family: repr.FamInt, Width: w})
	}
}

// registerIntBits registers the bitwise operators of one integer width.
func registerIntBits(t repr.T) {
	w := t.Width
	op := func(name string, f func(a, b int64) int64) {
		binop(name, t, t, t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.NewInt(f(a[0].Int(), a[1].Int())), nil
		})
	}
	op("&", func(a, b int64) int64 { return a & b })
	op("|", func(a, b int64) int64 { return a | b })
	op("#", func(a, b int64) int64 { return a ^ b })
	register(prefixOps, "~", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewInt(^a[0].Int()), nil
	}, t)
	mask := uint64(31)
	if w == 64 {
		mask = 63
	}
	shift := func(name string, f func(a int64, n uint64) int64) {
		binop(name, t, repr.Int4, t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.NewInt(truncInt(f(a[0].Int(), uint64(a[1].Int())&mask), w)), nil
		})
	}
	shift("<<", func(a int64, n uint64) int64 { return a << n })
	shift(">>", func(a int64, n uint64) int64 { return a >> n })
}

// truncInt keeps the low w bits of x, sign-extended.
func truncInt(x int64, w int32) int64 {
	switch w {
	case 16:
		return int64(int16(x))
	case 32:
		return int64(int32(x))
	}
	return x
}
