package expr

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/eddydb/eddy/repr"
)

// pg_timezone_names(): the time zones of the system's IANA database, read
// as PostgreSQL built against the system's zone data reads them: every
// zone file under the zoneinfo directory ($ZONEINFO, else
// /usr/share/zoneinfo; its leap-second "right" tree left out, as
// pg_tz_acceptable rejects those zones), each with its abbreviation, UTC
// offset and daylight-saving flag at the statement's timestamp (zic's
// "Factory" zone too, abbreviation "-00", as PostgreSQL 15 lists it; 16
// leaves it out). It is contextual: the offsets
// follow the statement time, so it is never folded or maintained.
// Without a zoneinfo directory it lists only UTC.

// zoneInfoDir is the directory of the system's zone files.
func zoneInfoDir() string {
	if d := os.Getenv("ZONEINFO"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return "/usr/share/zoneinfo"
}

// zoneNames returns the sorted zone names, read once: the files of the
// zoneinfo directory that start with the TZif magic.
var zoneNames = sync.OnceValue(func() []string {
	root := zoneInfoDir()
	var out []string
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "right" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasPrefix(d.Name(), ".") && isTZif(path) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(out) == 0 {
		out = []string{"UTC"}
	}
	sort.Strings(out)
	return out
})

// isTZif reports whether the file at path is a compiled zone file.
func isTZif(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	n, _ := f.Read(magic[:])
	return n == 4 && string(magic[:]) == "TZif"
}

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

// TimezoneNames calls emit with each row of pg_timezone_names (name,
// abbrev, utc_offset, is_dst) at stmt, microseconds since 2000-01-01 UTC.
func TimezoneNames(stmt int64, emit func([]repr.Datum) error) error {
	at := tsToTime(stmt, time.UTC)
	for _, name := range zoneNames() {
		if row, ok := timezoneRow(name, at); ok {
			if err := emit(row); err != nil {
				return err
			}
		}
	}
	return nil
}

// TimezoneAbbrevs returns the rows of pg_timezone_abbrevs (abbrev,
// utc_offset, is_dst) at stmt (microseconds since 2000-01-01 UTC): the
// abbreviations of PostgreSQL's Default set (repr.TZAbbrev), upper-cased
// and in byte order, a dynamic one with its meaning at stmt.
func TimezoneAbbrevs(stmt int64) [][]repr.Datum {
	names := repr.TZAbbrevNames()
	out := make([][]repr.Datum, len(names))
	for i, n := range names {
		a, _ := repr.LookupTZAbbrev(n)
		off, dst := a.AtUTC(n, stmt)
		out[i] = []repr.Datum{repr.NewText(n),
			repr.NewInterval(repr.Interval{Micros: int64(off) * usPerSec}), repr.NewBool(dst)}
	}
	return out
}

func init() {
	f := tableFn("pg_timezone_names", []TableCol{{Name: "name", T: repr.Text}, {Name: "abbrev", T: repr.Text},
		{Name: "utc_offset", T: repr.IntervalT}, {Name: "is_dst", T: repr.Bool}},
		func(c *Ctx, _ []repr.Datum, emit func([]repr.Datum) error) error {
			return TimezoneNames(c.StmtTimestamp, emit)
		})
	f.contextual, f.Present = true, 1
	g := tableFn("pg_timezone_abbrevs", []TableCol{{Name: "abbrev", T: repr.Text},
		{Name: "utc_offset", T: repr.IntervalT}, {Name: "is_dst", T: repr.Bool}},
		func(c *Ctx, _ []repr.Datum, emit func([]repr.Datum) error) error {
			for _, row := range TimezoneAbbrevs(c.StmtTimestamp) {
				if err := emit(row); err != nil {
					return err
				}
			}
			return nil
		})
	g.contextual, g.Present = true, 1
}
