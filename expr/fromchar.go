package expr

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

// to_date(text, template) and to_timestamp(text, template) read a date or
// timestamp with the to_char template patterns, as PostgreSQL's
// DCH_from_char does outside FX mode: leading spaces before a field are
// skipped, a template separator matches any one separator of the input
// (or nothing), numeric fields read up to their width in digits (fewer
// when a non-digit ends them), names match case-insensitively, input past
// the template is ignored and fields the template does not set default to
// January 1 of year 1 BC, 00:00. Supported fields: Y,YYY YYYY YYY YY Y,
// MM, DD, DDD, HH HH12 HH24, MI, SS, MS, US, FF1-FF6, AM/PM (with dots),
// Mon/Month, Dy/Day (read and ignored), BC/AD, TZH and TZM; others are
// 0A000.
func init() {
	t := repr.Text
	fn("to_date", repr.Date, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		f, err := fromChar(a[0].Text(), a[1].Text())
		if err != nil {
			return repr.Null, err
		}
		days, err := f.days(a[0].Text())
		return repr.NewDate(int32(days)), err
	}, t, t)
	f := fn("to_timestamp", repr.TimestampTZ, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		f, err := fromChar(a[0].Text(), a[1].Text())
		if err != nil {
			return repr.Null, err
		}
		days, err := f.days(a[0].Text())
		if err != nil {
			return repr.Null, err
		}
		if f.hour > 24 || f.min > 59 || f.sec > 59 || f.hour == 24 && f.min+f.sec+f.us > 0 {
			return repr.Null, errFieldRange(a[0].Text())
		}
		if days > maxTsDays || days < -maxTsDays {
			// the microseconds below would overflow int64
			return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "timestamp out of range")
		}
		wall := days*usPerDay + ((f.hour*60+f.min)*60+f.sec)*usPerSec + f.us
		if f.hasTZ {
			return checkTs(wall-f.tzOff*usPerSec, repr.TimestampTZ)
		}
		return checkTs(repr.LocalToUTC(wall, c.Location()), repr.TimestampTZ)
	}, t, t)
	f.zoned = true
}

// maxTsDays bounds the days of a to_timestamp result well past the
// timestamp range and short of int64 overflow in microseconds.
const maxTsDays = 100_000_000

// dtFields are the values read from the input.
type dtFields struct {
	year, month, day, doy        int64
	hour, min, sec, us           int64
	yearSet, pm, ampm, bc, hasTZ bool
	tzOff                        int64 // seconds east of UTC
}

func errFieldRange(s string) error {
	return repr.Errorf(repr.CodeDatetimeOverflow, "date/time field value out of range: \"%s\"", s)
}

