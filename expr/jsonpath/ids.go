package jsonpath

import "github.com/cockroachdb/apd/v3"

// keyvalue() numbers each object it expands: PostgreSQL takes the byte
// offset of the object's container inside the binary jsonb it belongs to,
// plus 10^10 times that jsonb's number (0 for the document, 1 for vars,
// 2 and up for the objects keyvalue() itself makes). To print the same
// ids, assignIDs replays PostgreSQL's jsonb layout (convertToJsonb): a
// container is a 4-byte header, a 4-byte JEntry per child (an object's
// keys, then its values), then the children's data in that order;
// strings take their bytes, numerics and containers start at a multiple
// of 4, booleans and nulls take nothing.

// idBase is the factor of a jsonb's number in an id.
const idBase = 10000000000

// assignIDs sets the id of every container in v, the root of jsonb
// number 0.
func assignIDs(v *Value) { assignIDsBase(v, 0) }

// assignIDsBase sets the ids of the containers in v, the root of the
// jsonb numbered base.
func assignIDsBase(v *Value, base int64) {
	if v.k == vArray || v.k == vObject {
		layout(v, 0, base*idBase)
	}
}

// layout places container v at offset pos and returns the offset after it.
func layout(v *Value, pos int64, base int64) int64 {
	v.id = base + pos
	n := int64(len(v.elems))
	if v.k == vObject {
		n *= 2
	}
	p := pos + 4 + 4*n
	for _, k := range v.keys {
		p += int64(len(k))
	}
	for i := range v.elems {
		e := &v.elems[i]
		switch e.k {
		case vString:
			p += int64(len(e.str))
		case vNumber:
			p = align4(p) + numericSize(e.num)
		case vArray, vObject:
			p = layout(e, align4(p), base)
		}
	}
	return p
}

func align4(p int64) int64 { return (p + 3) &^ 3 }

// numericSize is the size of PostgreSQL's varlena numeric holding d: a
// 4-byte length, a 2-byte header (short form) or 4 (long form), and 2
// bytes per base-10000 digit between the first and last non-zero ones.
func numericSize(d *apd.Decimal) int64 {
	if d.Form != apd.Finite || d.IsZero() {
		return 6
	}
	dscale := max(int64(-d.Exponent), 0)
	coeff := d.Coeff.String()
	exp := int64(d.Exponent)
	for len(coeff) > 1 && coeff[len(coeff)-1] == '0' {
		coeff = coeff[:len(coeff)-1]
		exp++
	}
	msd := int64(len(coeff)) - 1 + exp
	weight := floorDiv(msd, 4)
	ndigits := weight - floorDiv(exp, 4) + 1
	hdr := int64(4)
	if dscale <= 63 && weight <= 63 && weight >= -64 {
		hdr = 2
	}
	return 4 + hdr + 2*ndigits
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
