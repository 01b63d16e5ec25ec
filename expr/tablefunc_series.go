package expr

import (
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// generate_series over int4, int8 and numeric (step 1 by default) and over
// timestamp and timestamptz with an interval step, as in PostgreSQL: the
// values start, start+step, ... while they do not pass stop (in the
// direction of step); an empty series when start is already past stop; a
// zero step fails with 22023. generate_subscripts(array, dim [, reverse])
// numbers an array's elements.
func init() {
	for _, t := range []repr.T{repr.Int4, repr.Int8} {
		tableFn("generate_series", col1(t), seriesInt, t, t)
		tableFn("generate_series", col1(t), seriesInt, t, t, t)
	}
	n := repr.Numeric
	tableFn("generate_series", col1(n), seriesNumeric, n, n)
	tableFn("generate_series", col1(n), seriesNumeric, n, n, n)
	tableFn("generate_series", col1(repr.Timestamp), seriesTime(repr.Timestamp), repr.Timestamp, repr.Timestamp, repr.IntervalT)
	tableFn("generate_series", col1(repr.TimestampTZ), seriesTime(repr.TimestampTZ), repr.TimestampTZ, repr.TimestampTZ, repr.IntervalT)
	for _, n := range []int{2, 3} {
		tableFuncs["generate_subscripts"] = append(tableFuncs["generate_subscripts"], &TableFunc{
			Name: "generate_subscripts", Args: []repr.T{anyT, repr.Int4, repr.Bool}[:n], Cols: col1(repr.Int4),
			poly: func(args []repr.T) *TableFunc {
				if _, ok := elemOf(args[0]); !ok {
					return nil
				}
				at := []repr.T{args[0], repr.Int4, repr.Bool}[:n]
				return &TableFunc{Name: "generate_subscripts", Args: at, Cols: col1(repr.Int4), Gen: subscripts}
			},
		})
	}
}

// subscripts is generate_subscripts(array, dim [, reverse]): the
// subscripts lb..lb+n-1 of dimension dim, descending when reverse; no rows
// for a dimension the array does not have.
func subscripts(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	dims, lbs := a[0].ArrayDims(), a[0].ArrayLBounds()
	d := a[1].Int()
	if d < 1 || d > int64(len(dims)) {
		return nil
	}
	n := dims[d-1]
	reverse := len(a) > 2 && a[2].Bool()
	buf := make([]repr.Datum, 1)
	for i := 1; i <= n; i++ {
		k := i
		if reverse {
			k = n + 1 - i
		}
		buf[0] = repr.NewInt(int64(k + lbs[d-1] - 1))
		if err := emit(buf); err != nil {
			return err
		}
	}
	return nil
}

// errZeroStep is PostgreSQL's error for a zero step.
func errZeroStep() error {
	return repr.Errorf(repr.CodeInvalidParameter, "step size cannot equal zero")
}

// seriesInt is generate_series(start, stop [, step]) over integers. The
// count is computed first (in unsigned arithmetic, so no value overflows),
// and a series longer than MaxTableFuncRows fails before any row is made.
func seriesInt(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	start, stop, step := a[0].Int(), a[1].Int(), int64(1)
	if len(a) > 2 {
		step = a[2].Int()
	}
	if step == 0 {
		return errZeroStep()
	}
	n, ok := seriesCount(start, stop, step)
	if !ok {
		return errTooManyRows("generate_series")
	}
	buf := make([]repr.Datum, 1)
	for i := uint64(0); i < n; i++ {
		buf[0] = repr.NewInt(start + int64(i)*step)
		if err := emit(buf); err != nil {
			return err
		}
	}
	return nil
}

// seriesCount returns how many values start, start+step, ... lie between
// start and stop (inclusive), and false when more than MaxTableFuncRows.
func seriesCount(start, stop, step int64) (uint64, bool) {
	var span, size uint64
	switch {
	case step > 0 && stop >= start:
		span, size = uint64(stop)-uint64(start), uint64(step)
	case step < 0 && stop <= start:
		span, size = uint64(start)-uint64(stop), -uint64(step)
	default:
		return 0, true
	}
	n := span/size + 1
	if span/size >= MaxTableFuncRows || n > MaxTableFuncRows {
		return 0, false
	}
	return n, true
}

// seriesNumeric is generate_series over numeric: each value is the
// previous plus step (so the display scale grows to step's, as
// PostgreSQL's add_var does). NaN and infinite bounds or steps fail.
func seriesNumeric(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	step := apd.New(1, 0)
	if len(a) > 2 {
		step = a[2].Numeric()
	}
	for i, what := range []string{"start value", "stop value", "step size"} {
		d := step
		if i < 2 {
			d = a[i].Numeric()
		}
		switch d.Form {
		case apd.NaN, apd.NaNSignaling:
			return repr.Errorf(repr.CodeInvalidParameter, "%s cannot be NaN", what)
		case apd.Infinite:
			return repr.Errorf(repr.CodeInvalidParameter, "%s cannot be infinity", what)
		}
	}
	if step.IsZero() {
		return errZeroStep()
	}
	stop, dir := a[1].Numeric(), step.Sign()
	cur := new(apd.Decimal).Set(a[0].Numeric())
	buf := make([]repr.Datum, 1)
	for cur.Cmp(stop)*dir <= 0 {
		buf[0] = repr.NewNumeric(new(apd.Decimal).Set(cur))
		if err := emit(buf); err != nil {
			return err
		}
		if _, err := exactCtx.Add(cur, cur, step); err != nil {
			return repr.Errorf(repr.CodeNumericOutOfRange, "value overflows numeric format")
		}
	}
	return nil
}

// seriesTime is generate_series(start, stop, step interval) over t
// (timestamp or timestamptz): each value is the previous plus step, with
// timestamptz month and day steps taken in the session time zone. The
// direction is the sign of step compared with a zero interval.
func seriesTime(t repr.T) TableGen {
	return func(c *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
		step := a[2]
		dir := repr.Compare(step, repr.NewInterval(repr.Interval{}))
		if dir == 0 {
			return errZeroStep()
		}
		if stop := a[1].Micros(); dir > 0 && stop == repr.TimestampPosInf || dir < 0 && stop == repr.TimestampNegInf {
			// PostgreSQL's series is endless and only a LIMIT above it
			// stops it; Eddy evaluates a set-returning function whole.
			return repr.Unsupported("generate_series up to an infinite stop value")
		}
		loc := nilLoc()
		if t.Family == repr.FamTimestampTZ {
			loc = c.Location()
		}
		return walkTimes(a[0].Micros(), a[1].Micros(), step.Interval(), dir, loc, func(us int64) repr.Datum {
			if t.Family == repr.FamTimestampTZ {
				return repr.NewTimestampTZ(us)
			}
			return repr.NewTimestamp(us)
		}, emit)
	}
}

// walkTimes emits cur = start, start+iv, ... while cur is not past stop in
// direction dir. A step that does not move (an infinite start) runs into
// the row limit rather than looping forever.
func walkTimes(cur, stop int64, iv repr.Interval, dir int, loc *time.Location, mk func(int64) repr.Datum, emit func([]repr.Datum) error) error {
	buf := make([]repr.Datum, 1)
	for n := 0; (dir > 0 && cur <= stop) || (dir < 0 && cur >= stop); n++ {
		if n >= MaxTableFuncRows {
			return errTooManyRows("generate_series")
		}
		buf[0] = mk(cur)
		if err := emit(buf); err != nil {
			return err
		}
		next, err := addInterval(cur, iv, loc)
		if err != nil {
			return err
		}
		cur = next
	}
	return nil
}
