package repr

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// dtFields are the fields of a date/time input string, as PostgreSQL's
// DecodeDateTime collects them before building a value.
type dtFields struct {
	year, mon, day  int64
	hasDate, bc     bool
	yearTwoDigits   bool
	hour, min, usec int64 // usec: microseconds within the minute
	hasTime         bool
	pm, am          bool
	tzOff           int64 // seconds east of UTC
	hasTZ           bool
	zone            *time.Location
	dynAbbrev       string   // a dynamic zone abbreviation (tzAbbrevs), resolved at the wall time
	numbers         []string // bare numbers awaiting a textual month
	// ref reads 'today', 'tomorrow' and 'yesterday'; nil refuses them
	// (0A000), as where no statement time is known.
	ref *nowRef
	// dow says a day of the week was given, which PostgreSQL reads only
	// beside a month name (monthWord): "Mon Feb 10 1997", not "Mon 1997-02-10".
	dow, monthWord bool
}

// monthNames maps month names and their three-letter abbreviations.
var monthNames = func() map[string]int64 {
	m := map[string]int64{"sept": 9}
	for i := time.January; i <= time.December; i++ {
		full := strings.ToLower(i.String())
		m[full], m[full[:3]] = int64(i), int64(i)
	}
	return m
}()

// dayNames are the day-of-week words PostgreSQL's datetktbl knows.
var dayNames = map[string]bool{"sun": true, "sunday": true, "mon": true, "monday": true, "tue": true,
	"tues": true, "tuesday": true, "wed": true, "wednesday": true, "thu": true, "thur": true,
	"thurs": true, "thursday": true, "fri": true, "friday": true, "sat": true, "saturday": true}

// errUnsupportedSpecial reports 'now', 'today' and friends: Eddy's core
// never reads the clock; the planner must fold them.
func errUnsupportedSpecial(s string) error {
	return Unsupported("date/time input %q", s)
}

// parseDateTimeFields splits s into fields and decodes them. what names
// the type for syntax errors.
func parseDateTimeFields(s string, t T, ref *nowRef) (*dtFields, error) {
	f := &dtFields{ref: ref}
	tokens := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r' })
	if len(tokens) == 0 {
		return nil, errDatetimeSyntax(t, s)
	}
	for _, tok := range tokens {
		if err := f.decodeToken(tok, s, t); err != nil {
			return nil, err
		}
	}
	if err := f.resolveTextMonth(s, t); err != nil {
		return nil, err
	}
	if f.dow && !f.monthWord {
		return nil, errDatetimeSyntax(t, s)
	}
	return f, f.validate(s)
}

