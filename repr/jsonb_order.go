package repr

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync"
	"unicode/utf8"
)

// jsonb order. PostgreSQL's jsonb btree order (compareJsonbContainers in
// jsonb_util.c, and the "jsonb Indexing" section of its manual) is not the
// order of the printed text:
//
//	Object > Array > Boolean > Number > String > Null
//
// Objects with more pairs are greater, arrays with more elements are
// greater; containers of the same size compare pair by pair (keys in their
// stored order: by length, then bytes) or element by element. Numbers
// compare as numerics (1.0 = 1), strings by their bytes (the C collation
// Eddy uses for text), false < true. A scalar at the top level is stored
// as a one-element "raw scalar" array: it sorts with the arrays, after
// every empty array and before every other one-element array (so
// '[]' < '1' < '[0]' < '[1, 2]' < '{}').
//
// Eddy encodes that order into the key encoding (AppendKey) of a jsonb
// value, so that bytes.Compare of keys is the order and equal keys are
// equality, which makes grouping, joins, hashing and B-tree storage agree
// with "=" and "<" by construction; Compare compares the encodings. The
// encoding, per value:
//
//	null             jkNull
//	string           jkString, the string's bytes escaped as appendBytes does
//	number           jkNumber, appendDecimal's form of the value
//	boolean          jkBool, 0 or 1
//	array            jkArray, 4-byte element count, 0 for a raw scalar
//	                 else 1, the elements
//	object           jkObject, 4-byte pair count, then per pair the key's
//	                 escaped bytes and the value
//
// The tags follow PostgreSQL's type order; the count precedes the raw
// flag because PostgreSQL's element count decides over it.
const (
	jkNull   byte = 0x10
	jkString byte = 0x11
	jkNumber byte = 0x12
	jkBool   byte = 0x13
	jkArray  byte = 0x14
	jkObject byte = 0x15
)

// compareJSONB orders two canonical jsonb texts by PostgreSQL's rule. It
// encodes both into buffers reused across calls (jsonbCmpPool): the
// encoder's recursion makes any buffer passed to it escape, so buffers on
// the stack were moved to the heap, two allocations per call.
func compareJSONB(a, b string) int {
	if a == b {
		return 0
	}
	bufs := jsonbCmpPool.Get().(*jsonbCmpBufs)
	bufs.a = appendJSONBKey(bufs.a[:0], a)
	bufs.b = appendJSONBKey(bufs.b[:0], b)
	c := bytes.Compare(bufs.a, bufs.b)
	if cap(bufs.a)+cap(bufs.b) <= jsonbCmpKeep {
		jsonbCmpPool.Put(bufs)
	}
	return c
}

// jsonbCmpBufs holds compareJSONB's two key buffers.
type jsonbCmpBufs struct{ a, b []byte }

// jsonbCmpPool holds compareJSONB's buffers between calls; buffers grown
// past jsonbCmpKeep bytes (a huge value) are left to the collector.
var jsonbCmpPool = sync.Pool{New: func() any { return &jsonbCmpBufs{a: make([]byte, 0, 256), b: make([]byte, 0, 256)} }}

const jsonbCmpKeep = 64 << 10

// appendJSONBKey appends the order-preserving encoding of the canonical
// jsonb text s (see above). s is trusted to be canonical (ParseJSONB's
// output); malformed text still encodes without panicking.
func appendJSONBKey(buf []byte, s string) []byte {
	e := jsonbKeyEncoder{s: s}
	e.skipSpace()
	if e.i < len(s) && (s[e.i] == '[' || s[e.i] == '{') {
		return e.value(buf)
	}
	buf = append(buf, jkArray, 0, 0, 0, 1, 0) // a raw scalar
	return e.value(buf)
}

// jsonbKeyEncoder walks canonical jsonb text once, writing the key
// encoding as it goes; a container's count is patched in when it closes.
type jsonbKeyEncoder struct {
	s string
	i int
}

func (e *jsonbKeyEncoder) skipSpace() {
	for e.i < len(e.s) && (e.s[e.i] == ' ' || e.s[e.i] == ',' || e.s[e.i] == ':' || e.s[e.i] == '\n' || e.s[e.i] == '\t' || e.s[e.i] == '\r') {
		e.i++
	}
}

// value encodes the value at the cursor.
func (e *jsonbKeyEncoder) value(buf []byte) []byte {
	e.skipSpace()
	if e.i >= len(e.s) {
		return append(buf, jkNull)
	}
	switch c := e.s[e.i]; {
	case c == '[' || c == '{':
		return e.container(buf, c)
	case c == '"':
		return e.str(append(buf, jkString))
	case c == 't':
		e.i += len("true")
		return append(buf, jkBool, 1)
	case c == 'f':
		e.i += len("false")
		return append(buf, jkBool, 0)
	case c == 'n':
		e.i += len("null")
		return append(buf, jkNull)
	}
	return e.number(buf)
}

