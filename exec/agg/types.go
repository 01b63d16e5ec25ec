package agg

import "github.com/eddydb/eddy/sql/types"

// The result-type functions of the registry, following PostgreSQL.

func always(t types.T) func(types.T) (types.T, bool) {
	return func(types.T) (types.T, bool) { return t, true }
}

func fixed(c Class) func(types.T) Class { return func(types.T) Class { return c } }

// sameType is min, max, mode and percentile_disc: the argument's type (an
// untyped literal is text).
func sameType(arg types.T) (types.T, bool) {
	if arg.Family == types.FamUnknown {
		return types.Text, true
	}
	return arg, true
}

// boxedType is array_agg over boxed values (Def.Boxed): the box's array
// type. Arrays of arrays (multidimensional results) are not supported.
func boxedType(arg types.T) (types.T, bool) {
	return arg, arg.Family == types.FamArray
}

// boxedAs is a boxed aggregate with result type t whatever it aggregates
// (jsonb_agg).
func boxedAs(t types.T) func(types.T) (types.T, bool) {
	return func(arg types.T) (types.T, bool) { return t, arg.Family == types.FamArray }
}

func boolType(arg types.T) (types.T, bool) { return types.Bool, arg.Family == types.FamBool }

func textType(arg types.T) (types.T, bool) {
	return types.Text, arg.Family == types.FamText || arg.Family == types.FamUnknown
}

// intType is bit_and and bit_or: smallint, integer or bigint as given.
func intType(arg types.T) (types.T, bool) { return arg, arg.Family == types.FamInt }

// sumType: sum of smallint/integer is bigint and of bigint numeric; floats,
// numerics and intervals keep their type.
func sumType(arg types.T) (types.T, bool) {
	switch arg.Family {
	case types.FamInt:
		if arg.Width == 64 {
			return types.Numeric, true
		}
		return types.Int8, true
	case types.FamFloat:
		return arg, true
	case types.FamNumeric:
		return types.Numeric, true
	case types.FamInterval:
		return types.IntervalT, true
	}
	return types.Unknown, false
}

// avgType: avg of integers and numerics is numeric, of floats double
// precision, of intervals interval.
func avgType(arg types.T) (types.T, bool) {
	switch arg.Family {
	case types.FamInt, types.FamNumeric:
		return types.Numeric, true
	case types.FamFloat:
		return types.Float8, true
	case types.FamInterval:
		return types.IntervalT, true
	}
	return types.Unknown, false
}

// momentType is the variance and standard deviation family: numeric for
// integers and numerics, double precision for floats.
func momentType(arg types.T) (types.T, bool) {
	switch arg.Family {
	case types.FamInt, types.FamNumeric:
		return types.Numeric, true
	case types.FamFloat:
		return types.Float8, true
	}
	return types.Unknown, false
}

// contType is percentile_cont: double precision over numbers (PostgreSQL
// casts the sort value to double precision), interval over intervals.
func contType(arg types.T) (types.T, bool) {
	switch arg.Family {
	case types.FamInt, types.FamNumeric, types.FamFloat:
		return types.Float8, true
	case types.FamInterval:
		return types.IntervalT, true
	}
	return types.Unknown, false
}

// sumClass is sum's and avg's accumulator by argument family.
func sumClass(arg types.T) Class {
	switch arg.Family {
	case types.FamInt:
		return ClassInt
	case types.FamFloat:
		return ClassFloat
	case types.FamNumeric:
		return ClassNumeric
	case types.FamInterval:
		return ClassInterval
	}
	return ClassNone
}

// momentClass keeps exact sums of values and squares whatever the input.
func momentClass(arg types.T) Class {
	switch arg.Family {
	case types.FamInt, types.FamFloat, types.FamNumeric:
		return ClassMoments
	}
	return ClassNone
}
