package scalar

// This file holds private stand-ins for sql/types helpers that are being
// written in parallel (FormatText, ParseText, Cast, CastContextOf, integer
// arithmetic). TODO(scalar): switch each to the sql/types function of the
// same name once it lands, and delete this file.

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// castCtx tells in which contexts PostgreSQL applies a cast; a larger value
// allows more (mirrors types.CastContext).
type castCtx uint8

const (
	castNone castCtx = iota
	castExplicit
	castAssignment
	castImplicit
)

// castContextOf mirrors pg_cast.castcontext for the supported types.
func castContextOf(from, to types.T) castCtx {
	if from.Family == types.FamUnknown {
		return castImplicit
	}
	if from.Equivalent(to) && from.Family != types.FamText {
		return castImplicit
	}
	rank := map[types.Family]int{}
	_ = rank
	switch from.Family {
	case types.FamInt:
		switch to.Family {
		case types.FamInt:
			if to.Width > from.Width {
				return castImplicit
			}
			return castAssignment
		case types.FamFloat, types.FamNumeric:
			return castImplicit
		case types.FamBool:
			if from.Width == 32 {
				return castExplicit
			}
		}
	case types.FamFloat:
		switch to.Family {
		case types.FamFloat:
			if to.Width > from.Width {
				return castImplicit
			}
			return castAssignment
		case types.FamInt, types.FamNumeric:
			return castAssignment
		}
	case types.FamNumeric:
		switch to.Family {
		case types.FamFloat:
			return castImplicit
		case types.FamInt:
			return castAssignment
		}
	case types.FamText:
		if to.Family == types.FamText {
			if from.Kind == types.KindChar && to.Kind == types.KindChar {
				return castImplicit
			}
			return castImplicit
		}
		return castExplicit
	case types.FamBool:
		if to.Family == types.FamInt && to.Width == 32 {
			return castExplicit
		}
	case types.FamDate:
		switch to.Family {
		case types.FamTimestamp, types.FamTimestampTZ:
			return castImplicit
		}
	case types.FamTimestamp:
		switch to.Family {
		case types.FamTimestampTZ:
			return castImplicit
		case types.FamDate, types.FamTime:
			return castAssignment
		}
	case types.FamTimestampTZ:
		switch to.Family {
		case types.FamTimestamp, types.FamDate, types.FamTime:
			return castAssignment
		}
	case types.FamTime:
		if to.Family == types.FamInterval {
			return castImplicit
		}
	case types.FamInterval:
		if to.Family == types.FamTime {
			return castAssignment
		}
	case types.FamJSONB:
		switch to.Family {
		case types.FamBool, types.FamInt, types.FamFloat, types.FamNumeric:
			return castExplicit
		}
	}
	if to.Family == types.FamText {
		return castAssignment // everything has an output function
	}
	return castNone
}

// castDatum converts d of type from to type to. TODO(scalar): types.Cast.
func castDatum(d types.Datum, from, to types.T, loc *time.Location, explicit bool) (types.Datum, error) {
	if d.IsNull() {
		return types.Null, nil
	}
	if from.Family == types.FamUnknown || from.Family == types.FamText && to.Family != types.FamText {
		return parseText(d.Text(), to, loc)
	}
	switch to.Family {
	case types.FamText:
		s := d.Text()
		if from.Family == types.FamBool {
			s = map[bool]string{true: "true", false: "false"}[d.Bool()]
		} else if from.Family != types.FamText {
			s = formatText(d, from, loc)
		} else if from.Kind == types.KindChar && to.Kind != types.KindChar {
			s = strings.TrimRight(s, " ")
		}
		return textTypmod(s, to, explicit)
	case types.FamInt:
		return castToInt(d, from, to)
	case types.FamFloat:
		f, err := toFloat(d, from)
		if err != nil {
			return types.Null, err
		}
		if to.Width == 32 && !math.IsInf(f, 0) && !math.IsNaN(f) {
			if math.Abs(f) > math.MaxFloat32 {
				return types.Null, pgerr.New(pgerr.CodeNumericOutOfRange, "value out of range: overflow")
			}
			f = float64(float32(f))
		}
		return types.NewFloat(f), nil
	case types.FamNumeric:
		return castToNumeric(d, from, to)
	case types.FamBool:
		if from.Family == types.FamInt {
			return types.NewBool(d.Int() != 0), nil
		}
	case types.FamTimestamp, types.FamTimestampTZ, types.FamDate, types.FamTime, types.FamInterval:
		return castTime(d, from, to, loc)
	}
	if from.Equivalent(to) {
		return d, nil
	}
	return types.Null, pgerr.New("42846", "cannot cast type %s to %s", from.Name(), to.Name())
}

