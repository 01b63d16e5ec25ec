package expr

import (
	"math"
	"math/bits"

	"github.com/eddydb/eddy/repr"
)

// The operators and functions of the bit string types (PostgreSQL's
// varbit.c). They are registered on bit; a bit varying argument passes
// unchanged (the two types share a representation, as PostgreSQL's are
// binary coercible), and results are bit except || (bit varying), as in
// PostgreSQL. Bit positions count from 1 in substring, position and
// overlay and from 0 in get_bit and set_bit, from the left.

func init() {
	b, i4 := repr.Bit, repr.Int4
	bitwise := func(op, verb string, f func(x, y byte) byte) {
		binop(op, b, b, b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return bitsBitwise(a[0], a[1], verb, f)
		})
	}
	bitwise("&", "AND", func(x, y byte) byte { return x & y })
	bitwise("|", "OR", func(x, y byte) byte { return x | y })
	bitwise("#", "XOR", func(x, y byte) byte { return x ^ y })
	register(prefixOps, "~", b, bitsNot, b)
	binop("<<", b, i4, b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return bitsShift(a[0], int64(a[1].Int())), nil
	})
	binop(">>", b, i4, b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return bitsShift(a[0], -int64(a[1].Int())), nil
	})
	binop("||", repr.VarBit, repr.VarBit, repr.VarBit, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return bitsConcat(a[0], a[1]), nil
	})
	registerBitsFuncs(b, i4)
}

// registerBitsFuncs registers the functions over bit strings.
func registerBitsFuncs(b, i4 repr.T) {
	bitLen := func(_ *Ctx, a []repr.Datum) (repr.Datum, error) { return repr.NewInt(int64(a[0].BitLen())), nil }
	fn("length", i4, bitLen, b)
	fn("bit_length", i4, bitLen, b)
	fn("octet_length", i4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewInt(int64(len(a[0].BitBytes()))), nil
	}, b)
	fn("bit_count", repr.Int8, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		n := 0
		for _, c := range []byte(a[0].BitBytes()) {
			n += bits.OnesCount8(c)
		}
		return repr.NewInt(int64(n)), nil
	}, b)
	fn("get_bit", i4, bitsGetBit, b, i4)
	fn("set_bit", b, bitsSetBit, b, i4, i4)
	fn("substring", b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return bitsSubstring(a[0], a[1].Int(), 0, false)
	}, b, i4)
	fn("substring", b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return bitsSubstring(a[0], a[1].Int(), a[2].Int(), true)
	}, b, i4, i4)
	fn("position", i4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewInt(int64(bitsPosition(a[0], a[1]))), nil
	}, b, b)
	fn("overlay", b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return bitsOverlay(a[0], a[1], a[2].Int(), int64(a[1].BitLen()))
	}, b, b, i4)
	fn("overlay", b, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return bitsOverlay(a[0], a[1], a[2].Int(), a[3].Int())
	}, b, b, i4, i4)
}

// bitsBitwise applies f byte by byte to two bit strings of one length;
// different lengths are 22026 "cannot <verb> bit strings of different
// sizes". The unused bits stay zero because f maps (0, 0) to 0.
func bitsBitwise(x, y repr.Datum, verb string, f func(x, y byte) byte) (repr.Datum, error) {
	if x.BitLen() != y.BitLen() {
		return repr.Null, repr.Errorf(repr.CodeBitLength, "cannot %s bit strings of different sizes", verb)
	}
	xb, yb := x.BitBytes(), y.BitBytes()
	out := make([]byte, len(xb))
	for i := range out {
		out[i] = f(xb[i], yb[i])
	}
	return repr.NewBits(out, x.BitLen()), nil
}

// bitsNot is ~: every bit flipped (NewBits clears the unused ones).
func bitsNot(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	xb := a[0].BitBytes()
	out := make([]byte, len(xb))
	for i := range out {
		out[i] = ^xb[i]
	}
	return repr.NewBits(out, a[0].BitLen()), nil
}

