package repr

import (
	"strconv"
	"strings"
	"time"
)

// POSIXZone parses a POSIX-style fixed offset zone, [name]{+|-}hh[:mm[:ss]],
// where name is three or more letters or any text in angle brackets
// ("UTC+3", "<+03>-3"). A named offset counts hours west of Greenwich, as
// POSIX and PostgreSQL do ("UTC+3" is three hours behind UTC); an unnamed
// one is west with posix, east (ISO 8601) without.
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
	return time.FixedZone(s, secs), true
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
