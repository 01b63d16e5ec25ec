package expr

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/repr"
)

// to_char(timestamp|timestamptz, template) formats a timestamp with
// PostgreSQL's template patterns (functions-formatting.html): at each
// position the longest keyword wins, FM suppresses padding, TH/th append an
// ordinal suffix, "..." is literal text and any other character is copied.
// The TM prefix prints month and day names unpadded, in English: lc_time
// is C (SET lc_time accepts only C and POSIX). TZ and tz print the zone's
// abbreviation for timestamptz and nothing for timestamp; OF, TZH and TZM
// its UTC offset (+00 for timestamp). FM and TM together fail with 0A000
// (PostgreSQL takes one prefix and prints the other's letters).
//
// A literal template is compiled once when the call is folded (Func.bind):
// the bound overload formats with the compiled items and never rescans the
// template per row.
func init() {
	for _, ty := range []repr.T{repr.Timestamp, repr.TimestampTZ} {
		ty := ty
		impl := func(items []charItem) implFn {
			return func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
				us := a[0].Micros()
				if isInfTs(us) {
					return repr.Null, nil
				}
				loc := time.UTC
				if ty.Family == repr.FamTimestampTZ {
					loc = c.Location()
				}
				var s string
				var err error
				zoned := ty.Family == repr.FamTimestampTZ
				if items != nil {
					s, err = runToChar(tsToTime(us, loc), items, zoned)
				} else {
					s, err = toChar(tsToTime(us, loc), a[1].Text(), zoned)
				}
				if err != nil {
					return repr.Null, err
				}
				return checkLen(s)
			}
		}
		f := fn("to_char", repr.Text, impl(nil), ty, repr.Text)
		f.zoned = ty.Family == repr.FamTimestampTZ
		f.bind = func(args []Expr) *Func {
			l, ok := args[1].(*Lit)
			if !ok || l.D.IsNull() {
				return nil
			}
			items, err := compileToChar(l.D.Text())
			if err != nil || items == nil {
				return nil // the error surfaces per row, as unbound
			}
			g := *f
			g.Impl, g.bind = impl(items), nil
			return &g
		}
	}
}

// dchKeywords are the template keywords, longest first among those sharing
// a prefix (the scan takes the first that matches).
var dchKeywords = []string{
	"A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
	"FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FX", "HH24", "HH12", "HH", "IDDD", "ID", "IW",
	"IYYY", "IYY", "IY", "I", "J", "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF",
	"P.M.", "PM", "Q", "RM", "SSSSS", "SSSS", "SS", "TZH", "TZM", "TZ", "US", "WW", "W",
	"Y,YYY", "YYYY", "YYY", "YY", "Y",
	"a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy", "d",
	"ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw",
	"iyyy", "iyy", "iy", "i", "j", "mi", "mm", "month", "mon", "ms", "of",
	"p.m.", "pm", "q", "rm", "sssss", "ssss", "ss", "tzh", "tzm", "tz", "us", "ww", "w",
	"y,yyy", "yyyy", "yyy", "yy", "y",
}

// charItem is one compiled piece of a to_char template: literal text, or
// a keyword (kw as spelled, up in upper case) with its FM or TM prefix
// and TH/th suffix.
type charItem struct {
	lit    string
	kw, up string
	fm, tm bool
	th     string
}

// toChar formats t (already in the display time zone) with template
// tmpl; zoned says t is a timestamptz (TZ prints its zone).
func toChar(t time.Time, tmpl string, zoned bool) (string, error) {
	items, err := compileToChar(tmpl)
	if err != nil {
		return "", err
	}
	return runToChar(t, items, zoned)
}

