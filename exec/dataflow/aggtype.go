package dataflow

import (
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// AggType returns the result type of aggregate k over an argument of type
// arg, following PostgreSQL: count is bigint; sum of smallint/integer is
// bigint and of bigint numeric; avg of integers is numeric and of floats
// double precision; min/max keep their argument's type.
func AggType(k AggKind, arg types.T) (types.T, error) {
	switch k {
	case AggCountStar, AggCount:
		return types.Int8, nil
	case AggMin, AggMax:
		if arg.Family == types.FamUnknown {
			return types.Text, nil
		}
		return arg, nil
	case AggBoolAnd, AggBoolOr:
		if arg.Family == types.FamBool {
			return types.Bool, nil
		}
	case AggStringAgg:
		if arg.Family == types.FamText || arg.Family == types.FamUnknown {
			return types.Text, nil
		}
	case AggSum:
		switch arg.Family {
		case types.FamInt:
			if arg.Width == 64 {
				return types.Numeric, nil
			}
			return types.Int8, nil
		case types.FamFloat:
			return arg, nil
		case types.FamNumeric:
			return types.Numeric, nil
		case types.FamInterval:
			return types.IntervalT, nil
		}
	case AggAvg:
		switch arg.Family {
		case types.FamInt, types.FamNumeric:
			return types.Numeric, nil
		case types.FamFloat:
			return types.Float8, nil
		case types.FamInterval:
			return types.IntervalT, nil
		}
	}
	return types.Unknown, pgerr.New(pgerr.CodeUndefinedFunction, "function %s(%s) does not exist", k, arg.Name())
}

// String returns the SQL name of the aggregate.
func (k AggKind) String() string {
	return [...]string{"count", "count", "sum", "avg", "min", "max", "bool_and", "bool_or", "string_agg"}[k]
}
