package expr

import (
	"github.com/eddydb/eddy/repr"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // IANA zone names work without the host's zoneinfo
)

// Date/time functions of functions-datetime.html: timezone() (the AT TIME
// ZONE operator, which the parser turns into timezone(zone, value)),
// make_date/make_time/make_timestamp/make_timestamptz/make_interval, age,
// date_bin and to_timestamp(epoch). Zone names are IANA names (Go's zone
// database, embedded with time/tzdata), PostgreSQL's common abbreviations
// and POSIX offsets such as 'UTC+5' (west of Greenwich, as PostgreSQL reads
// them).
func init() {
	t, ts, tz, iv, i4, f8 := repr.Text, repr.Timestamp, repr.TimestampTZ, repr.IntervalT, repr.Int4, repr.Float8
	fn("timezone", tz, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		us, err := zoneLocalToUTC(a[0].Text(), a[1].Micros(), true)
		return repr.NewTimestampTZ(us), err
	}, t, ts)
	fn("timezone", ts, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		us, err := zoneUTCToLocal(a[0].Text(), a[1].Micros())
		return repr.NewTimestamp(us), err
	}, t, tz)
	fn("timezone", tz, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		off, err := intervalZone(a[0])
		if err != nil || isInfTs(a[1].Micros()) {
			return a[1], err
		}
		return checkTs(a[1].Micros()-off, repr.TimestampTZ)
	}, iv, ts)
	fn("timezone", ts, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		off, err := intervalZone(a[0])
		if err != nil || isInfTs(a[1].Micros()) {
			return repr.NewTimestamp(a[1].Micros()), err
		}
		return checkTs(a[1].Micros()+off, repr.Timestamp)
	}, iv, tz)
	fn("make_date", repr.Date, makeDate, i4, i4, i4)
	fn("make_time", repr.TimeT, makeTime, i4, i4, f8)
	fn("make_timestamp", ts, makeTimestamp(false), i4, i4, i4, i4, i4, f8)
	f := fn("make_timestamptz", tz, makeTimestamp(true), i4, i4, i4, i4, i4, f8)
	f.zoned = true
	fn("make_timestamptz", tz, makeTimestamp(true), i4, i4, i4, i4, i4, f8, t)
	// make_interval(years, months, weeks, days, hours, mins, secs): every
	// argument defaults to zero, so each prefix is an overload.
	ivArgs := []repr.T{i4, i4, i4, i4, i4, i4, f8}
	for n := 0; n <= len(ivArgs); n++ {
		fn("make_interval", iv, makeInterval, ivArgs[:n]...)
	}
	for _, ty := range []repr.T{ts, tz} {
		f := fn("age", iv, ageImpl(ty), ty, ty)
		f.zoned = ty.Family == repr.FamTimestampTZ
		g := fn("age", iv, ageImpl(ty), ty)
		g.Volatile = true // age(x) is age(current_date, x)
		fn("date_bin", ty, dateBin, iv, ty, ty)
	}
	fn("to_timestamp", tz, toTimestampEpoch, f8)
}

// zoneCache holds parsed zone names (the zone argument is usually constant).
var zoneCache sync.Map // name -> *time.Location

// zoneByName resolves a time zone name as timezone() does: an abbreviation
// of PostgreSQL's default set, then a zone database name, then a POSIX
// offset ('+05' and 'UTC+5' are five hours west of Greenwich).
func zoneByName(name string) (*time.Location, error) {
	if l, ok := zoneCache.Load(name); ok {
		return l.(*time.Location), nil
	}
	loc, ok := lookupZone(name, true)
	if !ok {
		return nil, repr.Errorf(repr.CodeInvalidParameter, "time zone %q not recognized", name)
	}
	zoneCache.Store(name, loc)
	return loc, nil
}