// decodeToken decodes one whitespace-separated field.
func (f *dtFields) decodeToken(tok, s string, t T) error {
	low := asciiLower(tok)
	// ISO 8601 "2024-01-02T03:04:05".
	if i := strings.IndexByte(low, 't'); i > 0 && isDigit(low[i-1]) && i+1 < len(low) && isDigit(low[i+1]) {
		if err := f.decodeToken(tok[:i], s, t); err != nil {
			return err
		}
		return f.decodeToken(tok[i+1:], s, t)
	}
	switch {
	case strings.IndexByte(low, ':') >= 0 && !f.hasTime && isDigit(low[0]):
		return f.decodeTime(low, s, t)
	case (low[0] == '+' || low[0] == '-') && (f.hasTime || f.hasDate) && len(low) > 1 && isDigit(low[1]):
		return f.decodeOffset(low, s, t)
	case isAlpha(low[0]) && strings.ContainsAny(low, "+-") && !f.hasZone() && f.posixZone(tok):
		return nil
	case isDigit(low[0]) && strings.ContainsAny(low, "-/.") || isAlpha(low[0]) && strings.ContainsAny(low, "-/."):
		// Only a token like "Europe/Paris" can name a zone: trying every
		// date token with LoadLocation (a tzdata file read) cost ~100µs.
		if isAlpha(low[0]) && strings.Contains(tok, "/") {
			if z, err := time.LoadLocation(tok); err == nil {
				f.zone = z
				return nil
			}
		}
		return f.decodeDate(low, s, t)
	case isDigit(low[0]):
		return f.decodeNumber(low, s, t)
	}
	return f.decodeWord(tok, low, s, t)
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// decodeWord handles month names, AM/PM, BC/AD, and time zone names.
func (f *dtFields) decodeWord(tok, low, s string, t T) error {
	if delta, ok := relativeDays[low]; ok {
		return f.setRelativeDay(delta, s, t)
	}
	if low == "now" && f.ref == nil {
		return errUnsupportedSpecial(s)
	}
	if low == "now" {
		return errDatetimeSyntax(t, s) // only alone, as Eddy reads it
	}
	if m, ok := monthNames[low]; ok && f.mon == 0 {
		f.mon, f.monthWord = m, true
		return nil
	}
	if dayNames[low] && t.Family != FamTime {
		f.dow = true // read and ignored, as PostgreSQL does
		return nil
	}
	switch low {
	case "bc":
		f.bc = true
	case "ad":
	case "am":
		f.am = true
	case "pm":
		f.pm = true
	default:
		if f.hasZone() {
			return errDatetimeSyntax(t, s) // a second zone, as DecodeDateTime's field mask refuses
		}
		if a, ok := LookupTZAbbrev(low); ok {
			f.setAbbrev(a, low)
			return nil
		}
		z, err := time.LoadLocation(tok)
		if err != nil || tok == "" || tok == "Local" {
			return errDatetimeSyntax(t, s)
		}
		f.zone = z
	}
	return nil
}

// posixZone reads a POSIX offset zone named by letters ("UTC+3", "GMT-5":
// hours west of Greenwich), reporting whether tok is one.
func (f *dtFields) posixZone(tok string) bool {
	i := 0
	for i < len(tok) && isAlpha(tok[i]) {
		i++
	}
	if _, month := monthNames[asciiLower(tok[:i])]; month {
		return false // "Dec-1": a date with a month name, as DecodeDateTime decides
	}
	z, ok := POSIXZone(tok, true)
	if !ok {
		return false
	}
	_, off := time.Unix(0, 0).In(z).Zone()
	f.tzOff, f.hasTZ = int64(off), true
	return true
}

// hasZone reports whether a zone (offset, abbreviation or name) was read.
func (f *dtFields) hasZone() bool { return f.hasTZ || f.zone != nil || f.dynAbbrev != "" }

// setAbbrev records zone abbreviation a (named low): a fixed one is an
// offset, a dynamic one is resolved when the wall time is known.
func (f *dtFields) setAbbrev(a TZAbbrev, low string) {
	if a.Zone != "" {
		f.dynAbbrev = low
		return
	}
	f.tzOff, f.hasTZ = int64(a.Offset), true
}

// decodeDate handles Y-M-D, M/D/Y, D-Mon-Y, Y-Mon-D and dotted dates.
func (f *dtFields) decodeDate(low, s string, t T) error {
	parts := strings.FieldsFunc(low, func(r rune) bool { return r == '-' || r == '/' || r == '.' })
	if len(parts) != 3 || f.hasDate {
		return errDatetimeSyntax(t, s)
	}
	mi := -1
	for i, p := range parts {
		if m, ok := monthNames[p]; ok {
			f.mon, mi = m, i
		} else if !allDigits(p) {
			return errDatetimeSyntax(t, s)
		}
	}
	var y, d string
	switch {
	case mi == 1 && len(parts[0]) > 2:
		y, d = parts[0], parts[2]
	case mi == 1:
		d, y = parts[0], parts[2]
	case mi == 0:
		d, y = parts[1], parts[2]
	case mi > 0:
		return errDatetimeSyntax(t, s)
	case len(parts[0]) > 2:
		y, d = parts[0], parts[2]
		f.mon = atoi(parts[1])
	default: // MDY
		f.mon, d, y = atoi(parts[0]), parts[1], parts[2]
	}
	f.day, f.year = atoi(d), atoi(y)
	f.yearTwoDigits = len(y) <= 2
	f.hasDate = true
	return nil
}

// decodeNumber handles YYYYMMDD and the bare numbers of a textual date.
func (f *dtFields) decodeNumber(low, s string, t T) error {
	if !allDigits(low) {
		return errDatetimeSyntax(t, s)
	}
	if len(low) == 8 && !f.hasDate {
		f.year, f.mon, f.day = atoi(low[:4]), atoi(low[4:6]), atoi(low[6:])
		f.hasDate = true
		return nil
	}
	f.numbers = append(f.numbers, low)
	return nil
}

// resolveTextMonth assigns day and year from bare numbers beside a month
// name ("Jan 2 2024", "2 January 2024").
func (f *dtFields) resolveTextMonth(s string, t T) error {
	if len(f.numbers) == 0 {
		return nil
	}
	if f.hasDate || f.mon == 0 || len(f.numbers) != 2 {
		return errDatetimeSyntax(t, s)
	}
	a, b := f.numbers[0], f.numbers[1]
	if len(a) > 2 {
		a, b = b, a
	}
	f.day, f.year = atoi(a), atoi(b)
	f.yearTwoDigits = len(b) <= 2
	f.hasDate = true
	return nil
}

// decodeTime handles HH:MM[:SS[.frac]] with an optional zone suffix.
func (f *dtFields) decodeTime(low, s string, t T) error {
	if i := strings.IndexAny(low, "+-z"); i > 0 {
		if err := f.decodeOffset(low[i:], s, t); err != nil {
			return err
		}
		low = low[:i]
	}
	parts := strings.Split(low, ":")
	if len(parts) < 2 || len(parts) > 3 || !allDigits(parts[0]) || !allDigits(parts[1]) || len(parts[1]) != 2 {
		return errDatetimeSyntax(t, s)
	}
	f.hour, f.min = atoi(parts[0]), atoi(parts[1])
	if len(parts) == 3 {
		us, ok := parseSeconds(parts[2])
		if !ok {
			return errDatetimeSyntax(t, s)
		}
		f.usec = us
	}
	f.hasTime = true
	return nil
}

// parseSeconds parses SS[.frac] to microseconds, rounding the fraction.
func parseSeconds(p string) (int64, bool) {
	whole, frac, _ := strings.Cut(p, ".")
	if len(whole) != 2 || !allDigits(whole) || !allDigits(frac) {
		return 0, false
	}
	us := atoi(whole) * usPerSec
	if frac != "" {
		f, err := strconv.ParseFloat("0."+frac, 64)
		if err != nil {
			return 0, false
		}
		us += int64(math.Round(f * 1e6))
	}
	return us, true
}

// decodeOffset handles +HH, +HHMM, +HH:MM[:SS] and Z.
func (f *dtFields) decodeOffset(low, s string, t T) error {
	if low == "z" {
		f.hasTZ = true
		return nil
	}
	sign := int64(1)
	if low[0] == '-' {
		sign = -1
	}
	parts := strings.Split(low[1:], ":")
	if len(parts) == 1 && len(parts[0]) == 4 {
		parts = []string{parts[0][:2], parts[0][2:]}
	}
	var off int64
	for i, p := range parts {
		if len(parts) > 3 || !allDigits(p) || p == "" || i > 0 && len(p) != 2 {
			return errDatetimeSyntax(t, s)
		}
		off += atoi(p) * []int64{3600, 60, 1}[i]
	}
	if off > 15*3600+59*60+59 {
		return Errorf(CodeInvalidParameter, "time zone displacement out of range: %q", s)
	}
	f.tzOff, f.hasTZ = sign*off, true
	return nil
}

// validate checks field ranges and applies BC, two-digit years and AM/PM.
func (f *dtFields) validate(s string) error {
	if f.hasDate {
		if f.yearTwoDigits && !f.bc {
			if f.year < 70 {
				f.year += 2000
			} else if f.year < 100 {
				f.year += 1900
			}
		}
		if f.year <= 0 || f.mon < 1 || f.mon > 12 || f.day < 1 || f.day > daysInMonth(f.yearValue(), f.mon) {
			return errDatetimeRange(s)
		}
	}
	if f.am || f.pm {
		if f.hour < 1 || f.hour > 12 {
			return errDatetimeRange(s)
		}
		f.hour %= 12
		if f.pm {
			f.hour += 12
		}
	}
	if f.min > 59 || f.usec > 60*usPerSec || f.hour > 24 || f.hour == 24 && (f.min != 0 || f.usec != 0) {
		return errDatetimeRange(s)
	}
	return nil
}

// yearValue is the astronomical year (1 BC is 0).
func (f *dtFields) yearValue() int64 {
	if f.bc {
		return 1 - f.year
	}
	return f.year
}

// timeOfDay returns the time fields as microseconds since midnight.
func (f *dtFields) timeOfDay() int64 { return f.hour*usPerHour + f.min*usPerMin + f.usec }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// atoi parses a digit string, saturating far beyond any valid field.
func atoi(s string) int64 {
	if len(s) > 12 {
		return math.MaxInt32 * 1000
	}
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}

// special recognizes the special date/time inputs; ok is false otherwise.
func special(s string) (name string, ok bool) {
	switch v := strings.ToLower(trimSpace(s)); v {
	case "epoch", "infinity", "+infinity", "-infinity", "allballs":
		return strings.TrimPrefix(v, "+"), true
	case "now", "today", "tomorrow", "yesterday":
		return v, true
	}
	return "", false
}

// parseDate parses date input.
func parseDate(s string, ref *nowRef) (Datum, error) {
	if days, ok := isoDate(s); ok {
		return NewDate(int32(days)), nil
	}
	if sp, ok := special(s); ok {
		switch sp {
		case "epoch":
			return NewDate(int32(-epochDaysToPG)), nil
		case "infinity":
			return NewDate(DatePosInf), nil
		case "-infinity":
			return NewDate(DateNegInf), nil
		case "allballs":
			return Null, errDatetimeSyntax(Date, s)
		case "now":
			if ref != nil {
				return NewDate(int32(floorDiv(ref.local(), usPerDay))), nil
			}
		}
		if sp == "now" || ref == nil {
			return Null, errUnsupportedSpecial(s)
		}
	}
	f, err := parseDateTimeFields(s, Date, ref)
	if err != nil {
		return Null, err
	}
	if !f.hasDate {
		return Null, errDatetimeSyntax(Date, s)
	}
	days := daysFromCivil(f.yearValue(), f.mon, f.day)
	if days < minDate || days > maxDate {
		return Null, Errorf(CodeDatetimeOverflow, "date out of range: %q", s)
	}
	return NewDate(int32(days)), nil
}

// isoDate reads s when it is exactly YYYY-MM-DD, a valid date of years 1
// to 9999 (the form of table data and literals: TPC-H's dates), without
// the general field parser; ok is false for anything else, which that
// parser then reads (and rejects with its own error).
func isoDate(s string) (days int64, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	num := func(t string) int64 {
		n := int64(0)
		for i := 0; i < len(t); i++ {
			if !isDigit(t[i]) {
				return -1
			}
			n = n*10 + int64(t[i]-'0')
		}
		return n
	}
	y, m, d := num(s[:4]), num(s[5:7]), num(s[8:])
	if y < 1 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

// parseTimeOfDay parses time input; a date or zone in it is ignored,
// but a full zone name needs a date.
func parseTimeOfDay(s string, ref *nowRef) (Datum, error) {
	if sp, ok := special(s); ok {
		switch {
		case sp == "allballs":
			return NewTime(0), nil
		case sp == "now" && ref != nil:
			return NewTime(floorMod(ref.local(), usPerDay)), nil
		case sp == "now":
			return Null, errUnsupportedSpecial(s)
		}
		return Null, errDatetimeSyntax(TimeT, s)
	}
	f, err := parseDateTimeFields(s, TimeT, ref)
	if err != nil {
		return Null, err
	}
	if !f.hasTime || f.zone != nil && !f.hasDate {
		// A full zone name's offset depends on the date, so without
		// one PostgreSQL refuses it ('15:36:39 America/New_York').
		return Null, errDatetimeSyntax(TimeT, s)
	}
	return NewTime(f.timeOfDay()), nil
}

// parseTimestamp parses timestamp (tz false) or timestamptz input. A zone
// in timestamp input is ignored, as in PostgreSQL; timestamptz input
// without a zone is in loc.
func parseTimestamp(s string, tz bool, loc *time.Location, ref *nowRef) (Datum, error) {
	t := Timestamp
	if tz {
		t = TimestampTZ
	}
	mk := func(us int64) Datum { return Datum{fam: t.Family, i: us} }
	if sp, ok := special(s); ok {
		switch sp {
		case "epoch":
			return mk(-unixToPG * usPerSec), nil
		case "infinity":
			return mk(TimestampPosInf), nil
		case "-infinity":
			return mk(TimestampNegInf), nil
		case "allballs":
			return Null, errDatetimeSyntax(t, s)
		case "now":
			switch {
			case ref != nil && tz:
				return mk(ref.now), nil
			case ref != nil:
				return mk(ref.local()), nil
			}
		}
		if sp == "now" || ref == nil {
			return Null, errUnsupportedSpecial(s)
		}
	}
	f, err := parseDateTimeFields(s, t, ref)
	if err != nil {
		return Null, err
	}
	if !f.hasDate {
		return Null, errDatetimeSyntax(t, s)
	}
	us := daysFromCivil(f.yearValue(), f.mon, f.day)*usPerDay + f.timeOfDay()
	if tz {
		us = f.toUTC(us, loc)
	}
	if us < minTimestamp || us > maxTimestamp {
		return Null, Errorf(CodeDatetimeOverflow, "timestamp out of range: %q", s)
	}
	return mk(us), nil
}

// toUTC converts wall-clock microseconds using the input's zone, else loc.
func (f *dtFields) toUTC(us int64, loc *time.Location) int64 {
	switch {
	case f.hasTZ:
		return us - f.tzOff*usPerSec
	case f.dynAbbrev != "":
		return us - int64(tzAbbrevs[f.dynAbbrev].AtLocal(f.dynAbbrev, us))*usPerSec
	case f.zone != nil:
		return localToUTC(us, f.zone)
	}
	return localToUTC(us, loc)
}
