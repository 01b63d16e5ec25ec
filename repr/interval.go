package repr

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Intervals keep months, days and microseconds apart, as PostgreSQL does,
// because a month has no fixed number of days and a day no fixed number
// of hours (DST). Output is IntervalStyle postgres here, the others in
// interval_style.go.

// appendInterval prints iv as PostgreSQL's IntervalStyle postgres: years,
// mons and days as separate words, then a signed HH:MM:SS[.f] time part,
// a "+" marking a positive field after a negative one.
func appendInterval(buf []byte, iv Interval) []byte {
	zero, before := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !zero {
			buf = append(buf, ' ')
		}
		if before && v > 0 {
			buf = append(buf, '+')
		}
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if v != 1 {
			buf = append(buf, 's')
		}
		before, zero = v < 0, false
	}
	part(int64(iv.Months/12), "year")
	part(int64(iv.Months%12), "mon")
	part(int64(iv.Days), "day")
	if zero || iv.Micros != 0 {
		if !zero {
			buf = append(buf, ' ')
		}
		us := iv.Micros
		switch {
		case us < 0:
			buf = append(buf, '-')
		case before:
			buf = append(buf, '+')
		}
		buf = appendTimeOfDay(buf, absMicros(us))
	}
	return buf
}

// absMicros is |us| as a uint64-safe value; MinInt64 saturates.
func absMicros(us int64) int64 {
	if us == math.MinInt64 {
		return math.MaxInt64
	}
	if us < 0 {
		return -us
	}
	return us
}

// ivAcc accumulates interval input in wide integers.
type ivAcc struct {
	months, days, micros int64
	seen                 map[string]bool
	minSec               bool // a two-part time is minutes:seconds
	sqlStd               bool // IntervalStyle sql_standard's sign rule applies
}

// parseInterval parses interval input: PostgreSQL's "quantity unit" form
// with an optional time part, "@" prefix and "ago" suffix, or ISO 8601
// designators (P1Y2M3DT4H5M6S).
func parseInterval(s string) (Datum, error) {
	return ParseIntervalIn(s, "second", false)
}

// ParseIntervalIn parses interval input under a field qualifier, as
// INTERVAL '2 3' DAY TO HOUR: the rightmost number written without a unit
// counts bareUnit (PostgreSQL's choice by the qualifier's last field;
// "second" without one), and with minSec (MINUTE TO SECOND) a two-part
// time "a:b" is minutes and seconds. The caller truncates the fields below
// the qualifier.
func ParseIntervalIn(s, bareUnit string, minSec bool) (Datum, error) {
	return ParseIntervalStyled(s, bareUnit, minSec, IntervalPostgres)
}

// ParseIntervalStyled is ParseIntervalIn under a session IntervalStyle.
// Every style reads every input form; sql_standard alone changes a
// meaning, as PostgreSQL's DecodeInterval: when the first field has a
// leading minus and no other field an explicit sign, the minus applies to
// every field ('-1 2:03:04' is -1 day -2:03:04, not -1 day +2:03:04).
func ParseIntervalStyled(s, bareUnit string, minSec bool, st IntervalStyle) (Datum, error) {
	v := asciiLower(trimSpace(s))
	acc := &ivAcc{seen: map[string]bool{}, minSec: minSec, sqlStd: st == IntervalSQLStandard}
	var err error
	if strings.HasPrefix(v, "p") {
		err = acc.parseISO(v[1:], s)
	} else {
		err = acc.parsePostgres(strings.TrimPrefix(v, "@"), s, bareUnit)
	}
	if err != nil {
		return Null, err
	}
	return acc.result(s)
}

// result checks that the fields fit PostgreSQL's interval representation.
func (a *ivAcc) result(s string) (Datum, error) {
	if a.months != int64(int32(a.months)) || a.days != int64(int32(a.days)) {
		return Null, Errorf(codeIntervalFieldOverflow, "interval field value out of range: %q", s)
	}
	return NewInterval(Interval{Months: int32(a.months), Days: int32(a.days), Micros: a.micros}), nil
}

