package repr

import (
	"encoding/binary"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// POSIXZone parses a POSIX-style fixed offset zone, [name]{+|-}hh[:mm[:ss]],
// where name is three or more letters or any text in angle brackets
// ("UTC+3", "<+03>-3"). A named offset counts hours west of Greenwich, as
// POSIX and PostgreSQL do ("UTC+3" is three hours behind UTC); an unnamed
// one is west with posix, east (ISO 8601) without. The location's name is
// the abbreviation PostgreSQL prints for the zone ("UTC", "+03", "").
func POSIXZone(s string, posix bool) (*time.Location, bool) {
	i := 0
	if strings.HasPrefix(s, "<") {
		j := strings.IndexByte(s, '>')
		if j < 2 {
			return nil, false
		}
		i = j + 1
	} else {
		for i < len(s) && isAlpha(s[i]) {
			i++
		}
		if i > 0 && i < 3 {
			return nil, false
		}
	}
	named := i > 0
	secs, ok := offsetSeconds(s[i:])
	if !ok {
		return nil, false
	}
	if posix || named {
		secs = -secs
	}
	// The location's name is the zone's abbreviation (to_char's TZ,
	// DateStyle Postgres): the name without its brackets, "" unnamed.
	return time.FixedZone(strings.Trim(s[:i], "<>"), secs), true
}

// offsetSeconds reads {+|-}hh[:mm[:ss]] (the sign optional) as seconds,
// at most 24 hours.
func offsetSeconds(rest string) (int, bool) {
	sign := 1
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		if rest[0] == '-' {
			sign = -1
		}
		rest = rest[1:]
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 || rest == "" {
		return 0, false
	}
	secs := 0
	for k, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || p == "" || len(p) > 2 || v < 0 || (k > 0 && v > 59) {
			return 0, false
		}
		secs = secs*60 + v
	}
	for k := len(parts); k < 3; k++ {
		secs *= 60
	}
	if secs > 24*3600 {
		return 0, false
	}
	return sign * secs, true
}

// posixRule matches a POSIX TZ string with daylight saving time:
// std offset dst [offset] [,start[/time],end[/time]], names of three or
// more letters or in angle brackets, rules as Mm.w.d, Jn or n.
var posixRule = regexp.MustCompile(`^(?:<[^>]+>|[A-Za-z]{3,})[+-]?\d{1,2}(?::\d{1,2}){0,2}` +
	`(?:<[^>]+>|[A-Za-z]{3,})(?:[+-]?\d{1,2}(?::\d{1,2}){0,2})?` +
	`(?:,(?:M\d{1,2}\.\d\.\d|J\d{1,3}|\d{1,3})(?:/[+-]?\d{1,3}(?::\d{1,2}){0,2})?` +
	`,(?:M\d{1,2}\.\d\.\d|J\d{1,3}|\d{1,3})(?:/[+-]?\d{1,3}(?::\d{1,2}){0,2})?)?$`)

// POSIXRuleZone parses a POSIX TZ string with a daylight saving time
// part ("EST5EDT", "CST7CDT,M4.1.0,M10.5.0", "<+0330>-3:30<+0430>,J79/24,
// J263/24"), as PostgreSQL's SET TIME ZONE and AT TIME ZONE accept it.
// Without rules the switches are the United States' current ones
// (M3.2.0,M11.1.0), which PostgreSQL takes from its posixrules zone.
//
// Go's time package decides such a string as the extension rule of a
// zone file; the location is built from a TZif file with no transitions
// and s as its footer, so every instant is decided by the rule.
func POSIXRuleZone(s string) (*time.Location, bool) {
	if !posixRule.MatchString(s) {
		return nil, false
	}
	i := 0
	if s[0] == '<' {
		i = strings.IndexByte(s, '>') + 1
	} else {
		for i < len(s) && isAlpha(s[i]) {
			i++
		}
	}
	j := i + 1
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ':') {
		j++
	}
	std, ok := offsetSeconds(s[i:j])
	if !ok {
		return nil, false
	}
	loc, err := time.LoadLocationFromTZData(s, tzifWithRule(strings.Trim(s[:i], "<>"), -std, s))
	if err != nil {
		return nil, false
	}
	return loc, true
}

// tzifWithRule builds a version 2 TZif file (RFC 8536) with one local
// time type (offset east of UTC, named abbr), no transitions, and rule as
// its footer.
func tzifWithRule(abbr string, offset int, rule string) []byte {
	var b []byte
	header := func() {
		b = append(b, "TZif2"...)
		b = append(b, make([]byte, 15)...)
		// isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
		for _, n := range []int{0, 0, 0, 0, 1, len(abbr) + 1} {
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		b = binary.BigEndian.AppendUint32(b, uint32(int32(offset)))
		b = append(b, 0, 0) // not DST, abbreviation at 0
		b = append(b, abbr...)
		b = append(b, 0)
	}
	header() // the version 1 block
	header() // the version 2 block (no 64-bit times to add)
	return append(b, "\n"+rule+"\n"...)
}
