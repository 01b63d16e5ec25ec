package scalar

import (
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// CardinalityError is the function a decorrelated scalar subquery calls
// for an outer row that the subquery gave more than one row: it always
// fails with 21000, PostgreSQL's error for the same query. The planner
// builds the call (CASE WHEN count > 1 THEN eddy_cardinality_error() ...);
// it is registered by name only so printed plans parse back. Folding
// leaves it alone (its evaluation fails), so the error surfaces when, and
// only when, a row reaches it.
var CardinalityError = fn("eddy_cardinality_error", types.Text, func(*Ctx, []types.Datum) (types.Datum, error) {
	return types.Null, pgerr.New(pgerr.CodeCardinalityViolation, "more than one row returned by a subquery used as an expression")
})
