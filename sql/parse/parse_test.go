package parse

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// TestParse prints, for each input, the statements' kinds and texts, or the
// error with its SQLSTATE and position.
func TestParse(t *testing.T) {
	datadriven.RunTest(t, "testdata/parse", func(t *testing.T, d *datadriven.TestData) string {
		stmts, err := Parse(d.Input)
		if err != nil {
			e := repr.ErrorFrom(err)
			return fmt.Sprintf("error %s at %d: %s\n", e.Code, e.Position, e.Message)
		}
		var b strings.Builder
		for _, s := range stmts {
			fmt.Fprintf(&b, "%s @%d: %s\n", stmtKindName(s), s.Offset, s.SQL)
		}
		return b.String()
	})
}

// TestExt prints each statement of the input in detail (extension
// statements field by field, plain ones deparsed) or the error with a caret
// under its position. Every extension statement must also print as SQL
// that parses back to the same statement.
func TestExt(t *testing.T) {
	datadriven.Walk(t, "testdata/ext", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "ext":
				return describe(t, d.Input)
			case "lex":
				return lexString(d.Input)
			case "nexmark":
				b, err := os.ReadFile("/work/shared/nexmark/queries.sql")
				if err != nil {
					t.Skipf("nexmark queries: %v", err)
				}
				return describe(t, string(b))
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// describe parses sql and prints the result (see TestExt).
func describe(t *testing.T, sql string) string {
	stmts, err := Parse(sql)
	if err != nil {
		return errorWithCaret(sql, err)
	}
	var b strings.Builder
	for _, s := range stmts {
		if sql[s.Offset:s.Offset+len(s.SQL)] != s.SQL {
			t.Errorf("Offset %d does not locate %q", s.Offset, s.SQL)
		}
		fmt.Fprintf(&b, "%s @%d\n", stmtKindName(s), s.Offset)
		if s.AST != nil {
			fmt.Fprintf(&b, "  ast: %s\n", stmtSQL(s.AST))
		}
		if s.Ext != nil {
			printExt(&b, s.Ext)
			checkRoundTrip(t, s.Ext)
		}
	}
	return b.String()
}

// lexString prints the tokens of sql, one per line, or the lexical error.
func lexString(sql string) string {
	toks, err := lex(sql)
	names := map[tokKind]string{tkIdent: "ident", tkQIdent: "qident", tkString: "string", tkNumber: "number",
		tkParam: "param", tkOp: "op", tkPunct: "punct"}
	var b strings.Builder
	for _, t := range toks {
		fmt.Fprintf(&b, "%s %s\n", names[t.kind], sql[t.start:t.end])
	}
	if err != nil {
		fmt.Fprintf(&b, "error at %d: %s\n", err.pos, err.msg)
	}
	return b.String()
}

// stmtKindName is the Ext type name, else the AST node type name.
func stmtKindName(s Stmt) string {
	if s.Ext != nil && s.AST == nil {
		return strings.TrimPrefix(fmt.Sprintf("%T", s.Ext), "*parse.")
	}
	kind := strings.TrimPrefix(fmt.Sprintf("%T", s.AST.Node), "*pg_query.Node_")
	if s.Ext != nil {
		kind += "+" + strings.TrimPrefix(fmt.Sprintf("%T", s.Ext), "*parse.")
	}
	return kind
}

// errorWithCaret prints an error and the input line with a caret under
// the error's position.
func errorWithCaret(sql string, err error) string {
	e := repr.ErrorFrom(err)
	out := fmt.Sprintf("error %s at %d: %s\n", e.Code, e.Position, e.Message)
	if e.Position <= 0 {
		return out
	}
	runes := []rune(sql)
	pos := int(e.Position) - 1
	lineStart := pos
	for lineStart > 0 && lineStart <= len(runes) && runes[lineStart-1] != '\n' {
		lineStart--
	}
	lineEnd := lineStart
	for lineEnd < len(runes) && runes[lineEnd] != '\n' {
		lineEnd++
	}
	return out + "  " + string(runes[lineStart:lineEnd]) + "\n  " + strings.Repeat(" ", pos-lineStart) + "^\n"
}

// printExt prints an extension statement field by field.
func printExt(b *strings.Builder, x Ext) {
	switch x := x.(type) {
	case *CreateSource:
		fmt.Fprintf(b, "  name: %q.%q table=%t if_not_exists=%t\n", x.Schema, x.Name, x.IsTable, x.IfNotExists)
		for _, c := range x.Columns {
			fmt.Fprintf(b, "  column %s @%d: %s\n", c.Colname, c.Location, elementsSQL([]*pg.ColumnDef{c}, nil))
		}
		for _, c := range x.Constraints {
			fmt.Fprintf(b, "  constraint @%d: %s\n", c.Location, elementsSQL(nil, []*pg.Constraint{c}))
		}
		if w := x.Watermark; w != nil {
			fmt.Fprintf(b, "  watermark @%d: %s AS %s\n", w.Location, w.Column, exprSQL(w.Expr))
		}
		printOptions(b, "option", x.Options)
		printFormat(b, x.Format, x.Encode, x.EncodeOptions)
	case *CreateSink:
		fmt.Fprintf(b, "  name: %q.%q if_not_exists=%t\n", x.Schema, x.Name, x.IfNotExists)
		if x.From != nil {
			fmt.Fprintf(b, "  from: %s\n", relationName(x.From))
		} else {
			fmt.Fprintf(b, "  query: %s\n", stmtSQL(x.Query))
		}
		printOptions(b, "option", x.Options)
		printFormat(b, x.Format, x.Encode, x.EncodeOptions)
	case *DropObject:
		for _, n := range x.Names {
			fmt.Fprintf(b, "  drop %s %s @%d\n", x.Kind, relationName(n), n.Location)
		}
		fmt.Fprintf(b, "  if_exists=%t cascade=%t\n", x.IfExists, x.Cascade)
	case *Subscribe:
		if x.Relation != nil {
			fmt.Fprintf(b, "  relation: %s @%d\n", relationName(x.Relation), x.Relation.Location)
		} else {
			fmt.Fprintf(b, "  query: %s\n", stmtSQL(x.Query))
		}
		printOptions(b, "option", x.Options)
		if x.ViaCopy {
			fmt.Fprintf(b, "  via copy\n")
		}
		printOptions(b, "copy option", x.CopyOptions)
		if x.CursorName != "" {
			fmt.Fprintf(b, "  cursor: %q\n", x.CursorName)
		}
	case *EmitOnWindowClose:
		fmt.Fprintf(b, "  emit on window close @%d\n", x.Location)
		return
	}
	fmt.Fprintf(b, "  sql: %s\n", x)
}

func printOptions(b *strings.Builder, what string, opts []Option) {
	for _, o := range opts {
		if o.Bare {
			fmt.Fprintf(b, "  %s @%d: %q (bare)\n", what, o.Location, o.Key)
		} else {
			fmt.Fprintf(b, "  %s @%d: %q = %q\n", what, o.Location, o.Key, o.Value)
		}
	}
}

func printFormat(b *strings.Builder, format, encode string, opts []Option) {
	if format != "" {
		fmt.Fprintf(b, "  format %s encode %s\n", format, encode)
	}
	printOptions(b, "encode option", opts)
}

// checkRoundTrip fails unless x prints as SQL that parses to a statement
// printing the same.
func checkRoundTrip(t *testing.T, x Ext) {
	if _, ok := x.(*EmitOnWindowClose); ok {
		return
	}
	sql := fmt.Sprint(x)
	stmts, err := Parse(sql)
	if err != nil || len(stmts) != 1 || stmts[0].Ext == nil {
		t.Errorf("%s does not parse back: %v", sql, err)
		return
	}
	if again := fmt.Sprint(stmts[0].Ext); again != sql {
		t.Errorf("round trip changed the statement:\n%s\n%s", sql, again)
	}
}

// fuzzSeeds are extension-shaped inputs for FuzzParse.
var fuzzSeeds = []string{
	"SELECT 1", "select * from t where a = 'x';", "CREATE TABLE t (a int)", "selec", "'",
	"CREATE SOURCE s (a int, b text, PRIMARY KEY (a), WATERMARK FOR b AS b - INTERVAL '1' SECOND) WITH (connector = 'kafka', topic = 'x') FORMAT PLAIN ENCODE JSON",
	"CREATE TABLE t (a int) WITH (connector = 'nexmark', nexmark.table.type = 'bid') FORMAT UPSERT ENCODE CSV (delimiter = ',')",
	"CREATE SINK IF NOT EXISTS k FROM v WITH (connector = 'kafka', n = -1.5)",
	"CREATE SINK k AS SELECT a FROM t WITH (connector = $$x;y$$)",
	"SUBSCRIBE TO (SELECT * FROM t) WITH (snapshot = false, progress)",
	"COPY (SUBSCRIBE v) TO STDOUT WITH (format binary); DECLARE c CURSOR FOR SUBSCRIBE v; FETCH 10 c",
	"CREATE MATERIALIZED VIEW v AS SELECT window_start FROM TUMBLE(t, ts, INTERVAL '10' SECOND) GROUP BY 1 EMIT ON WINDOW CLOSE",
	"/* source; */ SELECT 'sink;' -- emit\n; CREATE SOURCE \"S\"\"x\" (a int) WITH (E'k' = 1)",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmts, err := Parse(sql)
		if err != nil {
			checkFuzzError(t, sql, err)
			return
		}
		for _, s := range stmts {
			if s.AST == nil && s.Ext == nil {
				t.Fatalf("statement without AST or Ext for %q", sql)
			}
			if s.Offset < 0 || s.Offset+len(s.SQL) > len(sql) || sql[s.Offset:s.Offset+len(s.SQL)] != s.SQL {
				t.Fatalf("Offset %d does not locate %q in %q", s.Offset, s.SQL, sql)
			}
			if s.Ext != nil {
				checkRoundTrip(t, s.Ext)
			}
		}
	})
}

