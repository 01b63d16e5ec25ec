package repr

import (
	"math"
)

// Integer arithmetic with PostgreSQL's overflow checks: the result must fit
// the operands' width (16, 32 or 64 bits), else 22003 "smallint out of
// range", "integer out of range" or "bigint out of range". The inputs are
// assumed to fit the width already.

// AddInt returns a+b at the given width.
func AddInt(a, b int64, width int32) (int64, error) {
	r := a + b
	if (r > a) != (b > 0) {
		return 0, errIntOutOfRange(width)
	}
	return checkWidth(r, width)
}

// SubInt returns a-b at the given width.
func SubInt(a, b int64, width int32) (int64, error) {
	r := a - b
	if (r < a) != (b > 0) {
		return 0, errIntOutOfRange(width)
	}
	return checkWidth(r, width)
}

// MulInt returns a*b at the given width.
func MulInt(a, b int64, width int32) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, errIntOutOfRange(width)
	}
	return checkWidth(r, width)
}

// DivInt returns a/b truncated toward zero; 22012 when b is 0, 22003 for
// the minimum value divided by -1.
func DivInt(a, b int64, width int32) (int64, error) {
	if b == 0 {
		return 0, ErrDivisionByZero.New()
	}
	if b == -1 {
		return SubInt(0, a, width)
	}
	return a / b, nil
}

// ModInt returns a%b with the sign of a; 22012 when b is 0.
func ModInt(a, b int64, width int32) (int64, error) {
	if b == 0 {
		return 0, ErrDivisionByZero.New()
	}
	if b == -1 {
		return 0, nil
	}
	return a % b, nil
}

// checkWidth returns r if it fits in width bits, else the overflow error.
func checkWidth(r int64, width int32) (int64, error) {
	switch width {
	case 16:
		if r < math.MinInt16 || r > math.MaxInt16 {
			return 0, errIntOutOfRange(width)
		}
	case 32:
		if r < math.MinInt32 || r > math.MaxInt32 {
			return 0, errIntOutOfRange(width)
		}
	}
	return r, nil
}
