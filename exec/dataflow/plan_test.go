package dataflow

import (
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestPlanText parses plans, prints them, and checks that the printed form
// parses back to the same text (Parse and String are inverses).
func TestPlanText(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "parse":
				p, err := Parse(td.Input)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				s := p.String()
				p2, err := Parse(s)
				if err != nil {
					t.Fatalf("printed plan does not parse: %v\n%s", err, s)
				}
				if s2 := p2.String(); s2 != s {
					t.Fatalf("round trip changed the plan:\n%s\nvs\n%s", s, s2)
				}
				return s
			}
			t.Fatalf("unknown command %s", td.Cmd)
			return ""
		})
	})
}