func textTypmod(s string, to types.T, explicit bool) (types.Datum, error) {
	n := int(to.Length)
	if n > 0 {
		r := []rune(s)
		if len(r) > n {
			if !explicit && strings.TrimRight(string(r[n:]), " ") != "" {
				return types.Null, pgerr.New(pgerr.CodeStringTooLong, "value too long for type %s", to.Name())
			}
			s = string(r[:n])
		} else if to.Kind == types.KindChar {
			s += strings.Repeat(" ", n-len(r))
		}
	}
	return types.NewText(s), nil
}

func castToInt(d types.Datum, from, to types.T) (types.Datum, error) {
	var v int64
	switch from.Family {
	case types.FamInt:
		v = d.Int()
	case types.FamBool:
		v = int64(b2i(d.Bool()))
	case types.FamFloat:
		f := math.RoundToEven(d.Float())
		if math.IsNaN(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
			return types.Null, intRangeErr(to.Width)
		}
		v = int64(f)
	case types.FamNumeric:
		var r apd.Decimal
		if _, err := roundCtx.RoundToIntegralValue(&r, d.Numeric()); err != nil || r.Form != apd.Finite {
			return types.Null, intRangeErr(to.Width)
		}
		x, err := r.Int64()
		if err != nil {
			return types.Null, intRangeErr(to.Width)
		}
		v = x
	default:
		return types.Null, pgerr.New("42846", "cannot cast type %s to %s", from.Name(), to.Name())
	}
	if !fitsWidth(v, to.Width) {
		return types.Null, intRangeErr(to.Width)
	}
	return types.NewInt(v), nil
}

func toFloat(d types.Datum, from types.T) (float64, error) {
	switch from.Family {
	case types.FamInt:
		return float64(d.Int()), nil
	case types.FamFloat:
		return d.Float(), nil
	case types.FamNumeric:
		x := d.Numeric()
		switch x.Form {
		case apd.NaN, apd.NaNSignaling:
			return math.NaN(), nil
		case apd.Infinite:
			return math.Inf(1 - 2*b2i(x.Negative)), nil
		}
		return strconv.ParseFloat(x.String(), 64)
	}
	return 0, pgerr.New("42846", "cannot cast type %s to double precision", from.Name())
}

func castToNumeric(d types.Datum, from, to types.T) (types.Datum, error) {
	var x apd.Decimal
	switch from.Family {
	case types.FamInt:
		x.SetInt64(d.Int())
	case types.FamFloat:
		f := d.Float()
		switch {
		case math.IsNaN(f):
			x.Form = apd.NaN
		case math.IsInf(f, 0):
			x.Form, x.Negative = apd.Infinite, f < 0
		default:
			// PG converts float8 with 15 significant digits (DBL_DIG).
			if _, _, err := x.SetString(strconv.FormatFloat(f, 'g', 15, 64)); err != nil {
				return types.Null, err
			}
			if from.Width == 32 {
				_, _, _ = x.SetString(strconv.FormatFloat(f, 'g', 6, 64))
			}
			reduceTrailing(&x)
		}
	case types.FamNumeric:
		x.Set(d.Numeric())
	case types.FamBool:
		return types.Null, pgerr.New("42846", "cannot cast type boolean to numeric")
	}
	return applyNumericTypmod(&x, to)
}

