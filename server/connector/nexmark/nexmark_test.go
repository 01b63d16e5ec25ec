package nexmark

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
)

// TestGolden runs the datadriven files in testdata:
//
//	generate [seed=S] [rate=R] [num=N] [base=MS] [at=K] [n=COUNT] [type=T] [full]
//	    prints COUNT events from event K (all types, or only type T via
//	    NextOf); long strings are abbreviated unless full is given.
//	options
//	<key>=<value> lines
//	    prints the parsed config and table type, or the error and SQLSTATE.
//	columns type=T
//	    prints T's columns.
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "generate":
				return runGenerate(t, td)
			case "options":
				return runOptions(td.Input)
			case "columns":
				return runColumns(t, td)
			}
			t.Fatalf("unknown command %s", td.Cmd)
			return ""
		})
	})
}

// runGenerate implements the generate command.
func runGenerate(t *testing.T, td *datadriven.TestData) string {
	cfg := DefaultConfig()
	var at, count int64 = 0, 10
	typ, full := "", td.HasArg("full")
	for _, a := range td.CmdArgs {
		switch a.Key {
		case "seed":
			cfg.Seed = uint64(argInt(t, a.Vals))
		case "rate":
			cfg.EventRate = argInt(t, a.Vals)
		case "num":
			cfg.NumEvents = argInt(t, a.Vals)
		case "base":
			cfg.BaseTime = argInt(t, a.Vals)
		case "at":
			at = argInt(t, a.Vals)
		case "n":
			count = argInt(t, a.Vals)
		case "type":
			typ = a.Vals[0]
		}
	}
	g := NewAt(cfg, at)
	var b strings.Builder
	var row repr.Row
	for range count {
		n, tt, ok := g.Position(), TableType(0), false
		if typ != "" {
			tt, _ = parseTableType("type", typ)
			n, ok = g.NextOf(tt, &row)
		} else {
			tt, ok = g.Next(&row)
		}
		if !ok {
			b.WriteString("end\n")
			break
		}
		fmt.Fprintf(&b, "%d %s %s\n", n, tt, formatRow(row, full))
	}
	return b.String()
}

// argInt reads an integer argument.
func argInt(t *testing.T, vals []string) int64 {
	i, err := strconv.ParseInt(vals[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// formatRow prints row in the literal form, abbreviating strings longer
// than 30 bytes to their prefix and length unless full.
func formatRow(row repr.Row, full bool) string {
	parts := make([]string, len(row))
	for i, d := range row {
		if s := d.Text(); !full && d.Family() == repr.FamText && len(s) > 30 {
			parts[i] = fmt.Sprintf("'%s'...(%d)", s[:20], len(s))
			continue
		}
		parts[i] = d.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// runOptions implements the options command.
func runOptions(input string) string {
	opts := map[string]string{}
	for line := range strings.Lines(input) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
		opts[k] = v
	}
	cfg, tt, err := ParseOptions(opts)
	if err != nil {
		return formatError(err)
	}
	return fmt.Sprintf("type=%s rate=%d num=%d seed=%d base=%d max_emit_speed=%t\n",
		tt, cfg.EventRate, cfg.NumEvents, cfg.Seed, cfg.BaseTime, cfg.MaxEmitSpeed)
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

// runColumns implements the columns command.
func runColumns(t *testing.T, td *datadriven.TestData) string {
	var typ string
	td.ScanArgs(t, "type", &typ)
	tt, err := parseTableType("type", typ)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range tt.Columns() {
		fmt.Fprintf(&b, "%s %s\n", c.Name, c.Type.Name())
	}
	return b.String()
}
