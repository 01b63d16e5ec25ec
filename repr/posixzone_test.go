package repr

import (
	"testing"
	"time"
)

// TestPOSIXRuleZone checks offsets and abbreviations of POSIX TZ strings
// with daylight saving time on both sides of their switches (values from
// PostgreSQL 15: SET TIME ZONE then to_char(t, 'TZ OF')).
func TestPOSIXRuleZone(t *testing.T) {
	for _, c := range []struct {
		zone string
		at   time.Time
		abbr string
		off  int // seconds east of UTC
	}{
		{"CST7CDT,M4.1.0,M10.5.0", time.Date(2005, 4, 3, 18, 0, 0, 0, time.UTC), "CDT", -6 * 3600},
		{"CST7CDT,M4.1.0,M10.5.0", time.Date(2005, 1, 3, 18, 0, 0, 0, time.UTC), "CST", -7 * 3600},
		{"CST7CDT,M4.1.0,M10.5.0", time.Date(2005, 4, 3, 8, 59, 0, 0, time.UTC), "CST", -7 * 3600},
		{"FOO5BAR", time.Date(2020, 7, 1, 12, 0, 0, 0, time.UTC), "BAR", -4 * 3600},
		{"FOO5BAR", time.Date(2020, 12, 1, 12, 0, 0, 0, time.UTC), "FOO", -5 * 3600},
		{"FOO5BAR,J60,300", time.Date(2005, 4, 3, 18, 0, 0, 0, time.UTC), "BAR", -4 * 3600},
		{"<+0330>-3:30<+0430>,J79/24,J263/24", time.Date(2005, 4, 3, 18, 0, 0, 0, time.UTC), "+0430", 4*3600 + 1800},
		{"<+0330>-3:30<+0430>,J79/24,J263/24", time.Date(2005, 12, 3, 18, 0, 0, 0, time.UTC), "+0330", 3*3600 + 1800},
	} {
		loc, ok := POSIXRuleZone(c.zone)
		if !ok {
			t.Errorf("POSIXRuleZone(%q) failed", c.zone)
			continue
		}
		abbr, off := c.at.In(loc).Zone()
		if abbr != c.abbr || off != c.off {
			t.Errorf("%s at %s: %s %d, want %s %d", c.zone, c.at, abbr, off, c.abbr, c.off)
		}
	}
	for _, bad := range []string{"FOO5BAR,M3.2.0", "FOO5", "+02:00", "EST5EDT,", "FOO5BAR,M3.2.0,", "UTC"} {
		if _, ok := POSIXRuleZone(bad); ok {
			t.Errorf("POSIXRuleZone(%q) accepted", bad)
		}
	}
}
