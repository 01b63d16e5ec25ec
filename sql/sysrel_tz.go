package sql

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// pg_timezone_names and pg_timezone_abbrevs, PostgreSQL's views over the
// functions of the same names: the zones of the system's IANA database
// with their abbreviation, offset and daylight-saving flag at the
// statement's now(), and the abbreviations AT TIME ZONE recognizes
// (expr/timezones.go).

func init() {
	defSysRel(567, 12126, nsPgCatalog, "pg_timezone_names", true, "name text, abbrev text, utc_offset interval, is_dst boolean",
		func(s *sysSnap) []repr.Row {
			var out []repr.Row
			_ = expr.TimezoneNames(s.stmt, func(d []repr.Datum) error {
				out = append(out, repr.Row(d))
				return nil
			})
			return out
		})
	defSysRel(566, 12122, nsPgCatalog, "pg_timezone_abbrevs", true, "abbrev text, utc_offset interval, is_dst boolean",
		func(s *sysSnap) []repr.Row {
			var out []repr.Row
			for _, d := range expr.TimezoneAbbrevs(s.stmt) {
				out = append(out, repr.Row(d))
			}
			return out
		})
}
