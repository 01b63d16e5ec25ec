package repr

import (
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// fieldNames maps the spellings PostgreSQL accepts for date_trunc units and
// extract fields to a canonical name.
var fieldNames = func() map[string]string {
	m := map[string]string{
		"quarter": "quarter", "qtr": "quarter", "dow": "dow", "isodow": "isodow",
		"doy": "doy", "epoch": "epoch", "julian": "julian", "j": "julian",
		"isoyear": "isoyear", "timezone": "timezone", "timezone_h": "timezone_hour",
		"timezone_hour": "timezone_hour", "timezone_m": "timezone_minute",
		"timezone_minute": "timezone_minute", "millennia": "millennium",
	}
	for w, canon := range ivUnits {
		m[w] = canon
	}
	return m
}()

// canonicalField resolves a unit name, or reports 22023 for type t.
func canonicalField(unit string, t T) (string, error) {
	f, ok := fieldNames[strings.ToLower(unit)]
	if !ok {
		return "", Errorf(CodeInvalidParameter, "unit %q not recognized for type %s", unit, t.Name())
	}
	return f, nil
}

// DateTrunc truncates timestamp ts (microseconds) to unit: microseconds,
// milliseconds, second, minute, hour, day, week (ISO, Monday), month,
// quarter, year, decade, century or millennium. loc nil means timestamp
// without time zone; otherwise ts is a timestamptz truncated on loc's wall
// clock, and units of a day or more take the offset in effect at the
// truncated time, as PostgreSQL does. Infinite timestamps are unchanged.
func DateTrunc(unit string, ts int64, loc *time.Location) (int64, error) {
	t := Timestamp
	if loc != nil {
		t = TimestampTZ
	}
	f, err := canonicalField(unit, t)
	if err != nil {
		return 0, err
	}
	if isInfiniteTS(ts) {
		return ts, nil
	}
	local := utcToLocal(ts, loc)
	days, tod := floorDiv(local, usPerDay), floorMod(local, usPerDay)
	if step, ok := map[string]int64{"microsecond": 1, "millisecond": 1000, "second": usPerSec, "minute": usPerMin, "hour": usPerHour}[f]; ok {
		return ts - floorMod(tod, step), nil
	}
	y, m, _ := civilFromDays(days)
	switch f {
	case "day":
	case "week":
		days -= floorMod(days+5, 7) // 2000-01-03 was a Monday
	case "month":
		days = daysFromCivil(y, m, 1)
	case "quarter":
		days = daysFromCivil(y, (m-1)/3*3+1, 1)
	case "year":
		days = daysFromCivil(y, 1, 1)
	case "decade", "century", "millennium":
		days = daysFromCivil(truncYear(y, f), 1, 1)
	default:
		return 0, Errorf(CodeInvalidParameter, "unit %q not supported for type %s", unit, t.Name())
	}
	return localToUTC(days*usPerDay, loc), nil
}

// truncYear returns the first (astronomical) year of the decade, century
// or millennium holding year y, with PostgreSQL's BC conventions.
func truncYear(y int64, f string) int64 {
	n := map[string]int64{"decade": 10, "century": 100, "millennium": 1000}[f]
	if f == "decade" {
		if y > 0 {
			return y / 10 * 10
		}
		return -((8 - (y - 1)) / 10) * 10
	}
	if y > 0 {
		return (y+n-1)/n*n - n + 1
	}
	return 1 - ((1 - y + n - 1) / n * n)
}

// Extract returns field of d (a date, time, timestamp, timestamptz or
// interval of type t) as a numeric, as PostgreSQL 14+'s EXTRACT does,
// with the same scales (second has scale 6, milliseconds 3, epoch 6).
// Timestamptz fields are taken on loc's wall clock. Fields a type lacks
// are 0A000; unknown fields 22023.
func Extract(field string, d Datum, t T, loc *time.Location) (Datum, error) {
	f, err := canonicalField(field, t)
	if err != nil || d.IsNull() {
		return Null, err
	}
	var r *apd.Decimal
	switch d.fam {
	case FamDate:
		r, err = extractDate(f, d.Date())
	case FamTime:
		r, err = extractTime(f, d.i)
	case FamTimestamp, FamTimestampTZ:
		r, err = extractTimestamp(f, d, loc)
	case FamInterval:
		r, err = extractInterval(f, d.Interval())
	default:
		return Null, Errorf(CodeDatatypeMismatch, "cannot extract from type %s", t.Name())
	}
	if err == errNotSupported {
		return Null, Errorf(CodeFeatureNotSupported, "unit %q not supported for type %s", field, t.Name())
	}
	if err != nil || r == nil {
		return Null, err
	}
	return NewNumeric(normalizeNumeric(r)), nil
}

// errNotSupported marks a field the source type lacks.
var errNotSupported = Errorf(CodeFeatureNotSupported, "unit not supported")

// scaled returns v × 10^-scale.
func scaled(v int64, scale int32) *apd.Decimal { return apd.New(v, -scale) }

// extractDate handles date fields (no time-of-day fields).
func extractDate(f string, days int32) (*apd.Decimal, error) {
	switch f {
	case "microsecond", "millisecond", "second", "minute", "hour", "timezone", "timezone_hour", "timezone_minute":
		return nil, errNotSupported
	}
	if isInfiniteDate(days) {
		return infiniteField(f, days == DatePosInf)
	}
	if f == "epoch" {
		return apd.New((int64(days)+epochDaysToPG)*86400, 0), nil
	}
	return dateField(f, int64(days))
}

// infiniteField is ±Infinity for monotonic fields of an infinite value and
// NULL (nil) for the others.
func infiniteField(f string, pos bool) (*apd.Decimal, error) {
	switch f {
	case "epoch", "julian", "year", "isoyear", "decade", "century", "millennium":
		return &apd.Decimal{Form: apd.Infinite, Negative: !pos}, nil
	}
	return nil, nil
}

// dateField computes the calendar fields of a day number.
func dateField(f string, days int64) (*apd.Decimal, error) {
	y, m, d := civilFromDays(days)
	dow := floorMod(days+6, 7) // 2000-01-01 was a Saturday (6)
	var v int64
	switch f {
	case "day":
		v = d
	case "month":
		v = m
	case "year":
		v = bcYear(y)
	case "quarter":
		v = (m-1)/3 + 1
	case "dow":
		v = dow
	case "isodow":
		v = (dow+6)%7 + 1
	case "doy":
		v = days - daysFromCivil(y, 1, 1) + 1
	case "week":
		_, v = isoWeek(days)
	case "isoyear":
		v, _ = isoWeek(days)
		v = bcYear(v)
	case "julian":
		v = days + 2451545
	case "decade", "century", "millennium":
		v = yearGroup(y, f)
	default:
		return nil, errNotSupported
	}
	return apd.New(v, 0), nil
}

// bcYear converts an astronomical year to PostgreSQL's (no year 0).
func bcYear(y int64) int64 {
	if y <= 0 {
		return y - 1
	}
	return y
}

// yearGroup is EXTRACT's decade, century or millennium of year y.
func yearGroup(y int64, f string) int64 {
	switch f {
	case "decade":
		return floorDiv(y, 10)
	case "century":
		if y > 0 {
			return (y + 99) / 100
		}
		return -((99 - (y - 1)) / 100)
	}
	if y > 0 {
		return (y + 999) / 1000
	}
	return -((999 - (y - 1)) / 1000)
}

// isoWeek returns the ISO 8601 year and week of a day number.
func isoWeek(days int64) (int64, int64) {
	thursday := days - floorMod(days+5, 7) + 3
	y, _, _ := civilFromDays(thursday)
	return y, (thursday-daysFromCivil(y, 1, 1))/7 + 1
}

// extractTime handles time-of-day fields of us microseconds.
func extractTime(f string, us int64) (*apd.Decimal, error) {
	switch f {
	case "microsecond":
		return apd.New(us%usPerMin, 0), nil
	case "millisecond":
		return scaled(us%usPerMin, 3), nil
	case "second":
		return scaled(us%usPerMin, 6), nil
	case "minute":
		return apd.New(us/usPerMin%60, 0), nil
	case "hour":
		return apd.New(us/usPerHour, 0), nil
	case "epoch":
		return scaled(us, 6), nil
	}
	return nil, errNotSupported
}

// extractTimestamp handles timestamp and timestamptz fields.
func extractTimestamp(f string, d Datum, loc *time.Location) (*apd.Decimal, error) {
	if isInfiniteTS(d.i) {
		return infiniteField(f, d.i == TimestampPosInf)
	}
	local := d.i
	if d.fam == FamTimestampTZ {
		local = utcToLocal(d.i, loc)
	}
	tod := floorMod(local, usPerDay)
	switch f {
	case "epoch":
		// In decimal: near the end of the range (year 294276) the
		// microseconds since 1970 overflow int64.
		r := new(apd.Decimal)
		_, err := apd.BaseContext.WithPrecision(40).Add(r, scaled(d.i, 6), apd.New(unixToPG, 0))
		return r, err
	case "julian":
		return julianWithTime(floorDiv(local, usPerDay), tod)
	case "timezone", "timezone_hour", "timezone_minute":
		if d.fam != FamTimestampTZ {
			return nil, errNotSupported
		}
		off := zoneOffset(d.i, loc)
		return apd.New(map[string]int64{"timezone": off, "timezone_hour": off / 3600, "timezone_minute": off / 60 % 60}[f], 0), nil
	}
	if r, err := extractTime(f, tod); err == nil && f != "epoch" {
		return r, nil
	}
	return dateField(f, floorDiv(local, usPerDay))
}

// julianWithTime is the julian day plus the fraction of the day, with the
// scale PostgreSQL's numeric division gives it.
func julianWithTime(days, tod int64) (*apd.Decimal, error) {
	frac, err := DivNumeric(apd.New(tod, 0), apd.New(usPerDay, 0))
	if err != nil {
		return nil, err
	}
	var r apd.Decimal
	_, err = numericCtx.Add(&r, apd.New(days+2451545, 0), frac)
	return &r, err
}

// extractInterval handles interval fields.
func extractInterval(f string, iv Interval) (*apd.Decimal, error) {
	years := int64(iv.Months / 12)
	switch f {
	case "microsecond", "millisecond", "second", "minute":
		return extractTime(f, iv.Micros%usPerHour)
	case "hour":
		return apd.New(iv.Micros/usPerHour, 0), nil
	case "day":
		return apd.New(int64(iv.Days), 0), nil
	case "month":
		return apd.New(int64(iv.Months%12), 0), nil
	case "quarter":
		return apd.New(int64(iv.Months%12)/3+1, 0), nil
	case "year":
		return apd.New(years, 0), nil
	case "decade":
		return apd.New(years/10, 0), nil
	case "century":
		return apd.New(years/100, 0), nil
	case "millennium":
		return apd.New(years/1000, 0), nil
	case "epoch":
		// A year is 365.25 days, a month 30 days (PostgreSQL's DAYS_PER_YEAR).
		secs := years*36525*864 + int64(iv.Months%12)*30*86400 + int64(iv.Days)*86400
		var r apd.Decimal
		_, err := numericCtx.Add(&r, apd.New(secs, 0), scaled(iv.Micros, 6))
		return &r, err
	}
	return nil, errNotSupported
}

// DivNumeric divides a by b with PostgreSQL's result scale (at least 16
// significant digits, at least either input's scale), rounding half away
// from zero; 22012 on division by zero.
func DivNumeric(a, b *apd.Decimal) (*apd.Decimal, error) {
	if b.IsZero() && b.Form == apd.Finite {
		return nil, ErrDivisionByZero.New()
	}
	var q apd.Decimal
	if a.Form != apd.Finite || b.Form != apd.Finite {
		_, err := numericCtx.Quo(&q, a, b)
		return normalizeNumeric(&q), err
	}
	ga, wa := numericGroups(a)
	gb, wb := numericGroups(b)
	fa, fb := uint16(0), uint16(0)
	if len(ga) > 0 {
		fa = ga[0]
	} else {
		wa = 0
	}
	if len(gb) > 0 {
		fb = gb[0]
	}
	qweight := wa - wb
	if fa <= fb {
		qweight--
	}
	scale := max(16-qweight*4, int(-a.Exponent), int(-b.Exponent), 0)
	scale = min(scale, 1000)
	var exact apd.Decimal
	ctx := numericCtx
	ctx.Precision = uint32(max(int64(scale)+a.NumDigits()+int64(a.Exponent)+8, 40))
	if _, err := ctx.Quo(&exact, a, b); err != nil {
		return nil, err
	}
	if _, err := numericCtx.Quantize(&q, &exact, int32(-scale)); err != nil {
		return nil, err
	}
	return normalizeNumeric(&q), nil
}
