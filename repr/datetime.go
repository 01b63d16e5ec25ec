package repr

import (
	"math"
	"strconv"
	"time"
)

// Dates and times follow PostgreSQL: the proleptic Gregorian calendar,
// microsecond resolution, PostgreSQL's epoch 2000-01-01, and ±infinity as
// the extreme values of the representation (see Datum). Output is
// DateStyle ISO; years before 1 AD print with a " BC" suffix (1 BC is
// year 0 internally).

// Microsecond and day constants.
const (
	usPerSec  int64 = 1e6
	usPerMin        = 60 * usPerSec
	usPerHour       = 60 * usPerMin
	usPerDay        = 24 * usPerHour
	// unixToPG is the number of seconds from 1970-01-01 to 2000-01-01.
	unixToPG int64 = 946684800
	// epochDaysToPG is days from 1970-01-01 to 2000-01-01.
	epochDaysToPG int64 = 10957
)

// Infinite dates and timestamps.
const (
	DateNegInf      = math.MinInt32
	DatePosInf      = math.MaxInt32
	TimestampNegInf = math.MinInt64
	TimestampPosInf = math.MaxInt64
)

// Range limits as PostgreSQL's: julian day 0 (4714-11-24 BC) up to the
// year 5874897 for dates and 294276 for timestamps.
var (
	minDate      = daysFromCivil(-4713, 11, 24)
	maxDate      = daysFromCivil(5874898, 1, 1) - 1
	minTimestamp = daysFromCivil(-4713, 11, 24) * usPerDay
	maxTimestamp = daysFromCivil(294277, 1, 1)*usPerDay - 1
)

// daysFromCivil returns days since 2000-01-01 of a proleptic Gregorian
// date (year 0 is 1 BC). It is the inverse of civilFromDays.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468 - epochDaysToPG
}

