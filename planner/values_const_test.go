package planner

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestConstRowsTextColumns checks constRows's per-column conversion of
// string literals (a column's type checked once, each value parsed):
// over columns of many types, including the ones it leaves to FoldAssign
// (interval, bit(n)) and a zoned timestamptz in a session time zone, the
// rows equal the general path's, and a value its column cannot take
// declines the fast path so that the general path reports the error.
func TestConstRowsTextColumns(t *testing.T) {
	cat := newTestCatalog(t)
	types := []repr.T{repr.Int4, repr.Int8, repr.NumericPS(15, 2), repr.Date, repr.TimestampTZ, repr.Timestamp,
		repr.Char(10), repr.Varchar(5), repr.Text, repr.Bool, repr.Float8, repr.IntervalT, {Family: repr.FamBit, Length: 3}, repr.JSONB}
	wantFast := []bool{true, true, true, true, true, true, true, true, true, true, true, false, false, true}
	var cols []Column
	for i, ty := range types {
		cols = append(cols, Column{Name: fmt.Sprintf("c%d", i), Type: ty})
	}
	cat["wide"] = &Relation{ID: 99, Name: "wide", Columns: cols}
	all := make([]int, len(types))
	for i := range all {
		all[i] = i
	}
	for i, c := range textColumns(cat["wide"], all, time.UTC) {
		if c.ok != wantFast[i] {
			t.Errorf("%s: per-column conversion %v, want %v", types[i].Name(), c.ok, wantFast[i])
		}
	}
	row := func(vals ...string) string { return "('" + strings.Join(vals, "', '") + "')" }
	rows := []string{
		row("1", "-9000000000", "12.345", "1998-12-01", "1996-01-02 03:04:05+02", "2000-01-01 00:00:00", "MAIL", "ab", "x y", "t", "1.5", "1 day", "101", `{"a": 1}`),
		row("-7", "0", "0.005", "epoch", "1996-01-02 03:04:05", "1999-12-31 23:59:59.5", "", "abcde", "", "off", "-0", "-2 hours", "000", `[1, 2]`),
		"(NULL, 2, 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
	}
	stmt := parseStmt(t, "INSERT INTO wide VALUES "+strings.Join(rows, ", ")).GetInsertStmt()
	opts := Options{TimeZone: "America/New_York"}
	ins, err := PlanInsert(cat, stmt, opts)
	if err != nil || ins.Source.Rows == nil {
		t.Fatalf("fast path not taken: err %v", err)
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
	for _, bad := range []string{"INSERT INTO wide (c0) VALUES ('1'), ('x')", "INSERT INTO wide (c7) VALUES ('abcdef')"} {
		_, err := PlanInsert(cat, parseStmt(t, bad).GetInsertStmt(), opts)
		_, gerr := PlanInsert(cat, parseStmt(t, bad).GetInsertStmt(), traced)
		if err == nil || gerr == nil || err.Error() != gerr.Error() {
			t.Errorf("%s: error %v, general path's %v", bad, err, gerr)
		}
	}
}
