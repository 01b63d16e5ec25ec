package expr

// Date/time helpers the operators use: timestamps as time.Time in a zone,
// wall-clock conversion, and PostgreSQL's interval addition. TODO(scalar):
// consider repr.AddInterval/DateTrunc/Extract, which landed later.

import (
	"math"
	"time"

	"github.com/eddydb/eddy/repr"
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

// tzToWall returns the wall clock of an absolute time in loc.
func tzToWall(us int64, loc *time.Location) int64 {
	t := tsToTime(us, loc)
	_, off := t.Zone()
	return us + int64(off)*usPerSec
}

// addInterval adds iv to a timestamp (wall clock in loc): months first with
// day clamped to the month's end, then days, then microseconds, as PG does.
func addInterval(ts int64, iv repr.Interval, loc *time.Location) (int64, error) {
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
			return 0, repr.Errorf(repr.CodeDatetimeOverflow, "timestamp out of range")
		}
		ts = timeToTs(t)
	}
	r := ts + iv.Micros
	if (iv.Micros > 0 && r < ts) || (iv.Micros < 0 && r > ts) {
		return 0, repr.Errorf(repr.CodeDatetimeOverflow, "timestamp out of range")
	}
	return r, nil
}

func floorDivInt(a, b int) int { return int(floorDiv(int64(a), int64(b))) }

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// nilLoc is the zone of timestamps without time zone: wall clock as UTC.
func nilLoc() *time.Location { return time.UTC }
