package expr

import (
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

func init() {
	t := repr.Text
	for _, ty := range []repr.T{repr.Timestamp, repr.TimestampTZ} {
		ty := ty
		f := fn("date_trunc", ty, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			loc := c.Location()
			if ty.Family == repr.FamTimestamp {
				loc = time.UTC
			}
			us, err := dateTrunc(strings.ToLower(a[0].Text()), a[1].Micros(), loc)
			if ty.Family == repr.FamTimestamp {
				return repr.NewTimestamp(us), err
			}
			return repr.NewTimestampTZ(us), err
		}, t, ty)
		f.zoned = ty.Family == repr.FamTimestampTZ
	}
	for _, ty := range []repr.T{repr.Date, repr.TimeT, repr.Timestamp, repr.TimestampTZ, repr.IntervalT} {
		ty := ty
		f := fn("extract", repr.Numeric, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			return extract(strings.ToLower(a[0].Text()), a[1], ty, c.Location())
		}, t, ty)
		f.zoned = ty.Family == repr.FamTimestampTZ
		if ty.Family == repr.FamDate {
			continue // date_part(text, date) resolves through timestamp in PG
		}
		g := fn("date_part", repr.Float8, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			d, err := extract(strings.ToLower(a[0].Text()), a[1], ty, c.Location())
			if err != nil || d.IsNull() { // NULL: a field of an infinite value
				return d, err
			}
			fl, err := toFloat(d, repr.Numeric)
			return repr.NewFloat(fl), err
		}, t, ty)
		g.zoned = f.zoned
	}
}

// dateTrunc truncates a timestamp (wall clock in loc) to unit.
func dateTrunc(unit string, us int64, loc *time.Location) (int64, error) {
	if isInfTs(us) {
		return us, nil
	}
	tm := tsToTime(us, loc)
	y, mo, d := tm.Date()
	h, mi, s := tm.Clock()
	ns := tm.Nanosecond()
	switch unit {
	case "microseconds":
	case "milliseconds":
		ns = ns / 1e6 * 1e6
	case "second", "seconds":
		ns = 0
	case "minute", "minutes":
		s, ns = 0, 0
	case "hour", "hours":
		mi, s, ns = 0, 0, 0
	case "day", "days":
		h, mi, s, ns = 0, 0, 0, 0
	case "week", "weeks":
		d -= (int(tm.Weekday()) + 6) % 7
		h, mi, s, ns = 0, 0, 0, 0
	case "month", "months":
		d, h, mi, s, ns = 1, 0, 0, 0, 0
	case "quarter":
		mo = (mo-1)/3*3 + 1
		d, h, mi, s, ns = 1, 0, 0, 0, 0
	case "year", "years":
		mo, d, h, mi, s, ns = 1, 1, 0, 0, 0, 0
	case "decade", "century", "millennium":
		y, mo, d, h, mi, s, ns = truncYear(y, unit), 1, 1, 0, 0, 0, 0
	default:
		return 0, repr.Errorf(repr.CodeInvalidParameter, "unit %q not recognized for type timestamp", unit)
	}
	return timeToTs(time.Date(y, mo, d, h, mi, s, ns, loc)), nil
}

// truncYear is timestamp_trunc's first year of y's decade, century or
// millennium; y is astronomical (1 BC is 0), and BC periods run
// backwards: the century of 55 BC starts in 100 BC, the decade of 2 BC
// in 11 BC.
func truncYear(y int, unit string) int {
	switch {
	case unit == "decade" && y > 0:
		return y / 10 * 10
	case unit == "decade":
		return -((8 - (y - 1)) / 10) * 10
	}
	n := 100
	if unit == "millennium" {
		n = 1000
	}
	if y > 0 {
		return (y+n-1)/n*n - n + 1
	}
	return -((n-1-(y-1))/n)*n + 1
}

