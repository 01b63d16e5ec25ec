package expr

import (
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestToCharBound checks that folding binds to_char with a literal template
// to a compiled overload, and that the bound call formats every timestamp
// exactly as the unbound call that parses the template per row.
func TestToCharBound(t *testing.T) {
	templates := []string{
		"YYYY-MM-DD", "HH24:MI", "HH12:MI:SS AM", "hh:mi pm a.m. P.M.", "MS US FF1 FF3 FF6",
		"Month|MONTH|month|Mon|MON|mon", "FMMonth|FMDay|FMDD|FMMM", "Day|DAY|day|Dy|DY|dy",
		"D DDD ID IW IYYY IYY IY I IDDD WW W Q CC J", "YYY YY Y Y,YYY SSSS SSSSS",
		"DDth DDTH FMDDth MonthTH DYth", `"Year" YYYY "at" HH24\"x`, "RM rm AD bc B.C. a.d.",
		"xyz YYYYMMDD", "", "FX YYYY", "FM", "TZ", "YYYYTMDD",
	}
	stamps := []string{"2024-03-05 14:07:09.123456", "2021-01-01 00:00:00", "0044-03-15 12:00:00",
		"2024-12-30 23:59:59.999999", "1999-01-03 01:02:03"}
	for _, ty := range []string{"timestamp", "timestamptz"} {
		colT := parseTypes(t, ty)
		for _, tmpl := range templates {
			e, err := ParseExpr("to_char(#0, '"+tmpl+"')", colT)
			if err != nil {
				t.Fatalf("%s: %v", tmpl, err)
			}
			bound := Fold(e)
			if bound.(*Call).Fn == e.(*Call).Fn && tmpl != "TZ" && tmpl != "YYYYTMDD" {
				t.Errorf("to_char(%s, %q) was not bound", ty, tmpl)
			}
			for _, s := range stamps {
				ts, err := ParseExpr("'"+s+"'::"+ty, nil)
				if err != nil {
					t.Fatal(err)
				}
				ctx := &Ctx{TimeZone: "America/New_York"}
				d, err := ts.Eval(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				row := repr.Row{d}
				want, werr := e.Eval(ctx, row)
				got, gerr := bound.Eval(ctx, row)
				if (werr == nil) != (gerr == nil) || want.IsNull() != got.IsNull() || (werr == nil && !want.IsNull() && want.Text() != got.Text()) {
					t.Errorf("to_char(%s %s, %q): bound %v %v, unbound %v %v", ty, s, tmpl, got, gerr, want, werr)
				}
			}
		}
	}
}