// ivTokens splits interval text into numbers (with sign, point and
// colons) and words, dropping spaces.
func ivTokens(v string) []string {
	var toks []string
	for i := 0; i < len(v); {
		c := v[i]
		j := i + 1
		switch {
		case isSpace(c) || c == ',':
			i++
			continue
		case isDigit(c) || c == '+' || c == '-' || c == '.':
			for j < len(v) && (isDigit(v[j]) || v[j] == '.' || v[j] == ':' || yearMonthDash(v, j)) {
				j++
			}
		case isAlpha(c):
			for j < len(v) && isAlpha(v[j]) {
				j++
			}
		}
		toks = append(toks, v[i:j])
		i = j
	}
	return toks
}

// yearMonthDash reports whether v[j] is the dash of SQL's year-month
// literal ("1-2": 1 year 2 months): between digits.
func yearMonthDash(v string, j int) bool {
	return v[j] == '-' && isDigit(v[j-1]) && j+1 < len(v) && isDigit(v[j+1])
}

// addYearMonth adds a [+-]Y-M token (the sign applies to both fields).
func (a *ivAcc) addYearMonth(tok, s string) error {
	if a.seen["year"] || a.seen["month"] {
		return errDatetimeSyntax(IntervalT, s)
	}
	a.seen["year"], a.seen["month"] = true, true
	body := strings.TrimLeft(tok, "+-")
	y, m, _ := strings.Cut(body, "-")
	if len(tok)-len(body) > 1 || !allDigits(y) || !allDigits(m) || strings.Contains(m, "-") || len(y) > 9 || len(m) > 9 {
		return errDatetimeSyntax(IntervalT, s)
	}
	if atoi(m) > 11 {
		return Errorf(codeIntervalFieldOverflow, "interval field value out of range: %q", s)
	}
	months := atoi(y)*12 + atoi(m)
	if strings.HasPrefix(tok, "-") {
		months = -months
	}
	a.months += months
	return nil
}

// parsePostgres parses "1 year 2 mons 3 days 04:05:06 ago" and the like.
func (a *ivAcc) parsePostgres(v, s, bareUnit string) error {
	toks := ivTokens(v)
	if len(toks) == 0 {
		return errDatetimeSyntax(IntervalT, s)
	}
	if a.sqlStd {
		toks = standardSigns(toks)
	}
	units := bareUnits(toks, bareUnit)
	ago := false
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		switch {
		case tok == "ago" && i == len(toks)-1 && i > 0:
			ago = true
		case strings.Contains(tok, ":"):
			if err := a.addTime(tok, s); err != nil {
				return err
			}
		case strings.Contains(strings.TrimLeft(tok, "+-"), "-"):
			if err := a.addYearMonth(tok, s); err != nil {
				return err
			}
		case i+1 < len(toks) && isAlpha(toks[i+1][0]) && toks[i+1] != "ago":
			if err := a.addUnit(tok, toks[i+1], s); err != nil {
				return err
			}
			i++
		default:
			if err := a.addUnit(tok, units[i], s); err != nil {
				return err
			}
		}
	}
	if ago {
		a.months, a.days, a.micros = -a.months, -a.days, -a.micros
	}
	return nil
}

// standardSigns applies IntervalStyle sql_standard's rule to interval
// tokens: a leading minus on the first, with no explicit sign on any
// other, negates every number.
func standardSigns(toks []string) []string {
	if !strings.HasPrefix(toks[0], "-") {
		return toks
	}
	for _, t := range toks[1:] {
		if t[0] == '-' || t[0] == '+' {
			return toks
		}
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		if i > 0 && !isAlpha(t[0]) {
			t = "-" + t
		}
		out[i] = t
	}
	return out
}

