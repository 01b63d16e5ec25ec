package agg

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/sql/types"
)

// Append appends the datums that persist ac (see Class).
func (c Class) Append(r types.Row, ac *Acc) types.Row {
	n := types.NewInt(ac.N)
	switch c {
	case ClassCount:
		return append(r, n)
	case ClassInt:
		if ac.dec != nil {
			return append(r, n, types.NewNumeric(ac.dec))
		}
		return append(r, n, types.NewInt(ac.i))
	case ClassFloat:
		return append(r, n, types.NewFloat(ac.f), types.NewFloat(ac.c),
			types.NewInt(ac.nan), types.NewInt(ac.pinf), types.NewInt(ac.ninf))
	case ClassNumeric:
		return append(r, n, numericOrNull(ac.dec), types.NewInt(ac.nan), types.NewInt(ac.pinf), types.NewInt(ac.ninf))
	case ClassInterval:
		return append(r, n, types.NewInt(ac.i), types.NewInt(ac.day), types.NewInt(ac.us))
	case ClassBool:
		return append(r, n, types.NewInt(ac.i))
	case ClassMoments:
		return append(r, n, numericOrNull(ac.dec), numericOrNull(ac.sq),
			types.NewInt(ac.nan), types.NewInt(ac.pinf), types.NewInt(ac.ninf))
	case ClassBits:
		r = append(r, n)
		for i := range 64 {
			var k int64
			if ac.bits != nil {
				k = ac.bits[i]
			}
			r = append(r, types.NewInt(k))
		}
		return r
	}
	return r
}

func numericOrNull(d *apd.Decimal) types.Datum {
	if d == nil {
		return types.Null
	}
	return types.NewNumeric(d)
}

func numericOrNil(d types.Datum) *apd.Decimal {
	if d.IsNull() {
		return nil
	}
	return d.Numeric()
}

// Width is the number of datums Append writes.
func (c Class) Width() int {
	return [...]int{ClassNone: 0, ClassCount: 1, ClassInt: 2, ClassFloat: 6, ClassNumeric: 5,
		ClassInterval: 4, ClassBool: 2, ClassMoments: 6, ClassBits: 65}[c]
}

// Decode is the inverse of Append.
func (c Class) Decode(r types.Row) Acc {
	var ac Acc
	if len(r) == 0 {
		return ac
	}
	ac.N = r[0].Int()
	switch c {
	case ClassInt:
		if r[1].Family() == types.FamNumeric {
			ac.dec = r[1].Numeric()
		} else {
			ac.i = r[1].Int()
		}
	case ClassFloat:
		ac.f, ac.c = r[1].Float(), r[2].Float()
		ac.nan, ac.pinf, ac.ninf = r[3].Int(), r[4].Int(), r[5].Int()
	case ClassNumeric:
		ac.dec = numericOrNil(r[1])
		ac.nan, ac.pinf, ac.ninf = r[2].Int(), r[3].Int(), r[4].Int()
	case ClassInterval:
		ac.i, ac.day, ac.us = r[1].Int(), r[2].Int(), r[3].Int()
	case ClassBool:
		ac.i = r[1].Int()
	case ClassMoments:
		ac.dec, ac.sq = numericOrNil(r[1]), numericOrNil(r[2])
		ac.nan, ac.pinf, ac.ninf = r[3].Int(), r[4].Int(), r[5].Int()
	case ClassBits:
		ac.bits = new([64]int64)
		for i := range 64 {
			ac.bits[i] = r[1+i].Int()
		}
	}
	return ac
}