// civilFromDays returns year, month and day of days since 2000-01-01.
func civilFromDays(days int64) (y, m, d int64) {
	z := days + epochDaysToPG + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// daysInMonth returns the number of days of month m of year y.
func daysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// TimestampToTime converts microseconds since 2000-01-01 UTC to a time.Time
// in UTC.
func TimestampToTime(us int64) time.Time {
	return time.Unix(unixToPG+floorDiv(us, usPerSec), floorMod(us, usPerSec)*1000).UTC()
}

// TimeToTimestamp converts t to microseconds since 2000-01-01 UTC,
// truncating below a microsecond.
func TimeToTimestamp(t time.Time) int64 {
	return (t.Unix()-unixToPG)*usPerSec + int64(t.Nanosecond()/1000)
}

// zoneOffset returns the UTC offset in seconds of loc at UTC instant us.
func zoneOffset(us int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC {
		return 0
	}
	_, off := TimestampToTime(us).In(loc).Zone()
	return int64(off)
}

// utcToLocal returns the wall-clock microseconds in loc of UTC instant us.
func utcToLocal(us int64, loc *time.Location) int64 {
	if isInfiniteTS(us) {
		return us
	}
	return us + zoneOffset(us, loc)*usPerSec
}

// localToUTC returns the UTC instant of wall-clock time us in loc. For a
// wall time repeated by a DST change it picks the later instant (standard
// time), and for a skipped one it applies the offset in effect before the
// change, as PostgreSQL's DetermineTimeZoneOffset does.
func localToUTC(us int64, loc *time.Location) int64 {
	if isInfiniteTS(us) || loc == nil || loc == time.UTC {
		return us
	}
	before := us - zoneOffset(us-usPerDay, loc)*usPerSec
	after := us - zoneOffset(us+usPerDay, loc)*usPerSec
	okB, okA := utcToLocal(before, loc) == us, utcToLocal(after, loc) == us
	switch {
	case okA && okB:
		return max(before, after)
	case okA:
		return after
	case okB:
		return before
	}
	if mid := us - zoneOffset(us, loc)*usPerSec; utcToLocal(mid, loc) == us {
		return mid
	}
	return before
}

func isInfiniteTS(us int64) bool { return us == TimestampNegInf || us == TimestampPosInf }

func isInfiniteDate(d int32) bool { return d == DateNegInf || d == DatePosInf }

// appendDate prints a date as YYYY-MM-DD[ BC], or infinity.
func appendDate(buf []byte, days int32) []byte {
	switch days {
	case DateNegInf:
		return append(buf, "-infinity"...)
	case DatePosInf:
		return append(buf, "infinity"...)
	}
	y, m, d := civilFromDays(int64(days))
	buf = appendYMD(buf, y, m, d)
	return appendBC(buf, y)
}

// appendYMD prints the date part; BC years print as their positive number.
func appendYMD(buf []byte, y, m, d int64) []byte {
	if y <= 0 {
		y = 1 - y
	}
	buf = appendPadded(buf, y, 4)
	buf = append(buf, '-')
	buf = appendPadded(buf, m, 2)
	buf = append(buf, '-')
	return appendPadded(buf, d, 2)
}

func appendBC(buf []byte, y int64) []byte {
	if y <= 0 {
		return append(buf, " BC"...)
	}
	return buf
}

// appendPadded prints a non-negative v with at least width digits.
func appendPadded(buf []byte, v int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(s); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// appendTimeOfDay prints HH:MM:SS with the fraction's trailing zeros
// removed. Hours may exceed 23 (24:00:00 and interval hours).
func appendTimeOfDay(buf []byte, us int64) []byte {
	buf = appendPadded(buf, us/usPerHour, 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, us/usPerMin%60, 2)
	buf = append(buf, ':')
	return appendSeconds(buf, us%usPerMin)
}

// appendSeconds prints SS[.ffffff] from microseconds below a minute.
func appendSeconds(buf []byte, us int64) []byte {
	return appendFraction(appendPadded(buf, us/usPerSec, 2), us%usPerSec)
}

// appendFraction appends .ffffff for frac microseconds (0 <= frac <
// 1,000,000) without trailing zeros; nothing when frac is 0.
func appendFraction(buf []byte, frac int64) []byte {
	if frac == 0 {
		return buf
	}
	digits := 6
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	return appendPadded(append(buf, '.'), frac, digits)
}

// appendTimestamp prints YYYY-MM-DD HH:MM:SS[.f][ BC], or infinity.
func appendTimestamp(buf []byte, us int64) []byte {
	switch us {
	case TimestampNegInf:
		return append(buf, "-infinity"...)
	case TimestampPosInf:
		return append(buf, "infinity"...)
	}
	y, m, d := civilFromDays(floorDiv(us, usPerDay))
	buf = appendYMD(buf, y, m, d)
	buf = append(buf, ' ')
	buf = appendTimeOfDay(buf, floorMod(us, usPerDay))
	return appendBC(buf, y)
}

// appendTimestampTZ prints the local time in loc followed by the UTC
// offset as +HH, +HH:MM or +HH:MM:SS.
func appendTimestampTZ(buf []byte, us int64, loc *time.Location) []byte {
	if isInfiniteTS(us) {
		return appendTimestamp(buf, us)
	}
	off := zoneOffset(us, loc)
	local := us + off*usPerSec
	y, m, d := civilFromDays(floorDiv(local, usPerDay))
	buf = appendYMD(buf, y, m, d)
	buf = append(buf, ' ')
	buf = appendTimeOfDay(buf, floorMod(local, usPerDay))
	buf = appendOffset(buf, off)
	return appendBC(buf, y)
}

// appendOffset prints a UTC offset in seconds as PostgreSQL does.
func appendOffset(buf []byte, off int64) []byte {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	buf = append(buf, sign)
	buf = appendPadded(buf, off/3600, 2)
	if off%3600 != 0 {
		buf = append(buf, ':')
		buf = appendPadded(buf, off/60%60, 2)
		if off%60 != 0 {
			buf = append(buf, ':')
			buf = appendPadded(buf, off%60, 2)
		}
	}
	return buf
}

// dateToTimestamp converts a date to midnight of that day.
func dateToTimestamp(days int32) (int64, error) {
	switch days {
	case DateNegInf:
		return TimestampNegInf, nil
	case DatePosInf:
		return TimestampPosInf, nil
	}
	us := int64(days) * usPerDay
	if us < minTimestamp || us > maxTimestamp {
		return 0, errTimestampRange("date")
	}
	return us, nil
}

// timestampToDate returns the date part of a (wall-clock) timestamp.
func timestampToDate(us int64) int32 {
	switch us {
	case TimestampNegInf:
		return DateNegInf
	case TimestampPosInf:
		return DatePosInf
	}
	return int32(floorDiv(us, usPerDay))
}

// errTimestampRange is 22008 "<what> out of range".
func errTimestampRange(what string) error {
	if what == "date" {
		return Errorf(CodeDatetimeOverflow, "date out of range for timestamp")
	}
	return Errorf(CodeDatetimeOverflow, "%s out of range", what)
}

// castDatetime converts among date, time, timestamp, timestamptz and
// interval; the source is not a string.
func castDatetime(d Datum, from, to T, loc *time.Location) (Datum, error) {
	switch {
	case from.Family == to.Family:
		return d, nil
	case to.Family == FamTimestamp && from.Family == FamDate:
		us, err := dateToTimestamp(d.Date())
		return NewTimestamp(us), err
	case to.Family == FamTimestampTZ && from.Family == FamDate:
		us, err := dateToTimestamp(d.Date())
		return NewTimestampTZ(localToUTC(us, loc)), err
	case to.Family == FamTimestampTZ && from.Family == FamTimestamp:
		return NewTimestampTZ(localToUTC(d.i, loc)), nil
	case to.Family == FamTimestamp && from.Family == FamTimestampTZ:
		return NewTimestamp(utcToLocal(d.i, loc)), nil
	case to.Family == FamDate && from.Family == FamTimestamp:
		return NewDate(timestampToDate(d.i)), nil
	case to.Family == FamDate && from.Family == FamTimestampTZ:
		return NewDate(timestampToDate(utcToLocal(d.i, loc))), nil
	case to.Family == FamTime && (from.Family == FamTimestamp || from.Family == FamTimestampTZ):
		return timestampToTimeOfDay(d, loc)
	case to.Family == FamTime && from.Family == FamInterval:
		return NewTime(floorMod(d.i, usPerDay)), nil
	case to.Family == FamInterval && from.Family == FamTime:
		return NewInterval(Interval{Micros: d.i}), nil
	}
	return Null, Errorf("42846", "cannot cast type %s to %s", from.Name(), to.Name())
}

// timestampToTimeOfDay returns the (local) time of day of a timestamp.
func timestampToTimeOfDay(d Datum, loc *time.Location) (Datum, error) {
	if isInfiniteTS(d.i) {
		return Null, nil // PostgreSQL's timestamp_time returns NULL
	}
	us := d.i
	if d.fam == FamTimestampTZ {
		us = utcToLocal(us, loc)
	}
	return NewTime(floorMod(us, usPerDay)), nil
}
