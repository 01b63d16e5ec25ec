package are

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
)

// TestTranslate runs testdata/translate: each input line is a pattern,
// optionally followed by a tab and the flags argument; the output is the
// RE2 expression, or the error with its SQLSTATE, and for a compiled
// pattern the result of matching the subject given after "=~ " if any.
func TestTranslate(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var b strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				b.WriteString(line + ": " + translateLine(line) + "\n")
			}
			return b.String()
		})
	})
}

// translateLine handles "pattern [flags FLAGS] [=~ SUBJECT]", where
// SUBJECT is read as the body of a Go string literal (\n, \b, \\).
func translateLine(line string) string {
	pattern, subject, match := strings.Cut(line, " =~ ")
	pattern, flags, _ := strings.Cut(pattern, " flags ")
	f, _, err := ParseFlags(flags, false)
	if err != nil {
		return "error " + errText(err)
	}
	prefix, body, err := Translate(pattern, f)
	if err != nil {
		return fmt.Sprintf("error %s", errText(err))
	}
	out := abbreviateClasses(prefix + body)
	if match {
		re, err := Compile(pattern, f)
		if err != nil {
			return out + " compile error " + errText(err)
		}
		if s, err := strconv.Unquote(`"` + subject + `"`); err == nil {
			subject = s
		}
		out += fmt.Sprintf(" -> %q", re.FindStringSubmatch(subject))
	}
	return out
}

// abbreviateClasses prints the ranges of a Unicode class (classes.go) as
// {name}, or {^name} for its complement, so the goldens stay readable;
// TestClassRanges checks the ranges themselves.
func abbreviateClasses(s string) string {
	type item struct{ text, name string }
	var items []item
	for name := range unicodeClass {
		pos, _ := classRanges(name, false)
		neg, _ := classRanges(name, true)
		items = append(items, item{pos, "{" + name + "}"}, item{neg, "{^" + name + "}"})
	}
	slices.SortFunc(items, func(a, b item) int { return len(b.text) - len(a.text) })
	for _, it := range items {
		s = strings.ReplaceAll(s, it.text, it.name)
	}
	return s
}

func errText(err error) string {
	return repr.ErrorCode(err) + ": " + err.Error()
}
