package scalar

// This file adapts the sql/types conversions (Cast, CastContextOf,
// FormatText, ParseText, integer arithmetic) to the names this package
// used before they landed.

import (
	"math"
	"time"

	"github.com/eddydb/eddy/sql/types"
)

// castCtx is types.CastContext under its old private name.
type castCtx = types.CastContext

const (
	castNone       = types.CastNone
	castExplicit   = types.CastExplicit
	castAssignment = types.CastAssignment
	castImplicit   = types.CastImplicit
)

// castContextOf is types.CastContextOf, with unknown literals coercible to anything.
func castContextOf(from, to types.T) castCtx {
	if from.Family == types.FamUnknown {
		return castImplicit
	}
	return types.CastContextOf(from, to)
}

// CanCoerce reports whether a value of type from may be converted to type
// to in context ctx (implicit: operator and function arguments; assignment:
// INSERT/UPDATE targets; explicit: CAST). Unknown literals coerce to anything.
func CanCoerce(from, to types.T, ctx types.CastContext) bool {
	return from == to || castContextOf(from, to) >= ctx
}

// castDatum is types.Cast; unknown-typed values are parsed as input text.
func castDatum(d types.Datum, from, to types.T, loc *time.Location, explicit bool) (types.Datum, error) {
	if d.IsNull() {
		return types.Null, nil
	}
	if from.Family == types.FamUnknown && explicit && to.Family == types.FamText && to.Length > 0 {
		// An explicit cast of an untyped literal to varchar(n)/char(n) reads
		// it unbounded and then truncates, as PostgreSQL's length coercion does.
		return types.Cast(types.NewText(d.Text()), types.Text, to, loc, true)
	}
	if from.Family == types.FamUnknown && explicit && to.Family == types.FamArray && to.TypeMod() >= 0 {
		// Likewise for arrays of such types: array_in ignores the element
		// modifier, the array length coercion then applies it.
		base := to
		base.Length, base.Precision, base.Scale = 0, 0, 0
		a, err := types.ParseText(d.Text(), base, loc)
		if err != nil {
			return types.Null, err
		}
		return types.Cast(a, base, to, loc, true)
	}
	if from.Family == types.FamUnknown {
		return types.ParseText(d.Text(), to, loc)
	}
	return types.Cast(d, from, to, loc, explicit)
}

// formatText is types.FormatText.
func formatText(d types.Datum, t types.T, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return types.FormatText(d, t, loc)
}

// parseText is types.ParseText.
func parseText(s string, t types.T, loc *time.Location) (types.Datum, error) {
	if loc == nil {
		loc = time.UTC
	}
	return types.ParseText(s, t, loc)
}

var (
	addInt = types.AddInt
	subInt = types.SubInt
	mulInt = types.MulInt
	divInt = types.DivInt
	modInt = types.ModInt
)

func toFloat(d types.Datum, from types.T) (float64, error) {
	f, err := types.Cast(d, from, types.Float8, time.UTC, true)
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