// lookupZone resolves name; posix selects the sign convention of bare
// numeric offsets (POSIX: positive is west; ISO 8601: positive is east).
func lookupZone(name string, posix bool) (*time.Location, bool) {
	if a, ok := repr.LookupTZAbbrev(name); ok && a.Zone == "" {
		return time.FixedZone(name, a.Offset), true
	}
	if name == "" || name == "Local" {
		return nil, false
	}
	for _, n := range []string{name, titleZone(name), strings.ToUpper(name)} {
		if loc, err := time.LoadLocation(n); err == nil {
			return loc, true
		}
	}
	if loc, ok := repr.POSIXZone(name, posix); ok {
		return loc, true
	}
	return repr.POSIXRuleZone(name)
}

// zoneLocalToUTC converts wall-clock time us in the zone named name to
// UTC. Abbreviations come first, as in PostgreSQL's timestamp_zone: a
// dynamic one (repr.TZAbbrev) means what its zone called by that name at
// that wall time; posix is lookupZone's sign convention.
func zoneLocalToUTC(name string, us int64, posix bool) (int64, error) {
	if a, ok := repr.LookupTZAbbrev(name); ok {
		if isInfTs(us) {
			return us, nil
		}
		return us - int64(a.AtLocal(name, us))*usPerSec, nil
	}
	loc, ok := lookupZone(name, posix)
	if !ok {
		return 0, repr.Errorf(repr.CodeInvalidParameter, "time zone %q not recognized", name)
	}
	return repr.LocalToUTC(us, loc), nil
}

// zoneUTCToLocal converts UTC instant us to wall-clock time in the zone
// named name (PostgreSQL's timestamptz_zone; abbreviations first).
func zoneUTCToLocal(name string, us int64) (int64, error) {
	if a, ok := repr.LookupTZAbbrev(name); ok {
		if isInfTs(us) {
			return us, nil
		}
		off, _ := a.AtUTC(name, us)
		return us + int64(off)*usPerSec, nil
	}
	loc, err := zoneByName(name)
	if err != nil {
		return 0, err
	}
	return repr.UTCToLocal(us, loc), nil
}