// checkFuzzError requires a syntax error (or, for recognized but
// unsupported variants, 0A000) positioned within the input or at 0, or
// 22021 exactly when the input is not valid UTF-8.
func checkFuzzError(t *testing.T, sql string, err error) {
	e := repr.ErrorFrom(err)
	if valid := utf8.ValidString(sql); !valid || e.Code == "22021" {
		if valid || e.Code != "22021" {
			t.Fatalf("error code %s for %q (valid UTF-8: %v): %v", e.Code, sql, valid, err)
		}
		return
	}
	if e.Code != repr.CodeSyntax && e.Code != repr.CodeFeatureNotSupported {
		t.Fatalf("error code %s for %q: %v", e.Code, sql, err)
	}
	if e.Position < 0 || int(e.Position) > utf8.RuneCountInString(sql)+1 {
		t.Fatalf("error position %d outside %q: %v", e.Position, sql, err)
	}
}

// TestInvalidUTF8 checks that statement text that is not UTF-8 fails
// with 22021 naming the bad sequence's bytes, as PostgreSQL reports it.
func TestInvalidUTF8(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT 'a\xffb'":               `invalid byte sequence for encoding "UTF8": 0xff`,
		"SELECT '\xe2\x28\xa1'":         `invalid byte sequence for encoding "UTF8": 0xe2 0x28 0xa1`,
		"INSERT INTO t VALUES ('\xc3')": `invalid byte sequence for encoding "UTF8": 0xc3 0x27`,
	} {
		_, err := Parse(sql)
		if e := repr.ErrorFrom(err); err == nil || e.Code != "22021" || e.Message != want {
			t.Errorf("Parse(%q) = %v, want 22021 %s", sql, err, want)
		}
	}
}
