package planner

import (
	"fmt"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// BenchmarkPlanInsertValues plans a 1,000-row INSERT of quoted literals
// into a table of the big test table's types (bigint, varchar(5),
// numeric(10,2)), as bulk loads and TPC-H's refresh batches send them;
// parsing is outside the loop.
func BenchmarkPlanInsertValues(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("INSERT INTO big VALUES ")
	for i := range 1000 {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "('%d', 'v%d', '%d.%02d')", i, i%100, i*7, i%100)
	}
	benchPlanInsert(b, sb.String())
}

// BenchmarkPlanDeleteInList plans a DELETE by a 10,000-value IN list, as
// TPC-H's refresh batches delete orders.
func BenchmarkPlanDeleteInList(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("DELETE FROM big WHERE x IN (")
	for i := range 10000 {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%d", i*4+1)
	}
	sb.WriteString(")")
	res, err := pg_query.Parse(sb.String())
	if err != nil {
		b.Fatal(err)
	}
	cat := newTestCatalog(b)
	stmt := res.Stmts[0].Stmt.GetDeleteStmt()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PlanDelete(cat, stmt, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanInsertValuesExprs plans a 1,000-row INSERT whose entries
// are expressions, not literals (the general path, values.go valuesRows),
// as generated migration and fixture scripts send them.
func BenchmarkPlanInsertValuesExprs(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("INSERT INTO big VALUES ")
	for i := range 1000 {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "(%d + 1, upper('v%d'), %d * 1.5)", i, i%100, i)
	}
	benchPlanInsert(b, sb.String())
}

// benchPlanInsert plans the INSERT sql over the test catalog in the
// benchmark loop; parsing is outside it.
func benchPlanInsert(b *testing.B, sql string) {
	res, err := pg_query.Parse(sql)
	if err != nil {
		b.Fatal(err)
	}
	cat := newTestCatalog(b)
	stmt := res.Stmts[0].Stmt.GetInsertStmt()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PlanInsert(cat, stmt, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
