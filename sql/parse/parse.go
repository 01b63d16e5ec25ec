package parse

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/eddydb/eddy/repr"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
)

// Stmt is one parsed statement with its source text.
type Stmt struct {
	// AST is the statement's root node (e.g. a SelectStmt, InsertStmt).
	AST *pg.Node
	// SQL is the statement's own text (without the separating semicolon).
	SQL string
	// Offset is the byte offset of SQL within the parsed string; AST
	// locations are relative to the whole string, so Offset converts them.
	Offset int
	// Ext is the extension statement, nil for a plain PostgreSQL one. For
	// *CreateSource, *CreateSink and *Subscribe, AST is nil; for
	// *EmitOnWindowClose, AST is the CREATE MATERIALIZED VIEW statement
	// without its EMIT ON WINDOW CLOSE clause.
	Ext Ext
}

// Parse splits sql into statements and parses each. An empty or
// comment-only string yields no statements.
func Parse(sql string) ([]Stmt, error) {
	if !utf8.ValidString(sql) {
		return nil, repr.ErrInvalidUTF8(sql)
	}
	if !mayHaveExt(sql) && !mayHaveLongValues(sql) && !mayHaveLongInList(sql) {
		return parsePlain(sql, sql)
	}
	toks, lerr := lex(sql)
	return (&front{src: sql, toks: toks, lexErr: lerr}).parse()
}

// parsePlain parses masked, which is src with extension statements (or
// clauses) blanked out, and returns its statements with their text from
// src. Byte offsets agree between the two; error positions are converted.
func parsePlain(src, masked string) ([]Stmt, error) {
	res, err := pg.Parse(masked)
	if err != nil {
		return nil, maskedError(src, masked, err)
	}
	stmts := make([]Stmt, 0, len(res.Stmts))
	for _, raw := range res.Stmts {
		start := int(raw.StmtLocation)
		end := len(masked)
		if raw.StmtLen > 0 {
			end = start + int(raw.StmtLen)
		}
		stmts = append(stmts, newStmt(src, start, end, raw.Stmt, nil))
	}
	return stmts, nil
}

// newStmt returns the statement whose text, with surrounding whitespace
// trimmed, is src[start:end].
func newStmt(src string, start, end int, ast *pg.Node, ext Ext) Stmt {
	text := src[start:end]
	trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
	start += len(text) - len(trimmed)
	return Stmt{AST: ast, SQL: strings.TrimSpace(trimmed), Offset: start, Ext: ext}
}

// maskedError converts a pg_query error on masked text into one positioned
// in src (blanking multi-byte characters changes character counts).
func maskedError(src, masked string, err error) error {
	e := repr.ErrorFrom(syntaxError(err))
	switch {
	case e.Position > 0 && src != masked:
		e = e.WithPosition(CharPosition(src, charToByte(masked, int(e.Position)-1)))
	case e.Position > CharPosition(src, len(src)):
		// PostgreSQL counts an invalid UTF-8 lead byte as a whole
		// character, reaching past the end: clamp to the end.
		e = e.WithPosition(CharPosition(src, len(src)))
	}
	return e
}

// syntaxError converts a parser error to 42601 with PostgreSQL's message
// and position.
func syntaxError(err error) error {
	var pe *parser.Error
	if !errors.As(err, &pe) {
		return repr.Errorf(repr.CodeSyntax, "%s", err.Error())
	}
	code := repr.CodeSyntax
	if c, ok := grammarCodes[pe.Message]; ok {
		code = c
	}
	e := repr.Errorf(code, "%s", pe.Message)
	if pe.Cursorpos > 0 {
		// PostgreSQL's cursor position is already 1-based in characters.
		e = e.WithPosition(int32(pe.Cursorpos))
	}
	return e
}

// grammarCodes are the SQLSTATEs of errors PostgreSQL's grammar raises
// that are not syntax errors: gram.y checks window frame bounds itself
// (windowing_error).
var grammarCodes = map[string]string{
	"frame start cannot be UNBOUNDED FOLLOWING":                    "42P20",
	"frame end cannot be UNBOUNDED PRECEDING":                      "42P20",
	"frame starting from current row cannot have preceding rows":   "42P20",
	"frame starting from following row cannot have preceding rows": "42P20",
}

// CharPosition converts a 0-based byte offset in sql into PostgreSQL's
// 1-based character position, clamped to the string.
func CharPosition(sql string, byteOffset int) int32 {
	if byteOffset < 0 {
		return 0
	}
	if byteOffset > len(sql) {
		byteOffset = len(sql)
	}
	return int32(utf8.RuneCountInString(sql[:byteOffset])) + 1
}

// treeVersion is the parse-tree version of the linked PostgreSQL grammar,
// which Deparse must present.
var treeVersion = func() int32 {
	res, err := pg.Parse("SELECT 1")
	if err != nil {
		panic(err)
	}
	return res.Version
}()

// Deparse renders a statement node back to SQL text.
func Deparse(n *pg.Node) (string, error) {
	return pg.Deparse(&pg.ParseResult{Version: treeVersion, Stmts: []*pg.RawStmt{{Stmt: n}}})
}

// DeparseExpr renders an expression node back to SQL text.
func DeparseExpr(n *pg.Node) (string, error) {
	sel := &pg.SelectStmt{TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}}}
	sql, err := Deparse(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}})
	return strings.TrimPrefix(sql, "SELECT "), err
}