// reduceTrailing drops trailing zeros after the decimal point (never above scale 0).
func reduceTrailing(x *apd.Decimal) {
	for x.Exponent < 0 && x.Coeff.Sign() != 0 {
		var q, r apd.BigInt
		q.QuoRem(&x.Coeff, apd.NewBigInt(10), &r)
		if r.Sign() != 0 {
			return
		}
		x.Coeff.Set(&q)
		x.Exponent++
	}
	if x.Coeff.Sign() == 0 && x.Exponent < 0 {
		x.Exponent = 0
	}
}

// applyNumericTypmod rounds x to numeric(p,s) and checks its precision.
func applyNumericTypmod(x *apd.Decimal, to types.T) (types.Datum, error) {
	if to.Precision == 0 || x.Form != apd.Finite {
		return types.NewNumeric(x), nil
	}
	var r apd.Decimal
	if _, err := roundCtx.Quantize(&r, x, -to.Scale); err != nil {
		return types.Null, numericOverflow(to)
	}
	if !r.IsZero() && int64(r.NumDigits())+int64(r.Exponent) > int64(to.Precision-to.Scale) {
		return types.Null, numericOverflow(to)
	}
	return types.NewNumeric(&r), nil
}

func numericOverflow(to types.T) error {
	return pgerr.New(pgerr.CodeNumericOutOfRange, "numeric field overflow").WithDetail(
		"A field with precision %d, scale %d must round to an absolute value less than 10^%d.",
		to.Precision, to.Scale, to.Precision-to.Scale)
}

// formatText renders d in PostgreSQL's text output format. TODO(scalar): types.FormatText.
func formatText(d types.Datum, t types.T, loc *time.Location) string {
	if d.IsNull() {
		return ""
	}
	switch d.Family() {
	case types.FamBool:
		if d.Bool() {
			return "t"
		}
		return "f"
	case types.FamInt:
		return strconv.FormatInt(d.Int(), 10)
	case types.FamFloat:
		return formatFloat(d.Float(), t.Width)
	case types.FamNumeric:
		return formatNumeric(d.Numeric())
	case types.FamText, types.FamJSONB:
		return d.Text()
	case types.FamBytea:
		return `\x` + hexString(d.Text())
	}
	return formatTime(d, loc)
}

func hexString(s string) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, digits[s[i]>>4], digits[s[i]&15])
	}
	return string(b)
}

// formatFloat prints like PostgreSQL 12+: shortest round-trip digits, with
// an exponent when the decimal exponent is < -4 or >= 15.
func formatFloat(f float64, width int32) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	bits := 64
	if width == 32 {
		bits = 32
	}
	e := strconv.FormatFloat(f, 'e', -1, bits)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 15 {
		return e
	}
	return strconv.FormatFloat(f, 'f', -1, bits)
}

func formatNumeric(x *apd.Decimal) string {
	switch x.Form {
	case apd.NaN, apd.NaNSignaling:
		return "NaN"
	case apd.Infinite:
		if x.Negative {
			return "-Infinity"
		}
		return "Infinity"
	}
	s := x.Text('f')
	if x.IsZero() && strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	return s
}