// container encodes an array or object whose opening bracket is at the
// cursor.
func (e *jsonbKeyEncoder) container(buf []byte, open byte) []byte {
	tag, close := jkArray, byte(']')
	if open == '{' {
		tag, close = jkObject, '}'
	}
	buf = append(buf, tag, 0, 0, 0, 0)
	at := len(buf) - 4
	if tag == jkArray {
		buf = append(buf, 1)
	}
	e.i++
	n := uint32(0)
	for {
		e.skipSpace()
		if e.i >= len(e.s) {
			break
		}
		if e.s[e.i] == close {
			e.i++
			break
		}
		if tag == jkObject {
			e.skipSpace()
			if e.i >= len(e.s) || e.s[e.i] != '"' {
				break
			}
			buf = e.str(buf)
		}
		before := e.i
		buf = e.value(buf)
		if e.i == before { // malformed text: stop rather than loop
			break
		}
		n++
	}
	binary.BigEndian.PutUint32(buf[at:], n)
	return buf
}

// str encodes the string literal at the cursor: its unescaped bytes,
// escaped and terminated as appendBytes does.
func (e *jsonbKeyEncoder) str(buf []byte) []byte {
	e.i++ // opening quote
	for e.i < len(e.s) {
		c := e.s[e.i]
		switch {
		case c == '"':
			e.i++
			return append(buf, 0x00, 0x01)
		case c == '\\' && e.i+1 < len(e.s):
			var r byte
			r, e.i = unescapeJSONB(e.s, e.i)
			buf = appendKeyByte(buf, r)
			continue
		}
		buf = appendKeyByte(buf, c)
		e.i++
	}
	return append(buf, 0x00, 0x01)
}

// unescapeJSONB decodes the escape at s[i] (canonical jsonb text escapes
// only ", \ and control characters) and returns the byte and the index
// past the escape.
func unescapeJSONB(s string, i int) (byte, int) {
	switch c := s[i+1]; c {
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'u':
		if i+6 <= len(s) {
			v := 0
			for _, h := range []byte(s[i+2 : i+6]) {
				v = v<<4 | int(hexVal(h))
			}
			return byte(v), i + 6
		}
		return 'u', i + 2
	default:
		return c, i + 2
	}
}

func hexVal(h byte) byte {
	switch {
	case h >= '0' && h <= '9':
		return h - '0'
	case h >= 'a' && h <= 'f':
		return h - 'a' + 10
	case h >= 'A' && h <= 'F':
		return h - 'A' + 10
	}
	return 0
}

// appendKeyByte appends one byte of an escaped key string.
func appendKeyByte(buf []byte, c byte) []byte {
	if c == 0 {
		return append(buf, 0x00, 0xFF)
	}
	return append(buf, c)
}

// number encodes the number at the cursor. Canonical numbers are plain
// decimals (-?digits[.digits], as numeric prints them); anything else
// goes through the decimal parser.
func (e *jsonbKeyEncoder) number(buf []byte) []byte {
	j := e.i
	for j < len(e.s) && strings.IndexByte("+-.0123456789eEaINnfinity", e.s[j]) >= 0 {
		j++
	}
	if j == e.i { // malformed text: skip a byte (a rune) so the walk ends
		_, n := utf8.DecodeRuneInString(e.s[e.i:])
		e.i += n
		return append(buf, jkNull)
	}
	tok := e.s[e.i:j]
	e.i = j
	buf = append(buf, jkNumber)
	if out, ok := appendPlainDecimalKey(buf, tok); ok {
		return out
	}
	if d, ok := parseDecimal(tok); ok {
		return appendDecimal(buf, d)
	}
	return append(buf, 0x06) // as NaN: after every number
}

// appendPlainDecimalKey appends appendDecimal's encoding of the plain
// decimal text t (-?digits[.digits]) without building a decimal; it
// reports false for any other text.
func appendPlainDecimalKey(buf []byte, t string) ([]byte, bool) {
	neg := strings.HasPrefix(t, "-")
	if neg {
		t = t[1:]
	}
	intPart, frac, _ := strings.Cut(t, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) {
		return buf, false
	}
	lead := 0 // leading zeros of intPart+frac
	for lead < len(intPart) && intPart[lead] == '0' {
		lead++
	}
	if lead == len(intPart) {
		for lead-len(intPart) < len(frac) && frac[lead-len(intPart)] == '0' {
			lead++
		}
	}
	if lead == len(intPart)+len(frac) {
		return append(buf, 0x03), true // zero, either sign
	}
	adj := int64(len(intPart) - lead)
	// the significant digits: intPart+frac from lead, trailing zeros dropped
	var scratch [64]byte
	digits := append(append(scratch[:0], intPart...), frac...)[lead:]
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return appendDecimalDigits(buf, neg, adj, digits), true
}

// jsonbKeyDecoder reads a jsonb key encoding back to canonical text. Only
// values whose canonical text has no number with trailing fractional zeros
// or a negative zero decode to themselves (keyLossless); the caller checks
// that the decoded text encodes to the same key.
type jsonbKeyDecoder struct {
	k   []byte
	out []byte
}

