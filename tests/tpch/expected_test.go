package tpch

import (
	"fmt"
	"os"
	"strings"
)

// expectedFailure is one line of testdata/expected_failures:
//
//	qNN SQLSTATE message-substring [-- comment]
//	qNN plan plan-substring [-- comment]
//
// The first form: CREATE MATERIALIZED VIEW fails with that SQLSTATE and a
// message containing the text. The second: the query is too expensive to
// create (it would take the server's memory); its EXPLAIN still contains
// the text (say, "Join cross"), and the view is not created.
type expectedFailure struct {
	kind, text string
}

// readExpectedFailures parses testdata/expected_failures.
func readExpectedFailures() (map[string]expectedFailure, error) {
	b, err := os.ReadFile("testdata/expected_failures")
	if err != nil {
		return nil, err
	}
	out := map[string]expectedFailure{}
	for i, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "--")
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 || (f[1] != "plan" && len(f[1]) != 5) {
			return nil, fmt.Errorf("expected_failures:%d: want `qNN SQLSTATE|plan text`, got %q", i+1, line)
		}
		if _, dup := out[f[0]]; dup {
			return nil, fmt.Errorf("expected_failures:%d: %s listed twice", i+1, f[0])
		}
		out[f[0]] = expectedFailure{kind: f[1], text: strings.TrimSpace(f[2])}
	}
	return out, nil
}