// bitsShift shifts left by n bits (right for a negative n), keeping the
// length and filling with zeros, as bitshiftleft and bitshiftright do.
func bitsShift(x repr.Datum, n int64) repr.Datum {
	l := x.BitLen()
	return repr.NewBitsFunc(l, func(i int) bool {
		j := int64(i) + n
		return j >= 0 && j < int64(l) && x.BitAt(int(j))
	})
}

// bitsConcat is bitcat: x's bits then y's.
func bitsConcat(x, y repr.Datum) repr.Datum {
	lx := x.BitLen()
	return repr.NewBitsFunc(lx+y.BitLen(), func(i int) bool {
		if i < lx {
			return x.BitAt(i)
		}
		return y.BitAt(i - lx)
	})
}

// bitsSubstring is bitsubstr: the bits from position s (1-based) for l
// bits (to the end when !hasLen), clipped to the string; a negative l is
// 22011.
func bitsSubstring(x repr.Datum, s, l int64, hasLen bool) (repr.Datum, error) {
	n := int64(x.BitLen())
	s1, e1 := max(s, 1), n+1
	if hasLen {
		if l < 0 {
			return repr.Null, repr.Errorf("22011", "negative substring length not allowed")
		}
		e1 = min(s+l, n+1)
	}
	if s1 > n || e1 <= s1 {
		return repr.NewBits(nil, 0), nil
	}
	return repr.NewBitsFunc(int(e1-s1), func(i int) bool { return x.BitAt(int(s1-1) + i) }), nil
}

// bitsPosition is bitposition: the 1-based position of the first
// occurrence of sub in x; 0 when there is none or x is empty, 1 for an
// empty sub.
func bitsPosition(x, sub repr.Datum) int {
	n, m := x.BitLen(), sub.BitLen()
	switch {
	case n == 0 || m > n:
		return 0
	case m == 0:
		return 1
	}
	for i := 0; i+m <= n; i++ {
		j := 0
		for j < m && x.BitAt(i+j) == sub.BitAt(j) {
			j++
		}
		if j == m {
			return i + 1
		}
	}
	return 0
}

// bitsOverlay is bit_overlay: x with l bits from position s replaced by
// y. A start below 1 is 22011 (PostgreSQL's message says length); s + l
// overflowing int4 is 22003.
func bitsOverlay(x, y repr.Datum, s, l int64) (repr.Datum, error) {
	if s <= 0 {
		return repr.Null, repr.Errorf("22011", "negative substring length not allowed")
	}
	if s+l > math.MaxInt32 || s+l < math.MinInt32 {
		return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "integer out of range")
	}
	head, err := bitsSubstring(x, 1, s-1, true)
	if err != nil {
		return repr.Null, err
	}
	tail, err := bitsSubstring(x, s+l, 0, false)
	return bitsConcat(bitsConcat(head, y), tail), err
}

// bitsGetBit is get_bit: bit n (0-based) as 0 or 1; n outside the string
// is 2202E.
func bitsGetBit(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	n := a[1].Int()
	if err := checkBitIndex(a[0], n); err != nil {
		return repr.Null, err
	}
	if a[0].BitAt(int(n)) {
		return repr.NewInt(1), nil
	}
	return repr.NewInt(0), nil
}

// bitsSetBit is set_bit: the string with bit n (0-based) set to v, which
// must be 0 or 1 (22023).
func bitsSetBit(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	x, n, v := a[0], a[1].Int(), a[2].Int()
	if err := checkBitIndex(x, n); err != nil {
		return repr.Null, err
	}
	if v != 0 && v != 1 {
		return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "new bit must be 0 or 1")
	}
	return repr.NewBitsFunc(x.BitLen(), func(i int) bool {
		if i == int(n) {
			return v == 1
		}
		return x.BitAt(i)
	}), nil
}

// checkBitIndex is get_bit's and set_bit's range check.
func checkBitIndex(x repr.Datum, n int64) error {
	if n < 0 || n >= int64(x.BitLen()) {
		return repr.Errorf("2202E", "bit index %d out of valid range (0..%d)", n, x.BitLen()-1)
	}
	return nil
}
