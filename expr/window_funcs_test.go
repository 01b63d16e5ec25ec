package expr

import (
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestMonotone checks which resolved functions are flagged non-decreasing
// in their time argument.
func TestMonotone(t *testing.T) {
	ts, iv := repr.Timestamp, repr.IntervalT
	for _, tc := range []struct {
		op, fn string
		args   []repr.T
		want   bool
	}{
		{fn: "tumble_start", args: []repr.T{ts, iv}, want: true},
		{fn: "tumble_start", args: []repr.T{repr.TimestampTZ, iv, iv}, want: true},
		{fn: "date_trunc", args: []repr.T{repr.Text, ts}, want: true},
		{op: "+", args: []repr.T{ts, iv}, want: true},
		{op: "-", args: []repr.T{repr.TimestampTZ, iv}, want: true},
		{op: "-", args: []repr.T{ts, ts}, want: false},
		{op: "+", args: []repr.T{repr.Int4, repr.Int4}, want: false},
		{fn: "to_char", args: []repr.T{ts, repr.Text}, want: false},
	} {
		var f *Func
		var err error
		if tc.op != "" {
			f, _, err = ResolveOp(tc.op, tc.args)
		} else {
			f, _, err = ResolveFunc(tc.fn, tc.args)
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.Monotone != tc.want {
			t.Errorf("%s%s%v: Monotone = %v, want %v", tc.op, tc.fn, tc.args, f.Monotone, tc.want)
		}
	}
}
