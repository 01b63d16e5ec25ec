// Package parse turns SQL text into statements: PostgreSQL's own grammar
// (pg_query_go, the real parser compiled from PostgreSQL's sources) plus,
// later, the few Eddy extensions PostgreSQL has no syntax for. Syntax errors
// become SQLSTATE 42601 with the 1-based character position PostgreSQL
// reports.
package parse

import (
	"errors"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/eddydb/eddy/sql/pgerr"
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
}

// Parse splits sql into statements and parses each. An empty or
// comment-only string yields no statements.
func Parse(sql string) ([]Stmt, error) {
	res, err := pg.Parse(sql)
	if err != nil {
		return nil, syntaxError(err)
	}
	stmts := make([]Stmt, 0, len(res.Stmts))
	for _, raw := range res.Stmts {
		start := int(raw.StmtLocation)
		end := len(sql)
		if raw.StmtLen > 0 {
			end = start + int(raw.StmtLen)
		}
		stmts = append(stmts, Stmt{AST: raw.Stmt, SQL: strings.TrimSpace(sql[start:end]), Offset: start})
	}
	return stmts, nil
}

// syntaxError converts a parser error to 42601 with PostgreSQL's message
// and position.
func syntaxError(err error) error {
	var pe *parser.Error
	if !errors.As(err, &pe) {
		return pgerr.New(pgerr.CodeSyntax, "%s", err.Error())
	}
	e := pgerr.New(pgerr.CodeSyntax, "%s", pe.Message)
	if pe.Cursorpos > 0 {
		// PostgreSQL's cursor position is already 1-based in characters.
		e = e.WithPosition(int32(pe.Cursorpos))
	}
	return e
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
