package expr

import (
	"math/bits"

	"github.com/eddydb/eddy/repr"
)

// bit_and, bit_or and bit_xor over bit strings (AccBitString). As for
// integers, a group keeps per-bit counts (how many live values set bit i,
// counted from the left), so that every result follows inserts and
// deletes exactly: AND sets the bits all N values set, OR those some value
// sets, XOR those an odd number set. PostgreSQL fails when the values'
// lengths differ; the accumulator knows whether the live values share one
// length from N, the sum of the lengths and the sum of their squares
// (they are equal exactly when N·ΣL² = (ΣL)², the variance being zero),
// so a deletion that removes the odd one out clears the error too. The
// counts cover the first 64 bits: a live value longer than that is
// counted apart, and the result is then 0A000 rather than a wrong answer.
//
// Fields: N; bits the per-bit counts; i ΣL; day ΣL²; pinf the number of
// live values longer than 64 bits.

// maxAggBits is the longest bit string the accumulator counts.
const maxAggBits = 64

// bitsAggClass is the accumulator of bit_and/bit_or/bit_xor over arg.
func bitsAggClass(arg repr.T) AccClass {
	if arg.Family == repr.FamBit {
		return AccBitString
	}
	return AccBits
}

// bitsAggType is their result type: the integer type, or bit.
func bitsAggType(arg repr.T) (repr.T, bool) {
	if arg.Family == repr.FamBit {
		return repr.Bit, true
	}
	return intType(arg)
}

// extremumType is min's and max's result type: the argument's, for every
// type but the bit strings, which PostgreSQL gives no min or max, and
// name, varchar and "char", which reach min(text) and max(text) by an
// implicit cast and so return text (a "char" datum already holds its
// text form, and compares as that text, as PostgreSQL's cast does).
func extremumType(arg repr.T) (repr.T, bool) {
	switch {
	case arg.Family == repr.FamBit:
		return repr.Unknown, false
	case arg.Family == repr.FamText && (arg.Kind == repr.KindName || arg.Kind == repr.KindVarchar || arg.Kind == repr.KindQChar):
		return repr.Text, true
	}
	return sameArgType(arg)
}

// addBitString adds diff copies of the bit string v.
func (a *Acc) addBitString(v repr.Datum, diff int64) {
	n := int64(v.BitLen())
	a.i += n * diff
	a.day += n * n * diff
	if n > maxAggBits {
		a.pinf += diff
		return
	}
	if a.bits == nil {
		a.bits = new([64]int64)
	}
	for i := range int(n) {
		if v.BitAt(i) {
			a.bits[i] += diff
		}
	}
}

// bitStringResult is the bit string whose bit i is set(count of bit i),
// NULL without live values; 22026 naming verb when the live values'
// lengths differ.
func bitStringResult(ac *Acc, verb string, set func(k int64) bool) (repr.Datum, error) {
	if ac.N <= 0 {
		return repr.Null, nil
	}
	if !sameLengths(ac) {
		return repr.Null, repr.Errorf(repr.CodeBitLength, "cannot %s bit strings of different sizes", verb)
	}
	if ac.pinf > 0 {
		return repr.Null, repr.Unsupported("bit_%s over bit strings longer than %d bits", map[string]string{"AND": "and", "OR": "or", "XOR": "xor"}[verb], maxAggBits)
	}
	n := int(ac.i / ac.N)
	return repr.NewBitsFunc(n, func(i int) bool {
		var k int64
		if ac.bits != nil {
			k = ac.bits[i]
		}
		return set(k)
	}), nil
}

// sameLengths reports whether the live values share one length:
// N·ΣL² == (ΣL)², compared in 128 bits.
func sameLengths(ac *Acc) bool {
	h1, l1 := bits.Mul64(uint64(ac.N), uint64(ac.day))
	h2, l2 := bits.Mul64(uint64(ac.i), uint64(ac.i))
	return h1 == h2 && l1 == l2
}
