package jsonpath

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/repr"
)

// The datetime kinds .datetime() makes (PostgreSQL's date, time, timetz,
// timestamp and timestamptz).
const (
	dDate = iota
	dTime
	dTimeTZ
	dTimestamp
	dTimestampTZ
)

// A datetime Value keeps its kind in dtType.Width (a private use of the
// field), its microseconds (days for dates; UTC for timestamptz, local
// otherwise) in dt, and its zone offset in tz.

func datetimeKind(v Value) int { return int(v.dtType.Width) }

func datetimeTypeName(v Value) string {
	return [...]string{"date", "time without time zone", "time with time zone",
		"timestamp without time zone", "timestamp with time zone"}[datetimeKind(v)]
}

// isoDatetime matches the forms .datetime() recognises without a
// template: PostgreSQL 15 tries yyyy-mm-dd, HH24:MI:SS[TZH[:TZM]] and
// yyyy-mm-dd HH24:MI:SS[TZH[:TZM]] (a T may separate date and time),
// with to_timestamp's leniency about digit counts and blanks.
var isoDatetime = regexp.MustCompile(`^\s*(?:(\d{1,7})-(\d{1,2})-(\d{1,2}))?(?:(?:^|\s*[ T]\s*)(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6})\d*)?\s*(?:([+-])\s*(\d{1,2})(?::(\d{1,2}))?)?)?\s*$`)

// datetime is .datetime() without a template; a template is 0A000.
func (e *evaluator) datetime(it *Item, v Value) (Value, error) {
	if v.k != vString {
		return Value{}, soft(codeDatetimeArgument, "jsonpath item method .datetime() can only be applied to a string")
	}
	if it.Bool {
		return Value{}, repr.Unsupported("jsonpath item method .datetime() with a template")
	}
	m := isoDatetime.FindStringSubmatch(v.str)
	if m == nil || m[1] == "" && m[4] == "" {
		return Value{}, soft(codeDatetimeArgument, "datetime format is not recognized: %q", v.str)
	}
	atoi := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	var days, micros int64
	if m[1] != "" {
		y, mo, d := atoi(m[1]), atoi(m[2]), atoi(m[3])
		if mo < 1 || mo > 12 || d < 1 || d > int64(daysIn(y, mo)) {
			return Value{}, soft("22008", "date/time field value out of range: %q", v.str)
		}
		days = repr.DaysFromCivil(y, mo, d)
	}
	if m[4] != "" {
		h, mi, s := atoi(m[4]), atoi(m[5]), atoi(m[6])
		if h > 24 || mi > 59 || s > 60 || h == 24 && (mi > 0 || s > 0) {
			return Value{}, soft("22008", "date/time field value out of range: %q", v.str)
		}
		frac := m[7] + strings.Repeat("0", 6-len(m[7]))
		micros = ((h*60+mi)*60+s)*1000000 + atoi(frac)
	}
	var tz int32
	hasTZ := m[8] != ""
	if hasTZ {
		tz = int32(atoi(m[9])*3600 + atoi(m[10])*60)
		if m[8] == "-" {
			tz = -tz
		}
	}
	out := Value{k: vDatetime, tz: tz}
	switch {
	case m[4] == "":
		out.dtType.Width, out.dt = dDate, repr.NewDate(int32(days))
	case m[1] == "" && hasTZ:
		out.dtType.Width, out.dt = dTimeTZ, repr.NewTime(micros)
	case m[1] == "":
		out.dtType.Width, out.dt = dTime, repr.NewTime(micros)
	case hasTZ:
		out.dtType.Width, out.dt = dTimestampTZ, repr.NewTimestampTZ(days*86400000000+micros-int64(tz)*1000000)
	default:
		out.dtType.Width, out.dt = dTimestamp, repr.NewTimestamp(days*86400000000+micros)
	}
	return out, nil
}