// IntervalInputStyled reports whether interval input s means something
// else under IntervalStyle sql_standard than under the other styles (so a
// constant of it cannot be folded without knowing the session's style).
func IntervalInputStyled(s string) bool {
	a, errA := ParseIntervalStyled(s, "second", false, IntervalPostgres)
	b, errB := ParseIntervalStyled(s, "second", false, IntervalSQLStandard)
	if errA != nil || errB != nil {
		return (errA == nil) != (errB == nil)
	}
	return a.Interval() != b.Interval()
}

// bareUnits gives each number written without a unit its unit, as
// PostgreSQL's DecodeInterval does scanning right to left: the rightmost
// counts last (the qualifier's last field), a number before a time or
// before an hour count counts days, none may precede a year-month, and
// otherwise a bare number repeats the unit to its right, which addUnit then
// refuses as a duplicate. Other positions are "".
func bareUnits(toks []string, last string) []string {
	units := make([]string, len(toks))
	typ := ""
	for i := len(toks) - 1; i >= 0; i-- {
		tok := toks[i]
		switch {
		case tok == "ago":
		case isAlpha(tok[0]):
			typ = ivUnits[tok]
		case strings.Contains(tok, ":"):
			typ = "day"
		case strings.Contains(strings.TrimLeft(tok, "+-"), "-"):
			typ = "-" // no number may precede a year-month ("1 1-2")
		default:
			if !(i+1 < len(toks) && isAlpha(toks[i+1][0]) && toks[i+1] != "ago") {
				if typ == "" {
					typ = last
				}
				units[i] = typ
			}
			if typ == "hour" {
				typ = "day"
			}
		}
	}
	return units
}

// ivUnits maps unit words to a canonical unit.
var ivUnits = func() map[string]string {
	m := map[string]string{}
	for canon, words := range map[string][]string{
		"microsecond": {"microsecond", "microseconds", "us", "usec", "usecs", "useconds"},
		"millisecond": {"millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds"},
		"second":      {"second", "seconds", "s", "sec", "secs"},
		"minute":      {"minute", "minutes", "m", "min", "mins"},
		"hour":        {"hour", "hours", "h", "hr", "hrs"},
		"day":         {"day", "days", "d"},
		"week":        {"week", "weeks", "w"},
		"month":       {"month", "months", "mon", "mons"},
		"year":        {"year", "years", "y", "yr", "yrs"},
		"decade":      {"decade", "decades", "dec", "decs"},
		"century":     {"century", "centuries", "c", "cent"},
		"millennium":  {"millennium", "millennia", "mil", "mils"},
	} {
		for _, w := range words {
			m[w] = canon
		}
	}
	return m
}()

// claim marks fields as given, reporting false when one already was (a
// field may appear once in an interval).
func (a *ivAcc) claim(fields ...string) bool {
	for _, f := range fields {
		if a.seen[f] {
			return false
		}
	}
	for _, f := range fields {
		a.seen[f] = true
	}
	return true
}

// addUnit adds a quantity of a unit, spilling fractions downward as
// PostgreSQL does (1.5 months = 1 mon 15 days; a year's fraction rounds to
// whole months).
func (a *ivAcc) addUnit(num, word, s string) error {
	unit, ok := ivUnits[word]
	if !ok {
		return errDatetimeSyntax(IntervalT, s)
	}
	whole, frac, ok := splitNumber(num)
	if !ok {
		return errDatetimeSyntax(IntervalT, s)
	}
	fields := []string{unit}
	if unit == "second" && frac != 0 {
		// Fractional seconds set the milli- and microsecond fields
		// too, as in PostgreSQL: '5.5 seconds 3 milliseconds' is 22007.
		fields = append(fields, "millisecond", "microsecond")
	}
	if !a.claim(fields...) {
		return errDatetimeSyntax(IntervalT, s)
	}
	switch unit {
	case "microsecond", "millisecond", "second", "minute", "hour":
		scale := map[string]float64{"microsecond": 1, "millisecond": 1e3, "second": 1e6, "minute": 6e7, "hour": 3.6e9}[unit]
		return a.addMicros(whole, frac, scale, s)
	case "day", "week":
		// A week's fraction is whole days first, the rest time, as
		// PostgreSQL's AdjustFractDays (1.5 weeks = 10 days 12:00:00).
		n := map[string]int64{"day": 1, "week": 7}[unit]
		fd := frac * float64(n)
		a.days += whole*n + int64(fd)
		return a.addMicros(0, fd-float64(int64(fd)), 86400e6, s)
	case "month":
		a.months += whole
		fd := frac * 30
		a.days += int64(fd)
		return a.addMicros(0, fd-float64(int64(fd)), 86400e6, s)
	}
	n := map[string]int64{"year": 12, "decade": 120, "century": 1200, "millennium": 12000}[unit]
	if whole > math.MaxInt32 || whole < math.MinInt32 {
		return Errorf(codeIntervalFieldOverflow, "interval field value out of range: %q", s)
	}
	a.months += whole*n + int64(math.RoundToEven(frac*float64(n)))
	return nil
}

