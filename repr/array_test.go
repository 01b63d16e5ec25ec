package repr

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// arrayTypes are the array types the array fuzz targets pick from.
var arrayTypes = []T{ArrayOf(Int4), ArrayOf(Int8), ArrayOf(Text), ArrayOf(Numeric), ArrayOf(Float8),
	ArrayOf(Bool), ArrayOf(TimestampTZ), ArrayOf(JSONB), ArrayOf(UUID), ArrayOf(Bytea), ArrayOf(Varchar(3))}

// FuzzParseArrayText: array input never panics, and what it accepts
// formats to text that parses back to the same array.
func FuzzParseArrayText(f *testing.F) {
	for _, s := range []string{"{1,2,NULL}", "{}", `{"a b","",NULL,\NULL,"x\"y"}`, "[1:2]={1,2}",
		"{{1},{2}}", "{{{1,2}},{{3,NULL}}}", "[1:2][1:1]={{1},{2}}", "{{1},{}}", `{"{\"a\": 1}"}`, "{1.5,NaN}", `{"\\x01"}`, "{ a , b }", `{a"b"}`, "{1,,2}"} {
		for i := range arrayTypes {
			f.Add(s, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, s string, ti uint8) {
		typ := arrayTypes[int(ti)%len(arrayTypes)]
		d, err := ParseText(s, typ, nil)
		if err != nil {
			return
		}
		out := FormatText(d, typ, nil)
		back, err := ParseText(out, typ, nil)
		if err != nil || !identical(back, d) {
			t.Fatalf("%s %q -> %q -> %v", typ, s, out, err)
		}
	})
}

// FuzzParseArrayBinary: binary array input never panics, and what it
// accepts re-encodes to bytes that decode to the same array.
func FuzzParseArrayBinary(f *testing.F) {
	for i, typ := range arrayTypes {
		for _, s := range []string{"{}", "{NULL}", "{1,NULL,3}", "{a,b}", "{t}", "{{1,2},{3,NULL}}", "{{{t}},{{f}}}"} {
			if d, err := ParseText(s, typ, nil); err == nil {
				b, _ := AppendBinary(nil, d, typ)
				f.Add(b, uint8(i))
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, ti uint8) {
		typ := arrayTypes[int(ti)%len(arrayTypes)]
		d, err := ParseBinary(b, typ)
		if err != nil {
			return
		}
		enc, err := AppendBinary(nil, d, typ)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseBinary(enc, typ)
		if err != nil || !identical(back, d) {
			t.Fatalf("%s %x -> %x -> %v", typ, b, enc, err)
		}
	})
}

// TestArrayOrder checks that Compare orders arrays as PostgreSQL does
// (element-wise, NULL elements last, then shorter first) and that the
// key encoding agrees with Compare, also inside a composite key.
func TestArrayOrder(t *testing.T) {
	arr := func(s string) Datum {
		d, err := ParseText(s, ArrayOf(Int4), nil)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// Equal elements: fewer elements, then fewer dimensions, then shorter
	// leading dimensions first.
	sorted := []Datum{arr("{}"), arr("{-5}"), arr("[-2147483648:-2147483648]={1}"), arr("[0:0]={1}"), arr("{1}"), arr("[2:2]={1}"), arr("{{1}}"), arr("{{{1}}}"), arr("{1,2}"),
		arr("{{1,2}}"), arr("[-1:0][0:0]={{1},{2}}"), arr("{{1},{2}}"), arr("[1:2][2:2]={{1},{2}}"), arr("{1,2,3}"), arr("{1,2,3,4}"), arr("{{1,2},{3,4}}"),
		arr("{{{1,2},{3,4}}}"), arr("{{{1,2}},{{3,4}}}"), arr("{1,3}"), arr("{1,NULL}"), arr("{2}"),
		arr("{NULL}"), arr("{{NULL}}"), arr("{NULL,1}"), Null}
	for i := range sorted {
		for j := range sorted {
			want := cmpInt(i, j)
			if got := Compare(sorted[i], sorted[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", sorted[i], sorted[j], got, want)
			}
			ki := AppendKey(AppendKey(nil, sorted[i]), NewInt(7))
			kj := AppendKey(AppendKey(nil, sorted[j]), NewInt(1))
			if got := bytes.Compare(ki, kj); want != 0 && got != want && !rankTie(sorted[i], sorted[j]) {
				t.Errorf("key order of %s, %s = %d, want %d", sorted[i], sorted[j], got, want)
			}
		}
	}
}

// rankTie reports whether a and b are arrays with the same elements and
// different ranks or lower bounds, whose key order may differ from
// Compare's (see array_dims.go and array_lower.go).
func rankTie(a, b Datum) bool {
	return a.fam == FamArray && b.fam == FamArray && CompareRows(a.Array(), b.Array()) == 0 &&
		(a.ArrayNDims() != b.ArrayNDims() || !slices.Equal(a.ArrayLBounds(), b.ArrayLBounds()))
}

// TestArrayKeyPrefixFree checks that no array's key is a prefix of
// another's: arrangements seek a key as a prefix of longer stored keys.
func TestArrayKeyPrefixFree(t *testing.T) {
	var keys [][]byte
	for _, s := range []string{"{}", "{1}", "{{1}}", "{{{1}}}", "{1,2}", "{{1,2}}", "{{1},{2}}", "{1,2,3,4}", "{{1,2},{3,4}}",
		"[0:0]={1}", "[0:1]={1,2}", "[0:0][1:2]={{1,2}}", "[1:1][0:1]={{1,2}}", "[-1:0][1:2]={{1,2},{3,4}}"} {
		d, err := ParseText(s, ArrayOf(Int4), nil)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, AppendKey(nil, d))
	}
	for i, a := range keys {
		for j, b := range keys {
			if i != j && bytes.HasPrefix(b, a) {
				t.Errorf("key %d (%x) is a prefix of key %d (%x)", i, a, j, b)
			}
		}
	}
}

// TestArrayKeyRandom compares key order with Compare on random text
// arrays, whose elements' keys have escapes and terminators of their own.
func TestArrayKeyRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randArr := func() Datum {
		elems := make([]Datum, rng.IntN(4))
		for i := range elems {
			if rng.IntN(5) > 0 {
				elems[i] = NewText(string([]byte{byte(rng.IntN(3)), byte(rng.IntN(3))}[:rng.IntN(3)]))
			}
		}
		if len(elems) == 2 && rng.IntN(2) == 0 {
			shapes := [][]int{{1, 2}, {2, 1}, {1, 1, 2}}
			return NewArrayDims(elems, shapes[rng.IntN(len(shapes))])
		}
		if len(elems) > 0 && rng.IntN(3) == 0 {
			return NewArrayBounds(elems, []int{len(elems)}, []int{rng.IntN(3) - 1})
		}
		return NewArray(elems)
	}
	for range 5000 {
		a, b := randArr(), randArr()
		if got, want := bytes.Compare(AppendKey(nil, a), AppendKey(nil, b)), Compare(a, b); got != want && !rankTie(a, b) {
			t.Fatalf("%s vs %s: key %d, Compare %d", a, b, got, want)
		}
		if Compare(a, b) == 0 && !bytes.Equal(AppendKey(nil, a), AppendKey(nil, b)) {
			t.Fatalf("equal arrays %s, %s encode differently", a, b)
		}
	}
}

// TestArrayRowCodec checks that arrays survive the row encoding, that
// they never decode from keys, and that corrupt payloads are refused.
func TestArrayRowCodec(t *testing.T) {
	d, err := ParseText(`{1.50,NULL,-2}`, ArrayOf(Numeric), nil)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := ParseText(`[0:1][-3:-3]={{1},{NULL}}`, ArrayOf(Int4), nil)
	if err != nil {
		t.Fatal(err)
	}
	row := Row{d, NewArray(nil), Null, lb}
	back, err := DecodeRow(AppendRow(nil, row))
	if err != nil || !slices.EqualFunc(back, row, identical) {
		t.Fatalf("round trip: %v %v", back, err)
	}
	if _, ok := AppendKeyHints(nil, row); ok {
		t.Error("arrays must not claim to decode from their keys")
	}
	nested := AppendRow(nil, Row{Datum{fam: FamArray, s: string(AppendRow(nil, Row{d}))}})
	if _, err := DecodeRow(nested); err == nil {
		t.Error("a nested array payload decoded")
	}
	ones := binary.AppendUvarint(nil, lowerMark+1)
	ones = append(ones, 1, 2) // length 1, lower bound 1 (zig-zag): the short form's value
	if validArray(string(AppendRow(ones, Row{NewInt(1)}))) {
		t.Error("a lower-bound payload with every bound 1 is valid")
	}
	if got := FormatText(back[0], ArrayOf(Numeric), nil); got != "{1.50,NULL,-2}" {
		t.Errorf("text: %s", got)
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