// compileToChar splits tmpl into items; it fails on the FM and TM
// prefixes together. An empty template compiles to an empty non-nil slice.
func compileToChar(tmpl string) ([]charItem, error) {
	items := []charItem{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			items = append(items, charItem{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(tmpl); {
		fm, tm := false, false
		for {
			switch {
			case strings.HasPrefix(tmpl[i:], "FM") || strings.HasPrefix(tmpl[i:], "fm"):
				fm, i = true, i+2
				continue
			case strings.HasPrefix(tmpl[i:], "TM") || strings.HasPrefix(tmpl[i:], "tm"):
				tm, i = true, i+2
				continue
			}
			break
		}
		if fm && tm {
			return nil, repr.Unsupported("to_char template prefixes FM and TM on one pattern")
		}
		if i >= len(tmpl) {
			break
		}
		kw := matchKeyword(tmpl[i:])
		if kw == "" {
			i = copyLiteral(&lit, tmpl, i)
			continue
		}
		flush()
		i += len(kw)
		it := charItem{kw: kw, up: strings.ToUpper(kw), fm: fm, tm: tm}
		if i+1 < len(tmpl) && (tmpl[i:i+2] == "TH" || tmpl[i:i+2] == "th") && thAllowed(it.up) {
			it.th = tmpl[i : i+2]
			i += 2
		}
		items = append(items, it)
	}
	flush()
	return items, nil
}

// thAllowed reports whether a TH/th suffix after the keyword (upper case)
// is an ordinal suffix: only numeric fields take one.
func thAllowed(up string) bool {
	switch up {
	case "MONTH", "MON", "DAY", "DY", "RM", "AM", "PM", "A.M.", "P.M.", "AD", "BC", "A.D.", "B.C.", "FX":
		return false
	}
	return true
}

// runToChar formats t with compiled items; zoned says t is a timestamptz.
func runToChar(t time.Time, items []charItem, zoned bool) (string, error) {
	var b strings.Builder
	for _, it := range items {
		if it.kw == "" {
			b.WriteString(it.lit)
			continue
		}
		s, numeric, err := formatField(t, it, zoned)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		if numeric && it.th != "" {
			b.WriteString(ordinal(s, it.th == "TH"))
		}
	}
	return b.String(), nil
}

// matchKeyword returns the keyword at the start of s, or "".
func matchKeyword(s string) string {
	for _, k := range dchKeywords {
		if strings.HasPrefix(s, k) {
			return k
		}
	}
	return ""
}

// copyLiteral copies the literal text at tmpl[i:]: a "quoted" run (with \"
// for a quote), a backslash-escaped quote, or one character. It returns
// the next position.
func copyLiteral(b *strings.Builder, tmpl string, i int) int {
	switch {
	case tmpl[i] == '"':
		i++
		for i < len(tmpl) && tmpl[i] != '"' {
			if tmpl[i] == '\\' && i+1 < len(tmpl) {
				i++
			}
			b.WriteByte(tmpl[i])
			i++
		}
		return i + 1
	case tmpl[i] == '\\' && i+1 < len(tmpl) && tmpl[i+1] == '"':
		b.WriteByte('"')
		return i + 2
	}
	b.WriteByte(tmpl[i])
	return i + 1
}

// formatField formats one keyword; numeric reports whether TH may follow.
func formatField(t time.Time, it charItem, zoned bool) (string, bool, error) {
	kw, up, fm := it.kw, it.up, it.fm
	if s, ok := textField(t, kw, up, fm, it.tm); ok {
		return s, false, nil
	}
	if s, ok := zoneField(t, kw, up, fm, zoned); ok {
		return s, false, nil
	}
	num := func(v, width int) (string, bool, error) {
		return padNum(v, width, fm), true, nil
	}
	year := t.Year()
	if year <= 0 {
		year = 1 - year // 1 BC is year 0 in Go
	}
	isoWeek := func() (int, int) { return t.ISOWeek() }
	us := t.Nanosecond() / 1000
	h := t.Hour()
	switch up {
	case "YYYY":
		return num(year, 4)
	case "Y,YYY":
		return fmt.Sprintf("%d,%03d", year/1000, year%1000), true, nil
	case "YYY":
		return num(year%1000, 3)
	case "YY":
		return num(year%100, 2)
	case "Y":
		return num(year%10, 1)
	case "IYYY", "IYY", "IY", "I":
		isoYear, _ := isoWeek()
		width := len(up)
		return num(isoYear%[...]int{10, 100, 1000, 1 << 62}[width-1], width)
	case "CC":
		return num((year+99)/100, 2)
	case "MM":
		return num(int(t.Month()), 2)
	case "DD":
		return num(t.Day(), 2)
	case "DDD":
		return num(t.YearDay(), 3)
	case "IDDD":
		_, w := isoWeek()
		return num((w-1)*7+(int(t.Weekday())+6)%7+1, 3)
	case "D":
		return num(int(t.Weekday())+1, 1)
	case "ID":
		return num((int(t.Weekday())+6)%7+1, 1)
	case "WW":
		return num((t.YearDay()-1)/7+1, 2)
	case "W":
		return num((t.Day()-1)/7+1, 1)
	case "IW":
		_, w := isoWeek()
		return num(w, 2)
	case "Q":
		return num((int(t.Month())-1)/3+1, 1)
	case "J":
		return num(int(floorDiv(t.Unix(), 86400))+2440588, 1)
	case "HH24":
		return num(h, 2)
	case "HH12", "HH":
		return num((h+11)%12+1, 2)
	case "MI":
		return num(t.Minute(), 2)
	case "SS":
		return num(t.Second(), 2)
	case "SSSS", "SSSSS":
		return num(h*3600+t.Minute()*60+t.Second(), 1)
	case "MS":
		return num(us/1000, 3)
	case "US":
		return num(us, 6)
	case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
		n := int(kw[2] - '0')
		return fmt.Sprintf("%06d", us)[:n], true, nil
	case "FX":
		return "", false, nil
	}
	return "", false, repr.Unsupported("to_char template pattern %s", kw)
}

// zoneField formats the time zone keywords, as PostgreSQL's DCH_TZ,
// DCH_OF, DCH_TZH and DCH_TZM: a timestamp (not zoned) has no zone name
// and offset zero.
func zoneField(t time.Time, kw, up string, fm, zoned bool) (string, bool) {
	name, off := t.Zone()
	if !zoned {
		name, off = "", 0
	}
	sign := map[bool]string{true: "+", false: "-"}[off >= 0]
	if off < 0 {
		off = -off
	}
	h, m := off/3600, off%3600/60
	switch up {
	case "TZ":
		if kw == "tz" {
			return strings.ToLower(name), true
		}
		return strings.ToUpper(name), true
	case "OF":
		s := sign + padNum(h, 2, fm)
		if off%3600 != 0 {
			s += fmt.Sprintf(":%02d", m)
		}
		return s, true
	case "TZH":
		return fmt.Sprintf("%s%02d", sign, h), true
	case "TZM":
		return fmt.Sprintf("%02d", m), true
	}
	return "", false
}

var romanMonths = [...]string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}

// textField formats the keywords whose output is text; the keyword's case
// sets the output's (Month: Capitalized, MONTH: upper, month: lower).
// TM (tm) leaves the month and day names unpadded, not RM.
func textField(t time.Time, kw, up string, fm, tm bool) (string, bool) {
	pad := func(s string, w int) string {
		if fm || tm && w == 9 {
			return s
		}
		return fmt.Sprintf("%-*s", w, s)
	}
	switch up {
	case "MONTH", "MON", "DAY", "DY", "RM", "AM", "PM", "A.M.", "P.M.", "AD", "BC", "A.D.", "B.C.":
	default:
		return "", false
	}
	month, day := t.Month().String(), t.Weekday().String()
	var s string
	switch up {
	case "MONTH":
		s = pad(month, 9)
	case "MON":
		s = month[:3]
	case "DAY":
		s = pad(day, 9)
	case "DY":
		s = day[:3]
	case "RM":
		s = pad(romanMonths[t.Month()-1], 4)
	case "AM", "PM", "A.M.", "P.M.":
		s = map[bool]string{true: "AM", false: "PM"}[t.Hour() < 12]
		if strings.Contains(kw, ".") {
			s = s[:1] + "." + s[1:] + "."
		}
	case "AD", "BC", "A.D.", "B.C.":
		s = map[bool]string{true: "AD", false: "BC"}[t.Year() > 0]
		if strings.Contains(kw, ".") {
			s = s[:1] + "." + s[1:] + "."
		}
	default:
		return "", false
	}
	switch {
	case kw == strings.ToLower(kw):
		return strings.ToLower(s), true
	case kw == up:
		return strings.ToUpper(s), true
	}
	return s, true // Month, Mon, Day, Dy: as spelled in English
}

// padNum prints v zero-padded to width digits (unpadded with FM), as
// fmt's %0*d would: a minus sign counts toward the width.
func padNum(v, width int, fm bool) string {
	s := strconv.Itoa(v)
	if fm || len(s) >= width {
		return s
	}
	if v < 0 {
		return "-" + strings.Repeat("0", width-len(s)) + s[1:]
	}
	return strings.Repeat("0", width-len(s)) + s
}

// ordinal returns the English ordinal suffix of the number printed as s.
func ordinal(s string, upper bool) string {
	suf := "th"
	n := len(s)
	switch {
	case n >= 2 && s[n-2] == '1':
	case s[n-1] == '1':
		suf = "st"
	case s[n-1] == '2':
		suf = "nd"
	case s[n-1] == '3':
		suf = "rd"
	}
	if upper {
		return strings.ToUpper(suf)
	}
	return suf
}
