package expr

import (
	"github.com/eddydb/eddy/repr"
)

// to_char(number, template) follows PostgreSQL's numeric formatting
// (formatting.c, NUM_processor): the template is parsed into keyword and
// literal nodes and a description (numDesc) of its digit positions and
// sign placement; each input type renders the value as a plain digit string
// (numstr) padded to the template's width, and one processor walks the
// nodes writing digits, separators, signs and literals. EEEE prints the
// value in scientific notation alone; RN/rn print roman numerals; V shifts
// the value by the number of 9s after it; TH/th append an ordinal suffix;
// L is the C locale's currency symbol (a space). NaN and infinite values
// print as PostgreSQL prints them (numeric NaN as text, #s for EEEE).
func init() {
	for _, ty := range []repr.T{repr.Int4, repr.Int8, repr.Numeric, repr.Float4, repr.Float8} {
		fn("to_char", repr.Text, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			tmpl := a[1].Text()
			if tmpl == "" {
				return repr.NewText(""), nil
			}
			nodes, desc, err := parseNumFormat(tmpl)
			if err != nil {
				return repr.Null, err
			}
			in, err := numInput(a[0], ty, desc)
			if err != nil {
				return repr.Null, err
			}
			s, err := runNumToChar(nodes, desc, in)
			if err != nil {
				return repr.Null, err
			}
			return repr.NewText(s), nil
		}, ty, repr.Text)
	}
}

// numKey identifies a numeric template keyword.
type numKey uint8

const (
	nkLit numKey = iota // literal text, copied to the output
	nkComma
	nkDec
	nk0
	nk9
	nkB
	nkC
	nkD
	nkE
	nkFM
	nkG
	nkL
	nkMI
	nkPL
	nkPR
	nkRN
	nkrn
	nkSG
	nkSP
	nkS
	nkTH
	nkth
	nkV
)

// numKeywords are the template keywords, longest first among those that
// share a first letter; matching is case-sensitive as in PostgreSQL (only
// all-upper and all-lower spellings are keywords).
var numKeywords = []struct {
	s string
	k numKey
}{
	{",", nkComma}, {".", nkDec}, {"0", nk0}, {"9", nk9},
	{"B", nkB}, {"C", nkC}, {"D", nkD}, {"EEEE", nkE}, {"FM", nkFM}, {"G", nkG},
	{"L", nkL}, {"MI", nkMI}, {"PL", nkPL}, {"PR", nkPR}, {"RN", nkRN},
	{"SG", nkSG}, {"SP", nkSP}, {"S", nkS}, {"TH", nkTH}, {"V", nkV},
	{"b", nkB}, {"c", nkC}, {"d", nkD}, {"eeee", nkE}, {"fm", nkFM}, {"g", nkG},
	{"l", nkL}, {"mi", nkMI}, {"pl", nkPL}, {"pr", nkPR}, {"rn", nkrn},
	{"sg", nkSG}, {"sp", nkSP}, {"s", nkS}, {"th", nkth}, {"v", nkV},
}

// numNode is one template node: a keyword, or literal text (lit).
type numNode struct {
	key numKey
	lit string
}

// numFlag is PostgreSQL's NUMDesc flag set.
type numFlag uint32

const (
	nfDecimal numFlag = 1 << iota
	nfLDecimal
	nfZero
	nfBlank
	nfFillMode
	nfLSign
	nfBracket
	nfMinus
	nfPlus
	nfRoman
	nfMulti
	nfPlusPost
	nfMinusPost
	nfEEEE
)

// Local sign placement (S).
const (
	lsignNone = iota
	lsignPre
	lsignPost
)

// numDesc describes a template: pre and post count the digit positions
// before and after the decimal point, multi the 9s after V, zeroStart and
// zeroEnd the span from the first 0 (1-based) to the last digit position.
type numDesc struct {
	pre, post, lsign, preLsignNum, multi, zeroStart, zeroEnd int
	flag                                                     numFlag
}

func (d *numDesc) is(f numFlag) bool { return d.flag&f != 0 }

// errNumFormat is PostgreSQL's error for an inconsistent template (42601).
func errNumFormat(msg string) error { return repr.Errorf(repr.CodeSyntax, "%s", msg) }

// parseNumFormat splits a template into nodes: keywords, double-quoted
// literals (a backslash quotes the next character) and single characters.
func parseNumFormat(s string) ([]numNode, *numDesc, error) {
	d := &numDesc{}
	var nodes []numNode
	for i := 0; i < len(s); {
		if k, n := matchNumKeyword(s[i:]); n > 0 {
			if err := d.prepare(k); err != nil {
				return nil, nil, err
			}
			nodes = append(nodes, numNode{key: k})
			i += n
			continue
		}
		if s[i] == '"' {
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				n := runeLen(s[i:])
				nodes = append(nodes, numNode{lit: s[i : i+n]})
				i += n
			}
			i++
			continue
		}
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '"' {
			i++
		}
		n := runeLen(s[i:])
		nodes = append(nodes, numNode{lit: s[i : i+n]})
		i += n
	}
	return nodes, d, nil
}

