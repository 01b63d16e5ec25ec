package expr

import (
	"bufio"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/eddydb/eddy/repr"
)

// pg_timezone_names(): the time zones the system's IANA database knows
// (the zones and links of /usr/share/zoneinfo/tzdata.zi, the names
// PostgreSQL lists too), each with its abbreviation, UTC offset and
// daylight-saving flag at the statement's timestamp. It is contextual:
// the offsets follow the statement time, so it is never folded or
// maintained. Without the database file it lists only UTC.

// zoneInfoList is the compiled IANA database listing every zone and link.
const zoneInfoList = "/usr/share/zoneinfo/tzdata.zi"

// zoneNames returns the sorted zone names, read once.
var zoneNames = sync.OnceValue(func() []string {
	names := map[string]bool{"UTC": true}
	if f, err := os.Open(zoneInfoList); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			switch {
			case len(fields) >= 2 && fields[0] == "Z":
				names[fields[1]] = true
			case len(fields) >= 3 && fields[0] == "L":
				names[fields[2]] = true
			}
		}
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
})

// timezoneRow is name's pg_timezone_names row at instant at; false when
// Go cannot load the zone.
func timezoneRow(name string, at time.Time) ([]repr.Datum, bool) {
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	t := at.In(loc)
	abbrev, offset := t.Zone()
	return []repr.Datum{repr.NewText(name), repr.NewText(abbrev),
		repr.NewInterval(repr.Interval{Micros: int64(offset) * usPerSec}), repr.NewBool(t.IsDST())}, true
}

func init() {
	f := tableFn("pg_timezone_names", []TableCol{{Name: "name", T: repr.Text}, {Name: "abbrev", T: repr.Text},
		{Name: "utc_offset", T: repr.IntervalT}, {Name: "is_dst", T: repr.Bool}},
		func(c *Ctx, _ []repr.Datum, emit func([]repr.Datum) error) error {
			at := tsToTime(c.StmtTimestamp, time.UTC)
			for _, name := range zoneNames() {
				if row, ok := timezoneRow(name, at); ok {
					if err := emit(row); err != nil {
						return err
					}
				}
			}
			return nil
		})
	f.contextual = true
}
