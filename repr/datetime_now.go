package repr

import (
	"strings"
	"time"
)

// The special date/time inputs that read the current time: 'now' (alone),
// and 'today', 'tomorrow' and 'yesterday' (midnight of that day, which
// other fields may follow: 'tomorrow 10:00 EST'). PostgreSQL reads them at
// its transaction's start in the session time zone. repr never reads the
// clock: ParseText refuses them (0A000), and callers that know the
// statement's time (expr's *_input_at functions) pass it to ParseDateTimeAt.

// nowRef is the reference time of those inputs: now() in timestamptz
// microseconds and the session time zone.
type nowRef struct {
	now int64
	loc *time.Location
}

// local is now's wall-clock time in the session zone, in microseconds.
func (r *nowRef) local() int64 { return utcToLocal(r.now, r.loc) }

// relativeDays are the day words and their offsets from today.
var relativeDays = map[string]int64{"today": 0, "tomorrow": 1, "yesterday": -1}

// setRelativeDay sets the date fields to today's date (in the session
// zone) plus delta days; the time fields are left for later tokens.
func (f *dtFields) setRelativeDay(delta int64, s string, t T) error {
	if f.ref == nil {
		return errUnsupportedSpecial(s)
	}
	if f.hasDate {
		return errDatetimeSyntax(t, s)
	}
	y, m, d := civilFromDays(floorDiv(f.ref.local(), usPerDay) + delta)
	f.year, f.mon, f.day, f.hasDate = y, m, d, true
	if y <= 0 {
		f.year, f.bc = 1-y, true
	}
	return nil
}

// ParseDateTimeAt parses text input of t (date, time, timestamp or
// timestamptz, whose zone-less input is in loc) as ParseText does, but
// reads 'now', 'today', 'tomorrow' and 'yesterday' at now (timestamptz
// microseconds) in loc. Other types parse as ParseText parses them.
func ParseDateTimeAt(s string, t T, loc *time.Location, now int64) (Datum, error) {
	if loc == nil {
		loc = time.UTC
	}
	ref := &nowRef{now: now, loc: loc}
	switch t.Family {
	case FamDate:
		return parseDate(s, ref)
	case FamTime:
		return parseTimeOfDay(s, ref)
	case FamTimestamp:
		return parseTimestamp(s, false, loc, ref)
	case FamTimestampTZ:
		return parseTimestamp(s, true, loc, ref)
	}
	return ParseText(s, t, loc)
}

// ReadsNow reports whether date/time input s names 'now', 'today',
// 'tomorrow' or 'yesterday', i.e. whether its value depends on the time it
// is read at.
func ReadsNow(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, tok := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r'
	}) {
		if _, ok := relativeDays[tok]; ok || tok == "now" {
			return true
		}
	}
	return false
}
