package parse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddydb/eddy/sql/pgerr"
)

// TestParse prints, for each input, the statements' kinds and texts, or the
// error with its SQLSTATE and position.
func TestParse(t *testing.T) {
	datadriven.RunTest(t, "testdata/parse", func(t *testing.T, d *datadriven.TestData) string {
		stmts, err := Parse(d.Input)
		if err != nil {
			e := pgerr.From(err)
			return fmt.Sprintf("error %s at %d: %s\n", e.Code, e.Position, e.Message)
		}
		var b strings.Builder
		for _, s := range stmts {
			kind := strings.TrimPrefix(fmt.Sprintf("%T", s.AST.Node), "*pg_query.Node_")
			fmt.Fprintf(&b, "%s @%d: %s\n", kind, s.Offset, s.SQL)
		}
		return b.String()
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"SELECT 1", "select * from t where a = 'x';", "CREATE TABLE t (a int)", "selec", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmts, err := Parse(sql)
		if err != nil {
			if pgerr.Code(err) != pgerr.CodeSyntax {
				t.Fatalf("non-syntax error code for %q: %v", sql, err)
			}
			return
		}
		for _, s := range stmts {
			if s.AST == nil {
				t.Fatalf("nil AST for %q", sql)
			}
		}
	})
}
