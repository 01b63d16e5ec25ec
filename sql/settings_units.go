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
	f, err := u.parse(name, value)
	if err != nil {
		return "", err
	}
	return u.show(f), nil
}

// parse reads value in the setting's base unit, rounded to a whole one
// for an integer setting (half to even, as PostgreSQL's rint), and checks
// its range, with PostgreSQL's errors (22023).
func (u unitSetting) parse(name, value string) (float64, error) {
	units, baseMul := u.kind()
	bad := repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"%s\": \"%s\"", name, value)
	switch {
	case units == nil:
	case u.base == "ms" || u.base == "s":
		bad = bad.WithHint(`Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`)
	default:
		bad = bad.WithHint(`Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`)
	}
	m := numberWithUnit.FindStringSubmatch(value)
	if m == nil {
		return 0, bad
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsNaN(f) {
		return 0, bad
	}
	if m[2] != "" {
		mul := 0.0
		for _, s := range units {
			if s.name == m[2] {
				mul = s.mul
			}
		}
		if mul == 0 {
			return 0, bad
		}
		f = f * mul / baseMul
	}
	if !u.real {
		f = math.RoundToEven(f)
	}
	if f < u.min || f > u.max {
		unit := ""
		if u.base != "" {
			unit = " " + u.base
		}
		return 0, repr.Errorf(repr.CodeInvalidParameter, "%s%s is outside the valid range for parameter \"%s\" (%s .. %s)",
			u.fmt(f), unit, name, u.fmt(u.min), u.fmt(u.max))
	}
	return f, nil
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

// fmt prints a number of the setting in an error as PostgreSQL does: a
// real one as %g, an integer one whole.
func (u unitSetting) fmt(f float64) string {
	if u.real {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmtNum(f)
}

// fmtNum prints a setting's number as PostgreSQL does: a whole one as an
// integer, another as %g.
func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
