package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// Append appends the datums that persist ac (see Class).
func (c AccClass) Append(r repr.Row, ac *Acc) repr.Row {
	n := repr.NewInt(ac.N)
	switch c {
	case AccCount:
		return append(r, n)
	case AccInt:
		if ac.dec != nil {
			return append(r, n, repr.NewNumeric(ac.dec))
		}
		return append(r, n, repr.NewInt(ac.i))
	case AccFloat:
		return append(r, n, repr.NewFloat(ac.f), repr.NewFloat(ac.c),
			repr.NewInt(ac.nan), repr.NewInt(ac.pinf), repr.NewInt(ac.ninf))
	case AccNumeric:
		return append(r, n, numericOrNull(ac.numericDec()), repr.NewInt(ac.nan), repr.NewInt(ac.pinf), repr.NewInt(ac.ninf))
	case AccInterval:
		return append(r, n, repr.NewInt(ac.i), repr.NewInt(ac.day), repr.NewInt(ac.us))
	case AccBool:
		return append(r, n, repr.NewInt(ac.i))
	case AccMoments:
		return append(r, n, numericOrNull(ac.dec), numericOrNull(ac.sq),
			repr.NewInt(ac.nan), repr.NewInt(ac.pinf), repr.NewInt(ac.ninf))
	case AccBits, AccBitString:
		r = append(r, n)
		for i := range 64 {
			var k int64
			if ac.bits != nil {
				k = ac.bits[i]
			}
			r = append(r, repr.NewInt(k))
		}
		if c == AccBitString {
			r = append(r, repr.NewInt(ac.i), repr.NewInt(ac.day), repr.NewInt(ac.pinf))
		}
		return r
	}
	return r
}

func numericOrNull(d *apd.Decimal) repr.Datum {
	if d == nil {
		return repr.Null
	}
	return repr.NewNumeric(d)
}

func numericOrNil(d repr.Datum) *apd.Decimal {
	if d.IsNull() {
		return nil
	}
	return d.Numeric()
}

// Width is the number of datums Append writes.
func (c AccClass) Width() int {
	return [...]int{AccNone: 0, AccCount: 1, AccInt: 2, AccFloat: 6, AccNumeric: 5,
		AccInterval: 4, AccBool: 2, AccMoments: 6, AccBits: 65, AccBitString: 68}[c]
}

// Decode is the inverse of Append.
func (c AccClass) Decode(r repr.Row) Acc {
	var ac Acc
	if len(r) == 0 {
		return ac
	}
	ac.N = r[0].Int()
	switch c {
	case AccInt:
		if r[1].Family() == repr.FamNumeric {
			ac.dec = r[1].Numeric()
		} else {
			ac.i = r[1].Int()
		}
	case AccFloat:
		ac.f, ac.c = r[1].Float(), r[2].Float()
		ac.nan, ac.pinf, ac.ninf = r[3].Int(), r[4].Int(), r[5].Int()
	case AccNumeric:
		ac.setNumericDec(numericOrNil(r[1]))
		ac.nan, ac.pinf, ac.ninf = r[2].Int(), r[3].Int(), r[4].Int()
	case AccInterval:
		ac.i, ac.day, ac.us = r[1].Int(), r[2].Int(), r[3].Int()
	case AccBool:
		ac.i = r[1].Int()
	case AccMoments:
		ac.dec, ac.sq = numericOrNil(r[1]), numericOrNil(r[2])
		ac.nan, ac.pinf, ac.ninf = r[3].Int(), r[4].Int(), r[5].Int()
	case AccBits, AccBitString:
		ac.bits = new([64]int64)
		for i := range 64 {
			ac.bits[i] = r[1+i].Int()
		}
		if c == AccBitString {
			ac.i, ac.day, ac.pinf = r[65].Int(), r[66].Int(), r[67].Int()
		}
	}
	return ac
}
