package expr

import "github.com/eddydb/eddy/repr"

// CardinalityError is the function a decorrelated scalar subquery calls
// for an outer row that the subquery gave more than one row: it always
// fails with 21000, PostgreSQL's error for the same query. The planner
// builds the call (CASE WHEN count > 1 THEN eddy_cardinality_error() ...);
// it is registered by name only so printed plans parse back. Folding
// leaves it alone (its evaluation fails), so the error surfaces when, and
// only when, a row reaches it.
var CardinalityError = fn("eddy_cardinality_error", repr.Text, func(*Ctx, []repr.Datum) (repr.Datum, error) {
	return repr.Null, repr.Errorf(repr.CodeCardinalityViolation, "more than one row returned by a subquery used as an expression")
})

// IntervalFields applies an interval field qualifier to a computed
// interval (x::interval HOUR TO MINUTE): its second argument is the field
// mask, and the fields below the last one are truncated toward zero, as
// PostgreSQL's interval_scale does (AdjustIntervalForTypmod). The planner
// builds the call; it is registered by name so printed plans parse back.
var IntervalFields = fn("eddy_interval_fields", repr.IntervalT, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	return repr.NewInterval(TruncateInterval(a[0].Interval(), int32(a[1].Int()))), nil
}, repr.IntervalT, repr.Int4)

// IntervalIn reads interval text under a field qualifier (INTERVAL
// '-1 2' DAY TO HOUR) in the session's IntervalStyle: the planner folds
// such a literal itself unless IntervalStyle sql_standard would read it
// differently, and then calls this at run time. It is zoned (it reads the
// session), so it is never folded.
var IntervalIn = func() *Func {
	f := fn("eddy_interval_in", repr.IntervalT, func(ctx *Ctx, a []repr.Datum) (repr.Datum, error) {
		mask := int32(a[1].Int())
		st := repr.IntervalPostgres
		if ctx != nil {
			st = ctx.IntervalStyle
		}
		d, err := repr.ParseIntervalStyled(a[0].Text(), QualifierUnit(mask), mask == IntervalMinute|IntervalSecond, st)
		if err != nil {
			return repr.Null, err
		}
		return repr.NewInterval(TruncateInterval(d.Interval(), mask)), nil
	}, repr.Text, repr.Int4)
	f.zoned = true
	return f
}()

// QualifierUnit names the unit of the last field in an interval field
// mask: a number written without a unit counts it.
func QualifierUnit(mask int32) string {
	switch {
	case mask&IntervalSecond != 0:
		return "second"
	case mask&IntervalMinute != 0:
		return "minute"
	case mask&IntervalHour != 0:
		return "hour"
	case mask&IntervalDay != 0:
		return "day"
	case mask&IntervalMonth != 0:
		return "month"
	}
	return "year"
}

// PostgreSQL's interval field masks (datetime.h), as the first type
// modifier of INTERVAL <fields> carries them.
const (
	IntervalMonth     = 1 << 1
	IntervalYear      = 1 << 2
	IntervalDay       = 1 << 3
	IntervalHour      = 1 << 10
	IntervalMinute    = 1 << 11
	IntervalSecond    = 1 << 12
	IntervalFullRange = 0x7FFF
)

// TruncateInterval drops the fields below mask's last field, toward zero
// (PostgreSQL's AdjustIntervalForTypmod).
func TruncateInterval(iv repr.Interval, mask int32) repr.Interval {
	const hour, minute = 3600_000_000, 60_000_000
	switch {
	case mask&IntervalSecond != 0:
	case mask&IntervalMinute != 0:
		iv.Micros = iv.Micros / minute * minute
	case mask&IntervalHour != 0:
		iv.Micros = iv.Micros / hour * hour
	case mask&IntervalDay != 0:
		iv.Micros = 0
	case mask&IntervalMonth != 0:
		iv.Days, iv.Micros = 0, 0
	default:
		iv.Months, iv.Days, iv.Micros = iv.Months/12*12, 0, 0
	}
	return iv
}

// CheckLimit and CheckOffset pass a LIMIT or OFFSET count computed by a
// subquery through, failing as PostgreSQL does when it is negative
// (2201W, 2201X); NULL passes (no limit, no offset). The planner builds
// the calls (planner/limitsub.go); they are registered by name so printed
// plans parse back.
var (
	CheckLimit  = fn("eddy_check_limit", repr.Int8, checkCount("2201W", "LIMIT"), repr.Int8)
	CheckOffset = fn("eddy_check_offset", repr.Int8, checkCount("2201X", "OFFSET"), repr.Int8)
)

// checkCount returns the implementation of CheckLimit or CheckOffset.
func checkCount(code, clause string) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if !a[0].IsNull() && a[0].Int() < 0 {
			return repr.Null, repr.Errorf(code, "%s must not be negative", clause)
		}
		return a[0], nil
	}
}
