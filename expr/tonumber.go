package expr

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// to_number(text, template) reads a number with the numeric template
// patterns of to_char, as PostgreSQL's NUM_processor does in its input
// direction: digit positions read digits (a leading sign, or < under PR,
// before the first; S, MI, PL, SG read their signs), the decimal point
// is read once, a comma or G is skipped only when the input has one
// there, TH and L skip non-data characters, and each literal template
// character skips one input character whatever it is. The digits read
// are then a numeric of precision pre+multi+scale, divided by 10^multi
// for V. EEEE and RN are 0A000 for input, as in PostgreSQL 15.
func init() {
	fn("to_number", repr.Numeric, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		tmpl := a[1].Text()
		if tmpl == "" {
			return repr.Null, nil
		}
		nodes, d, err := parseNumFormat(tmpl)
		if err != nil {
			return repr.Null, err
		}
		if d.zeroStart > 0 {
			d.zeroStart--
		}
		switch {
		case d.is(nfEEEE):
			return repr.Null, repr.Errorf(repr.CodeFeatureNotSupported, `"EEEE" not supported for input`)
		case d.is(nfRoman):
			return repr.Null, repr.Errorf(repr.CodeFeatureNotSupported, `"RN" not supported for input`)
		}
		r := &numReader{d: d, in: a[0].Text(), num: []byte{' '}}
		r.run(nodes)
		return r.result()
	}, repr.Text, repr.Text)
}

// numReader is the state of one to_number run: in is the input and ip the
// next byte of it; num collects the sign (num[0], ' ' when none was read)
// and the digits and point read.
type numReader struct {
	d                 *numDesc
	in                string
	ip                int
	num               []byte
	readPre, readPost int
	readDec           bool
}

// at returns in[i], or 0 past the input's end.
func (r *numReader) at(i int) byte {
	if i >= 0 && i < len(r.in) {
		return r.in[i]
	}
	return 0
}

func (r *numReader) done() bool { return r.ip >= len(r.in) }

// run reads the input along the template nodes.
func (r *numReader) run(nodes []numNode) {
	for _, n := range nodes {
		if r.done() {
			break
		}
		if n.key == nkLit {
			r.ip += runeLen(r.in[r.ip:])
			continue
		}
		if r.node(n.key) {
			r.ip++
		}
	}
}

// node reads for one keyword, reporting whether the input position then
// advances by one (PostgreSQL's "break" rather than "continue").
func (r *numReader) node(k numKey) bool {
	d := r.d
	switch k {
	case nk9, nk0, nkDec, nkD:
		r.digit(k)
		return true
	case nkComma, nkG:
		return !d.is(nfFillMode) && r.at(r.ip) == ','
	case nkL:
		r.eatNonData(1)
	case nkTH, nkth:
		if !d.is(nfDecimal) {
			r.eatNonData(2)
		}
	case nkMI, nkPL, nkSG:
		c := r.at(r.ip)
		if c == '-' && k != nkPL || c == '+' && k != nkMI {
			r.num[0] = c
			return true
		}
		r.eatNonData(1)
	}
	return false
}

// eatNonData skips up to n characters that are not digits, points,
// commas or signs.
func (r *numReader) eatNonData(n int) {
	for ; n > 0 && !r.done(); n-- {
		if strings.IndexByte("0123456789.,+-", r.in[r.ip]) >= 0 {
			return
		}
		r.ip += runeLen(r.in[r.ip:])
	}
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// digit reads at a digit or decimal point position: a sign before the
// first digit, then a digit or the point, then a sign right after the
// last digit.
func (r *numReader) digit(k numKey) {
	d := r.d
	if r.at(r.ip) == ' ' {
		r.ip++
	}
	if r.done() {
		return
	}
	if r.num[0] == ' ' && (k == nk0 || k == nk9) && r.readPre+r.readPost == 0 {
		r.leadSign()
	}
	if r.done() {
		return
	}
	isread := false
	switch c := r.at(r.ip); {
	case isDigitByte(c):
		if r.readDec && r.readPost == d.post {
			return
		}
		r.num = append(r.num, c)
		if r.readDec {
			r.readPost++
		} else {
			r.readPre++
		}
		isread = true
	case d.is(nfDecimal) && !r.readDec && c == '.':
		r.num = append(r.num, '.')
		r.readDec, isread = true, true
	}
	if r.done() || r.num[0] != ' ' || r.readPre+r.readPost == 0 {
		return
	}
	r.trailSign(isread)
}

// leadSign reads a sign before the first digit.
func (r *numReader) leadSign() {
	c := r.at(r.ip)
	if r.d.is(nfLSign) && r.d.lsign == lsignPre {
		if c == '-' || c == '+' {
			r.num[0] = c
			r.ip++
		}
		return
	}
	switch {
	case c == '-' || r.d.is(nfBracket) && c == '<':
		r.num[0] = '-'
		r.ip++
	case c == '+':
		r.num[0] = '+'
		r.ip++
	}
}

// trailSign reads a sign right after the last digit read: S's when the
// next character is not a digit, or MI's, PL's or SG's when no digit was
// read here.
func (r *numReader) trailSign(isread bool) {
	d := r.d
	switch {
	case d.is(nfLSign) && isread && r.ip+1 <= len(r.in) && !isDigitByte(r.at(r.ip+1)):
		if c := r.at(r.ip + 1); c == '-' || c == '+' {
			r.ip++
			r.num[0] = c
		}
	case !isread && !d.is(nfLSign) && (d.is(nfPlus) || d.is(nfMinus)):
		if c := r.at(r.ip); c == '-' || c == '+' {
			r.num[0] = c
		}
	}
}

// result turns the characters read into a numeric of the template's
// precision, as numeric_in with that typmod does.
func (r *numReader) result() (repr.Datum, error) {
	s := strings.TrimSuffix(string(r.num), ".")
	scale := r.readPost
	precision := r.d.pre + r.d.multi + scale
	body := strings.TrimLeft(s, " +")
	if body == "" || body == "-" {
		return repr.Null, repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type numeric: \"%s\"", s)
	}
	dec, _, err := apd.NewFromString(body)
	if err != nil {
		return repr.Null, repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type numeric: \"%s\"", s)
	}
	if !dec.IsZero() && int(dec.Exponent)+int(dec.NumDigits()) > precision-scale {
		var max string
		if precision-scale > 0 {
			max = "10^" + strconv.Itoa(precision-scale)
		} else {
			max = "1"
		}
		return repr.Null, repr.Errorf(repr.CodeNumericOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d must round to an absolute value less than %s.", precision, scale, max)
	}
	if r.d.is(nfMulti) {
		dec = shiftMulti(dec, r.d.multi, scale)
	}
	if dec.IsZero() {
		dec.Negative = false
	}
	return repr.NewNumeric(dec), nil
}

// shiftMulti divides dec (of scale digits after the point) by 10^multi as
// PostgreSQL does, multiplying by numeric_power(10, -multi), which is
// 10^-multi rounded to 16 digits after the point: the product has
// scale+16 of them, and is zero past 16 V digits.
func shiftMulti(dec *apd.Decimal, multi, scale int) *apd.Decimal {
	out := new(apd.Decimal)
	if multi <= 16 {
		out.Set(dec)
		out.Exponent -= int32(multi)
	}
	var q apd.Decimal
	ctx := apd.BaseContext.WithPrecision(uint32(out.NumDigits()) + 40)
	_, _ = ctx.Quantize(&q, out, -int32(scale+16))
	return &q
}
