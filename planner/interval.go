package planner

import (
	"strconv"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// PostgreSQL's interval field masks (datetime.h), as the first type
// modifier of INTERVAL '...' <fields> carries them.
const (
	imMonth     = 1 << 1
	imYear      = 1 << 2
	imDay       = 1 << 3
	imHour      = 1 << 10
	imMinute    = 1 << 11
	imSecond    = 1 << 12
	imFullRange = 0x7FFF
)

// qualifiedInterval plans INTERVAL 'lit' <fields> (and 'lit'::interval
// hour etc.) as PostgreSQL does: a bare number counts units of the last
// field (INTERVAL '1' HOUR is one hour, not one second), and fields below
// the last are truncated away (INTERVAL '1 day 2 hours' DAY is 1 day).
// Only string constants are supported under a field qualifier.
func (b *builder) qualifiedInterval(tc *pg_query.TypeCast) (expr.Expr, error) {
	mask := tc.TypeName.Typmods[0].GetAConst().GetIval().GetIval()
	c := tc.Arg.GetAConst()
	if c == nil || c.GetSval() == nil {
		return nil, repr.Unsupported("interval field qualifiers on values other than string constants").WithPosition(tc.Location + 1)
	}
	s := c.GetSval().Sval
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		s += " " + lastFieldUnit(mask)
	}
	e, err := b.explicitCast(&expr.Lit{D: repr.NewText(s), T: repr.Unknown}, repr.IntervalT, tc.Location)
	if err != nil {
		return nil, withPos(err, c.Location)
	}
	lit, ok := expr.Fold(e).(*expr.Lit)
	if !ok {
		return e, nil
	}
	if lit.D.IsNull() {
		return lit, nil
	}
	return &expr.Lit{D: repr.NewInterval(truncateInterval(lit.D.Interval(), mask)), T: repr.IntervalT}, nil
}

// lastFieldUnit names the unit of the last field in mask.
func lastFieldUnit(mask int32) string {
	switch {
	case mask&imSecond != 0:
		return "seconds"
	case mask&imMinute != 0:
		return "minutes"
	case mask&imHour != 0:
		return "hours"
	case mask&imDay != 0:
		return "days"
	case mask&imMonth != 0:
		return "months"
	}
	return "years"
}

// truncateInterval drops the fields below mask's last field, toward zero
// (PostgreSQL's AdjustIntervalForTypmod).
func truncateInterval(iv repr.Interval, mask int32) repr.Interval {
	const hour, minute = 3600_000_000, 60_000_000
	switch {
	case mask&imSecond != 0:
	case mask&imMinute != 0:
		iv.Micros = iv.Micros / minute * minute
	case mask&imHour != 0:
		iv.Micros = iv.Micros / hour * hour
	case mask&imDay != 0:
		iv.Micros = 0
	case mask&imMonth != 0:
		iv.Days, iv.Micros = 0, 0
	default:
		iv.Months, iv.Days, iv.Micros = iv.Months/12*12, 0, 0
	}
	return iv
}
