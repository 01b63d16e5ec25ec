package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// Polymorphic SQL functions: a parameter or result declared with one of
// PostgreSQL's polymorphic pseudo-types is kept by name (FuncDef.Poly,
// RetPoly) and instantiated by the planner at each call
// (planner/sqlfunc_poly.go). A polymorphic result needs a polymorphic
// parameter of its family to resolve from (42P13, as in PostgreSQL).

// polyTypes are the polymorphic pseudo-types SQL functions may declare.
var polyTypes = map[string]bool{"anyelement": true, "anyarray": true, "anynonarray": true,
	"anycompatible": true, "anycompatiblearray": true, "anycompatiblenonarray": true}

// polyTypeName returns the polymorphic pseudo-type tn names, "" for any
// other type.
func polyTypeName(tn *pg.TypeName) string {
	if tn == nil || len(tn.ArrayBounds) > 0 {
		return ""
	}
	names := stringList(tn.Names)
	if len(names) == 0 || len(names) > 1 && names[len(names)-2] != "pg_catalog" {
		return ""
	}
	if n := names[len(names)-1]; polyTypes[n] {
		return n
	}
	return ""
}

// polyResult records a polymorphic result type poly.
func (f *FuncDef) polyResult(poly string) error {
	compat := poly == "anycompatible" || poly == "anycompatiblearray" || poly == "anycompatiblenonarray"
	ok := false
	for _, p := range f.Poly {
		pc := p == "anycompatible" || p == "anycompatiblearray" || p == "anycompatiblenonarray"
		ok = ok || p != "" && pc == compat
	}
	if !ok {
		return repr.Errorf(codeInvalidFunctionDefinition, "cannot determine result data type").
			WithDetail("A result of type %s requires at least one input of type %s.", poly, polyFamily(compat))
	}
	f.Ret, f.RetPoly = repr.Text, poly
	if f.RetSet {
		f.RetCols = []ColumnDef{{Type: repr.Text}}
	}
	return nil
}

// polyFamily names the inputs a polymorphic result resolves from.
func polyFamily(compat bool) string {
	if compat {
		return "anycompatible, anycompatiblearray, anycompatiblenonarray, or anycompatiblerange"
	}
	return "anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange"
}
