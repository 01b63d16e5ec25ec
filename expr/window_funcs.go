package expr

import "github.com/eddydb/eddy/repr"

// The window functions behind TUMBLE, HOP and CUMULATE in FROM (the planner
// expands those into Maps over these) and proctime().
//
// tumble_start(ts, size [, offset]) floors ts to a multiple of size counted
// from the Unix epoch 1970-01-01 00:00:00 (UTC for timestamptz) plus
// offset, as Flink and RisingWave align windows. Sizes and offsets are
// intervals without months (a day counts as 24 hours, whatever the time
// zone); the size must be positive. The result has ts's type.
func init() {
	iv := repr.IntervalT
	for _, ty := range []repr.T{repr.Timestamp, repr.TimestampTZ} {
		fn("tumble_start", ty, tumbleStart(ty), ty, iv).Monotone = true
		fn("tumble_start", ty, tumbleStart(ty), ty, iv, iv).Monotone = true
	}
	// proctime() is the processing time of the row. Until sources supply
	// arrival times it is the statement (or maintenance step) timestamp,
	// Ctx.StmtTimestamp. It is volatile, so it is never folded; the planner
	// allows it in materialized views (it is how processing-time windows
	// are written), unlike now().
	f := fn("proctime", repr.TimestampTZ, func(c *Ctx, _ []repr.Datum) (repr.Datum, error) {
		return repr.NewTimestampTZ(c.StmtTimestamp), nil
	})
	f.Volatile = true
	// This file sorts after funcs_time.go and ops_time.go, whose init
	// functions (run in file-name order) register what this marks.
	markMonotone()
}

// markMonotone flags the built-ins whose result never decreases when their
// time argument increases: ts ± interval and date_trunc.
func markMonotone() {
	for _, op := range []string{"+", "-"} {
		for _, f := range binaryOps[op] {
			a := f.Args
			if isTimestampFamily(a[0]) && a[1].Family == repr.FamInterval {
				f.Monotone = true
			}
		}
	}
	for _, f := range functions["date_trunc"] {
		f.Monotone = true
	}
}

func isTimestampFamily(t repr.T) bool {
	return t.Family == repr.FamTimestamp || t.Family == repr.FamTimestampTZ
}

// tumbleStart implements tumble_start for timestamps of type ty.
func tumbleStart(ty repr.T) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		size, err := WindowMicros(a[1].Interval(), "size")
		if err != nil {
			return repr.Null, err
		}
		var off int64
		if len(a) == 3 {
			if off, err = WindowMicros(a[2].Interval(), "offset"); err != nil {
				return repr.Null, err
			}
		}
		if size <= 0 {
			return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "window size must be positive")
		}
		us := a[0].Micros()
		if !isInfTs(us) {
			us = WindowFloor(us, size, off)
		}
		if ty.Family == repr.FamTimestamp {
			return repr.NewTimestamp(us), nil
		}
		return repr.NewTimestampTZ(us), nil
	}
}

// WindowMicros converts a window size, slide or offset to microseconds;
// intervals with months have no fixed length and fail with 22023. what
// names the argument in the error.
func WindowMicros(iv repr.Interval, what string) (int64, error) {
	if iv.Months != 0 {
		return 0, repr.Errorf(repr.CodeInvalidParameter, "window %s must not contain months or years", what)
	}
	return int64(iv.Days)*usPerDay + iv.Micros, nil
}

// WindowFloor floors us (microseconds since 2000-01-01) to a multiple of
// size (> 0) counted from the Unix epoch plus off.
func WindowFloor(us, size, off int64) int64 {
	const unix = pgEpochUnix * usPerSec
	u := us + unix - off
	return floorDiv(u, size)*size + off - unix
}
