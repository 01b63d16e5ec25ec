package scalar

// Private stand-ins for the sql/types date/time helpers (TimestampToTime,
// TimeToTimestamp, AddInterval, DateTrunc, Extract and the date/time text
// formats). TODO(scalar): switch to sql/types once they land.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

const (
	pgEpochUnix = 946684800 // 2000-01-01 00:00:00 UTC in Unix seconds
	usPerDay    = 86400 * 1000000
	usPerSec    = 1000000
)

// tsToTime converts microseconds since the PostgreSQL epoch to a time.Time in loc.
func tsToTime(us int64, loc *time.Location) time.Time {
	sec, frac := floorDiv(us, usPerSec), floorMod(us, usPerSec)
	return time.Unix(pgEpochUnix+sec, frac*1000).In(loc)
}

// timeToTs is the inverse of tsToTime.
func timeToTs(t time.Time) int64 {
	return (t.Unix()-pgEpochUnix)*usPerSec + int64(t.Nanosecond()/1000)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func isInfTs(us int64) bool { return us == math.MinInt64 || us == math.MaxInt64 }

func formatTime(d types.Datum, loc *time.Location) string {
	switch d.Family() {
	case types.FamDate:
		switch d.Date() {
		case math.MaxInt32:
			return "infinity"
		case math.MinInt32:
			return "-infinity"
		}
		return tsToTime(int64(d.Date())*usPerDay, time.UTC).Format("2006-01-02")
	case types.FamTime:
		return clock(d.Micros())
	case types.FamTimestamp, types.FamTimestampTZ:
		return formatTimestamp(d, loc)
	case types.FamInterval:
		return formatInterval(d.Interval())
	}
	return fmt.Sprintf("?%d", d.Family())
}

func formatTimestamp(d types.Datum, loc *time.Location) string {
	switch d.Micros() {
	case math.MaxInt64:
		return "infinity"
	case math.MinInt64:
		return "-infinity"
	}
	if d.Family() == types.FamTimestamp {
		loc = time.UTC
	}
	t := tsToTime(d.Micros(), loc)
	s := t.Format("2006-01-02 ") + clock(int64(t.Hour()*3600+t.Minute()*60+t.Second())*usPerSec+int64(t.Nanosecond()/1000))
	if d.Family() == types.FamTimestampTZ {
		_, off := t.Zone()
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		s += fmt.Sprintf("%s%02d", sign, off/3600)
		if off%3600 != 0 {
			s += fmt.Sprintf(":%02d", off%3600/60)
		}
	}
	return s
}

// clock prints microseconds as HH:MM:SS[.ffffff] with trailing zeros trimmed.
func clock(us int64) string {
	s := fmt.Sprintf("%02d:%02d:%02d", us/3600e6, us/60e6%60, us/1e6%60)
	if f := us % 1e6; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", f), "0")
	}
	return s
}

// formatInterval prints in IntervalStyle postgres.
func formatInterval(iv types.Interval) string {
	var parts []string
	neg := false
	add := func(v int64, unit string) {
		if v == 0 {
			return
		}
		p := strconv.FormatInt(v, 10)
		if neg && v > 0 {
			p = "+" + p
		}
		if v != 1 {
			unit += "s"
		}
		parts = append(parts, p+" "+unit)
		neg = v < 0
	}
	add(int64(iv.Months/12), "year")
	add(int64(iv.Months%12), "mon")
	add(int64(iv.Days), "day")
	if iv.Micros != 0 || len(parts) == 0 {
		us, sign := iv.Micros, ""
		if us < 0 {
			sign, us = "-", -us
		} else if neg {
			sign = "+"
		}
		parts = append(parts, sign+clock(us))
	}
	return strings.Join(parts, " ")
}

// parseTime parses the ISO forms of date, time, timestamp[tz] and a subset
// of interval input.
func parseTime(s string, t types.T, loc *time.Location) (types.Datum, bool) {
	ls := strings.ToLower(s)
	switch t.Family {
	case types.FamDate:
		if ls == "infinity" || ls == "-infinity" {
			return types.NewDate(int32(map[bool]int64{true: math.MinInt32, false: math.MaxInt32}[ls[0] == '-'])), true
		}
		tm, err := time.ParseInLocation("2006-01-02", s, time.UTC)
		if err != nil {
			return types.Null, false
		}
		return types.NewDate(int32(floorDiv(timeToTs(tm), usPerDay))), true
	case types.FamTime:
		for _, f := range []string{"15:04:05.999999", "15:04"} {
			if tm, err := time.Parse(f, s); err == nil {
				return types.NewTime(int64(tm.Hour()*3600+tm.Minute()*60+tm.Second())*usPerSec + int64(tm.Nanosecond()/1000)), true
			}
		}
	case types.FamTimestamp, types.FamTimestampTZ:
		return parseTimestamp(s, t, loc)
	case types.FamInterval:
		return parseInterval(ls)
	}
	return types.Null, false
}

func parseTimestamp(s string, t types.T, loc *time.Location) (types.Datum, bool) {
	mk := types.NewTimestamp
	if t.Family == types.FamTimestampTZ {
		mk = types.NewTimestampTZ
	} else {
		loc = time.UTC
	}
	switch strings.ToLower(s) {
	case "infinity":
		return mk(math.MaxInt64), true
	case "-infinity":
		return mk(math.MinInt64), true
	}
	s = strings.Replace(s, "T", " ", 1)
	layouts := []string{"2006-01-02 15:04:05.999999", "2006-01-02 15:04", "2006-01-02"}
	if t.Family == types.FamTimestampTZ {
		for _, z := range []string{"Z07:00", "Z07", "Z0700"} {
			for _, l := range layouts {
				if tm, err := time.Parse(l+z, s); err == nil {
					return mk(timeToTs(tm)), true
				}
			}
		}
	}
	for _, l := range layouts {
		if tm, err := time.ParseInLocation(l, s, loc); err == nil {
			return mk(timeToTs(tm)), true
		}
	}
	return types.Null, false
}

