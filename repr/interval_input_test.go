package repr

import "testing"

// TestIntervalInputStyled checks which interval text IntervalStyle
// sql_standard reads differently (the cases are tests/slt/
// interval_style_input.slt's, whose values PostgreSQL 15 checks).
func TestIntervalInputStyled(t *testing.T) {
	for _, tc := range []struct {
		in     string
		styled bool
		std    Interval // the value under sql_standard
	}{
		{"-1 2:03:04", true, Interval{Days: -1, Micros: -(2*3600 + 3*60 + 4) * 1e6}},
		{"-1 hour 30 minutes", true, Interval{Micros: -90 * 60e6}},
		{"-1-2 3", true, Interval{Months: -14, Micros: -3e6}},
		{"@ -1 2:03", true, Interval{Days: -1, Micros: -(2*3600 + 3*60) * 1e6}},
		{"-1 2:03 ago", true, Interval{Days: 1, Micros: (2*3600 + 3*60) * 1e6}},
		{"-1 +2:03", false, Interval{Days: -1, Micros: (2*3600 + 3*60) * 1e6}},
		{"1 -2:03", false, Interval{Days: 1, Micros: -(2*3600 + 3*60) * 1e6}},
		{"-1-2", false, Interval{Months: -14}},
		{"P-1Y2M", false, Interval{Months: -10}},
		{"-2:03:04", false, Interval{Micros: -(2*3600 + 3*60 + 4) * 1e6}},
		{"2 days", false, Interval{Days: 2}},
	} {
		if got := IntervalInputStyled(tc.in); got != tc.styled {
			t.Errorf("IntervalInputStyled(%q) = %v, want %v", tc.in, got, tc.styled)
		}
		d, err := ParseIntervalStyled(tc.in, "second", false, IntervalSQLStandard)
		if err != nil || d.Interval() != tc.std {
			t.Errorf("ParseIntervalStyled(%q, sql_standard) = %v, %v; want %v", tc.in, d.Interval(), err, tc.std)
		}
	}
}