func daysIn(y, m int64) int {
	return time.Date(int(y), time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// formatDatetime prints a datetime as jsonb does (ISO 8601, XSD style).
func formatDatetime(v Value) string {
	const day = 86400000000
	us := v.dt.Int()
	switch datetimeKind(v) {
	case dDate:
		return repr.FormatText(v.dt, repr.Date, nil)
	case dTime:
		return clock(us)
	case dTimeTZ:
		return clock(us) + zone(v.tz)
	case dTimestamp:
		return isoDate(floorDiv(us, day)) + "T" + clock(us-floorDiv(us, day)*day)
	}
	local := us + int64(v.tz)*1000000
	return isoDate(floorDiv(local, day)) + "T" + clock(local-floorDiv(local, day)*day) + zone(v.tz)
}

func isoDate(days int64) string {
	return repr.FormatText(repr.NewDate(int32(days)), repr.Date, nil)
}

// clock prints microseconds of a day as HH:MM:SS[.ffffff], trimmed.
func clock(us int64) string {
	s := fmt.Sprintf("%02d:%02d:%02d", us/3600000000, us/60000000%60, us/1000000%60)
	if f := us % 1000000; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", f), "0")
	}
	return s
}

func zone(tz int32) string {
	sign := '+'
	if tz < 0 {
		sign, tz = '-', -tz
	}
	s := fmt.Sprintf("%c%02d:%02d", sign, tz/3600, tz/60%60)
	if tz%60 != 0 {
		s += fmt.Sprintf(":%02d", tz%60)
	}
	return s
}

// compareDatetime compares two datetimes (compareDatetime): ok is false
// when their kinds do not compare (date and time); conversions between a
// zoned and an unzoned kind need the session time zone (the _tz
// functions) and are 0A000 otherwise.
func (e *evaluator) compareDatetime(l, r Value) (int, bool, error) {
	lk, rk := datetimeKind(l), datetimeKind(r)
	timeKind := func(k int) bool { return k == dTime || k == dTimeTZ }
	if timeKind(lk) != timeKind(rk) {
		return 0, false, nil
	}
	zoned := func(k int) bool { return k == dTimeTZ || k == dTimestampTZ }
	if zoned(lk) != zoned(rk) && !e.opts.UseTZ {
		return 0, false, repr.Errorf(repr.CodeFeatureNotSupported, "cannot convert value from %s to %s without time zone usage",
			datetimeTypeName(map[bool]Value{true: l, false: r}[!zoned(lk)]), datetimeTypeName(map[bool]Value{true: l, false: r}[zoned(lk)])).
			WithHint("Use *_tz() function for time zone support.")
	}
	a, b := e.instant(l, zoned(lk) || zoned(rk)), e.instant(r, zoned(lk) || zoned(rk))
	switch {
	case a < b:
		return -1, true, nil
	case a > b:
		return 1, true, nil
	}
	if lk == dTimeTZ && rk == dTimeTZ && l.tz != r.tz {
		// timetz_cmp orders equal instants by zone (west of UTC first).
		if l.tz > r.tz {
			return -1, true, nil
		}
		return 1, true, nil
	}
	return 0, true, nil
}

// instant is v's microseconds on a common scale: UTC when zoned (unzoned
// values taken in the session time zone), local otherwise.
func (e *evaluator) instant(v Value, zoned bool) int64 {
	const day = 86400000000
	us := v.dt.Int()
	switch datetimeKind(v) {
	case dDate:
		// A date past the timestamp range compares as an infinite
		// timestamp (PostgreSQL's date2timestamp_opt_overflow).
		switch {
		case us > math.MaxInt64/day:
			return math.MaxInt64
		case us < math.MinInt64/day:
			return math.MinInt64
		}
		us *= day
	case dTimeTZ:
		return us - int64(v.tz)*1000000
	case dTimestampTZ:
		return us
	}
	if !zoned {
		return us
	}
	// A time takes the zone's offset on 2000-01-01 (PostgreSQL: on the
	// current date), keeping evaluation deterministic.
	return repr.LocalToUTC(us, e.loc())
}

func (e *evaluator) loc() *time.Location {
	if e.opts.Loc == nil {
		return time.UTC
	}
	return e.opts.Loc
}
