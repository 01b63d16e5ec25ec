package repr

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

var seedFlag = flag.Int64("seed", 0, "seed for randomized tests (0: time-based)")

// testRand returns a seeded generator and logs the seed for reproduction.
func testRand(t *testing.T) *rand.Rand {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	return rand.New(rand.NewSource(seed))
}

var testZones = []string{"UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/Berlin"}

// randomDatum returns a random non-NULL datum and a type it belongs to,
// favoring edge values.
func randomDatum(r *rand.Rand) (Datum, T) {
	switch r.Intn(13) {
	case 0:
		return NewBool(r.Intn(2) == 0), Bool
	case 1:
		w := []int32{16, 32, 64}[r.Intn(3)]
		v := r.Int63() >> uint(r.Intn(63))
		if r.Intn(2) == 0 {
			v = -v - 1
		}
		return NewInt(v >> (64 - w)), Int(w)
	case 2:
		return randomFloat(r)
	case 3:
		return NewNumeric(randomDecimal(r)), Numeric
	case 4:
		return NewText(randomString(r)), Text
	case 5:
		b := make([]byte, r.Intn(8))
		r.Read(b)
		return NewBytea(b), Bytea
	case 6:
		return NewDate(int32(minDate + r.Int63n(maxDate-minDate+1))), Date
	case 7:
		return NewTime(r.Int63n(usPerDay + 1)), TimeT
	case 8:
		return NewTimestamp(randomTimestamp(r)), Timestamp
	case 9:
		return NewTimestampTZ(randomTimestamp(r)), TimestampTZ
	case 10:
		return NewInterval(Interval{Months: r.Int31() - r.Int31(), Days: r.Int31() - r.Int31(), Micros: r.Int63() - r.Int63()}), IntervalT
	case 11:
		samples := []string{`{"a": 1}`, `[1, "x", null, true]`, `"é\n"`, `-1.50`, `{}`, `{"a": {"c": false}, "bb": []}`}
		return NewJSONB(samples[r.Intn(len(samples))]), JSONB
	}
	return NewDate([]int32{DateNegInf, DatePosInf, 0, -1}[r.Intn(4)]), Date
}

func randomFloat(r *rand.Rand) (Datum, T) {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1e15, 1e16, 1e-5, 0.1}
	var f float64
	if r.Intn(4) == 0 {
		f = specials[r.Intn(len(specials))]
	} else {
		f = math.Float64frombits(r.Uint64())
		if math.IsNaN(f) {
			f = math.NaN()
		}
	}
	if r.Intn(2) == 0 {
		return NewFloat(float64(float32(f))), Float4
	}
	return NewFloat(f), Float8
}

// randomDecimal returns a normalized numeric (exponent <= 0, no -0).
func randomDecimal(r *rand.Rand) *apd.Decimal {
	switch r.Intn(10) {
	case 0:
		return &apd.Decimal{Form: apd.NaN}
	case 1:
		return &apd.Decimal{Form: apd.Infinite, Negative: r.Intn(2) == 0}
	}
	var digits strings.Builder
	for n := 1 + r.Intn(40); n > 0; n-- {
		digits.WriteByte(byte('0' + r.Intn(10)))
	}
	d := &apd.Decimal{Exponent: -int32(r.Intn(30)), Negative: r.Intn(2) == 0}
	d.Coeff.SetString(digits.String(), 10)
	return normalizeNumeric(d)
}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for n := r.Intn(10); n > 0; n-- {
		c := rune(1 + r.Intn(0x2FF))
		if r.Intn(4) == 0 {
			c = []rune{' ', '\'', '\\', '"', 'é', '😀'}[r.Intn(6)]
		}
		b.WriteRune(c)
	}
	return b.String()
}

func randomTimestamp(r *rand.Rand) int64 {
	switch r.Intn(8) {
	case 0:
		return []int64{TimestampNegInf, TimestampPosInf, minTimestamp, maxTimestamp, 0}[r.Intn(5)]
	case 1:
		return r.Int63n(4e17) - 2e17 // around the Unix era, where zones have rules
	}
	if r.Intn(2) == 0 {
		return r.Int63n(maxTimestamp)
	}
	return -r.Int63n(-minTimestamp)
}

