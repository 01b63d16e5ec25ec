package repr

import (
	"bufio"
	"bytes"
	"cmp"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestJSONBOrderPostgres checks Compare and the key encoding of jsonb
// against PostgreSQL 15's jsonb order: testdata/jsonb_order_pg15.tsv holds
// values with their dense_rank under PostgreSQL's ORDER BY, and every pair
// must compare (and its keys must compare) as the ranks do; keys decode to
// the value printed with the fewest digits.
func TestJSONBOrderPostgres(t *testing.T) {
	f, err := os.Open("testdata/jsonb_order_pg15.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type ranked struct {
		rank int
		d    Datum
	}
	var vals []ranked
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, text, _ := strings.Cut(line, "\t")
		rank, err := strconv.Atoi(r)
		if err != nil {
			t.Fatal(line)
		}
		d, err := ParseJSONB(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if d.s != text {
			t.Errorf("canonical text of %s is %s, PostgreSQL prints %s", text, d.s, text)
		}
		vals = append(vals, ranked{rank, d})
	}
	if len(vals) < 50 {
		t.Fatalf("only %d values", len(vals))
	}
	for _, a := range vals {
		ka := AppendKey(nil, a.d)
		for _, b := range vals {
			want := cmp.Compare(a.rank, b.rank)
			if got := Compare(a.d, b.d); got != want {
				t.Errorf("Compare(%s, %s) = %d, PostgreSQL: %d", a.d.s, b.d.s, got, want)
			}
			if got := bytes.Compare(ka, AppendKey(nil, b.d)); got != want {
				t.Errorf("keys of %s, %s compare %d, PostgreSQL: %d", a.d.s, b.d.s, got, want)
			}
		}
		hints, ok := AppendKeyHints(nil, Row{a.d})
		if ok != (jsonbEqForm(a.d.s) == a.d.s) {
			t.Errorf("%s: lossless %v", a.d.s, ok)
		}
		if ok != (len(hints) == 1) {
			t.Errorf("%s: hints %x", a.d.s, hints)
		}
		// a key decodes to the value's text with the fewest digits
		r, err := DecodeRowKey(ka, []byte{byte(FamJSONB)})
		if err != nil || len(r) != 1 || r[0].s != jsonbEqForm(a.d.s) {
			t.Errorf("%s decodes from its key to %v, %v", a.d.s, r, err)
		}
		if rest, err := SkipKeyDatum(append(ka, 0xAB), FamJSONB); err != nil || !bytes.Equal(rest, []byte{0xAB}) {
			t.Errorf("%s: SkipKeyDatum: %x, %v", a.d.s, rest, err)
		}
	}
}

// FuzzJSONBKeyDecode checks that decoding arbitrary jsonb keys never
// panics, and that whatever decodes is valid canonical jsonb that encodes
// back to the same key.
func FuzzJSONBKeyDecode(f *testing.F) {
	for _, s := range []string{`[]`, `1`, `{"a": [1, "x", null, true]}`, `-0.5`} {
		d, _ := ParseJSONB(s)
		f.Add(AppendKey(nil, d))
	}
	f.Fuzz(func(t *testing.T, key []byte) {
		r, err := DecodeRowKey(key, []byte{byte(FamJSONB)})
		if err != nil || r[0].IsNull() {
			return
		}
		d, err := ParseJSONB(r[0].s)
		if err != nil || d.s != r[0].s || !bytes.Equal(AppendKey(nil, d), key) {
			t.Fatalf("%x decodes to %q (%v)", key, r[0].s, err)
		}
	})
}
