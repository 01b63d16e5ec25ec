package scalar

import (
	"testing"

	"github.com/eddydb/eddy/sql/types"
)

// TestMonotone checks which resolved functions are flagged non-decreasing
// in their time argument.
func TestMonotone(t *testing.T) {
	ts, iv := types.Timestamp, types.IntervalT
	for _, tc := range []struct {
		op, fn string
		args   []types.T
		want   bool
	}{
		{fn: "tumble_start", args: []types.T{ts, iv}, want: true},
		{fn: "tumble_start", args: []types.T{types.TimestampTZ, iv, iv}, want: true},
		{fn: "date_trunc", args: []types.T{types.Text, ts}, want: true},
		{op: "+", args: []types.T{ts, iv}, want: true},
		{op: "-", args: []types.T{types.TimestampTZ, iv}, want: true},
		{op: "-", args: []types.T{ts, ts}, want: false},
		{op: "+", args: []types.T{types.Int4, types.Int4}, want: false},
		{fn: "to_char", args: []types.T{ts, types.Text}, want: false},
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