// TestTextRoundTrip: ParseText(FormatText(d)) is identical to d.
func TestTextRoundTrip(t *testing.T) {
	r := testRand(t)
	for i := 0; i < 20000; i++ {
		d, typ := randomDatum(r)
		loc, _ := time.LoadLocation(testZones[r.Intn(len(testZones))])
		s := FormatText(d, typ, loc)
		back, err := ParseText(s, typ, loc)
		if err != nil || !identical(back, d) {
			t.Fatalf("%s %s: text %q parsed back as %s, %v", typ, d, s, back, err)
		}
	}
}

// TestBinaryRoundTrip: ParseBinary(AppendBinary(d)) is identical to d.
func TestBinaryRoundTrip(t *testing.T) {
	r := testRand(t)
	for i := 0; i < 20000; i++ {
		d, typ := randomDatum(r)
		b, err := AppendBinary(nil, d, typ)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseBinary(b, typ)
		if err != nil || !identical(back, d) {
			t.Fatalf("%s %s: binary %x parsed back as %s, %v", typ, d, b, back, err)
		}
	}
}

// TestRowCodecRoundTrip: DecodeRow(AppendRow(r)) is identical to r.
func TestRowCodecRoundTrip(t *testing.T) {
	r := testRand(t)
	for i := 0; i < 5000; i++ {
		row := make(Row, r.Intn(6))
		for j := range row {
			if r.Intn(5) > 0 {
				row[j], _ = randomDatum(r)
			}
		}
		back, err := DecodeRow(AppendRow(nil, row))
		if err != nil || len(back) != len(row) {
			t.Fatalf("%v: %v %v", row, back, err)
		}
		for j := range row {
			if !identical(back[j], row[j]) {
				t.Fatalf("column %d: got %s want %s", j, back[j], row[j])
			}
		}
	}
}

// TestDatumsCodecRoundTrip: DecodeDatums of AppendDatums(r) and
// DecodeRowInto of AppendRow(r), into a row of r's width, are identical to
// r, through a DecimalSlab; AppendRow is the header followed by the
// datums; a wrong width or a truncated encoding is an error.
func TestDatumsCodecRoundTrip(t *testing.T) {
	r := testRand(t)
	var decs DecimalSlab
	for i := 0; i < 5000; i++ {
		row := make(Row, 1+r.Intn(6))
		for j := range row {
			if r.Intn(5) > 0 {
				row[j], _ = randomDatum(r)
			}
		}
		enc := AppendDatums(nil, row)
		if whole := AppendDatums(AppendRowHeader(nil, len(row)), row); string(whole) != string(AppendRow(nil, row)) {
			t.Fatalf("%v: header+datums %x, AppendRow %x", row, whole, AppendRow(nil, row))
		}
		back := make(Row, len(row))
		if err := DecodeDatums(back, string(enc), &decs); err != nil {
			t.Fatalf("%v: %v", row, err)
		}
		for j := range row {
			if !identical(back[j], row[j]) {
				t.Fatalf("column %d: got %s want %s", j, back[j], row[j])
			}
		}
		whole := make(Row, len(row))
		if err := DecodeRowInto(whole, AppendRow(nil, row), &decs); err != nil {
			t.Fatalf("%v: DecodeRowInto: %v", row, err)
		}
		for j := range row {
			if !identical(whole[j], row[j]) {
				t.Fatalf("DecodeRowInto column %d: got %s want %s", j, whole[j], row[j])
			}
		}
		if err := DecodeRowInto(whole[:len(row)-1], AppendRow(nil, row), &decs); err == nil {
			t.Fatalf("%v: DecodeRowInto into a row one column short succeeded", row)
		}
		if err := DecodeDatums(back[:len(row)-1], string(enc), &decs); err == nil {
			t.Fatalf("%v: decoding one datum fewer succeeded", row)
		}
		if err := DecodeDatums(back, string(enc[:len(enc)-1]), &decs); err == nil {
			t.Fatalf("%v: decoding a truncated encoding succeeded", row)
		}
	}
}

