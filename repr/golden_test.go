package repr

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// The golden files under testdata/ hold expectations verified against
// PostgreSQL 15 (testdata/verify_pg.py replays them on a real server).
// Each command's input has one case per line; the output has one result
// per line. Commands take tz=<zone> for the session time zone.
//
//	text        <type> '<input>'            ParseText then FormatText
//	cast        <from> <to> '<input>'       ParseText(from) then explicit Cast
//	assign      <from> <to> '<input>'       ParseText(from) then assignment Cast
//	binary      <type> '<input>'            hex of AppendBinary, checked to round-trip
//	extract     <field> <type> '<input>'    Extract, printed as text
//	trunc       <unit> <type> '<input>'     DateTrunc of a timestamp(tz)
//	addinterval <type> '<ts>' '<interval>'  AddInterval
//	typename    <name> [mods...]            TypeByName
//	castctx     <from> <to>                 CastContextOf
//	literal     <literal>                   ParseLiteral then Datum.String
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.HasSuffix(path, ".py") || strings.HasSuffix(path, ".tsv") || strings.Contains(path, "/fuzz/") {
			return
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			loc := time.UTC
			var tz string
			if d.MaybeScanArgs(t, "tz", &tz) {
				var err error
				if loc, err = time.LoadLocation(tz); err != nil {
					t.Fatal(err)
				}
			}
			var out strings.Builder
			for _, line := range strings.Split(d.Input, "\n") {
				if strings.TrimSpace(line) == "" {
					continue
				}
				args := splitGoldenLine(line)
				if d.Cmd == "literal" {
					args = []string{line}
				}
				out.WriteString(bracketSpaces(runGoldenLine(t, d.Cmd, args, loc)))
				out.WriteString("\n")
			}
			return out.String()
		})
	})
}

// bracketSpaces wraps a result that is empty or has leading or trailing
// spaces in [ ], so golden lines stay unambiguous.
func bracketSpaces(s string) string {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return "[" + s + "]"
	}
	return s
}

// splitGoldenLine splits on spaces, keeping '...' (with ” escapes) whole
// and unquoted.
func splitGoldenLine(line string) []string {
	var toks []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] != '\'' {
			i := strings.IndexByte(line, ' ')
			if i < 0 {
				i = len(line)
			}
			toks = append(toks, line[:i])
			line = line[i:]
			continue
		}
		j := quotedEnd(line)
		toks = append(toks, unquoteLiteral(line[:j]))
		line = line[j:]
	}
	return toks
}

// quotedEnd returns the index just past the quoted string starting s.
func quotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i] == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(s)
}

func mustType(t *testing.T, name string) T {
	typ, err := parseTypeName(name)
	if err != nil {
		t.Fatalf("type %s: %v", name, err)
	}
	return typ
}

// errString prints an error as ERROR <code>: <message>.
func errString(err error) string {
	e := ErrorFrom(err)
	return fmt.Sprintf("ERROR %s: %s", e.Code, e.Message)
}

func runGoldenLine(t *testing.T, cmd string, a []string, loc *time.Location) string {
	result := func(d Datum, typ T, err error) string {
		if err != nil {
			return errString(err)
		}
		if d.IsNull() {
			return "NULL"
		}
		return FormatText(d, typ, loc)
	}
	switch cmd {
	case "text":
		typ := mustType(t, a[0])
		d, err := ParseText(a[1], typ, loc)
		return result(d, typ, err)
	case "cast", "assign":
		from, to := mustType(t, a[0]), mustType(t, a[1])
		d, err := ParseText(a[2], from, loc)
		if err == nil {
			d, err = Cast(d, from, to, loc, cmd == "cast")
		}
		return result(d, to, err)
	case "binary":
		return goldenBinary(t, a, loc)
	case "extract":
		typ := mustType(t, a[1])
		d, err := ParseText(a[2], typ, loc)
		if err == nil {
			d, err = Extract(a[0], d, typ, loc)
		}
		return result(d, Numeric, err)
	case "trunc":
		typ := mustType(t, a[1])
		d, err := ParseText(a[2], typ, loc)
		if err == nil {
			var tl *time.Location
			if typ.Family == FamTimestampTZ {
				tl = loc
			}
			d.i, err = DateTrunc(a[0], d.i, tl)
		}
		return result(d, typ, err)
	case "addinterval":
		return goldenAddInterval(t, a, loc)
	case "typename":
		var mods []int32
		for _, m := range a[1:] {
			var v int32
			fmt.Sscan(m, &v)
			mods = append(mods, v)
		}
		typ, err := TypeByName(a[0], mods)
		if err != nil {
			return errString(err)
		}
		return fmt.Sprintf("%s oid=%d typmod=%d", typ.Name(), typ.OID(), typ.TypeMod())
	case "castctx":
		return CastContextOf(mustType(t, a[0]), mustType(t, a[1])).String()
	case "literal":
		d, typ, err := ParseLiteral(strings.Join(a, " "))
		if err != nil {
			return errString(err)
		}
		return fmt.Sprintf("%s : %s", d.String(), typ.Name())
	}
	t.Fatalf("unknown command %s", cmd)
	return ""
}

func goldenBinary(t *testing.T, a []string, loc *time.Location) string {
	typ := mustType(t, a[0])
	d, err := ParseText(a[1], typ, loc)
	if err != nil {
		return errString(err)
	}
	b, err := AppendBinary(nil, d, typ)
	if err != nil {
		return errString(err)
	}
	back, err := ParseBinary(b, typ)
	if err != nil {
		t.Errorf("%v: ParseBinary: %v", a, err)
	} else if !identical(back, d) {
		t.Errorf("%v: binary round trip gave %s, want %s", a, back, d)
	}
	return hex.EncodeToString(b)
}

func goldenAddInterval(t *testing.T, a []string, loc *time.Location) string {
	typ := mustType(t, a[0])
	d, err := ParseText(a[1], typ, loc)
	if err != nil {
		return errString(err)
	}
	iv, err := ParseText(a[2], IntervalT, loc)
	if err != nil {
		return errString(err)
	}
	var tl *time.Location
	if typ.Family == FamTimestampTZ {
		tl = loc
	}
	d.i, err = AddInterval(d.i, iv.Interval(), tl)
	if err != nil {
		return errString(err)
	}
	return FormatText(d, typ, loc)
}
