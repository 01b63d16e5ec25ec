package sql

import (
	"math"
	"regexp"
	"strconv"

	"github.com/eddydb/eddy/repr"
)

// unitSetting is a numeric setting with PostgreSQL's unit handling: a
// value without a unit is in the base unit, one with a unit is converted
// and, for an integer setting, rounded to the base unit; the range is
// checked in the base unit; SHOW prints the largest unit in which the
// value is whole (SET vacuum_cost_delay TO 80.1 shows 80100us).
type unitSetting struct {
	def      string
	base     string // "", "ms", "s", "kB", "8kB"
	real     bool
	min, max float64
}

// unitScale is a unit's size in the smallest unit of its kind (us or B).
type unitScale struct {
	name string
	mul  float64
}

var timeUnits = []unitScale{{"d", 86400e6}, {"h", 3600e6}, {"min", 60e6}, {"s", 1e6}, {"ms", 1e3}, {"us", 1}}
var memUnits = []unitScale{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}

// kind returns the unit table and the base unit's size in it.
func (u unitSetting) kind() ([]unitScale, float64) {
	switch u.base {
	case "ms":
		return timeUnits, 1e3
	case "s":
		return timeUnits, 1e6
	case "kB":
		return memUnits, 1 << 10
	case "8kB":
		return memUnits, 8 << 10
	}
	return nil, 1
}

var numberWithUnit = regexp.MustCompile(`^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]*)\s*$`)

// check validates value and returns its shown form (22023 as PostgreSQL).
func (u unitSetting) check(name, value string) (string, error) {
	bad := repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"%s\": \"%s\"", name, value)
	m := numberWithUnit.FindStringSubmatch(value)
	if m == nil {
		return "", bad
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsNaN(f) {
		return "", bad
	}
	units, baseMul := u.kind()
	if m[2] != "" {
		mul := 0.0
		for _, s := range units {
			if s.name == m[2] {
				mul = s.mul
			}
		}
		if mul == 0 {
			return "", bad
		}
		f = f * mul / baseMul
	}
	if !u.real {
		f = math.RoundToEven(f)
	}
	if f < u.min || f > u.max {
		return "", repr.Errorf(repr.CodeInvalidParameter, "%s is outside the valid range for parameter \"%s\" (%s .. %s)",
			fmtNum(f)+u.base, name, fmtNum(u.min), fmtNum(u.max))
	}
	return u.show(f), nil
}

// show prints a value in base units as PostgreSQL's SHOW does.
func (u unitSetting) show(f float64) string {
	units, baseMul := u.kind()
	if f == 0 || units == nil {
		return fmtNum(f)
	}
	small := f * baseMul
	minMul := baseMul // an integer setting shows no unit below its base
	if u.base == "8kB" {
		minMul = 1 << 10 // but blocks show in kB
	}
	for _, s := range units {
		if !u.real && s.mul < minMul {
			break
		}
		if q := small / s.mul; q == math.Trunc(q) {
			return fmtNum(q) + s.name
		}
	}
	return fmtNum(f) + u.base
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
