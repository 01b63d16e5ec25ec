package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
)

// TestDataDriven runs the golden files in testdata/. Commands:
//
//	eval [tz=Zone] [cols=t1,t2] [row=v1,v2]: one expression per line; prints
//	   its parsed form, result type and value (or SQLSTATE and message).
//	fold: prints each expression after Fold.
//	resolve: lines "op <name> <types...>" or "func <name> <types...>";
//	   prints the chosen signature and argument coercions.
//	common <context>: lines of type lists; prints CommonType.
//	tablefn [tz=Zone] [cols=...] [row=...]: one table function call per
//	   line (name(args)); prints the resolved call, its column types and its
//	   rows (or SQLSTATE and message).
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var out strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				if line = strings.TrimSpace(line); line == "" {
					continue
				}
				out.WriteString(runLine(t, d, line) + "\n")
			}
			return out.String()
		})
	})
}

func runLine(t *testing.T, d *datadriven.TestData, line string) string {
	switch d.Cmd {
	case "eval":
		return evalLine(t, d, line)
	case "fold":
		e, err := ParseExpr(line, testCols(t, d))
		if err != nil {
			return errString(err)
		}
		return Fold(e).String()
	case "resolve":
		return resolveLine(t, line)
	case "tablefn":
		return tableFnLine(t, d, line)
	case "common":
		ts := parseTypes(t, line)
		ct, err := CommonType(ts, d.CmdArgs[0].Key)
		if err != nil {
			return errString(err)
		}
		return TypeName(ct)
	}
	t.Fatalf("unknown command %s", d.Cmd)
	return ""
}

func evalLine(t *testing.T, d *datadriven.TestData, line string) string {
	cols := testCols(t, d)
	e, err := ParseExpr(line, cols)
	if err != nil {
		return errString(err)
	}
	// The printed form must parse back to the same expression.
	if again, err := ParseExpr(e.String(), cols); err != nil || again.String() != e.String() {
		t.Errorf("%s: String() %q does not round-trip: %v %v", line, e.String(), again, err)
	}
	ctx := &Ctx{StmtTimestamp: 789_012_345_678_901, TimeZone: "UTC"}
	if d.HasArg("tz") {
		d.ScanArgs(t, "tz", &ctx.TimeZone)
	}
	v, err := e.Eval(ctx, testRow(t, d, cols))
	if err != nil {
		return fmt.Sprintf("%s: %s", e, errString(err))
	}
	return fmt.Sprintf("%s: %s %s", e, TypeName(e.Type()), showDatum(v, e.Type(), ctx))
}

func showDatum(v repr.Datum, t repr.T, ctx *Ctx) string {
	if v.IsNull() {
		return "NULL"
	}
	return "[" + formatText(v, t, ctx.Location()) + "]"
}

func errString(err error) string {
	return "error " + repr.ErrorCode(err) + ": " + err.Error()
}

func testCols(t *testing.T, d *datadriven.TestData) []repr.T {
	if !d.HasArg("cols") {
		return nil
	}
	var names []string
	d.ScanArgs(t, "cols", &names)
	return parseTypes(t, strings.Join(names, " "))
}

func parseTypes(t *testing.T, s string) []repr.T {
	var ts []repr.T
	for _, f := range strings.Fields(s) {
		if f == "unknown" {
			ts = append(ts, repr.Unknown)
			continue
		}
		e, err := ParseExpr("NULL::"+f, nil)
		if err != nil {
			t.Fatalf("type %s: %v", f, err)
		}
		ts = append(ts, e.Type())
	}
	return ts
}

// testRow evaluates the row=(...) literals, one per column.
func testRow(t *testing.T, d *datadriven.TestData, cols []repr.T) repr.Row {
	if !d.HasArg("row") {
		return nil
	}
	var vals []string
	d.ScanArgs(t, "row", &vals)
	row := make(repr.Row, len(vals))
	for i, v := range vals {
		e, err := ParseExpr(v, nil)
		if err != nil {
			t.Fatalf("row value %s: %v", v, err)
		}
		if row[i], err = NewCast(e, cols[i]).Eval(&Ctx{}, nil); err != nil {
			t.Fatalf("row value %s: %v", v, err)
		}
	}
	return row
}

func resolveLine(t *testing.T, line string) string {
	f := strings.Fields(line)
	args := parseTypes(t, strings.Join(f[2:], " "))
	var fn *Func
	var casts []repr.T
	var err error
	if f[0] == "op" {
		fn, casts, err = ResolveOp(f[1], args)
	} else {
		fn, casts, err = ResolveFunc(f[1], args)
	}
	if err != nil {
		return line + ": " + errString(err) + " (hint: " + err.(*repr.Error).Hint + ")"
	}
	return fmt.Sprintf("%s: %s(%s) -> %s; args %s", line, fn.Name, typeNames2(fn.Args), TypeName(fn.Ret), typeNames2(casts))
}

func typeNames2(ts []repr.T) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = TypeName(t)
	}
	return strings.Join(s, ",")
}

// tableFnLine resolves and runs one table function call.
func tableFnLine(t *testing.T, d *datadriven.TestData, line string) string {
	cols := testCols(t, d)
	name, rest, _ := strings.Cut(line, "(")
	var args []Expr
	var ts []repr.T
	if inner := strings.TrimSuffix(strings.TrimSpace(rest), ")"); strings.TrimSpace(inner) != "" {
		for _, a := range splitArgs(inner) {
			e, err := ParseExpr(a, cols)
			if err != nil {
				return errString(err)
			}
			args, ts = append(args, e), append(ts, e.Type())
		}
	}
	f, want, err := ResolveTableFunc(name, ts)
	if err != nil {
		return errString(err)
	}
	for i := range args {
		args[i] = NewCast(args[i], want[i])
	}
	call := TableCall{Func: f, Args: args}
	// The printed call must parse back to itself.
	if again, err := ParseTableCall(call.String(), cols); err != nil || again.String() != call.String() {
		t.Errorf("%s: %q does not round-trip: %v", line, call.String(), err)
	}
	ctx := &Ctx{StmtTimestamp: 789_012_345_678_901, TimeZone: "UTC"}
	if d.HasArg("tz") {
		d.ScanArgs(t, "tz", &ctx.TimeZone)
	}
	rows, err := call.Eval(ctx, testRow(t, d, cols))
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> (%s)", call, typeList(f.ColTypes()))
	if err != nil {
		return b.String() + ": " + errString(err)
	}
	for _, r := range rows {
		vals := make([]string, len(r))
		for i, v := range r {
			vals[i] = showDatum(v, f.Cols[i].T, ctx)
		}
		b.WriteString("\n  " + strings.Join(vals, " "))
	}
	if len(rows) == 0 {
		b.WriteString("\n  (no rows)")
	}
	return b.String()
}
