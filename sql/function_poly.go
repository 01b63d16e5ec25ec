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

// polyColumns checks that each polymorphic result column (OUT or TABLE
// parameter) has an input to resolve from, and records a lone OUT
// parameter's type as the result's.
func (f *FuncDef) polyColumns() error {
	for _, p := range f.RetColPoly {
		if p != "" {
			if err := f.polyResolvable(p); err != nil {
				return err
			}
		}
	}
	if len(f.RetColPoly) == 1 && !f.RetSet && len(f.OutArgs) == 1 {
		f.RetPoly = f.RetColPoly[0]
	}
	return nil
}

// polyResult records a polymorphic result type poly.
func (f *FuncDef) polyResult(poly string) error {
	if err := f.polyResolvable(poly); err != nil {
		return err
	}
	f.Ret, f.RetPoly = repr.Text, poly
	if f.RetSet {
		f.RetCols = []ColumnDef{{Type: repr.Text}}
		f.RetColPoly = []string{poly}
	}
	return nil
}

// polyResolvable fails (42P13) unless an input parameter is of poly's
// family, as PostgreSQL requires of a polymorphic result.
func (f *FuncDef) polyResolvable(poly string) error {
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
	return nil
}

// polyFamily names the inputs a polymorphic result resolves from.
func polyFamily(compat bool) string {
	if compat {
		return "anycompatible, anycompatiblearray, anycompatiblenonarray, anycompatiblerange, or anycompatiblemultirange"
	}
	return "anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange"
}
