package expr

import (
	"fmt"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// numProc is the state of one to_char run over a numeric template (as
// PostgreSQL's NUMProc): number is the rendered value and np the next
// character of it to write; lastRel indexes the last significant fraction
// digit under FM (-1: none); numCurr counts digit positions done.
type numProc struct {
	d                         *numDesc
	out                       []byte
	number                    string
	np, lastRel               int
	sign                      byte
	signWrote, numIn          bool
	numCurr, numCount, prePad int
}

// at returns number[i], or 0 past its end (C's terminating NUL).
func (p *numProc) at(i int) byte {
	if i >= 0 && i < len(p.number) {
		return p.number[i]
	}
	return 0
}

// runNumToChar renders v with the parsed template.
func runNumToChar(nodes []numNode, d *numDesc, v numText) (string, error) {
	if d.is(nfEEEE) {
		return v.number, nil
	}
	if d.zeroStart > 0 {
		d.zeroStart--
	}
	if d.is(nfRoman) {
		d.lsign, d.preLsignNum, d.post, d.pre = 0, 0, 0, 0
		v.prePad, v.sign = 0, 0
		d.flag = nfRoman | d.flag&nfFillMode
	}
	p := &numProc{d: d, number: v.number, lastRel: -1, sign: v.sign, prePad: v.prePad}
	p.initSign()
	p.numCount = d.post + d.pre - 1
	if d.is(nfFillMode) && d.is(nfDecimal) {
		p.lastRel = lastRelevant(p.number)
		if p.lastRel >= 0 && d.zeroEnd > p.prePad {
			lastZero := min(len(p.number)-1, d.zeroEnd-p.prePad)
			p.lastRel = max(p.lastRel, lastZero)
		}
	}
	if !p.signWrote && p.prePad == 0 {
		p.numCount++
	}
	for _, n := range nodes {
		if err := p.node(n); err != nil {
			return "", err
		}
	}
	if i := strings.IndexByte(string(p.out), 0); i >= 0 {
		p.out = p.out[:i] // C's output ends at a NUL written from past the number
	}
	return string(p.out), nil
}

// initSign decides whether the sign still has to be written among the
// digits: MI, PL and SG write it themselves.
func (p *numProc) initSign() {
	d := p.d
	if d.is(nfPlus) || d.is(nfMinus) {
		p.signWrote = !(d.is(nfPlus) && !d.is(nfMinus))
		return
	}
	if p.sign != '-' && d.is(nfFillMode) {
		d.flag &^= nfBracket
	}
	p.signWrote = p.sign == '+' && d.is(nfFillMode) && !d.is(nfLSign)
	if d.lsign == lsignPre && d.pre == d.preLsignNum {
		d.lsign = lsignPost
	}
}

// lastRelevant indexes the last nonzero digit after the decimal point, or
// the point itself; -1 when there is no point.
func lastRelevant(s string) int {
	i := strings.IndexByte(s, '.')
	if i < 0 {
		return -1
	}
	r := i
	for j := i + 1; j < len(s); j++ {
		if s[j] != '0' {
			r = j
		}
	}
	return r
}

// node writes one template node.
func (p *numProc) node(n numNode) error {
	d := p.d
	fill := d.is(nfFillMode)
	switch n.key {
	case nkLit:
		p.out = append(p.out, n.lit...)
	case nk9, nk0, nkDec, nkD:
		p.digit(n.key)
	case nkComma, nkG:
		if p.numIn {
			p.out = append(p.out, ',')
		} else if !fill {
			p.out = append(p.out, ' ')
		}
	case nkL:
		p.out = append(p.out, ' ') // the C locale has no currency symbol
	case nkRN, nkrn:
		s := p.number[p.np:]
		if !fill {
			s = fmt.Sprintf("%15s", s)
		}
		if n.key == nkrn {
			s = strings.ToLower(s)
		}
		p.out = append(p.out, s...)
	case nkTH, nkth:
		if d.is(nfRoman) || p.at(0) == '#' || p.sign == '-' || d.is(nfDecimal) {
			return nil
		}
		th, err := ordinalSuffix(p.number, n.key == nkTH)
		if err != nil {
			return err
		}
		p.out = append(p.out, th...)
	case nkMI:
		p.signChar('-', fill)
	case nkPL:
		p.signChar('+', fill)
	case nkSG:
		p.out = append(p.out, p.sign)
	}
	return nil
}

// signChar writes MI's or PL's sign when the value has it, else a blank
// (nothing under FM).
func (p *numProc) signChar(c byte, fill bool) {
	if p.sign == c {
		p.out = append(p.out, c)
	} else if !fill {
		p.out = append(p.out, ' ')
	}
}

// ordinalSuffix is TH's suffix for the number's last digit (teens take th).
func ordinalSuffix(num string, upper bool) (string, error) {
	last := num[len(num)-1]
	if last < '0' || last > '9' {
		return "", repr.Errorf(repr.CodeInvalidText, "\"%s\" is not a number", num)
	}
	if len(num) > 1 && num[len(num)-2] == '1' {
		last = 0
	}
	s := map[byte]string{'1': "st", '2': "nd", '3': "rd"}[last]
	if s == "" {
		s = "th"
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return s, nil
}

// predecSpace reports the leading zero of a value below one, printed as a
// blank before the decimal point ("0.1" with 9.9 is " .1").
func (p *numProc) predecSpace() bool {
	return !p.d.is(nfZero) && p.np == 0 && p.at(0) == '0' && p.d.post != 0
}

// digit writes a 9, 0 or decimal point position, with the sign or the
// opening bracket before the first digit and the trailing sign or closing
// bracket after the last.
func (p *numProc) digit(k numKey) {
	if p.d.is(nfRoman) {
		return
	}
	p.numIn = false
	p.leadSign()
	p.digitBody(k)
	end := p.numCount + b2i(p.prePad > 0) + b2i(p.d.is(nfDecimal))
	if p.lastRel >= 0 && p.lastRel == p.np {
		end = p.numCurr
	}
	if p.numCurr+1 == end {
		p.trailSign()
	}
	p.numCurr++
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// leadSign writes the sign (or opening bracket) before the first digit.
func (p *numProc) leadSign() {
	d := p.d
	if p.signWrote {
		return
	}
	if !(p.numCurr >= p.prePad || d.is(nfZero) && d.zeroStart == p.numCurr) {
		return
	}
	if p.predecSpace() && !(p.lastRel >= 0 && p.at(p.lastRel) == '.') {
		return
	}
	switch {
	case d.is(nfLSign):
		if d.lsign == lsignPre {
			p.out = append(p.out, p.sign)
			p.signWrote = true
		}
	case d.is(nfBracket):
		p.out = append(p.out, map[bool]byte{true: ' ', false: '<'}[p.sign == '+'])
		p.signWrote = true
	case p.sign == '+':
		if !d.is(nfFillMode) {
			p.out = append(p.out, ' ')
		}
		p.signWrote = true
	case p.sign == '-':
		p.out = append(p.out, '-')
		p.signWrote = true
	}
}

// digitBody writes the blank, zero, digit or decimal point of a position.
func (p *numProc) digitBody(k numKey) {
	d := p.d
	fill := d.is(nfFillMode)
	switch {
	case p.numCurr < p.prePad && (d.zeroStart > p.numCurr || !d.is(nfZero)):
		if !fill {
			p.out = append(p.out, ' ')
		}
		return
	case d.is(nfZero) && p.numCurr < p.prePad && d.zeroStart <= p.numCurr:
		p.out = append(p.out, '0')
		p.numIn = true
		return
	}
	relPoint := p.lastRel >= 0 && p.at(p.lastRel) == '.'
	switch c := p.at(p.np); {
	case c == '.':
		if !relPoint || fill {
			p.out = append(p.out, '.')
		}
	case p.lastRel >= 0 && p.np > p.lastRel && k != nk0:
	case p.predecSpace():
		if !fill {
			p.out = append(p.out, ' ')
		} else if relPoint {
			p.out = append(p.out, '0')
		}
	default:
		p.out = append(p.out, c)
		p.numIn = true
	}
	if p.at(p.np) != 0 {
		p.np++
	}
}

// trailSign writes the closing bracket or the trailing S sign.
func (p *numProc) trailSign() {
	d := p.d
	if p.signWrote && d.is(nfBracket) {
		p.out = append(p.out, map[bool]byte{true: ' ', false: '>'}[p.sign == '+'])
	} else if d.is(nfLSign) && d.lsign == lsignPost {
		p.out = append(p.out, p.sign)
	}
}
