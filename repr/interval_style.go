package repr

import (
	"strconv"
	"strings"
)

// IntervalStyle is the session's IntervalStyle: how intervals print.
type IntervalStyle uint8

// The IntervalStyle values, PostgreSQL's (the zero value is the default).
const (
	IntervalPostgres IntervalStyle = iota
	IntervalPostgresVerbose
	IntervalSQLStandard
	IntervalISO8601
)

var intervalStyleNames = [...]string{"postgres", "postgres_verbose", "sql_standard", "iso_8601"}

// String is the style's setting value.
func (s IntervalStyle) String() string { return intervalStyleNames[s] }

// ParseIntervalStyle reads an IntervalStyle setting (case-insensitive, as
// PostgreSQL's enum settings).
func ParseIntervalStyle(v string) (IntervalStyle, bool) {
	v = strings.ToLower(v)
	for i, n := range intervalStyleNames {
		if v == n {
			return IntervalStyle(i), true
		}
	}
	return 0, false
}

// ivFields are an interval's fields as PostgreSQL's interval2itm splits
// them: years and months from the months, hours, minutes, seconds and
// microseconds from the time, each with the sign of its source (C's
// truncating division, as Go's).
type ivFields struct {
	year, mon, day, hour, min, sec, fsec int64
}

func splitInterval(iv Interval) ivFields {
	t := iv.Micros
	return ivFields{
		year: int64(iv.Months / 12), mon: int64(iv.Months % 12), day: int64(iv.Days),
		hour: t / usPerHour, min: t % usPerHour / usPerMin, sec: t % usPerMin / usPerSec, fsec: t % usPerSec,
	}
}

// appendIntervalStyle prints iv in style st, as PostgreSQL's
// EncodeInterval.
func appendIntervalStyle(buf []byte, iv Interval, st IntervalStyle) []byte {
	switch st {
	case IntervalPostgresVerbose:
		return appendIntervalVerbose(buf, splitInterval(iv))
	case IntervalSQLStandard:
		return appendIntervalSQL(buf, splitInterval(iv))
	case IntervalISO8601:
		return appendIntervalISO(buf, splitInterval(iv))
	}
	return appendInterval(buf, iv)
}

// appendIvSeconds prints |sec| (two digits with zeros when pad) and, when
// fsec is not 0, the fraction |fsec| without trailing zeros, as
// PostgreSQL's AppendSeconds.
func appendIvSeconds(buf []byte, sec, fsec int64, pad bool) []byte {
	sec, fsec = max(sec, -sec), max(fsec, -fsec)
	if pad && sec < 10 {
		buf = append(buf, '0')
	}
	return appendFraction(strconv.AppendInt(buf, sec, 10), fsec)
}

// appendIntervalVerbose is postgres_verbose: "@ 1 year 2 mons -3 days 4
// hours 5 mins 6.5 secs", every field negated and " ago" added when the
// first nonzero field is negative.
func appendIntervalVerbose(buf []byte, f ivFields) []byte {
	buf = append(buf, '@')
	zero, before := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if zero {
			before = v < 0
			v = max(v, -v)
		} else if before {
			v = -v
		}
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if v != 1 {
			buf = append(buf, 's')
		}
		zero = false
	}
	part(f.year, "year")
	part(f.mon, "mon")
	part(f.day, "day")
	part(f.hour, "hour")
	part(f.min, "min")
	if f.sec != 0 || f.fsec != 0 {
		buf = append(buf, ' ')
		if f.sec < 0 || f.sec == 0 && f.fsec < 0 {
			if zero {
				before = true
			} else if !before {
				buf = append(buf, '-')
			}
		} else if before {
			buf = append(buf, '-')
		}
		buf = appendIvSeconds(buf, f.sec, f.fsec, false)
		buf = append(buf, " sec"...)
		if max(f.sec, -f.sec) != 1 || f.fsec != 0 {
			buf = append(buf, 's')
		}
		zero = false
	}
	if zero {
		buf = append(buf, " 0"...)
	}
	if before {
		buf = append(buf, " ago"...)
	}
	return buf
}

// appendIntervalSQL is sql_standard: "1-2" (years-months), "3 4:05:06"
// (days and time) or "4:05:06", with one leading sign; an interval mixing
// signs, or years or months with days or time, prints every part with
// its sign: "+1-2 -3 +4:05:06".
func appendIntervalSQL(buf []byte, f ivFields) []byte {
	neg := f.year < 0 || f.mon < 0 || f.day < 0 || f.hour < 0 || f.min < 0 || f.sec < 0 || f.fsec < 0
	pos := f.year > 0 || f.mon > 0 || f.day > 0 || f.hour > 0 || f.min > 0 || f.sec > 0 || f.fsec > 0
	ym := f.year != 0 || f.mon != 0
	dt := f.day != 0 || f.hour != 0 || f.min != 0 || f.sec != 0 || f.fsec != 0
	standard := !(neg && pos) && !(ym && dt)
	if neg && standard {
		buf = append(buf, '-')
		f = ivFields{-f.year, -f.mon, -f.day, -f.hour, -f.min, -f.sec, -f.fsec}
	}
	sign := func(neg bool) byte {
		if neg {
			return '-'
		}
		return '+'
	}
	hms := func(buf []byte) []byte {
		buf = strconv.AppendInt(buf, max(f.hour, -f.hour), 10)
		buf = append(buf, ':')
		buf = appendPadded(buf, max(f.min, -f.min), 2)
		buf = append(buf, ':')
		return appendIvSeconds(buf, f.sec, f.fsec, true)
	}
	switch {
	case !neg && !pos:
		return append(buf, '0')
	case !standard:
		buf = append(buf, sign(f.year < 0 || f.mon < 0))
		buf = strconv.AppendInt(buf, max(f.year, -f.year), 10)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, max(f.mon, -f.mon), 10)
		buf = append(buf, ' ', sign(f.day < 0))
		buf = strconv.AppendInt(buf, max(f.day, -f.day), 10)
		buf = append(buf, ' ', sign(f.hour < 0 || f.min < 0 || f.sec < 0 || f.fsec < 0))
		return hms(buf)
	case ym:
		buf = strconv.AppendInt(buf, f.year, 10)
		buf = append(buf, '-')
		return strconv.AppendInt(buf, f.mon, 10)
	case f.day != 0:
		buf = strconv.AppendInt(buf, f.day, 10)
		buf = append(buf, ' ')
	}
	return hms(buf)
}

// appendIntervalISO is iso_8601: "P1Y2M3DT4H5M6.5S", "PT0S" for zero.
func appendIntervalISO(buf []byte, f ivFields) []byte {
	if f == (ivFields{}) {
		return append(buf, "PT0S"...)
	}
	buf = append(buf, 'P')
	part := func(v int64, unit byte) {
		if v != 0 {
			buf = strconv.AppendInt(buf, v, 10)
			buf = append(buf, unit)
		}
	}
	part(f.year, 'Y')
	part(f.mon, 'M')
	part(f.day, 'D')
	if f.hour != 0 || f.min != 0 || f.sec != 0 || f.fsec != 0 {
		buf = append(buf, 'T')
	}
	part(f.hour, 'H')
	part(f.min, 'M')
	if f.sec != 0 || f.fsec != 0 {
		if f.sec < 0 || f.fsec < 0 {
			buf = append(buf, '-')
		}
		buf = appendIvSeconds(buf, f.sec, f.fsec, false)
		buf = append(buf, 'S')
	}
	return buf
}