// decodeJSONBKey decodes the jsonb key at the start of key (after
// keyValue) to canonical text, returning the rest of key.
func decodeJSONBKey(key []byte) (string, []byte, error) {
	d := jsonbKeyDecoder{k: key}
	if len(d.k) >= 6 && d.k[0] == jkArray && d.k[5] == 0 { // a raw scalar
		if binary.BigEndian.Uint32(d.k[1:]) != 1 {
			return "", nil, errCorrupt
		}
		d.k = d.k[6:]
		if len(d.k) > 0 && (d.k[0] == jkArray || d.k[0] == jkObject) {
			return "", nil, errCorrupt
		}
	}
	if err := d.value(0); err != nil {
		return "", nil, err
	}
	return string(d.out), d.k, nil
}

func (d *jsonbKeyDecoder) value(depth int) error {
	if len(d.k) == 0 || depth > maxJSONDepth {
		return errCorrupt
	}
	tag := d.k[0]
	d.k = d.k[1:]
	switch tag {
	case jkNull:
		d.out = append(d.out, "null"...)
	case jkBool:
		if len(d.k) == 0 || d.k[0] > 1 {
			return errCorrupt
		}
		d.out = append(d.out, [2]string{"false", "true"}[d.k[0]]...)
		d.k = d.k[1:]
	case jkString:
		s, rest, err := decodeJSONBKeyString(d.k)
		if err != nil {
			return err
		}
		d.out, d.k = AppendJSONString(d.out, s), rest
	case jkNumber:
		return d.number()
	case jkArray, jkObject:
		return d.container(tag, depth)
	default:
		return errCorrupt
	}
	return nil
}

func (d *jsonbKeyDecoder) container(tag byte, depth int) error {
	if len(d.k) < 4 || tag == jkArray && (len(d.k) < 5 || d.k[4] != 1) {
		return errCorrupt
	}
	n := binary.BigEndian.Uint32(d.k)
	d.k = d.k[4:]
	open, close := byte('{'), byte('}')
	if tag == jkArray {
		d.k = d.k[1:]
		open, close = '[', ']'
	}
	d.out = append(d.out, open)
	for i := uint32(0); i < n; i++ {
		if len(d.k) == 0 {
			return errCorrupt // also bounds the loop by the key's length
		}
		if i > 0 {
			d.out = append(d.out, ", "...)
		}
		if tag == jkObject {
			s, rest, err := decodeJSONBKeyString(d.k)
			if err != nil {
				return err
			}
			d.out, d.k = append(AppendJSONString(d.out, s), ": "...), rest
		}
		if err := d.value(depth + 1); err != nil {
			return err
		}
	}
	d.out = append(d.out, close)
	return nil
}

// number decodes appendDecimal's form of a finite number to the plain
// text with the fewest digits.
func (d *jsonbKeyDecoder) number() error {
	if len(d.k) == 0 {
		return errCorrupt
	}
	class := d.k[0]
	d.k = d.k[1:]
	switch class {
	case 0x03:
		d.out = append(d.out, '0')
		return nil
	case 0x01, 0x04:
	default:
		return errCorrupt
	}
	neg := class == 0x01
	if len(d.k) < 8 {
		return errCorrupt
	}
	adj := int64(binary.BigEndian.Uint64(d.k) ^ (1 << 63))
	if neg {
		adj = ^adj
	}
	d.k = d.k[8:]
	term := byte(0x00)
	if neg {
		term = 0xFF
	}
	end := bytes.IndexByte(d.k, term)
	if end <= 0 || adj > 100000 || int64(end)-adj > 16383 { // what ParseJSONB reads
		return errCorrupt
	}
	digits := make([]byte, end)
	for i := range end {
		c := d.k[i]
		if neg {
			c = ^c
		}
		if c < '0' || c > '9' || i == 0 && c == '0' || i == end-1 && c == '0' {
			return errCorrupt
		}
		digits[i] = c
	}
	d.k = d.k[end+1:]
	if neg {
		d.out = append(d.out, '-')
	}
	switch {
	case adj <= 0:
		d.out = append(d.out, "0."...)
		d.out = append(d.out, strings.Repeat("0", int(-adj))...)
		d.out = append(d.out, digits...)
	case adj >= int64(len(digits)):
		d.out = append(d.out, digits...)
		d.out = append(d.out, strings.Repeat("0", int(adj)-len(digits))...)
	default:
		d.out = append(d.out, digits[:adj]...)
		d.out = append(d.out, '.')
		d.out = append(d.out, digits[adj:]...)
	}
	return nil
}

// decodeJSONBKeyString decodes a string of a jsonb key: UTF-8 without
// NUL, as every jsonb string is.
func decodeJSONBKeyString(key []byte) (string, []byte, error) {
	s, rest, err := decodeKeyBytes(key)
	if err == nil && (!utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0) {
		err = errCorrupt
	}
	return s, rest, err
}
