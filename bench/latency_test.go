package bench

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestLatencies runs testdata/latencies:
//
//	record          input: durations, one per line or space separated
//	percentile p=<float>
//	summary
func TestLatencies(t *testing.T) {
	datadriven.Walk(t, "testdata/latencies", func(t *testing.T, path string) {
		var l Latencies
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "record":
				var other Latencies
				for _, f := range strings.Fields(d.Input) {
					dur, err := time.ParseDuration(f)
					if err != nil {
						return err.Error() + "\n"
					}
					other.Add(dur)
				}
				l.Merge(&other)
				return fmt.Sprintf("n=%d\n", l.Len())
			case "percentile":
				var p string
				d.ScanArgs(t, "p", &p)
				f, err := strconv.ParseFloat(p, 64)
				if err != nil {
					t.Fatal(err)
				}
				return l.Percentile(f).String() + "\n"
			case "summary":
				return l.Summary() + "\n"
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}