// extract returns field of a date/time value as numeric (PostgreSQL 14+).
func extract(field string, d repr.Datum, t repr.T, loc *time.Location) (repr.Datum, error) {
	switch t.Family {
	case repr.FamInterval:
		return extractInterval(field, d.Interval())
	case repr.FamDate, repr.FamTime, repr.FamTimestamp, repr.FamTimestampTZ:
		// repr.Extract knows BC years (no year 0), infinite values
		// (±Infinity or NULL) and which fields time lacks (0A000),
		// which the code below does not.
		return repr.Extract(field, d, t, loc)
	}
	us := d.Micros()
	switch t.Family {
	case repr.FamDate:
		us = int64(d.Date()) * usPerDay
	case repr.FamTimestampTZ:
		if field != "epoch" {
			us = tzToWall(us, loc)
		}
	}
	if isInfTs(us) {
		return repr.Null, nil
	}
	tm := tsToTime(us, time.UTC)
	micro := int64(tm.Second())*usPerSec + int64(tm.Nanosecond()/1000)
	var v *apd.Decimal
	switch field {
	case "epoch":
		v = apd.New(us+pgEpochUnix*usPerSec, -6)
	case "year", "years":
		v = apd.New(int64(tm.Year()), 0)
	case "month", "months":
		v = apd.New(int64(tm.Month()), 0)
	case "day", "days":
		v = apd.New(int64(tm.Day()), 0)
	case "hour", "hours":
		v = apd.New(int64(tm.Hour()), 0)
	case "minute", "minutes":
		v = apd.New(int64(tm.Minute()), 0)
	case "second", "seconds":
		v = apd.New(micro, -6)
	case "millisecond", "milliseconds":
		v = apd.New(micro, -3)
	case "microsecond", "microseconds":
		v = apd.New(micro, 0)
	case "dow":
		v = apd.New(int64(tm.Weekday()), 0)
	case "isodow":
		v = apd.New(int64((int(tm.Weekday())+6)%7+1), 0)
	case "doy":
		v = apd.New(int64(tm.YearDay()), 0)
	case "quarter":
		v = apd.New(int64((tm.Month()-1)/3+1), 0)
	case "week":
		_, w := tm.ISOWeek()
		v = apd.New(int64(w), 0)
	case "isoyear":
		y, _ := tm.ISOWeek()
		v = apd.New(int64(y), 0)
	case "decade":
		v = apd.New(floorDiv(int64(tm.Year()), 10), 0)
	case "century":
		v = apd.New((int64(tm.Year())+99)/100, 0)
	case "millennium":
		v = apd.New((int64(tm.Year())+999)/1000, 0)
	case "timezone":
		_, off := tsToTime(d.Micros(), loc).Zone()
		v = apd.New(int64(off), 0)
	default:
		return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "unit %q not recognized for type %s", field, t.Name())
	}
	if t.Family == repr.FamDate {
		if v.Exponent < 0 && field != "epoch" || field == "hour" || field == "minute" || field == "timezone" {
			return repr.Null, repr.Errorf(repr.CodeFeatureNotSupported, "unit %q not supported for type date", field)
		}
		if field == "epoch" {
			v = apd.New(floorDiv(us, usPerSec)+pgEpochUnix, 0)
		}
	}
	return repr.NewNumeric(v), nil
}

func extractInterval(field string, iv repr.Interval) (repr.Datum, error) {
	var v *apd.Decimal
	switch field {
	case "epoch":
		secs := (int64(iv.Months)/12*365*4+int64(iv.Months)/12)*86400/4 + int64(iv.Months%12)*30*86400 + int64(iv.Days)*86400
		v = new(apd.Decimal) // secs*1e6 + micros may overflow int64
		_, _ = exactCtx.Add(v, apd.New(secs, 0), apd.New(iv.Micros, -6))
	case "year", "years":
		v = apd.New(int64(iv.Months/12), 0)
	case "month", "months":
		v = apd.New(int64(iv.Months%12), 0)
	case "day", "days":
		v = apd.New(int64(iv.Days), 0)
	case "hour", "hours":
		v = apd.New(iv.Micros/3600e6, 0)
	case "minute", "minutes":
		v = apd.New(iv.Micros/60e6%60, 0)
	case "second", "seconds":
		v = apd.New(iv.Micros%60e6, -6)
	default:
		return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "unit %q not supported for type interval", field)
	}
	return repr.NewNumeric(v), nil
}
