package expr

import "github.com/eddydb/eddy/repr"

// The result-type functions of the registry, following PostgreSQL.

func alwaysType(t repr.T) func(repr.T) (repr.T, bool) {
	return func(repr.T) (repr.T, bool) { return t, true }
}

func fixed(c AccClass) func(repr.T) AccClass { return func(repr.T) AccClass { return c } }

// sameArgType is min, max, mode and percentile_disc: the argument's type (an
// untyped literal is text).
func sameArgType(arg repr.T) (repr.T, bool) {
	if arg.Family == repr.FamUnknown {
		return repr.Text, true
	}
	return arg, true
}

// boxedType is array_agg over boxed values (AggDef.Boxed): the box's array
// type (array_agg over arrays boxes with array_agg_box, the same type).
func boxedType(arg repr.T) (repr.T, bool) {
	return arg, arg.Family == repr.FamArray
}

// boxedAs is a boxed aggregate with result type t whatever it aggregates
// (jsonb_agg).
func boxedAs(t repr.T) func(repr.T) (repr.T, bool) {
	return func(arg repr.T) (repr.T, bool) { return t, arg.Family == repr.FamArray }
}

func boolType(arg repr.T) (repr.T, bool) { return repr.Bool, arg.Family == repr.FamBool }

func textType(arg repr.T) (repr.T, bool) {
	if arg.Family == repr.FamBytea { // string_agg(bytea, bytea)
		return repr.Bytea, true
	}
	return repr.Text, arg.Family == repr.FamText || arg.Family == repr.FamUnknown
}

// intType is bit_and and bit_or: smallint, integer or bigint as given.
func intType(arg repr.T) (repr.T, bool) { return arg, arg.Family == repr.FamInt }

// sumType: sum of smallint/integer is bigint and of bigint numeric; floats,
// numerics and intervals keep their type.
func sumType(arg repr.T) (repr.T, bool) {
	switch arg.Family {
	case repr.FamInt:
		if arg.Width == 64 {
			return repr.Numeric, true
		}
		return repr.Int8, true
	case repr.FamFloat:
		return arg, true
	case repr.FamNumeric:
		return repr.Numeric, true
	case repr.FamInterval:
		return repr.IntervalT, true
	}
	return repr.Unknown, false
}

// avgType: avg of integers and numerics is numeric, of floats double
// precision, of intervals interval.
func avgType(arg repr.T) (repr.T, bool) {
	switch arg.Family {
	case repr.FamInt, repr.FamNumeric:
		return repr.Numeric, true
	case repr.FamFloat:
		return repr.Float8, true
	case repr.FamInterval:
		return repr.IntervalT, true
	}
	return repr.Unknown, false
}

// momentType is the variance and standard deviation family: numeric for
// integers and numerics, double precision for floats.
func momentType(arg repr.T) (repr.T, bool) {
	switch arg.Family {
	case repr.FamInt, repr.FamNumeric:
		return repr.Numeric, true
	case repr.FamFloat:
		return repr.Float8, true
	}
	return repr.Unknown, false
}

// contType is percentile_cont: double precision over numbers (PostgreSQL
// casts the sort value to double precision), interval over intervals.
func contType(arg repr.T) (repr.T, bool) {
	switch arg.Family {
	case repr.FamInt, repr.FamNumeric, repr.FamFloat:
		return repr.Float8, true
	case repr.FamInterval:
		return repr.IntervalT, true
	}
	return repr.Unknown, false
}

// sumClass is sum's and avg's accumulator by argument family.
func sumClass(arg repr.T) AccClass {
	switch arg.Family {
	case repr.FamInt:
		return AccInt
	case repr.FamFloat:
		return AccFloat
	case repr.FamNumeric:
		return AccNumeric
	case repr.FamInterval:
		return AccInterval
	}
	return AccNone
}

// momentClass keeps exact sums of values and squares whatever the input.
func momentClass(arg repr.T) AccClass {
	switch arg.Family {
	case repr.FamInt, repr.FamFloat, repr.FamNumeric:
		return AccMoments
	}
	return AccNone
}