// days returns the date the fields name, as days since 2000-01-01.
func (f *dtFields) days(input string) (int64, error) {
	y := f.year
	if f.bc && y > 0 {
		y = 1 - y
	}
	if !f.yearSet {
		y = 0
	}
	if y > 6_000_000 || y < -6_000_000 {
		return 0, repr.Errorf(repr.CodeDatetimeOverflow, "value for \"YYYY\" in source string is out of range")
	}
	m, d := max(f.month, 1), max(f.day, 1)
	if f.doy > 0 {
		if f.month > 0 || f.day > 0 || f.doy > repr.DaysFromCivil(y+1, 1, 1)-repr.DaysFromCivil(y, 1, 1) {
			return 0, errFieldRange(input)
		}
		return repr.DaysFromCivil(y, 1, 1) + f.doy - 1, nil
	}
	if !validDate(y, m, d) {
		return 0, errFieldRange(input)
	}
	return repr.DaysFromCivil(y, m, d), nil
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

var dayNames = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

// fromChar reads s with template tmpl.
func fromChar(s, tmpl string) (*dtFields, error) {
	items, err := compileToChar(tmpl)
	if err != nil {
		return nil, err
	}
	f := &dtFields{}
	p := 0
	for k, it := range items {
		if it.kw == "" {
			p = skipLiteral(s, p, it.lit)
			continue
		}
		for p < len(s) && s[p] == ' ' {
			p++
		}
		if p >= len(s) {
			break
		}
		nextNumeric := k+1 < len(items) && items[k+1].kw != "" && numericPattern(items[k+1].up)
		if p, err = f.readField(s, p, it, nextNumeric); err != nil {
			return nil, err
		}
		if it.th != "" && p+2 <= len(s) {
			p += 2
		}
	}
	if f.ampm {
		if f.hour < 1 || f.hour > 12 {
			return nil, repr.Errorf(repr.CodeDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", f.hour).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		f.hour %= 12
		if f.pm {
			f.hour += 12
		}
	}
	return f, nil
}

// skipLiteral advances over a literal piece of the template: spaces skip
// any spaces, a separator skips the input's run of separators and spaces
// (possibly empty), any other character skips one input character.
func skipLiteral(s string, p int, lit string) int {
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c == ' ':
			for p < len(s) && s[p] == ' ' {
				p++
			}
		case !isAlnum(c):
			for p < len(s) && !isAlnum(s[p]) {
				p++
			}
		case p < len(s):
			p++
		}
	}
	return p
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// fieldWidth is the digit width of a numeric field, 0 for others.
func fieldWidth(up string) int {
	switch up {
	case "YYYY", "Y,YYY", "IYYY":
		return 4
	case "YYY", "DDD", "MS", "IYY":
		return 3
	case "YY", "MM", "DD", "HH", "HH12", "HH24", "MI", "SS", "IY", "TZH", "TZM":
		return 2
	case "Y", "I":
		return 1
	case "US":
		return 6
	case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
		return int(up[2] - '0')
	}
	return 0
}

// numericPattern reports whether a template pattern reads digits: the
// fields fieldWidth knows and the ones to_date/to_timestamp refuse (so a
// year before them still reads only its 4 digits).
func numericPattern(up string) bool {
	switch up {
	case "IW", "ID", "IDDD", "WW", "W", "D", "J", "CC", "Q", "SSSS", "SSSSS":
		return true
	}
	return fieldWidth(up) > 0
}

// fracWidth is the most digits a fraction field takes (MS 3, US and
// FF1-FF6 6), 0 for other fields.
func fracWidth(up string) int {
	switch up {
	case "MS":
		return 3
	case "US", "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
		return 6
	}
	return 0
}

// set stores v in a field, which a template may set twice only to the
// same value (PostgreSQL's from_char_set_int).
func set(dst *int64, v int64, kw string) error {
	if *dst != 0 && *dst != v {
		return repr.Errorf(repr.CodeDatetimeFormat, "conflicting values for \"%s\" field in formatting string", kw).
			WithDetail("This value contradicts a previous setting for the same field type.")
	}
	*dst = v
	return nil
}

// readField reads one template field at s[p:].
func (f *dtFields) readField(s string, p int, it charItem, nextNumeric bool) (int, error) {
	if w := fieldWidth(it.up); w > 0 {
		return f.readNumber(s, p, it, w, nextNumeric)
	}
	switch it.up {
	case "MONTH", "MON":
		n, q, err := matchName(s, p, monthNames, it.up == "MON", it.kw)
		if err != nil {
			return q, err
		}
		return q, set(&f.month, int64(n+1), it.kw)
	case "DAY", "DY":
		_, q, err := matchName(s, p, dayNames, it.up == "DY", it.kw)
		return q, err
	case "AM", "PM", "A.M.", "P.M.":
		word := strings.ToUpper(s[p:min(len(s), p+len(it.up))])
		switch strings.ReplaceAll(word, ".", "") {
		case "AM":
			f.ampm = true
		case "PM":
			f.ampm, f.pm = true, true
		default:
			return p, errBadValue(s[p:], it.kw, "The given value did not match any of the allowed values for this field.")
		}
		return p + len(it.up), nil
	case "BC", "AD", "B.C.", "A.D.":
		word := strings.ToUpper(s[p:min(len(s), p+len(it.up))])
		f.bc = strings.HasPrefix(word, "B")
		return p + len(it.up), nil
	case "TZ", "OF":
		// PostgreSQL's own refusal, with its SQLSTATE and words
		return p, repr.Errorf(repr.CodeFeatureNotSupported, "formatting field \"%s\" is only supported in to_char", it.kw)
	}
	return p, repr.Unsupported("template pattern %s in to_date/to_timestamp", it.kw)
}

// readNumber reads a numeric field of at most w digits (more for the
// year when nothing numeric follows), with a sign for TZH.
func (f *dtFields) readNumber(s string, p int, it charItem, w int, nextNumeric bool) (int, error) {
	neg := false
	if it.up == "TZH" && p < len(s) && (s[p] == '+' || s[p] == '-') {
		neg = s[p] == '-'
		p++
	}
	if nextNumeric && !it.fm && len(s)-p < w {
		// A fixed-width field before another numeric one must be
		// whole, as in PostgreSQL: '19971' is not 'YYYYMMDD'.
		return p, repr.Errorf(repr.CodeDatetimeFormat, "source string too short for \"%s\" formatting field", it.kw).
			WithDetail("Field requires %d characters, but only %d remain.", w, len(s)-p).
			WithHint("If your source string is not fixed-width, try using the \"FM\" modifier.")
	}
	limit := w
	if (it.up == "YYYY" || it.up == "Y,YYY") && !nextNumeric {
		limit = 9
	}
	if fracWidth(it.up) > 0 && !nextNumeric {
		limit = 20 // all the digits: more than the field holds is 22008
	}
	q := p
	var v int64
	for q < len(s) && q-p < limit && (s[q] >= '0' && s[q] <= '9' || it.up == "Y,YYY" && s[q] == ',') {
		if s[q] != ',' {
			v = v*10 + int64(s[q]-'0')
		}
		q++
	}
	if q == p {
		end := p
		for end < len(s) && s[end] != ' ' {
			end++
		}
		return p, errBadValue(s[p:end], it.kw, "Value must be an integer.")
	}
	digits := int64(q - p)
	if fw := fracWidth(it.up); fw > 0 && digits > int64(fw) {
		return q, errFieldRange(s)
	}
	var err error
	switch it.up {
	case "YYYY", "Y,YYY", "IYYY":
		f.year, f.yearSet = v, true
	case "YYY", "YY", "Y":
		f.year, f.yearSet = adjustYear(v, int(digits)), true
	case "MM":
		err = set(&f.month, v, it.kw)
	case "DD":
		err = set(&f.day, v, it.kw)
	case "DDD":
		err = set(&f.doy, v, it.kw)
	case "HH", "HH12":
		err = set(&f.hour, v, it.kw)
		f.ampm = true
	case "HH24":
		err = set(&f.hour, v, it.kw)
	case "MI":
		err = set(&f.min, v, it.kw)
	case "SS":
		err = set(&f.sec, v, it.kw)
	case "MS":
		f.us = v * pow10(3-digits) * 1000
	case "US":
		f.us = v * pow10(6-digits)
	case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
		// The fraction is read whole and rounded to n digits, half
		// away from zero, as PostgreSQL rounds to the precision FFn
		// names ('56.12345' with FF4 is 56.1235).
		unit := pow10(6 - int64(it.up[2]-'0'))
		f.us = (v*pow10(6-digits) + unit/2) / unit * unit
	case "TZH":
		f.hasTZ, f.tzOff = true, v*3600
		if neg {
			f.tzOff = -f.tzOff
		}
	case "TZM":
		if f.tzOff < 0 {
			f.tzOff -= v * 60
		} else {
			f.tzOff += v * 60
		}
		f.hasTZ = true
	}
	return q, err
}

// adjustYear maps a 1-3 digit year to the nearest year as PostgreSQL's
// adjust_partial_year_to_2020 does.
func adjustYear(y int64, digits int) int64 {
	switch {
	case digits == 1:
		return y + 2000
	case digits == 2 && y < 70:
		return y + 2000
	case digits == 2:
		return y + 1900
	case digits == 3 && y < 100:
		return y + 2000
	case digits == 3:
		return y + 1000
	}
	return y
}

func pow10(n int64) int64 {
	r := int64(1)
	for ; n > 0; n-- {
		r *= 10
	}
	return r
}

// matchName matches a month or day name (or its three-letter
// abbreviation) at s[p:], returning its index.
func matchName(s string, p int, names []string, abbrev bool, kw string) (int, int, error) {
	low := strings.ToLower(s[p:])
	for i, n := range names {
		if !abbrev && strings.HasPrefix(low, n) {
			return i, p + len(n), nil
		}
		if abbrev && strings.HasPrefix(low, n[:3]) {
			return i, p + 3, nil
		}
	}
	end := p
	for end < len(s) && isAlnum(s[end]) {
		end++
	}
	return 0, p, errBadValue(s[p:max(end, min(len(s), p+1))], kw, "The given value did not match any of the allowed values for this field.")
}

func errBadValue(v, kw, detail string) error {
	return repr.Errorf(repr.CodeDatetimeFormat, "invalid value \"%s\" for \"%s\"", v, kw).WithDetail("%s", detail)
}