// titleZone capitalizes each word of a zone name ("america/new_york" ->
// "America/New_York"): PostgreSQL matches zone names case-insensitively,
// Go's zone database by exact name.
func titleZone(name string) string {
	b := []byte(strings.ToLower(name))
	for i := range b {
		if (i == 0 || strings.IndexByte("/_-", b[i-1]) >= 0) && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// intervalZone reads an interval time zone (seconds east of UTC, ISO).
func intervalZone(d repr.Datum) (int64, error) {
	iv := d.Interval()
	if iv.Months != 0 || iv.Days != 0 {
		return 0, repr.Errorf(repr.CodeInvalidParameter, "interval time zone %q must not include months or days",
			formatText(d, repr.IntervalT, nil))
	}
	return iv.Micros, nil
}

// checkTs returns us as a timestamp of type t, or 22008 when it left the
// valid range.
func checkTs(us int64, t repr.T) (repr.Datum, error) {
	if !repr.ValidTimestamp(us) {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "timestamp out of range")
	}
	if t.Family == repr.FamTimestampTZ {
		return repr.NewTimestampTZ(us), nil
	}
	return repr.NewTimestamp(us), nil
}

// validDate checks y-m-d like PostgreSQL's ValidateDate (y already
// converted from BC: year 0 is 1 BC).
func validDate(y, m, d int64) bool {
	return m >= 1 && m <= 12 && d >= 1 && d <= int64(daysIn(int(y), time.Month(m)))
}

// makeDate is make_date(year, month, day); a negative year is BC.
func makeDate(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	y, m, d := a[0].Int(), a[1].Int(), a[2].Int()
	py := y
	if y < 0 {
		py = y + 1
	}
	if y == 0 || !validDate(py, m, d) {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	days := repr.DaysFromCivil(py, m, d)
	if py < -4713 || py == -4713 && (m < 11 || m == 11 && d < 24) || days > math.MaxInt32-1 || py > 5874897 {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "date out of range: %d-%02d-%02d", y, m, d)
	}
	return repr.NewDate(int32(days)), nil
}

// timeOfDay checks and combines h:m:s as PostgreSQL's float_time_overflows
// and tm2time do (24:00:00 and a 60th second are allowed).
func timeOfDay(h, m int64, sec float64) (int64, error) {
	us := math.RoundToEven(sec * 1e6)
	if h < 0 || h > 24 || m < 0 || m >= 60 || math.IsNaN(sec) || us < 0 || us > 60e6 ||
		(h*60+m)*60*1e6+int64(us) > usPerDay {
		return 0, repr.Errorf(repr.CodeDatetimeOverflow, "time field value out of range: %d:%02d:%s", h, m, fmtG(sec))
	}
	return (h*60+m)*60*1e6 + int64(us), nil
}

// fmtG prints a float as C's %02g does for the values PostgreSQL reports.
func fmtG(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	s := strconv.FormatFloat(f, 'g', 6, 64)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

func makeTime(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	us, err := timeOfDay(a[0].Int(), a[1].Int(), a[2].Float())
	if err != nil {
		return repr.Null, err
	}
	return repr.NewTime(us), nil
}

// makeTimestamp is make_timestamp / make_timestamptz (in the session zone
// or the given one; there '+05' is five hours east, as ISO 8601 reads it).
func makeTimestamp(zoned bool) implFn {
	return func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		y, m, d := a[0].Int(), a[1].Int(), a[2].Int()
		py := y
		if y < 0 {
			py = y + 1 // BC
		}
		if y == 0 || !validDate(py, m, d) {
			return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
		}
		tod, err := timeOfDay(a[3].Int(), a[4].Int(), a[5].Float())
		if err != nil {
			return repr.Null, err
		}
		days := repr.DaysFromCivil(py, m, d)
		us := days*usPerDay + tod
		if days > 106751991 || !repr.ValidTimestamp(us) {
			return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%s",
				y, m, d, a[3].Int(), a[4].Int(), fmtG(a[5].Float()))
		}
		if !zoned {
			return repr.NewTimestamp(us), nil
		}
		if len(a) == 7 {
			utc, err := zoneLocalToUTC(a[6].Text(), us, false)
			if err != nil {
				return repr.Null, err
			}
			return checkTs(utc, repr.TimestampTZ)
		}
		return checkTs(repr.LocalToUTC(us, c.Location()), repr.TimestampTZ)
	}
}

// makeInterval is make_interval(years, months, weeks, days, hours, mins,
// secs) with missing arguments zero. Like PostgreSQL 15 only secs is range
// checked; the integer fields wrap as its int32 arithmetic does.
func makeInterval(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	var f [6]int64
	secs := 0.0
	for i, d := range a {
		if i == 6 {
			secs = d.Float()
		} else {
			f[i] = d.Int()
		}
	}
	us := math.RoundToEven(secs * 1e6)
	if math.IsInf(secs, 0) || math.IsNaN(secs) || us < -9.223372036854775e18 || us >= 9.223372036854775e18 {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "interval out of range")
	}
	return repr.NewInterval(repr.Interval{
		Months: int32(f[0]*12 + f[1]),
		Days:   int32(f[2]*7 + f[3]),
		Micros: f[4]*3600e6 + f[5]*60e6 + int64(us),
	}), nil
}

// ageImpl is age(a, b) (or age(current_date, b)): the symbolic difference
// of the two timestamps' fields (in the session zone for timestamptz),
// negative fields borrowing from the next larger one and days borrowing
// the length of the earlier timestamp's month, as PostgreSQL's
// timestamp_age.
func ageImpl(t repr.T) implFn {
	return func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		loc := time.UTC
		if t.Family == repr.FamTimestampTZ {
			loc = c.Location()
		}
		var x, y int64
		if len(a) == 1 {
			today := tsToTime(c.StmtTimestamp, c.Location())
			yy, mm, dd := today.Date()
			x = timeToTs(time.Date(yy, mm, dd, 0, 0, 0, 0, loc))
			y = a[0].Micros()
		} else {
			x, y = a[0].Micros(), a[1].Micros()
		}
		if isInfTs(x) || isInfTs(y) {
			return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "cannot subtract infinite timestamps")
		}
		return repr.NewInterval(age(tsToTime(x, loc), tsToTime(y, loc), x < y)), nil
	}
}

