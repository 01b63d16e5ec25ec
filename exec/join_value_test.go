package exec

import (
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// TestJoinValueForms logs rows of both sides of a keyed join and decodes
// them back from their state keys: a row whose columns decode from its
// key (ints, text, a numeric with trailing zeros, NULL) takes the keyed
// form, shorter than the full one; a row with a float takes the full
// form; a value logged from the row a Step created the entry from is the
// one logged from the entry decoded; and a full-form value (state logged
// before the keyed form) still decodes, so old state restores.
func TestJoinValueForms(t *testing.T) {
	left := []repr.T{repr.Int8, repr.Text, repr.Numeric}
	right := []repr.T{repr.Int8, repr.Float8}
	o, err := newJoin(dataflow.Join{Kind: dataflow.LeftJoin, LeftKey: []int{0}, RightKey: []int{0}}, left, right)
	if err != nil {
		t.Fatal(err)
	}
	o.keyed = true
	dec, err := repr.ParseNumeric("12.500")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		side  int
		row   repr.Row
		keyed bool
	}{
		{0, repr.Row{repr.NewInt(7), repr.NewText("bid extra"), repr.NewNumeric(dec)}, true},
		{0, repr.Row{repr.NewInt(-3), repr.Null, repr.Null}, true},
		{1, repr.Row{repr.NewInt(7), repr.NewFloat(0.5)}, false},
	}
	for _, c := range cases {
		r := &jrow{enc: string(repr.AppendDatums(nil, c.row)), n: 3, matches: -2}
		skey := repr.AppendColsKey(nil, c.row, o.sides[c.side].keyCols)
		skey = repr.AppendRowKeyExact(skey, c.row)
		v := append([]byte(nil), o.logValue(c.side, r, nil)...)
		if given := o.logValue(c.side, r, c.row); string(given) != string(v) {
			t.Fatalf("%v: logged from the input row %x, decoded %x", c.row, given, v)
		}
		if got := v[0] == keyedJoinValue; got != c.keyed {
			t.Fatalf("%v: keyed form %v, want %v", c.row, got, c.keyed)
		}
		checkJoinValue(t, o, c.side, skey, v, c.row)
		full := repr.AppendRowHeader(nil, 2+o.widths[c.side])
		full = repr.AppendDatums(full, repr.Row{repr.NewInt(3), repr.NewInt(-2)})
		full = append(full, r.enc...)
		checkJoinValue(t, o, c.side, skey, full, c.row)
		if c.keyed && len(v) >= len(full) {
			t.Errorf("%v: keyed form %d bytes, full %d", c.row, len(v), len(full))
		}
	}
	if _, _, _, err := o.decodeLogged(0, []byte{1}, []byte{keyedJoinValue, 6, 3, 9}); err == nil {
		t.Error("a keyed value whose join key is longer than its state key decoded")
	}
}

// checkJoinValue decodes v under skey and compares with want, counts 3
// and -2.
func checkJoinValue(t *testing.T, o *joinOp, side int, skey, v []byte, want repr.Row) {
	t.Helper()
	row, n, matches, err := o.decodeLogged(side, skey, v)
	if err != nil {
		t.Fatalf("%v: %v", want, err)
	}
	if n != 3 || matches != -2 || string(repr.AppendDatums(nil, row)) != string(repr.AppendDatums(nil, want)) {
		t.Fatalf("decoded %v (%d, %d), want %v (3, -2)", row, n, matches, want)
	}
}