// TestDecodeRowCols: DecodeRowCols of AppendRow(r) with a random column
// selection gives r's selected datums and NULL elsewhere; a wrong width
// or a truncated encoding is an error.
func TestDecodeRowCols(t *testing.T) {
	r := testRand(t)
	var decs DecimalSlab
	for i := 0; i < 5000; i++ {
		row := make(Row, 1+r.Intn(8))
		need := make([]bool, len(row))
		for j := range row {
			if r.Intn(5) > 0 {
				row[j], _ = randomDatum(r)
			}
			need[j] = r.Intn(2) == 0
		}
		enc := AppendRow(nil, row)
		got := make(Row, len(row))
		if err := DecodeRowCols(got, enc, need, &decs); err != nil {
			t.Fatalf("%v need %v: %v", row, need, err)
		}
		for j := range row {
			want := row[j]
			if !need[j] {
				want = Null
			}
			if !identical(got[j], want) {
				t.Fatalf("%v need %v: column %d: got %s want %s", row, need, j, got[j], want)
			}
		}
		if err := DecodeRowCols(got[:len(row)-1], enc, need, &decs); err == nil {
			t.Fatalf("%v: decoding into a row one column short succeeded", row)
		}
		if err := DecodeRowCols(got, enc[:len(enc)-1], need, &decs); err == nil {
			t.Fatalf("%v need %v: decoding a truncated encoding succeeded", row, need)
		}
	}
}

// TestLiteralRoundTrip: ParseLiteral(d.String()) is identical to d.
func TestLiteralRoundTrip(t *testing.T) {
	r := testRand(t)
	for i := 0; i < 20000; i++ {
		d, _ := randomDatum(r)
		back, _, err := ParseLiteral(d.String())
		if d.fam == FamFloat && err == nil && back.fam == FamFloat && math.Float64bits(back.Float()) != math.Float64bits(d.Float()) && d.Float() == 0 {
			continue // -0::float8 is the negation of 0, as in SQL
		}
		if err != nil || !identical(back, d) {
			t.Fatalf("%s parsed back as %s, %v", d, back, err)
		}
	}
}

// TestKeyOrder: key encoding order agrees with Compare on random pairs of
// the same family, including NULL, NaN, -0 and numerics of different scales.
func TestKeyOrder(t *testing.T) {
	r := testRand(t)
	pick := func(fam Family) Datum {
		for {
			if r.Intn(20) == 0 {
				return Null
			}
			d, _ := randomDatum(r)
			if d.fam == fam {
				return rescale(r, d)
			}
		}
	}
	for i := 0; i < 20000; i++ {
		a, _ := randomDatum(r)
		a = rescale(r, a)
		b := pick(a.fam)
		if r.Intn(10) == 0 {
			b = a
		}
		ka, kb := AppendKey(nil, a), AppendKey(nil, b)
		if got, want := bytes.Compare(ka, kb), Compare(a, b); got != want {
			t.Fatalf("Compare(%s, %s) = %d but keys compare %d", a, b, want, got)
		}
	}
}

// rescale gives a finite numeric extra trailing zeros (same value, other
// scale) half the time.
func rescale(r *rand.Rand, d Datum) Datum {
	if d.fam != FamNumeric || d.dec.Form != apd.Finite || r.Intn(2) == 0 {
		return d
	}
	var x apd.Decimal
	_, _ = numericCtx.Quantize(&x, d.dec, d.dec.Exponent-int32(r.Intn(5)))
	return NewNumeric(&x)
}

func TestIntArith(t *testing.T) {
	type op func(a, b int64, w int32) (int64, error)
	for _, c := range []struct {
		name string
		f    op
		a, b int64
		w    int32
		want int64
		code string
	}{
		{"add", AddInt, 2147483647, 1, 32, 0, "22003"},
		{"add", AddInt, 2147483647, 1, 64, 2147483648, ""},
		{"add", AddInt, math.MaxInt64, 1, 64, 0, "22003"},
		{"sub", SubInt, math.MinInt64, 1, 64, 0, "22003"},
		{"sub", SubInt, -32768, 1, 16, 0, "22003"},
		{"mul", MulInt, math.MinInt64, -1, 64, 0, "22003"},
		{"mul", MulInt, 46341, 46341, 32, 0, "22003"},
		{"mul", MulInt, -3, 4, 16, -12, ""},
		{"div", DivInt, 7, -2, 32, -3, ""},
		{"div", DivInt, 7, 0, 32, 0, "22012"},
		{"div", DivInt, -32768, -1, 16, 0, "22003"},
		{"div", DivInt, math.MinInt64, -1, 64, 0, "22003"},
		{"mod", ModInt, -7, 3, 32, -1, ""},
		{"mod", ModInt, math.MinInt64, -1, 64, 0, ""},
		{"mod", ModInt, 1, 0, 64, 0, "22012"},
	} {
		got, err := c.f(c.a, c.b, c.w)
		code := ""
		if err != nil {
			code = errString(err)[6:11]
		}
		if got != c.want || code != c.code {
			t.Errorf("%s(%d, %d, %d) = %d, %v; want %d, %s", c.name, c.a, c.b, c.w, got, err, c.want, c.code)
		}
	}
}