// runeLen is the byte length of the UTF-8 character s starts with.
func runeLen(s string) int {
	for n := 1; n < len(s); n++ {
		if s[n]&0xC0 != 0x80 {
			return n
		}
	}
	return len(s)
}

// matchNumKeyword returns the keyword s starts with and its length.
func matchNumKeyword(s string) (numKey, int) {
	for _, kw := range numKeywords {
		if len(s) >= len(kw.s) && s[:len(kw.s)] == kw.s {
			return kw.k, len(kw.s)
		}
	}
	return nkLit, 0
}

// prepare updates the description for one keyword, rejecting the
// combinations PostgreSQL rejects, with its messages.
func (d *numDesc) prepare(k numKey) error {
	if d.is(nfEEEE) && k != nkE {
		return errNumFormat(`"EEEE" must be the last pattern used`)
	}
	switch k {
	case nk9, nk0:
		return d.prepareDigit(k)
	case nkB:
		if d.pre == 0 && d.post == 0 && !d.is(nfZero) {
			d.flag |= nfBlank
		}
	case nkD, nkDec:
		if k == nkD {
			d.flag |= nfLDecimal
		}
		if d.is(nfDecimal) {
			return errNumFormat("multiple decimal points")
		}
		if d.is(nfMulti) {
			return errNumFormat(`cannot use "V" and decimal point together`)
		}
		d.flag |= nfDecimal
	case nkFM:
		d.flag |= nfFillMode
	case nkS:
		return d.prepareS()
	case nkMI, nkPL, nkSG:
		return d.prepareSign(k)
	case nkPR:
		if d.is(nfLSign) || d.is(nfPlus) || d.is(nfMinus) {
			return errNumFormat(`cannot use "PR" and "S"/"PL"/"MI"/"SG" together`)
		}
		d.flag |= nfBracket
	case nkRN, nkrn:
		d.flag |= nfRoman
	case nkV:
		if d.is(nfDecimal) {
			return errNumFormat(`cannot use "V" and decimal point together`)
		}
		d.flag |= nfMulti
	case nkE:
		return d.prepareEEEE()
	}
	return nil
}

// prepareDigit counts a 9 or 0 position.
func (d *numDesc) prepareDigit(k numKey) error {
	if d.is(nfBracket) {
		return errNumFormat(`"9" must be ahead of "PR"`)
	}
	if k == nk9 && d.is(nfMulti) {
		d.multi++
		return nil
	}
	if k == nk0 && !d.is(nfZero) && !d.is(nfDecimal) {
		d.flag |= nfZero
		d.zeroStart = d.pre + 1
	}
	if d.is(nfDecimal) {
		d.post++
	} else {
		d.pre++
	}
	if k == nk0 {
		d.zeroEnd = d.pre + d.post
	}
	return nil
}

// prepareS places the locale sign S before or after the number.
func (d *numDesc) prepareS() error {
	if d.is(nfLSign) {
		return errNumFormat(`cannot use "S" twice`)
	}
	if d.is(nfPlus) || d.is(nfMinus) || d.is(nfBracket) {
		return errNumFormat(`cannot use "S" and "PL"/"MI"/"SG"/"PR" together`)
	}
	if !d.is(nfDecimal) {
		d.lsign, d.preLsignNum = lsignPre, d.pre
		d.flag |= nfLSign
	} else if d.lsign == lsignNone {
		d.lsign = lsignPost
		d.flag |= nfLSign
	}
	return nil
}

// prepareSign handles MI, PL and SG.
func (d *numDesc) prepareSign(k numKey) error {
	name := map[numKey]string{nkMI: "MI", nkPL: "PL", nkSG: "SG"}[k]
	if d.is(nfLSign) {
		return errNumFormat(`cannot use "S" and "` + name + `" together`)
	}
	switch k {
	case nkMI:
		d.flag |= nfMinus
		if d.is(nfDecimal) {
			d.flag |= nfMinusPost
		}
	case nkPL:
		d.flag |= nfPlus
		if d.is(nfDecimal) {
			d.flag |= nfPlusPost
		}
	default:
		d.flag |= nfMinus | nfPlus
	}
	return nil
}

// prepareEEEE accepts EEEE only with digits and a decimal point.
func (d *numDesc) prepareEEEE() error {
	if d.is(nfEEEE) {
		return errNumFormat(`cannot use "EEEE" twice`)
	}
	if d.is(nfBlank | nfFillMode | nfLSign | nfBracket | nfMinus | nfPlus | nfRoman | nfMulti) {
		return repr.Errorf(repr.CodeSyntax, `"EEEE" is incompatible with other formats`).
			WithDetail("%s", `"EEEE" may only be used together with digit and decimal point patterns.`)
	}
	d.flag |= nfEEEE
	return nil
}
