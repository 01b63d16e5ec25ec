package datagen

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
)

// TestGolden runs the datadriven files in testdata. Each command's input
// declares the source, one column or option per line:
//
//	col <name> <type>[(<mod>[,<mod>])]
//	<key>=<value>
//
// Commands:
//
//	parse                prints each field's rule, or the error.
//	generate [at=K] [n=N] prints N rows from row K ("end" when exhausted).
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			cols, opts := parseInput(t, td.Input)
			cfg, err := ParseOptions(cols, opts)
			if err != nil {
				return formatError(err)
			}
			switch td.Cmd {
			case "parse":
				var b strings.Builder
				fmt.Fprintf(&b, "rows per second %d\n", cfg.RowsPerSecond)
				for _, f := range cfg.Fields {
					b.WriteString(f.String() + "\n")
				}
				return b.String()
			case "generate":
				return runGenerate(t, td, cfg)
			}
			t.Fatalf("unknown command %s", td.Cmd)
			return ""
		})
	})
}

// runGenerate implements the generate command.
func runGenerate(t *testing.T, td *datadriven.TestData, cfg Config) string {
	at, n := 0, 10
	if td.HasArg("at") {
		td.ScanArgs(t, "at", &at)
	}
	if td.HasArg("n") {
		td.ScanArgs(t, "n", &n)
	}
	g := NewAt(cfg, int64(at))
	var b strings.Builder
	var row repr.Row
	for range n {
		pos := g.Position()
		if !g.Next(&row) {
			b.WriteString("end\n")
			break
		}
		parts := make([]string, len(row))
		for i, d := range row {
			parts[i] = d.String()
		}
		fmt.Fprintf(&b, "%d (%s)\n", pos, strings.Join(parts, ", "))
	}
	return b.String()
}

// parseInput reads the column and option lines of a test case.
func parseInput(t *testing.T, input string) ([]Column, map[string]string) {
	var cols []Column
	opts := map[string]string{}
	for line := range strings.Lines(input) {
		line = strings.TrimSpace(line)
		if name, typ, ok := strings.Cut(strings.TrimPrefix(line, "col "), " "); ok && strings.HasPrefix(line, "col ") {
			cols = append(cols, Column{Name: name, Type: parseType(t, typ)})
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		opts[k] = v
	}
	return cols, opts
}

// parseType reads a type name with optional modifiers, e.g. numeric(5,2).
func parseType(t *testing.T, s string) repr.T {
	name, mods, _ := strings.Cut(s, "(")
	var typmods []int32
	for m := range strings.SplitSeq(strings.TrimSuffix(mods, ")"), ",") {
		if m == "" {
			continue
		}
		i, err := strconv.Atoi(m)
		if err != nil {
			t.Fatal(err)
		}
		typmods = append(typmods, int32(i))
	}
	if name == "char" {
		name = "bpchar" // as PostgreSQL's grammar reads char(n)
	}
	typ, err := repr.TypeByName(name, typmods)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

// formatError prints a user error with its SQLSTATE, detail and hint.
func formatError(err error) string {
	e := repr.ErrorFrom(err)
	s := fmt.Sprintf("error %s: %s\n", e.Code, e.Message)
	if e.Detail != "" {
		s += "detail: " + e.Detail + "\n"
	}
	if e.Hint != "" {
		s += "hint: " + e.Hint + "\n"
	}
	return s
}
