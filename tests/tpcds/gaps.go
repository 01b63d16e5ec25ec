package tpcds

import (
	"fmt"
	"os"
	"strings"
)

// gap is one line of testdata/known_gaps:
//
//	qNN adhoc SQLSTATE message-substring -- reason
//	qNN view SQLSTATE message-substring -- reason
//	qNN unordered -- reason
//
// adhoc: the query fails ad hoc on Eddy with that SQLSTATE and a message
// containing the text (and is not tried as a view). view: the query runs
// ad hoc, but CREATE MATERIALIZED VIEW fails so. unordered: the query's
// ORDER BY is not total on the generated data (ties), so its rows are
// compared as a multiset, not as a list.
type gap struct {
	kind, code, text string
}

// readGaps parses testdata/known_gaps.
func readGaps() (map[string]gap, error) {
	b, err := os.ReadFile("testdata/known_gaps")
	if err != nil {
		return nil, err
	}
	out := map[string]gap{}
	for i, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "--")
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 4)
		g := gap{kind: f[1]}
		switch {
		case len(f) == 2 && f[1] == "unordered":
		case len(f) == 4 && (f[1] == "adhoc" || f[1] == "view") && len(f[2]) == 5:
			g.code, g.text = f[2], strings.TrimSpace(f[3])
		default:
			return nil, fmt.Errorf("known_gaps:%d: want `qNN adhoc|view SQLSTATE text` or `qNN unordered`, got %q", i+1, line)
		}
		key := f[0] + " " + g.kind
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("known_gaps:%d: %s listed twice", i+1, key)
		}
		out[key] = g
	}
	return out, nil
}
