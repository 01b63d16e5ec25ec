package planner

import (
	"fmt"
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

// TestConstRowsCallsOnce checks that a bulk INSERT's fast path records
// each distinct cast of its literals once (Options.Calls feeds the
// EXECUTE checks, which need each cast once), not once per value, and
// records the same distinct casts as the general path.
func TestConstRowsCallsOnce(t *testing.T) {
	cat := newTestCatalog(t)
	stmt := parseStmt(t, "INSERT INTO big (x, n) VALUES ('1', 2.5), ('2', 3.25), (3, 4), ('4', 5.5)").GetInsertStmt()
	var fast []Call
	ins, err := PlanInsert(cat, stmt, Options{Calls: &fast})
	if err != nil || ins.Source.Rows == nil {
		t.Fatalf("fast path not taken: err %v", err)
	}
	var general []Call
	if _, err := PlanInsert(cat, stmt, Options{Calls: &general, Trace: NewTrace()}); err != nil {
		t.Fatal(err)
	}
	casts := func(calls []Call) map[string]int {
		m := map[string]int{}
		for _, c := range calls {
			m[fmt.Sprint(c.From, "->", c.To)]++
		}
		return m
	}
	f, g := casts(fast), casts(general)
	if len(f) != len(g) {
		t.Errorf("distinct casts: fast path %v, general path %v", f, g)
	}
	for k, n := range f {
		if g[k] == 0 {
			t.Errorf("fast path records %s, general path does not", k)
		}
		if n != 1 {
			t.Errorf("fast path records %s %d times, want once", k, n)
		}
	}
}
