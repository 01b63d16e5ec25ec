package expr

// This file adapts the repr conversions (Cast, CastContextOf,
// FormatText, ParseText, integer arithmetic) to the names this package
// used before they landed.

import (
	"math"
	"time"

	"github.com/eddydb/eddy/repr"
)

// castCtx is repr.CastContext under its old private name.
type castCtx = repr.CastContext

const (
	castNone       = repr.CastNone
	castExplicit   = repr.CastExplicit
	castAssignment = repr.CastAssignment
	castImplicit   = repr.CastImplicit
)

// castContextOf is repr.CastContextOf, with unknown literals coercible to anything.
func castContextOf(from, to repr.T) castCtx {
	if from.Family == repr.FamUnknown {
		return castImplicit
	}
	return repr.CastContextOf(from, to)
}

// CanCoerce reports whether a value of type from may be converted to type
// to in context ctx (implicit: operator and function arguments; assignment:
// INSERT/UPDATE targets; explicit: CAST). Unknown literals coerce to anything.
func CanCoerce(from, to repr.T, ctx repr.CastContext) bool {
	return from == to || castContextOf(from, to) >= ctx
}

// castDatum is repr.Cast; unknown-typed values are parsed as input text.
func castDatum(d repr.Datum, from, to repr.T, loc *time.Location, explicit bool) (repr.Datum, error) {
	if d.IsNull() {
		return repr.Null, nil
	}
	if from.Family == repr.FamUnknown && explicit && to.Family == repr.FamText && to.Length > 0 {
		// An explicit cast of an untyped literal to varchar(n)/char(n) reads
		// it unbounded and then truncates, as PostgreSQL's length coercion does.
		return repr.Cast(repr.NewText(d.Text()), repr.Text, to, loc, true)
	}
	if from.Family == repr.FamUnknown && to.Family == repr.FamBit && to.Length > 0 {
		// bit_in reads an untyped literal without the length, and the
		// length coercion then pads, truncates or fails by context.
		return repr.Cast(repr.NewText(d.Text()), repr.Text, to, loc, explicit)
	}
	if from.Family == repr.FamUnknown && explicit && to.Family == repr.FamArray && to.TypeMod() >= 0 {
		// Likewise for arrays of such types: array_in ignores the element
		// modifier, the array length coercion then applies it.
		base := to
		base.Length, base.Precision, base.Scale = 0, 0, 0
		a, err := repr.ParseText(d.Text(), base, loc)
		if err != nil {
			return repr.Null, err
		}
		return repr.Cast(a, base, to, loc, true)
	}
	if from.Family == repr.FamUnknown {
		return repr.ParseText(d.Text(), to, loc)
	}
	return repr.Cast(d, from, to, loc, explicit)
}

// formatText is repr.FormatText.
func formatText(d repr.Datum, t repr.T, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return repr.FormatText(d, t, loc)
}

// parseText is repr.ParseText.
func parseText(s string, t repr.T, loc *time.Location) (repr.Datum, error) {
	if loc == nil {
		loc = time.UTC
	}
	return repr.ParseText(s, t, loc)
}

var (
	addInt = repr.AddInt
	subInt = repr.SubInt
	mulInt = repr.MulInt
	divInt = repr.DivInt
	modInt = repr.ModInt
)

func toFloat(d repr.Datum, from repr.T) (float64, error) {
	f, err := repr.Cast(d, from, repr.Float8, time.UTC, true)
	return f.Float(), err
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
