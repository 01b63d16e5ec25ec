package expr

import (
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestRegexpNewlines checks PostgreSQL's newline defaults, which the golden
// files cannot spell (their expressions are one line): . matches a newline
// and ^/$ anchor the whole string, unless flag n is given.
func TestRegexpNewlines(t *testing.T) {
	cols := []repr.T{repr.Text}
	row := repr.Row{repr.NewText("a\nb")}
	for _, tc := range []struct{ expr, want string }{
		{"#0 ~ 'a.b'", "true"},
		{"#0 ~ '^b'", "false"},
		{"#0 ~ 'a$'", "false"},
		{"regexp_replace(#0, '^b', 'X', 'n')", "a\nX"},
		{"regexp_replace(#0, 'a.b', 'X', 'n')", "a\nb"},
		{"regexp_replace(#0, 'a.b', 'X')", "X"},
	} {
		e, err := ParseExpr(tc.expr, cols)
		if err != nil {
			t.Fatal(err)
		}
		d, err := e.Eval(&Ctx{}, row)
		if err != nil {
			t.Fatal(err)
		}
		got := d.Text()
		if e.Type().Family == repr.FamBool {
			got = map[bool]string{true: "true", false: "false"}[d.Bool()]
		}
		if got != tc.want {
			t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
		}
	}
}
