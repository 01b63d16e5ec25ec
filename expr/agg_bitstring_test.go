package expr

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// refBitsAgg computes bit_and, bit_or and bit_xor of the live multiset
// from scratch, as PostgreSQL folds the values: the error of mixed
// lengths, NULL when empty.
func refBitsAgg(live map[string]int64) [3]string {
	var vals []string
	for v, n := range live {
		for range n {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return [3]string{"NULL", "NULL", "NULL"}
	}
	for _, v := range vals {
		if len(v) != len(vals[0]) {
			return [3]string{"ERROR 22026", "ERROR 22026", "ERROR 22026"}
		}
	}
	if len(vals[0]) > maxAggBits {
		return [3]string{"ERROR 0A000", "ERROR 0A000", "ERROR 0A000"}
	}
	out := [3][]byte{[]byte(vals[0]), []byte(vals[0]), []byte(vals[0])}
	for _, v := range vals[1:] {
		for i := range v {
			a, b := out[0][i] == '1', v[i] == '1'
			out[0][i] = "01"[b2i(a && b)]
			out[1][i] = "01"[b2i(out[1][i] == '1' || b)]
			out[2][i] = "01"[b2i((out[2][i] == '1') != b)]
		}
	}
	return [3]string{string(out[0]), string(out[1]), string(out[2])}
}

// accBitsResults is what the accumulator gives, through Final.
func accBitsResults(ac *Acc) [3]string {
	var out [3]string
	for i, k := range []AggKind{AggBitAnd, AggBitOr, AggBitXor} {
		c := &AggCall{Kind: k, Arg: repr.VarBit, T: repr.Bit, Class: AccBitString}
		d, err := k.Def().Final(c, ac, nil)
		switch {
		case err != nil:
			out[i] = "ERROR " + repr.ErrorFrom(err).Code
		case d.IsNull():
			out[i] = "NULL"
		default:
			out[i] = repr.FormatText(d, repr.Bit, nil)
		}
	}
	return out
}

// TestBitStringAggRetractions adds and retracts random bit strings
// (mostly of one length, some of another, some longer than 64 bits) and
// checks after every change that bit_and/bit_or/bit_xor equal their
// recomputation, also after a Pack/Unpack, a persist round trip and a
// merge of two partial states.
func TestBitStringAggRetractions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1562))
	var ac, even, odd Acc
	live := map[string]int64{}
	var keys []string // live's keys, for a deterministic choice
	valued := 0
	base := 5
	for step := range 4000 {
		if step%250 == 0 {
			base = []int{1, 5, 8, 64, 65}[r.IntN(5)] // 65 bits: past the counts
		}
		v, diff := "", int64(1)
		if len(keys) > 0 && (len(keys) > 6 || r.IntN(2) == 0) {
			v, diff = keys[r.IntN(len(keys))], -1
		} else {
			n := base
			if r.IntN(10) == 0 {
				n = base + 1
			}
			var b strings.Builder
			for range n {
				b.WriteByte("01"[r.IntN(2)])
			}
			v = b.String()
		}
		if live[v] == 0 {
			keys = append(keys, v)
		}
		live[v] += diff
		if live[v] == 0 {
			delete(live, v)
			keys = slices.DeleteFunc(keys, func(k string) bool { return k == v })
		}
		d, err := repr.ParseText(v, repr.VarBit, nil)
		if err != nil {
			t.Fatal(err)
		}
		ac.Add(AccBitString, d, diff)
		if step%2 == 0 {
			even.Add(AccBitString, d, diff)
		} else {
			odd.Add(AccBitString, d, diff)
		}
		want := refBitsAgg(live)
		if got := accBitsResults(&ac); got != want {
			t.Fatalf("step %d: got %v, want %v", step, got, want)
		}
		if !strings.HasPrefix(want[0], "ERROR") && want[0] != "NULL" {
			valued++
		}
		w := make([]int64, AccBitString.Words())
		AccBitString.Pack(&ac, w, make([]*apd.Decimal, AccBitString.Decs()))
		unpacked := AccBitString.Unpack(w, nil)
		persisted := AccBitString.Decode(AccBitString.Append(nil, &ac))
		for name, a := range map[string]*Acc{"unpacked": &unpacked, "persisted": &persisted} {
			if got := accBitsResults(a); got != want {
				t.Fatalf("step %d %s: got %v, want %v", step, name, got, want)
			}
		}
	}
	if valued < 200 {
		t.Fatalf("only %d steps had a bit string result: the test is too weak", valued)
	}
	// Merging the odd steps' partial state into the even steps' gives
	// the whole input's.
	merged := even
	merged.Own()
	merged.Merge(AccBitString, &odd)
	if got, want := accBitsResults(&merged), accBitsResults(&ac); got != want {
		t.Fatalf("merge: got %v, want %v", got, want)
	}
}
