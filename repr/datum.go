package repr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

// Datum is one SQL value. It is a small value type (no interface, no
// allocation except for numeric) so rows and batches stay compact.
//
// Representation by family:
//   - NULL: fam == FamUnknown (the zero Datum is NULL)
//   - FamBool: i is 0 or 1
//   - FamInt: i
//   - FamFloat: i holds math.Float64bits (float4 values are rounded to float32 on input)
//   - FamNumeric: dec (never nil, never mutated after construction)
//   - FamText, FamBytea: s (bytea holds raw bytes; char(n) is stored padded)
//   - FamJSONB: s holds the canonical jsonb text (as PostgreSQL prints jsonb)
//   - FamDate: i is days since 2000-01-01 (PostgreSQL's epoch); ±infinity are math.MinInt32/MaxInt32
//   - FamTime: i is microseconds since midnight
//   - FamTimestamp, FamTimestampTZ: i is microseconds since 2000-01-01 00:00:00 (UTC for tz);
//     ±infinity are math.MinInt64/MaxInt64
//   - FamInterval: mon months, day days, i microseconds
type Datum struct {
	fam      Family
	mon, day int32
	i        int64
	s        string
	dec      *apd.Decimal
}

// Row is a tuple of datums.
type Row []Datum

// Null is the SQL NULL.
var Null = Datum{}

// Interval is a PostgreSQL interval: months, days and microseconds kept apart.
type Interval struct {
	Months int32
	Days   int32
	Micros int64
}

// NewBool returns a boolean datum.
func NewBool(b bool) Datum {
	if b {
		return Datum{fam: FamBool, i: 1}
	}
	return Datum{fam: FamBool}
}

// NewInt returns an integer datum (any width).
func NewInt(i int64) Datum { return Datum{fam: FamInt, i: i} }

// NewFloat returns a floating-point datum.
func NewFloat(f float64) Datum { return Datum{fam: FamFloat, i: int64(math.Float64bits(f))} }

// NewNumeric returns a numeric datum. The decimal must not be mutated afterwards.
func NewNumeric(d *apd.Decimal) Datum { return Datum{fam: FamNumeric, dec: d} }

// NewText returns a text (or varchar, char) datum.
func NewText(s string) Datum { return Datum{fam: FamText, s: s} }

// NewBytea returns a bytea datum holding the raw bytes b.
func NewBytea(b []byte) Datum { return Datum{fam: FamBytea, s: string(b)} }

// NewJSONB returns a jsonb datum from its canonical text. Callers that hold
// arbitrary JSON text use ParseJSONB, which validates and canonicalizes.
func NewJSONB(canonical string) Datum { return Datum{fam: FamJSONB, s: canonical} }

// NewDate returns a date datum from days since 2000-01-01.
func NewDate(days int32) Datum { return Datum{fam: FamDate, i: int64(days)} }

// NewTime returns a time datum from microseconds since midnight.
func NewTime(micros int64) Datum { return Datum{fam: FamTime, i: micros} }

// NewTimestamp returns a timestamp (without time zone) datum from
// microseconds since 2000-01-01 00:00:00.
func NewTimestamp(micros int64) Datum { return Datum{fam: FamTimestamp, i: micros} }

// NewTimestampTZ returns a timestamptz datum from microseconds since
// 2000-01-01 00:00:00 UTC.
func NewTimestampTZ(micros int64) Datum { return Datum{fam: FamTimestampTZ, i: micros} }

// NewInterval returns an interval datum.
func NewInterval(iv Interval) Datum {
	return Datum{fam: FamInterval, mon: iv.Months, day: iv.Days, i: iv.Micros}
}

// IsNull reports whether d is NULL.
func (d Datum) IsNull() bool { return d.fam == FamUnknown }

// Family returns the runtime family of d (FamUnknown for NULL).
func (d Datum) Family() Family { return d.fam }

// Bool returns the value of a boolean datum.
func (d Datum) Bool() bool { return d.i != 0 }

// Int returns the value of an integer datum.
func (d Datum) Int() int64 { return d.i }

// Float returns the value of a float datum.
func (d Datum) Float() float64 { return math.Float64frombits(uint64(d.i)) }

// Numeric returns the value of a numeric datum; callers must not mutate it.
func (d Datum) Numeric() *apd.Decimal { return d.dec }

// Text returns the string of a text or jsonb datum, or the raw bytes of a bytea datum.
func (d Datum) Text() string { return d.s }

// Date returns days since 2000-01-01 of a date datum.
func (d Datum) Date() int32 { return int32(d.i) }

// Micros returns the microseconds of a time, timestamp or timestamptz datum.
func (d Datum) Micros() int64 { return d.i }

// Interval returns the value of an interval datum.
func (d Datum) Interval() Interval { return Interval{Months: d.mon, Days: d.day, Micros: d.i} }
