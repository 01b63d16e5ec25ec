package datagen

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// Defaults of the per-column properties. The base time is fixed (not now())
// so that a source's rows repeat across restarts.
const (
	defaultLength   = 10
	maxLength       = 1 << 20
	defaultBaseTime = "2024-01-01 00:00:00"
	defaultMaxPast  = "1 day"
	defaultFloatMax = 1000
	// defaultNumericScale is the scale of random values of an unconstrained
	// numeric column.
	defaultNumericScale = 2
	usPerDay            = 86_400_000_000
)

// properties lists the fields.<col>.* properties each kind/family accepts.
func properties(k Kind, fam repr.Family) []string {
	if k == Sequence {
		return []string{"kind", "start", "end"}
	}
	switch fam {
	case repr.FamInt, repr.FamFloat, repr.FamNumeric:
		return []string{"kind", "seed", "min", "max"}
	case repr.FamText:
		return []string{"kind", "seed", "length"}
	case repr.FamTimestamp, repr.FamTimestampTZ, repr.FamDate:
		return []string{"kind", "seed", "basetime", "max_past"}
	}
	return []string{"kind", "seed"}
}

// parseField builds the rule of column i from its properties.
func parseField(i int, c Column, props map[string]option) (Field, error) {
	f := Field{Column: c}
	if o, ok := props["kind"]; ok {
		switch strings.ToLower(strings.TrimSpace(o.val)) {
		case "sequence":
			f.Kind = Sequence
		case "random":
		default:
			return f, errValue(o, "sequence or random")
		}
	}
	fam := c.Type.Family
	if err := checkSupported(c, f.Kind); err != nil {
		return f, err
	}
	allowed := properties(f.Kind, fam)
	for _, p := range slices.Sorted(maps.Keys(props)) {
		if !slices.Contains(allowed, p) {
			return f, repr.Errorf(repr.CodeInvalidParameter, "unrecognized option %q", props[p].key).
				WithHint("A %s column of type %s takes: %s.", f.Kind, c.Type.Name(), strings.Join(allowed, ", "))
		}
	}
	if o, ok := props["seed"]; ok {
		u, err := strconv.ParseUint(strings.TrimSpace(o.val), 10, 64)
		if err != nil {
			return f, errValue(o, "an unsigned 64-bit integer")
		}
		f.Seed = u
	}
	if f.Kind == Sequence {
		return f, f.parseSequence(props)
	}
	return f, f.parseRandom(props)
}

// checkSupported rejects column types and kinds datagen cannot generate.
func checkSupported(c Column, k Kind) error {
	switch c.Type.Family {
	case repr.FamInt, repr.FamFloat, repr.FamNumeric, repr.FamText:
		return nil
	case repr.FamBool, repr.FamTimestamp, repr.FamTimestampTZ, repr.FamDate:
		if k == Sequence {
			return repr.Unsupported("datagen sequence for column %q of type %s", c.Name, c.Type.Name())
		}
		return nil
	}
	return repr.Unsupported("datagen for column %q of type %s", c.Name, c.Type.Name())
}

// opt returns property p of f's column, or its key with an empty value
// when absent (for errors about a default).
func (f *Field) opt(props map[string]option, p string) option {
	if o, ok := props[p]; ok {
		return o
	}
	return option{key: "fields." + f.Column.Name + "." + p}
}

// errValue is the 22023 error for an invalid property value.
func errValue(o option, want string) error {
	return repr.Errorf(repr.CodeInvalidParameter, "invalid value for option %q: %q", o.key, o.val).
		WithDetail("Expected %s.", want)
}

// parseInt reads a decimal integer in [lo, hi] for option key.
func parseInt(key, val string, lo, hi int64) (int64, error) {
	i, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
	if err != nil || i < lo || i > hi {
		return 0, errValue(option{key, val}, "an integer from "+strconv.FormatInt(lo, 10)+" to "+strconv.FormatInt(hi, 10))
	}
	return i, nil
}

// intProp reads the integer property p in [lo, hi], or def when absent.
func intProp(props map[string]option, p string, lo, hi, def int64) (int64, error) {
	o, ok := props[p]
	if !ok {
		return def, nil
	}
	return parseInt(o.key, o.val, lo, hi)
}

// parseSequence reads start and end: integers within the column's range
// (for numeric, text and floats: the range they represent exactly).
func (f *Field) parseSequence(props map[string]option) error {
	lo, hi := sequenceRange(f.Column.Type)
	var err error
	if f.lo, err = intProp(props, "start", lo, hi, 0); err != nil {
		return err
	}
	if f.hi, err = intProp(props, "end", lo, hi, hi); err != nil {
		return err
	}
	if f.lo > f.hi {
		return errValue(f.opt(props, "end"), "an end not below start "+strconv.FormatInt(f.lo, 10))
	}
	f.scale = f.Column.Type.Scale
	return nil
}

// sequenceRange returns the integers a sequence column of type t can hold.
func sequenceRange(t repr.T) (int64, int64) {
	switch t.Family {
	case repr.FamInt:
		return intRange(t)
	case repr.FamFloat:
		if t.Width == 32 {
			return -1 << 24, 1 << 24
		}
		return -1 << 53, 1 << 53
	case repr.FamNumeric:
		return numericRange(t, t.Scale)
	}
	if t.Length > 0 && t.Length < 19 { // varchar(n), char(n): at most n characters
		m := int64(math.Pow10(int(t.Length))) - 1
		return -(m / 10), m
	}
	return math.MinInt64, math.MaxInt64
}

