package tpcds

import (
	"embed"
	"fmt"
	"path"
	"strings"
)

//go:embed testdata/schema.sql testdata/queries/*.sql
var files embed.FS

// Query is one TPC-DS query: its name (q01 ... q99) and its text.
type Query struct {
	Name string
	SQL  string
}

// Column is one column of a table: its name, its SQL type as written in
// schema.sql (lower case) and whether it is NOT NULL.
type Column struct {
	Name, Type string
	NotNull    bool
}

// TableDef is one table of schema.sql.
type TableDef struct {
	Name    string
	Columns []Column
}

// Schema returns the CREATE TABLE statements of the 24 tables.
func Schema() []string {
	return statements(mustRead("testdata/schema.sql"))
}

// TableDefs parses schema.sql into its tables, in file order.
func TableDefs() []TableDef {
	var defs []TableDef
	for _, stmt := range Schema() {
		open, end := strings.Index(stmt, "("), strings.LastIndex(stmt, ")")
		name := strings.TrimSpace(strings.TrimPrefix(strings.ToLower(stmt[:open]), "create table"))
		def := TableDef{Name: name}
		for _, part := range splitTopLevel(stmt[open+1 : end]) {
			f := strings.Fields(strings.ToLower(part))
			if len(f) < 2 {
				continue
			}
			def.Columns = append(def.Columns, Column{Name: f[0], Type: f[1], NotNull: strings.Contains(strings.Join(f[2:], " "), "not null")})
		}
		defs = append(defs, def)
	}
	return defs
}

// splitTopLevel splits s at the commas outside parentheses.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// Queries returns the 99 queries: testdata/queries/qNN.sql are duckdb's
// extension/tpcds/dsdgen/queries/NN.sql at commit 044a04a7cd39 (TPC-DS's
// query templates with the specification's validation parameters
// substituted), unchanged: PostgreSQL 15 runs every one of them as is, so
// no dialect detail needed adjusting.
func Queries() []Query {
	var qs []Query
	for i := 1; i <= 99; i++ {
		name := fmt.Sprintf("q%02d", i)
		stmts := statements(mustRead(path.Join("testdata/queries", name+".sql")))
		if len(stmts) != 1 {
			panic(fmt.Sprintf("%s holds %d statements, want 1", name, len(stmts)))
		}
		qs = append(qs, Query{Name: name, SQL: stmts[0]})
	}
	return qs
}

// mustRead returns an embedded file.
func mustRead(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// statements splits a file into its statements: comment lines dropped,
// split at semicolons (the files hold none inside literals).
func statements(text string) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	var out []string
	for _, s := range strings.Split(strings.Join(lines, "\n"), ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
