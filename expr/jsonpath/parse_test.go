package jsonpath

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
)

// TestGolden runs the golden files under testdata/. Their expectations
// come from PostgreSQL 15 (the parse cases are jsonpath.sql's, with
// PostgreSQL's printed normal form; errors show Eddy's SQLSTATE and
// message, the SQLSTATE checked against PostgreSQL).
//
//	parse     one jsonpath per line: its normal form, or its error
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.Contains(path, "/fuzz/") {
			return
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				var out strings.Builder
				for _, line := range strings.Split(d.Input, "\n") {
					out.WriteString(parseLine(line) + "\n")
				}
				return out.String()
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// parseLine normalises one path, and checks that the normal form parses
// back to itself.
func parseLine(s string) string {
	norm, err := Normalize(s)
	if err != nil {
		return errText(err)
	}
	again, err := Normalize(norm)
	if err != nil || again != norm {
		return fmt.Sprintf("does not round-trip: %s -> %s (%v)", norm, again, err)
	}
	return norm
}

// errText prints an error as "error <SQLSTATE>: <message>".
func errText(err error) string {
	var e *repr.Error
	if errors.As(err, &e) {
		return fmt.Sprintf("error %s: %s", e.Code, e.Message)
	}
	return "internal error: " + err.Error()
}

// FuzzParse checks that the parser never panics and that a path it
// accepts prints a normal form that parses back to the same text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"$", "strict $.a[*] ? (@ > 1)", `$."a b".**{2 to last}`,
		`$ ? (@ like_regex "a.b" flag "i") `, "$.a[1, 2 to last]", "-$.a + 1.5e3 * 2",
		`$ ? (exists (@.x) && !(@ starts with "a") || (@ == 1) is unknown)`, `"\u{1F600}\x41"`,
		"$.datetime().type().size()", "$var.keyvalue().key", "(1).abs()", "$[$[0] ? (last > 0)]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		norm, err := Normalize(s)
		if err != nil {
			return
		}
		again, err := Normalize(norm)
		if err != nil || again != norm {
			t.Fatalf("%q -> %q -> %q (%v)", s, norm, again, err)
		}
	})
}