func age(t1, t2 time.Time, neg bool) repr.Interval {
	y1, m1, d1 := t1.Date()
	y2, m2, d2 := t2.Date()
	f := [7]int64{
		int64(y1 - y2), int64(m1 - m2), int64(d1 - d2), int64(t1.Hour() - t2.Hour()),
		int64(t1.Minute() - t2.Minute()), int64(t1.Second() - t2.Second()),
		int64(t1.Nanosecond()/1000 - t2.Nanosecond()/1000),
	}
	if neg {
		for i := range f {
			f[i] = -f[i]
		}
	}
	for f[6] < 0 {
		f[6], f[5] = f[6]+1e6, f[5]-1
	}
	for f[5] < 0 {
		f[5], f[4] = f[5]+60, f[4]-1
	}
	for f[4] < 0 {
		f[4], f[3] = f[4]+60, f[3]-1
	}
	for f[3] < 0 {
		f[3], f[2] = f[3]+24, f[2]-1
	}
	for f[2] < 0 {
		ref := t2
		if neg {
			ref = t1
		}
		f[2] += int64(daysIn(ref.Year(), ref.Month()))
		f[1]--
	}
	for f[1] < 0 {
		f[1], f[0] = f[1]+12, f[0]-1
	}
	if neg {
		for i := range f {
			f[i] = -f[i]
		}
	}
	return repr.Interval{
		Months: int32(f[0]*12 + f[1]),
		Days:   int32(f[2]),
		Micros: ((f[3]*60+f[4])*60+f[5])*1e6 + f[6],
	}
}

// dateBin is date_bin(stride, source, origin): the start of the stride-long
// bin, counted from origin, that holds source.
func dateBin(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	iv, src, org := a[0].Interval(), a[1].Micros(), a[2].Micros()
	if isInfTs(src) {
		return a[1], nil
	}
	if isInfTs(org) {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "origin out of range")
	}
	if iv.Months != 0 {
		// PostgreSQL's own refusal, with its SQLSTATE and words
		return repr.Null, repr.Errorf(repr.CodeFeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	stride := int64(iv.Days)*usPerDay + iv.Micros
	if stride <= 0 {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "stride must be greater than zero")
	}
	diff := src - org
	if org < 0 && diff < src || org > 0 && diff > src {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "interval out of range")
	}
	delta := diff - diff%stride
	if diff < 0 && diff%stride != 0 {
		delta -= stride
	}
	return checkTsLike(org+delta, a[1])
}

// checkTsLike returns us with the family of like, range checked.
func checkTsLike(us int64, like repr.Datum) (repr.Datum, error) {
	if like.Family() == repr.FamTimestampTZ {
		return checkTs(us, repr.TimestampTZ)
	}
	return checkTs(us, repr.Timestamp)
}

// toTimestampEpoch is to_timestamp(double precision): Unix seconds to a
// timestamptz, rounded to microseconds.
func toTimestampEpoch(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	f := a[0].Float()
	switch {
	case math.IsNaN(f):
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "timestamp cannot be NaN")
	case math.IsInf(f, 1):
		return repr.NewTimestampTZ(math.MaxInt64), nil
	case math.IsInf(f, -1):
		return repr.NewTimestampTZ(math.MinInt64), nil
	}
	// The valid range is PostgreSQL's: Julian day 0 to the end of 294276.
	if f < -210866803200 || f >= 9224318016000 {
		return repr.Null, repr.Errorf(repr.CodeDatetimeOverflow, "timestamp out of range: \"%s\"", fmtG(f))
	}
	us := int64(math.RoundToEven(f*1e6)) - pgEpochUnix*usPerSec
	return checkTs(us, repr.TimestampTZ)
}
