package parse

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// withFastValues runs f with the INSERT fast path taking statements of
// any length.
func withFastValues(f func()) {
	defer func(n, c int) { fastValuesMin, compactMin = n, c }(fastValuesMin, compactMin)
	fastValuesMin, compactMin = 0, 1
	f()
}

// TestInsertValues prints, per statement of each input, whether the INSERT
// fast path took it ("fast") or left it to pg_query, and the statement
// deparsed; every input must parse to pg_query's own trees.
func TestInsertValues(t *testing.T) {
	datadriven.RunTest(t, "testdata/values", func(t *testing.T, d *datadriven.TestData) string {
		var b strings.Builder
		withFastValues(func() {
			stmts, err := Parse(d.Input)
			if err != nil {
				b.WriteString(errorWithCaret(d.Input, err))
				return
			}
			checkSameAsPgQuery(t, d.Input, stmts)
			toks, _ := lex(d.Input)
			p := &front{src: d.Input, toks: toks}
			for _, seg := range split(d.Input, toks) {
				if seg.lo == seg.hi {
					continue
				}
				how := "pg_query"
				if p.insertValues(seg) != nil {
					how = "fast"
				}
				fmt.Fprintf(&b, "%s: %s\n", how, stmtSQL(firstAST(t, d.Input[seg.start:seg.end])))
			}
		})
		return b.String()
	})
}

// firstAST parses sql with pg_query alone and returns its first statement.
func firstAST(t *testing.T, sql string) *pg.Node {
	res, err := pg.Parse(sql)
	if err != nil || len(res.Stmts) == 0 {
		t.Fatalf("pg_query: %q: %v", sql, err)
	}
	return res.Stmts[0].Stmt
}

// checkSameAsPgQuery checks that stmts, parsed from sql by Parse, equal
// pg_query's parse of sql: texts, offsets and trees.
func checkSameAsPgQuery(t *testing.T, sql string, stmts []Stmt) {
	t.Helper()
	want, err := parsePlain(sql, sql)
	if err != nil {
		t.Fatalf("pg_query fails where Parse did not: %v", err)
	}
	if len(want) != len(stmts) {
		t.Fatalf("%d statements, pg_query %d", len(stmts), len(want))
	}
	for i := range want {
		g, w := stmts[i], want[i]
		if g.SQL != w.SQL || g.Offset != w.Offset || !proto.Equal(g.AST, w.AST) {
			t.Fatalf("statement %d differs from pg_query's:\n got @%d %s\nwant @%d %s", i, g.Offset,
				prototext.Format(g.AST), w.Offset, prototext.Format(w.AST))
		}
	}
}

// TestInsertValuesEquivalence parses random INSERT ... VALUES batches, some
// the fast path takes and some it declines, and requires pg_query's trees.
func TestInsertValuesEquivalence(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	withFastValues(func() {
		took := 0
		for range 300 {
			sql := randomBatch(r)
			stmts, err := Parse(sql)
			_, perr := parsePlain(sql, sql)
			if (err != nil) != (perr != nil) {
				t.Fatalf("Parse error %v, pg_query error %v\n%s", err, perr, sql)
			}
			if err != nil {
				continue
			}
			checkSameAsPgQuery(t, sql, stmts)
			toks, _ := lex(sql)
			p := &front{src: sql, toks: toks}
			for _, seg := range split(sql, toks) {
				if seg.lo < seg.hi && p.insertValues(seg) != nil {
					took++
				}
			}
		}
		if took < 100 {
			t.Errorf("the fast path took only %d statements of 300 batches", took)
		}
	})
}

// TestCompactErrors checks that an error pg_query reports after, or in
// a statement after, statements cut out of its text (parseCompact) is at
// pg_query's own position, in characters of the whole input.
func TestCompactErrors(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	withFastValues(func() {
		for range 200 {
			sql := randomBatch(r) + pickOf(r, "; SELECT 'é' FROM WHERE", ";\nSELECT (1;", "; INSERT INTO t VALUES ('ü'), (1 2)", "; SELECT 1 +")
			_, err := Parse(sql)
			_, perr := parsePlain(sql, sql)
			if err == nil || perr == nil {
				t.Fatalf("Parse error %v, pg_query error %v\n%s", err, perr, sql)
			}
			if g, w := repr.ErrorFrom(err), repr.ErrorFrom(perr); g.Position != w.Position || g.Message != w.Message {
				t.Fatalf("error %q at %d, pg_query's %q at %d\n%s", g.Message, g.Position, w.Message, w.Position, sql)
			}
		}
	})
}

// randomBatch returns a transaction of INSERT ... VALUES statements with
// random literals, spacing and comments, and now and then a value the
// fast path must leave to pg_query.
func randomBatch(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	for range 1 + r.IntN(3) {
		fmt.Fprintf(&b, "%s %s %s%s %s", pickOf(r, "INSERT", "insert"), pickOf(r, "INTO", "into"),
			pickOf(r, "t", `"T x"`, "s.t", "lineitem"), pickOf(r, "", " (a, b)", ` ("A", b, c)`), pickOf(r, "VALUES", "values", "VALUES\n"))
		rows := 1 + r.IntN(5)
		for i := range rows {
			if i > 0 {
				b.WriteString(pickOf(r, ", ", ",\n", " ,", ",/* c */"))
			}
			b.WriteByte('(')
			for j := range 1 + r.IntN(4) {
				if j > 0 {
					b.WriteString(pickOf(r, ", ", ",", " , ", ", -- c\n"))
				}
				b.WriteString(randomLiteral(r))
			}
			b.WriteByte(')')
		}
		b.WriteString(pickOf(r, ";\n", " ;", ";", "; -- done\n"))
	}
	b.WriteString(pickOf(r, "COMMIT", "COMMIT;", "commit;\n"))
	return b.String()
}

// randomLiteral returns a literal, mostly one the fast path reads.
func randomLiteral(r *rand.Rand) string {
	if r.IntN(40) == 0 { // the fast path declines these
		return pickOf(r, "DEFAULT", "E'a\\tb'", "'x'::text", "1 + 2", "DATE '1995-01-01'", "+3", "1e5", "0x1F",
			"1_000", "'a' 'b'", "$$d$$", "'back\\slash'", "-(4)", "- - 5")
	}
	switch r.IntN(8) {
	case 0:
		return pickOf(r, "NULL", "null", "TRUE", "false", "True")
	case 1:
		return fmt.Sprint(r.IntN(100))
	case 2:
		return pickOf(r, "2147483647", "2147483648", "-2147483648", "-2147483649", "99999999999999999999", "007", "-0", "0")
	case 3:
		return fmt.Sprintf("%s%d.%02d", pickOf(r, "", "-", "- "), r.IntN(10000), r.IntN(100))
	case 4:
		return pickOf(r, "1.", ".5", "-.25", "0.0", "00.10")
	case 5:
		return "-" + fmt.Sprint(r.IntN(1000))
	}
	words := []string{"a", "it''s", "", " ", "ünïcode", "tab\there", "semi;colon", "(paren)", "--not a comment", "/* no */", "''''"}
	return "'" + pickOf(r, words...) + pickOf(r, words...) + "'"
}

func pickOf(r *rand.Rand, s ...string) string { return s[r.IntN(len(s))] }