// parseText parses PostgreSQL input text for type t. TODO(scalar): types.ParseText.
func parseText(s string, t types.T, loc *time.Location) (types.Datum, error) {
	in := strings.TrimSpace(s)
	bad := func() (types.Datum, error) {
		return types.Null, pgerr.New(pgerr.CodeInvalidText, "invalid input syntax for type %s: %q", t.Name(), s)
	}
	switch t.Family {
	case types.FamUnknown, types.FamText:
		return textTypmod(s, t, false)
	case types.FamBool:
		switch strings.ToLower(in) {
		case "t", "true", "yes", "y", "on", "1":
			return types.NewBool(true), nil
		case "f", "false", "no", "n", "off", "0":
			return types.NewBool(false), nil
		}
		return bad()
	case types.FamInt:
		v, err := strconv.ParseInt(in, 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return types.Null, pgerr.New(pgerr.CodeNumericOutOfRange, "value %q is out of range for type %s", s, t.Name())
			}
			return bad()
		}
		if !fitsWidth(v, t.Width) {
			return types.Null, pgerr.New(pgerr.CodeNumericOutOfRange, "value %q is out of range for type %s", s, t.Name())
		}
		return types.NewInt(v), nil
	case types.FamFloat:
		switch strings.ToLower(in) {
		case "nan":
			return types.NewFloat(math.NaN()), nil
		case "infinity", "inf", "+infinity":
			return types.NewFloat(math.Inf(1)), nil
		case "-infinity", "-inf":
			return types.NewFloat(math.Inf(-1)), nil
		}
		f, err := strconv.ParseFloat(in, 64)
		if err != nil {
			return bad()
		}
		if t.Width == 32 {
			f = float64(float32(f))
		}
		return types.NewFloat(f), nil
	case types.FamNumeric:
		if strings.EqualFold(in, "nan") {
			return types.NewNumeric(&apd.Decimal{Form: apd.NaN}), nil
		}
		x, _, err := apd.NewFromString(in)
		if err != nil || x.Form != apd.Finite {
			return bad()
		}
		return applyNumericTypmod(x, t)
	case types.FamBytea:
		if strings.HasPrefix(s, `\x`) {
			b := make([]byte, 0, len(s)/2)
			for i := 2; i+1 < len(s); i += 2 {
				v, err := strconv.ParseUint(s[i:i+2], 16, 8)
				if err != nil {
					return bad()
				}
				b = append(b, byte(v))
			}
			return types.NewBytea(b), nil
		}
		return types.NewBytea([]byte(s)), nil
	case types.FamJSONB:
		return types.NewJSONB(in), nil
	}
	d, ok := parseTime(in, t, loc)
	if !ok {
		return bad()
	}
	return d, nil
}

func fitsWidth(v int64, width int32) bool {
	switch width {
	case 16:
		return v >= math.MinInt16 && v <= math.MaxInt16
	case 32:
		return v >= math.MinInt32 && v <= math.MaxInt32
	}
	return true
}

func intRangeErr(width int32) error {
	name := map[int32]string{16: "smallint", 32: "integer", 64: "bigint"}[width]
	return pgerr.New(pgerr.CodeNumericOutOfRange, "%s out of range", name)
}

// intOp applies a checked integer operation (TODO(scalar): types.AddInt etc.).
func addInt(a, b int64, w int32) (int64, error) {
	r := a + b
	if (a >= 0) == (b >= 0) && (r >= 0) != (a >= 0) || !fitsWidth(r, w) {
		return 0, intRangeErr(w)
	}
	return r, nil
}

func subInt(a, b int64, w int32) (int64, error) {
	r := a - b
	if (a >= 0) != (b >= 0) && (r >= 0) != (a >= 0) || !fitsWidth(r, w) {
		return 0, intRangeErr(w)
	}
	return r, nil
}

func mulInt(a, b int64, w int32) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) || !fitsWidth(r, w) {
		return 0, intRangeErr(w)
	}
	return r, nil
}

func divInt(a, b int64, w int32) (int64, error) {
	if b == 0 {
		return 0, pgerr.ErrDivisionByZero.New()
	}
	if b == -1 {
		return subInt(0, a, w)
	}
	return a / b, nil
}

func modInt(a, b int64, _ int32) (int64, error) {
	if b == 0 {
		return 0, pgerr.ErrDivisionByZero.New()
	}
	if b == -1 {
		return 0, nil
	}
	return a % b, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
