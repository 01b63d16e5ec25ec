package connector

import "github.com/eddydb/eddy/repr"

// Column is one column of a connector's rows: its name as declared in
// CREATE SOURCE and its SQL type. Rows produced by a connector hold one
// datum per column, in declaration order, of the column's type family.
type Column struct {
	Name string
	Type repr.T
}
