package planner

import (
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestConstRowsParams checks that bound parameters (a prepared INSERT
// executed with its values) take constRows's fast path and convert as the
// general path does: typed parameters as they are, NULL, and an
// untyped one read as text and assigned to its column, the same values
// as the general path (which a trace forces).
func TestConstRowsParams(t *testing.T) {
	cat := newTestCatalog(t)
	stmt := parseStmt(t, "INSERT INTO big (x, n) VALUES ($1, $2), ($3, 2)").GetInsertStmt()
	opts := Options{ParamTypes: []repr.T{repr.Int8, repr.NumericPS(10, 2), repr.Unknown},
		Params: []repr.Datum{repr.NewInt(7), repr.Null, repr.NewText("9")}}
	ins, err := PlanInsert(cat, stmt, opts)
	if err != nil {
		t.Fatal(err)
	}
	if ins.Source.Rows == nil {
		t.Fatal("bound parameters did not take the fast path")
	}
	traced := opts
	traced.Trace = NewTrace() // takes the general path
	general, err := PlanInsert(cat, stmt, traced)
	if err != nil || general.Source.Rows != nil {
		t.Fatalf("general path: rows %v, err %v", general.Source.Rows, err)
	}
	if got, want := ins.Source.WithRel().Rel.String(), general.Source.Rel.String(); got != want {
		t.Errorf("fast path %s\ngeneral   %s", got, want)
	}
	opts.Params = nil // preparing: no values, the general path types the parameters
	if ins, err = PlanInsert(cat, stmt, opts); err != nil || ins.Source.Rows != nil {
		t.Fatalf("preparing: rows %v, err %v", ins.Source.Rows, err)
	}
}
