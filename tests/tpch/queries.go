package tpch

import (
	"embed"
	"fmt"
	"path"
	"strings"
)

//go:embed testdata/schema.sql testdata/queries/*.sql
var files embed.FS

// Query is one TPC-H query: its name (q01 ... q22), the statements to run
// before it on both servers (Q15's view revenue0), and its text.
type Query struct {
	Name  string
	Setup []string
	SQL   string
}

// Schema returns the CREATE TABLE statements of the eight tables.
func Schema() []string {
	return statements(mustRead("testdata/schema.sql"))
}

// Queries returns the 22 queries with the validation parameters of the
// specification (clause 2.4.x.4).
func Queries() []Query {
	var qs []Query
	for i := 1; i <= 22; i++ {
		name := fmt.Sprintf("q%02d", i)
		stmts := statements(mustRead(path.Join("testdata/queries", name+".sql")))
		q := Query{Name: name, Setup: stmts[:len(stmts)-1], SQL: stmts[len(stmts)-1]}
		qs = append(qs, q)
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
