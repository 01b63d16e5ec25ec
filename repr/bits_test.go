package repr

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomBits returns a random bit string of 0..20 bits as text, biased
// towards zeros so that prefixes and padding collide often.
func randomBits(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(21); n > 0; n-- {
		if r.IntN(3) == 0 {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// TestBitsOrderAndKeys checks, over random pairs, that Compare is
// lexicographic order on the bits (a prefix first, as PostgreSQL's
// bit_cmp), that key order agrees with it, that equal values have equal
// keys, and that keys and the row codec decode back to the value.
func TestBitsOrderAndKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1560))
	for range 20000 {
		sa, sb := randomBits(r), randomBits(r)
		a, err := ParseText(sa, VarBit, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := ParseText(sb, VarBit, nil)
		want := strings.Compare(sa, sb)
		if got := Compare(a, b); got != want {
			t.Fatalf("Compare(%s, %s) = %d, want %d", sa, sb, got, want)
		}
		ka, kb := AppendKey(nil, a), AppendKey(nil, b)
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("key order of %s, %s = %d, want %d", sa, sb, got, want)
		}
		hints, ok := AppendKeyHints(nil, Row{a, b})
		if !ok {
			t.Fatal("bit strings must decode from their keys")
		}
		back, err := DecodeRowKey(append(ka, kb...), hints)
		if err != nil || !identical(back[0], a) || !identical(back[1], b) {
			t.Fatalf("key of %s, %s decoded to %v, %v", sa, sb, back, err)
		}
		row, err := DecodeRow(AppendRow(nil, Row{a}))
		if err != nil || !identical(row[0], a) {
			t.Fatalf("row codec of %s gave %v, %v", sa, row, err)
		}
	}
}

// FuzzParseBitsBinary: bit_recv never panics; what it accepts has a
// length within the type's, sends back as the input with unused trailing
// bits cleared, and keeps the invariants of the datum.
func FuzzParseBitsBinary(f *testing.F) {
	types := []T{Bit, VarBit, BitN(4), VarBitN(9)}
	for i, s := range []string{"1010", "", "101010101", "xDEADBEEF"} {
		d, _ := ParseText(s, VarBit, nil)
		b, _ := AppendBinary(nil, d, VarBit)
		f.Add(b, uint8(i))
	}
	f.Add([]byte{0, 0, 0, 3, 0xff}, uint8(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, ti uint8) {
		typ := types[int(ti)%len(types)]
		d, err := ParseBinary(b, typ)
		if err != nil {
			return
		}
		if !validBits(d.s) {
			t.Fatalf("invalid payload %x", d.s)
		}
		if n := int(typ.Length); n > 0 && (d.BitLen() != n && !typ.Varying || d.BitLen() > n) {
			t.Fatalf("%s accepted %d bits", typ, d.BitLen())
		}
		out, _ := AppendBinary(nil, d, typ)
		if len(out) != len(b) || !bytes.Equal(out[:len(out)-1], b[:len(b)-1]) {
			t.Fatalf("sent %x back as %x", b, out)
		}
		text := FormatText(d, typ, nil)
		if back, err := ParseText(text, typ, nil); err != nil || !identical(back, d) {
			t.Fatalf("text %q did not parse back: %v", text, err)
		}
	})
}

// benchBits is a 64-bit flag set and a bytea of the same 8 bytes, for
// comparison.
var benchBits, benchBytea = func() (Datum, Datum) {
	d, _ := ParseText("x0123456789ABCDEF", VarBit, nil)
	return d, NewBytea([]byte(d.BitBytes()))
}()

// BenchmarkBitsAppendKey measures the key encoding of a 64-bit string
// (GROUP BY, DISTINCT and join keys), against a bytea of the same bytes.
func BenchmarkBitsAppendKey(b *testing.B) {
	for _, d := range []Datum{benchBits, benchBytea} {
		b.Run(literalTypeName[d.fam], func(b *testing.B) {
			buf := make([]byte, 0, 64)
			for b.Loop() {
				buf = AppendKey(buf[:0], d)
			}
		})
	}
}

// BenchmarkBitsCompare measures Compare of two 64-bit strings that
// differ in the last bit, against bytea.
func BenchmarkBitsCompare(b *testing.B) {
	other, _ := ParseText("x0123456789ABCDEE", VarBit, nil)
	for _, p := range [][2]Datum{{benchBits, other}, {benchBytea, NewBytea([]byte(other.BitBytes()))}} {
		b.Run(literalTypeName[p[0].fam], func(b *testing.B) {
			for b.Loop() {
				_ = Compare(p[0], p[1])
			}
		})
	}
}

// BenchmarkBitsBinary measures bit_recv and bit_send of a 64-bit string.
func BenchmarkBitsBinary(b *testing.B) {
	wire, _ := AppendBinary(nil, benchBits, VarBit)
	buf := make([]byte, 0, 16)
	for b.Loop() {
		d, err := ParseBinary(wire, VarBit)
		if err != nil {
			b.Fatal(err)
		}
		buf, _ = AppendBinary(buf[:0], d, VarBit)
	}
}