// intRange returns the range of an integer type.
func intRange(t repr.T) (int64, int64) {
	switch t.Width {
	case 16:
		return math.MinInt16, math.MaxInt16
	case 32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// numericRange returns the range of integer values (not coefficients) a
// numeric type holds at the given scale, within what int64 coefficients at
// that scale can represent.
func numericRange(t repr.T, scale int32) (int64, int64) {
	digits := 18 - int(scale)
	if t.Precision > 0 {
		digits = min(digits, int(t.Precision-scale))
	}
	if digits <= 0 {
		return 0, 0
	}
	m := int64(math.Pow10(digits)) - 1
	return -m, m
}

// parseRandom reads the properties of a random column.
func (f *Field) parseRandom(props map[string]option) error {
	t := f.Column.Type
	switch t.Family {
	case repr.FamInt:
		lo, hi := intRange(t)
		return f.intBounds(props, lo, hi, 0, hi)
	case repr.FamFloat:
		return f.floatBounds(props, t)
	case repr.FamNumeric:
		return f.numericBounds(props, t)
	case repr.FamText:
		return f.textLength(props, t)
	case repr.FamTimestamp, repr.FamTimestampTZ, repr.FamDate:
		return f.timeBounds(props, t)
	}
	return nil
}

// intBounds reads min and max into lo, hi within [lo, hi] of the type.
func (f *Field) intBounds(props map[string]option, lo, hi, defLo, defHi int64) error {
	var err error
	if f.lo, err = intProp(props, "min", lo, hi, defLo); err != nil {
		return err
	}
	if f.hi, err = intProp(props, "max", lo, hi, defHi); err != nil {
		return err
	}
	if f.lo > f.hi {
		return errValue(f.opt(props, "max"), "a max not below min "+strconv.FormatInt(f.lo, 10))
	}
	return nil
}

// floatBounds reads min and max of a float column (default [0, 1000]).
func (f *Field) floatBounds(props map[string]option, t repr.T) error {
	limit := math.MaxFloat64
	if t.Width == 32 {
		limit = math.MaxFloat32
	}
	f.flo, f.fhi = 0, defaultFloatMax
	for _, p := range []struct {
		name string
		dst  *float64
	}{{"min", &f.flo}, {"max", &f.fhi}} {
		o, ok := props[p.name]
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(o.val), 64)
		if err != nil || math.IsNaN(v) || math.Abs(v) > limit {
			return errValue(o, "a finite number in the range of "+t.Name())
		}
		*p.dst = v
	}
	if f.flo > f.fhi {
		return errValue(f.opt(props, "max"), "a max not below min")
	}
	return nil
}

// numericBounds reads min and max of a numeric column as coefficients at
// the column's scale (defaultNumericScale when unconstrained). Default
// [0, 1000], clamped to the column's precision.
func (f *Field) numericBounds(props map[string]option, t repr.T) error {
	f.scale = defaultNumericScale
	digits := 18
	if t.Precision > 0 {
		f.scale, digits = t.Scale, min(digits, int(t.Precision))
	}
	maxCoef := int64(math.Pow10(digits)) - 1
	unit := math.Pow10(int(f.scale))
	f.lo, f.hi = 0, min(int64(defaultFloatMax*unit), maxCoef)
	for _, p := range []struct {
		name string
		dst  *int64
	}{{"min", &f.lo}, {"max", &f.hi}} {
		o, ok := props[p.name]
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(o.val), 64)
		c := math.Round(v * unit)
		if err != nil || math.IsNaN(v) || math.Abs(c) > float64(maxCoef) {
			limit := apd.New(maxCoef, -f.scale).String()
			return errValue(o, "a number from -"+limit+" to "+limit)
		}
		*p.dst = int64(c)
	}
	if f.lo > f.hi {
		return errValue(f.opt(props, "max"), "a max not below min")
	}
	return nil
}

// textLength reads the length of random strings: at most n for varchar(n);
// exactly n for char(n), whose values are padded.
func (f *Field) textLength(props map[string]option, t repr.T) error {
	hi, def := int64(maxLength), int64(defaultLength)
	if t.Length > 0 {
		hi, def = int64(t.Length), min(def, int64(t.Length))
	}
	var err error
	f.length, err = intProp(props, "length", 0, hi, def)
	return err
}

// timeBounds reads basetime and max_past: values are uniform in
// [basetime - max_past, basetime] (in days for dates, µs otherwise).
func (f *Field) timeBounds(props map[string]option, t repr.T) error {
	base, err := timeProp(props, "basetime", defaultBaseTime, t)
	if err != nil {
		return err
	}
	past, err := timeProp(props, "max_past", defaultMaxPast, repr.IntervalT)
	if err != nil {
		return err
	}
	iv := past.Interval()
	us := (int64(iv.Months)*30+int64(iv.Days))*usPerDay + iv.Micros
	if us < 0 {
		return errValue(f.opt(props, "max_past"), "a non-negative interval")
	}
	f.hi = base.Micros()
	if t.Family == repr.FamDate {
		f.hi, us = int64(base.Date()), us/usPerDay
	}
	f.lo = f.hi - us
	if math.Abs(float64(f.lo)) > 1<<61 || math.Abs(float64(f.hi)) > 1<<61 ||
		t.Family == repr.FamDate && (f.lo < math.MinInt32/2 || f.hi > math.MaxInt32/2) {
		return errValue(f.opt(props, "basetime"), "a finite time with max_past inside the "+t.Name()+" range")
	}
	return nil
}

// timeProp parses property p (or def) as text input of type t, in UTC.
func timeProp(props map[string]option, p, def string, t repr.T) (repr.Datum, error) {
	o, ok := props[p]
	if !ok {
		o = option{key: p, val: def}
	}
	d, err := repr.ParseText(o.val, t, time.UTC)
	if err != nil {
		return d, errValue(o, "a "+t.Name()+" literal")
	}
	return d, nil
}
