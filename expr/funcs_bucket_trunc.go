package expr

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

// width_bucket(operand, thresholds anycompatiblearray) and
// date_trunc(text, interval), as PostgreSQL 15 defines them.

func init() {
	polyFunc(functions, "width_bucket", 2, widthBucketArrayInst)
	fn("date_trunc", repr.IntervalT, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		iv, err := intervalTrunc(strings.ToLower(a[0].Text()), a[1].Interval())
		return repr.NewInterval(iv), err
	}, repr.Text, repr.IntervalT)
}

// widthBucketArrayInst instantiates width_bucket(operand, thresholds):
// the operand and the array's elements take their common type.
func widthBucketArrayInst(args []repr.T) *Func {
	e, ok := arrayAndElem(args, 1)
	if !ok {
		return nil
	}
	return newFunc("width_bucket", repr.Int4, true, widthBucketArray(comparator(e)), e, repr.ArrayOf(e))
}

// widthBucketArray is PostgreSQL's width_bucket_array: the number of
// thresholds at or below the operand, found by binary search (so for
// thresholds not in ascending order the result is that search's, as
// PostgreSQL's is). The thresholds must be one-dimensional and free of
// NULLs (22004).
func widthBucketArray(cmp func(a, b repr.Datum) int) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[1].ArrayNDims() > 1 {
			return repr.Null, repr.Errorf("2202E", "thresholds must be one-dimensional array")
		}
		th := a[1].Array()
		for _, t := range th {
			if t.IsNull() {
				return repr.Null, repr.Errorf("22004", "thresholds array must not contain NULLs")
			}
		}
		lo, hi := 0, len(th)
		for lo < hi {
			mid := (lo + hi) / 2
			if cmp(a[0], th[mid]) < 0 {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return repr.NewInt(int64(lo)), nil
	}
}

// intervalUnits maps the unit names PostgreSQL's DecodeUnits accepts to
// the units interval_trunc knows.
var intervalUnits = map[string]string{
	"microsecond": "us", "microseconds": "us", "us": "us", "usec": "us", "usecs": "us", "useconds": "us",
	"millisecond": "ms", "milliseconds": "ms", "ms": "ms", "msec": "ms", "msecs": "ms", "mseconds": "ms",
	"second": "s", "seconds": "s", "s": "s", "sec": "s", "secs": "s",
	"minute": "min", "minutes": "min", "m": "min", "min": "min", "mins": "min",
	"hour": "h", "hours": "h", "h": "h", "hr": "h", "hrs": "h",
	"day": "d", "days": "d", "d": "d",
	"week": "w", "weeks": "w", "w": "w",
	"month": "mon", "months": "mon", "mon": "mon", "mons": "mon",
	"quarter": "q", "qtr": "q",
	"year": "y", "years": "y", "y": "y", "yr": "y", "yrs": "y",
	"decade": "dec", "decades": "dec", "dec": "dec", "decs": "dec",
	"century": "c", "centuries": "c", "c": "c", "cent": "c",
	"millennium": "mil", "millennia": "mil", "millenniums": "mil", "mil": "mil", "mils": "mil",
	"microsecon": "us", "millisecon": "ms",
	// Units PostgreSQL recognizes but interval_trunc refuses (0A000).
	"timezone": "-", "timezone_h": "-", "timezone_m": "-", "dow": "-", "doy": "-", "isodow": "-",
	"isoyear": "-", "j": "-", "jd": "-", "julian": "-",
}

// intervalTrunc is PostgreSQL's interval_trunc: the interval split into
// years, months, days, hours, minutes, seconds and microseconds (each
// with the sign of its part, as C's truncating division leaves it), the
// fields below unit zeroed, and the parts put back together. Weeks are
// 0A000 (months have fractional weeks), as in PostgreSQL.
func intervalTrunc(unit string, iv repr.Interval) (repr.Interval, error) {
	u, ok := intervalUnits[unit]
	if !ok {
		return iv, repr.Errorf(repr.CodeInvalidParameter, "unit \"%s\" not recognized for type interval", unit)
	}
	year, mon := int64(iv.Months)/12, int64(iv.Months)%12
	day := int64(iv.Days)
	hour, rest := iv.Micros/3600e6, iv.Micros%3600e6
	min, rest := rest/60e6, rest%60e6
	sec, usec := rest/1e6, rest%1e6
	switch u {
	case "w":
		return iv, repr.Errorf(repr.CodeFeatureNotSupported, "unit \"%s\" not supported for type interval", unit).
			WithDetail("Months usually have fractional weeks.")
	case "-":
		return iv, repr.Errorf(repr.CodeFeatureNotSupported, "unit \"%s\" not supported for type interval", unit)
	case "us":
		return iv, nil
	case "ms":
		usec = usec / 1000 * 1000
	default:
		order := []string{"mil", "c", "dec", "y", "q", "mon", "d", "h", "min", "s"}
		start := 0
		for start < len(order) && order[start] != u {
			start++
		}
		for _, step := range order[start:] {
			switch step {
			case "mil":
				year = year / 1000 * 1000
			case "c":
				year = year / 100 * 100
			case "dec":
				year = year / 10 * 10
			case "y":
				mon = 0
			case "q":
				mon = mon / 3 * 3
			case "mon":
				day = 0
			case "d":
				hour = 0
			case "h":
				min = 0
			case "min":
				sec = 0
			case "s":
				usec = 0
			}
		}
	}
	return repr.Interval{Months: int32(year*12 + mon), Days: int32(day),
		Micros: ((hour*60+min)*60+sec)*1e6 + usec}, nil
}
