package pgregress

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestSplit runs testdata/split: "split" prints the statements of its
// input, one "-- line N" header each, with COPY data after "-- copy:".
// Data files named by COPY ... FROM '<file>' are read from testdata.
func TestSplit(t *testing.T) {
	dir, _ := filepath.Abs("testdata")
	datadriven.RunTest(t, "testdata/split", func(t *testing.T, d *datadriven.TestData) string {
		s := &Script{Vars: map[string]string{}, Env: map[string]string{"PG_ABS_SRCDIR": dir}}
		var b strings.Builder
		for _, st := range s.Split(d.Input) {
			fmt.Fprintf(&b, "-- line %d\n%s\n", st.Line, st.SQL)
			if st.Err != nil {
				fmt.Fprintf(&b, "-- error: %v\n", os.IsNotExist(st.Err))
			}
			if st.Copy != nil {
				fmt.Fprintf(&b, "-- copy: %q\n", st.Copy)
			}
		}
		return b.String()
	})
}

// TestClassify runs testdata/classify: each case gives a statement and
// the two outcomes, one per line after "pg:" and "eddy:", each either
// "error CODE" or "ok TAG | col,col | row;row" with cells split by ",";
// ~ is NULL. It prints the category and detail.
func TestClassify(t *testing.T) {
	datadriven.RunTest(t, "testdata/classify", func(t *testing.T, d *datadriven.TestData) string {
		lines := strings.Split(d.Input, "\n")
		var sql string
		var outs []*Outcome
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "pg:"), strings.HasPrefix(l, "eddy:"):
				_, v, _ := strings.Cut(l, ":")
				outs = append(outs, parseOutcome(strings.TrimSpace(v)))
			default:
				sql += l + "\n"
			}
		}
		if len(outs) != 2 {
			t.Fatalf("want pg: and eddy: lines")
		}
		cat, detail := Classify(sql, outs[0], outs[1])
		return strings.TrimSpace(fmt.Sprintf("%s %s", cat, detail)) + "\n"
	})
}

// parseOutcome reads an outcome in TestClassify's notation.
func parseOutcome(s string) *Outcome {
	if code, ok := strings.CutPrefix(s, "error "); ok {
		return &Outcome{Code: code, Msg: "msg"}
	}
	parts := strings.Split(strings.TrimPrefix(s, "ok "), " | ")
	o := &Outcome{Tag: parts[0]}
	if len(parts) > 1 {
		o.Cols = strings.Split(parts[1], ",")
	}
	if len(parts) > 2 && parts[2] != "" {
		for _, r := range strings.Split(parts[2], ";") {
			row := strings.Split(r, ",")
			for i, v := range row {
				if v == "~" {
					row[i] = nullText
				}
			}
			o.Rows = append(o.Rows, row)
		}
	}
	return o
}