// parseInterval accepts "N unit ..." pairs and an optional [-]HH:MM[:SS[.f]].
func parseInterval(s string) (types.Datum, bool) {
	var iv types.Interval
	f := strings.Fields(s)
	for i := 0; i < len(f); i++ {
		if strings.Contains(f[i], ":") {
			us, ok := parseClock(f[i])
			if !ok {
				return types.Null, false
			}
			iv.Micros += us
			continue
		}
		n, err := strconv.ParseFloat(f[i], 64)
		if err != nil || i+1 >= len(f) {
			return types.Null, false
		}
		i++
		u := strings.TrimSuffix(f[i], "s")
		switch u {
		case "year", "yr", "y":
			iv.Months += int32(n * 12)
		case "mon", "month":
			iv.Months += int32(n)
		case "week", "w":
			iv.Days += int32(n * 7)
		case "day", "d":
			iv.Days += int32(n)
		case "hour", "hr", "h":
			iv.Micros += int64(n * 3600e6)
		case "min", "minute", "m":
			iv.Micros += int64(n * 60e6)
		case "sec", "second":
			iv.Micros += int64(math.Round(n * 1e6))
		case "millisecond", "msec", "ms":
			iv.Micros += int64(n * 1e3)
		default:
			return types.Null, false
		}
	}
	return types.NewInterval(iv), len(f) > 0
}

func parseClock(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	p := strings.Split(s, ":")
	if len(p) < 2 || len(p) > 3 {
		return 0, false
	}
	h, e1 := strconv.ParseInt(p[0], 10, 64)
	m, e2 := strconv.ParseInt(p[1], 10, 64)
	sec := 0.0
	var e3 error
	if len(p) == 3 {
		sec, e3 = strconv.ParseFloat(p[2], 64)
	}
	if e1 != nil || e2 != nil || e3 != nil {
		return 0, false
	}
	us := h*3600e6 + m*60e6 + int64(math.Round(sec*1e6))
	if neg {
		us = -us
	}
	return us, true
}

// castTime converts among date, time, timestamp, timestamptz and interval.
func castTime(d types.Datum, from, to types.T, loc *time.Location) (types.Datum, error) {
	us := d.Micros()
	switch from.Family {
	case types.FamDate:
		us = int64(d.Date()) * usPerDay
		if from.Family == types.FamDate && to.Family == types.FamTimestampTZ {
			return types.NewTimestampTZ(wallToTZ(us, loc)), nil
		}
	case types.FamTimestampTZ:
		if to.Family != types.FamTimestampTZ && !isInfTs(us) {
			us = tzToWall(us, loc)
		}
	case types.FamTime:
		if to.Family == types.FamInterval {
			return types.NewInterval(types.Interval{Micros: us}), nil
		}
	case types.FamInterval:
		if to.Family == types.FamTime {
			return types.NewTime(floorMod(d.Interval().Micros, usPerDay)), nil
		}
	}
	switch to.Family {
	case types.FamTimestamp:
		return types.NewTimestamp(us), nil
	case types.FamTimestampTZ:
		if from.Family == types.FamTimestamp && !isInfTs(us) {
			us = wallToTZ(us, loc)
		}
		return types.NewTimestampTZ(us), nil
	case types.FamDate:
		return types.NewDate(int32(floorDiv(us, usPerDay))), nil
	case types.FamTime:
		return types.NewTime(floorMod(us, usPerDay)), nil
	}
	return types.Null, pgerr.New("42846", "cannot cast type %s to %s", from.Name(), to.Name())
}

// wallToTZ interprets a wall-clock timestamp in loc as an absolute time.
func wallToTZ(us int64, loc *time.Location) int64 {
	w := tsToTime(us, time.UTC)
	t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc)
	return timeToTs(t)
}

// tzToWall returns the wall clock of an absolute time in loc.
func tzToWall(us int64, loc *time.Location) int64 {
	t := tsToTime(us, loc)
	_, off := t.Zone()
	return us + int64(off)*usPerSec
}

// addInterval adds iv to a timestamp (wall clock in loc): months first with
// day clamped to the month's end, then days, then microseconds, as PG does.
func addInterval(ts int64, iv types.Interval, loc *time.Location) (int64, error) {
	if isInfTs(ts) {
		return ts, nil
	}
	if iv.Months != 0 || iv.Days != 0 {
		t := tsToTime(ts, loc)
		y, m, dd := t.Date()
		mm := int(m) - 1 + int(iv.Months)
		y += floorDivInt(mm, 12)
		mm = mm - floorDivInt(mm, 12)*12 + 1
		if last := daysIn(y, time.Month(mm)); dd > last {
			dd = last
		}
		h, mi, s := t.Clock()
		t = time.Date(y, time.Month(mm), dd+int(iv.Days), h, mi, s, t.Nanosecond(), loc)
		if t.Year() > 294276 || t.Year() < -4713 {
			return 0, pgerr.New(pgerr.CodeDatetimeOverflow, "timestamp out of range")
		}
		ts = timeToTs(t)
	}
	r := ts + iv.Micros
	if (iv.Micros > 0 && r < ts) || (iv.Micros < 0 && r > ts) {
		return 0, pgerr.New(pgerr.CodeDatetimeOverflow, "timestamp out of range")
	}
	return r, nil
}

func floorDivInt(a, b int) int { return int(floorDiv(int64(a), int64(b))) }

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// nilLoc is the zone of timestamps without time zone: wall clock as UTC.
func nilLoc() *time.Location { return time.UTC }