// addMicros adds (whole+frac)*scale microseconds with overflow checks.
func (a *ivAcc) addMicros(whole int64, frac, scale float64, s string) error {
	f := (float64(whole) + frac) * scale
	if math.Abs(f) > 9.2e18 || math.Abs(float64(a.micros)+f) > 9.2e18 {
		return Errorf(codeIntervalFieldOverflow, "interval field value out of range: %q", s)
	}
	w := whole * int64(scale)
	if float64(w) != float64(whole)*scale {
		w = int64(float64(whole) * scale)
	}
	a.micros += w + int64(math.RoundToEven(frac*scale))
	return nil
}

// splitNumber splits a signed decimal into its integer part and the
// signed fraction.
func splitNumber(num string) (int64, float64, bool) {
	neg := strings.HasPrefix(num, "-")
	body := strings.TrimLeft(num, "+-")
	if len(num)-len(body) > 1 {
		return 0, 0, false
	}
	ip, fp, hasPoint := strings.Cut(body, ".")
	if ip == "" && fp == "" || !allDigits(ip) || !allDigits(fp) || hasPoint && strings.Contains(fp, ".") {
		return 0, 0, false
	}
	var whole int64
	if ip != "" {
		w, err := strconv.ParseInt(ip, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		whole = w
	}
	frac := 0.0
	if fp != "" {
		frac, _ = strconv.ParseFloat("0."+fp, 64)
	}
	if neg {
		whole, frac = -whole, -frac
	}
	return whole, frac, true
}

// addTime adds a [-]H:M[:S[.f]] time part, in integer microseconds.
func (a *ivAcc) addTime(tok, s string) error {
	// A time part sets every field from hours down, as in PostgreSQL:
	// '1 hour 1:20' and '1:20:05 5 microseconds' are 22007.
	if !a.claim("time", "hour", "minute", "second", "millisecond", "microsecond") {
		return errDatetimeSyntax(IntervalT, s)
	}
	body := strings.TrimLeft(tok, "+-")
	parts := strings.Split(body, ":")
	if len(parts) > 3 || len(tok)-len(body) > 1 {
		return errDatetimeSyntax(IntervalT, s)
	}
	var us int64
	first := 0 // hours
	if len(parts) == 2 && (a.minSec || strings.Contains(parts[1], ".")) {
		first = 1 // "2:03.5" and MINUTE TO SECOND's "2:03" are mm:ss
	}
	for i, p := range parts {
		w, f, ok := splitNumber(p)
		if !ok || w < 0 || i < len(parts)-1 && f != 0 || i > 0 && w >= 60 || w > math.MaxInt64/usPerHour {
			return errDatetimeSyntax(IntervalT, s)
		}
		unit := []int64{usPerHour, usPerMin, usPerSec}[first+i]
		term := w*unit + int64(math.RoundToEven(f*float64(unit)))
		if term < 0 || us > math.MaxInt64-term {
			return Errorf(codeIntervalFieldOverflow, "interval field value out of range: %q", s)
		}
		us += term
	}
	if strings.HasPrefix(tok, "-") {
		us = -us
	}
	if (us > 0) == (a.micros > 0) && absMicros(a.micros) > math.MaxInt64-absMicros(us) {
		return Errorf(codeIntervalFieldOverflow, "interval field value out of range: %q", s)
	}
	a.micros += us
	return nil
}

// parseISO parses the ISO 8601 designator format after the "P", or its
// alternative format (P0001-02-03T04:05:06).
func (a *ivAcc) parseISO(v, s string) error {
	inTime := false
	if v == "" {
		return errDatetimeSyntax(IntervalT, s)
	}
	if date, tm, _ := strings.Cut(v, "t"); strings.Trim(v, "0123456789-.:t") == "" && (strings.Contains(date, "-") || strings.Contains(tm, ":")) {
		return a.parseISOAlternative(date, tm, s)
	}
	for len(v) > 0 {
		if v[0] == 't' {
			inTime, v = true, v[1:]
			continue
		}
		i := 0
		for i < len(v) && (isDigit(v[i]) || v[i] == '.' || v[i] == '-' || v[i] == '+') {
			i++
		}
		if i == 0 || i == len(v) {
			return errDatetimeSyntax(IntervalT, s)
		}
		unit, ok := isoUnit(v[i], inTime)
		if !ok {
			return errDatetimeSyntax(IntervalT, s)
		}
		if err := a.addUnit(v[:i], unit, s); err != nil {
			return err
		}
		v = v[i+1:]
	}
	return nil
}

// parseISOAlternative parses ISO 8601's alternative format: a date part
// Y-M-D and a time part H:M:S after the T.
func (a *ivAcc) parseISOAlternative(date, tm, s string) error {
	if date != "" {
		parts := strings.Split(date, "-")
		if len(parts) > 3 {
			return errDatetimeSyntax(IntervalT, s)
		}
		for i, p := range parts {
			if p == "" {
				return errDatetimeSyntax(IntervalT, s)
			}
			if err := a.addUnit(p, []string{"year", "month", "day"}[i], s); err != nil {
				return err
			}
		}
	}
	if tm != "" {
		return a.addTime(tm, s)
	}
	return nil
}

// isoUnit maps an ISO 8601 designator to a unit word.
func isoUnit(c byte, inTime bool) (string, bool) {
	if inTime {
		u, ok := map[byte]string{'h': "hour", 'm': "minute", 's': "second"}[c]
		return u, ok
	}
	u, ok := map[byte]string{'y': "year", 'm': "month", 'w': "week", 'd': "day"}[c]
	return u, ok
}

// AddInterval returns ts + iv with PostgreSQL's field arithmetic: months
// first (the day clamped to the month's end), then days, both on the wall
// clock of loc, then the microseconds. loc nil (or UTC) is timestamp
// without time zone arithmetic. Infinite timestamps are unchanged; results
// outside the timestamp range are 22008 "timestamp out of range".
func AddInterval(ts int64, iv Interval, loc *time.Location) (int64, error) {
	if isInfiniteTS(ts) {
		return ts, nil
	}
	if iv.Months != 0 || iv.Days != 0 {
		local := utcToLocal(ts, loc)
		days, tod := floorDiv(local, usPerDay), floorMod(local, usPerDay)
		if iv.Months != 0 {
			y, m, d := civilFromDays(days)
			m += int64(iv.Months) - 1
			y, m = y+floorDiv(m, 12), floorMod(m, 12)+1
			if y > 300000 || y < -10000 {
				return 0, errTimestampRange("timestamp")
			}
			days = daysFromCivil(y, m, min(d, daysInMonth(y, m)))
		}
		days += int64(iv.Days)
		if days*usPerDay < minTimestamp-usPerDay || days*usPerDay > maxTimestamp {
			return 0, errTimestampRange("timestamp")
		}
		ts = localToUTC(days*usPerDay+tod, loc)
	}
	r := ts + iv.Micros
	if (r > ts) != (iv.Micros > 0) || r < minTimestamp || r > maxTimestamp {
		return 0, errTimestampRange("timestamp")
	}
	return r, nil
}
