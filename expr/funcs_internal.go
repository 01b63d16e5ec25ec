package expr

import "github.com/eddydb/eddy/repr"

// CardinalityError is the function a decorrelated scalar subquery calls
// for an outer row that the subquery gave more than one row: it always
// fails with 21000, PostgreSQL's error for the same query. The planner
// builds the call (CASE WHEN count > 1 THEN eddy_cardinality_error() ...);
// it is registered by name only so printed plans parse back. Folding
// leaves it alone (its evaluation fails), so the error surfaces when, and
// only when, a row reaches it.
var CardinalityError = fn("eddy_cardinality_error", repr.Text, func(*Ctx, []repr.Datum) (repr.Datum, error) {
	return repr.Null, repr.Errorf(repr.CodeCardinalityViolation, "more than one row returned by a subquery used as an expression")
})