func TestTimestampConversion(t *testing.T) {
	r := testRand(t)
	for i := 0; i < 1000; i++ {
		us := r.Int63n(1e18) - 5e17
		if got := TimeToTimestamp(TimestampToTime(us)); got != us {
			t.Fatalf("%d round-tripped to %d", us, got)
		}
	}
	if got := TimestampToTime(0); !got.Equal(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("epoch is %v", got)
	}
}

// TestStringsAreValidUTF8 guards the random generator itself.
func TestStringsAreValidUTF8(t *testing.T) {
	r := testRand(t)
	for i := 0; i < 100; i++ {
		if s := randomString(r); !utf8.ValidString(s) {
			t.Fatalf("invalid %q", s)
		}
	}
}

// TestMagnitude64 checks the allocation-free encoding of a 64-bit
// coefficient against the general one (big.Int.Bytes with its length).
func TestMagnitude64(t *testing.T) {
	r := testRand(t)
	us := []uint64{0, 1, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint64}
	for i := 0; i < 1000; i++ {
		us = append(us, r.Uint64()>>r.Intn(64))
	}
	for _, u := range us {
		mag := new(big.Int).SetUint64(u).Bytes()
		want := append(binary.AppendUvarint(nil, uint64(len(mag))), mag...)
		if got := appendMagnitude64(nil, u); !bytes.Equal(got, want) {
			t.Fatalf("%d: got %x want %x", u, got, want)
		}
	}
}

// TestRowKeyRoundTrip: a row of key-lossless datums decodes from its key
// and hints to an identical row; a row with another datum is refused
// by AppendKeyHints.
func TestRowKeyRoundTrip(t *testing.T) {
	r := testRand(t)
	decoded := 0
	for i := 0; i < 5000; i++ {
		row := make(Row, r.Intn(6))
		for j := range row {
			if r.Intn(5) > 0 {
				row[j], _ = randomDatum(r)
			}
		}
		fams, ok := AppendKeyHints(nil, row)
		lossless := true
		for _, d := range row {
			lossless = lossless && keyLossless(d)
		}
		if ok != lossless || !ok && len(fams) != 0 {
			t.Fatalf("%v: AppendKeyHints = %v, %v", row, fams, ok)
		}
		if !ok {
			continue
		}
		decoded++
		back, err := DecodeRowKey(AppendRowKey(nil, row), fams)
		if err != nil || len(back) != len(row) {
			t.Fatalf("%v: %v %v", row, back, err)
		}
		for j := range row {
			if !identical(back[j], row[j]) {
				t.Fatalf("column %d: got %s want %s", j, back[j], row[j])
			}
		}
	}
	if decoded < 500 {
		t.Fatalf("only %d decodable rows generated", decoded)
	}
}

// TestRowKeyLongNumerics: a numeric of any length either decodes from its
// key and hints or is refused by AppendKeyHints (then stored in the value
// encoding); it never passes AppendKeyHints and then fails to decode. A
// 2000-digit result (4e-500 - 1e-16383 rounded) once did, and a 2000-digit
// numeric must decode (data directories hold such keys).
func TestRowKeyLongNumerics(t *testing.T) {
	for _, n := range []int{1, 999, 1000, 1001, 2000, 5000, 20000} {
		for _, text := range []string{
			"4" + strings.Repeat("0", n-1),                     // trailing zeros
			"4" + strings.Repeat("0", max(n-2, 0)) + "1",       // all significant
			"0." + strings.Repeat("0", n) + "4",                // tiny
			"-" + strings.Repeat("9", n) + "." + "5" + "00000", // negative, scale
		} {
			d, err := ParseText(text, Numeric, nil)
			if err != nil {
				t.Fatalf("%.20s... (%d bytes): %.60v", text, len(text), err)
			}
			row := Row{d}
			hints, ok := AppendKeyHints(nil, row)
			if !ok {
				t.Fatalf("%d digits, %.20s...: refused by AppendKeyHints", n, text)
			}
			back, err := DecodeRowKey(AppendRowKey(nil, row), hints)
			if err != nil || !identical(back[0], d) {
				t.Fatalf("%d digits, %.20s...: key hints accepted but decode gives %v", n, text, err)
			}
		}
	}
}
