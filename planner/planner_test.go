package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// testCatalog is a small fixed catalog:
//
//	t(a int, b text, c float8)           id 1, primary key a
//	u(a int, d text NOT NULL, e numeric) id 2
//	t1(a, b, c, d, e int)                id 3 (the SQLite corpus table)
//	big(x bigint, v varchar(5) DEFAULT 'dflt', n numeric(10,2)) id 4
//	v: view SELECT a, b FROM t WHERE a > 1
//	mv: materialized view (x int, y text) id 5
//	bid(auction, bidder, price bigint, channel, url varchar, date_time timestamp, extra varchar) id 6
//	ev(ts timestamptz, v int) id 7
//	bid_p: view SELECT bidder, proctime() AS p_time FROM bid
type testCatalog map[string]*Relation

func newTestCatalog(t testing.TB) testCatalog {
	col := func(name string, typ repr.T) Column { return Column{Name: name, Type: typ} }
	cat := testCatalog{
		"t": {ID: 1, Name: "t", Columns: []Column{col("a", repr.Int4), col("b", repr.Text), col("c", repr.Float8)}, PrimaryKey: []int{0}},
		"u": {ID: 2, Name: "u", Columns: []Column{col("a", repr.Int4), {Name: "d", Type: repr.Text, NotNull: true}, col("e", repr.Numeric)}},
		"t1": {ID: 3, Name: "t1", Columns: []Column{col("a", repr.Int4), col("b", repr.Int4), col("c", repr.Int4),
			col("d", repr.Int4), col("e", repr.Int4)}},
		"big": {ID: 4, Name: "big", Columns: []Column{col("x", repr.Int8),
			{Name: "v", Type: repr.Varchar(5), Default: parseExpr(t, "'dflt'")}, col("n", repr.NumericPS(10, 2))}},
		"mv": {ID: 5, Name: "mv", Kind: RelMaterializedView, Columns: []Column{col("x", repr.Int4), col("y", repr.Text)}},
	}
	cat["v"] = &Relation{Name: "v", Kind: RelView, Columns: []Column{col("a", repr.Int4), col("b", repr.Text)},
		View: parseStmt(t, "SELECT a, b FROM t WHERE a > 1")}
	cat["bid"] = &Relation{ID: 6, Name: "bid", Columns: []Column{col("auction", repr.Int8), col("bidder", repr.Int8),
		col("price", repr.Int8), col("channel", repr.Varchar(0)), col("url", repr.Varchar(0)),
		col("date_time", repr.Timestamp), col("extra", repr.Varchar(0))}}
	cat["ev"] = &Relation{ID: 7, Name: "ev", Columns: []Column{col("ts", repr.TimestampTZ), col("v", repr.Int4)}}
	cat["bid_p"] = &Relation{Name: "bid_p", Kind: RelView, Columns: []Column{col("bidder", repr.Int8), col("p_time", repr.TimestampTZ)},
		View: parseStmt(t, "SELECT bidder, proctime() AS p_time FROM bid")}
	for _, r := range cat {
		r.Schema = "public"
	}
	return cat
}

// Relation implements Catalog.
func (c testCatalog) Relation(schema, name string) (*Relation, error) {
	if r, ok := c[name]; ok && (schema == "" || schema == "public") {
		return r, nil
	}
	return nil, repr.ErrUndefinedTable.New(name)
}

func parseStmt(t testing.TB, sql string) *pg_query.Node {
	res, err := pg_query.Parse(sql)
	if err != nil {
		t.Fatalf("parse %q: %v", sql, err)
	}
	return res.Stmts[0].Stmt
}

func parseExpr(t testing.TB, sql string) *pg_query.Node {
	return parseStmt(t, "SELECT "+sql).GetSelectStmt().TargetList[0].GetResTarget().Val
}

// TestPlanner runs the datadriven files in testdata/. Commands:
//
//	plan [mv] [params=int4,unknown]   SQL -> result columns and IR tree
//	dml                               INSERT/UPDATE/DELETE -> planned form
//	scalar type=T                     expression -> planned scalar
func TestPlanner(t *testing.T) {
	cat := newTestCatalog(t)
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out, err := run(t, cat, d)
			if err != nil {
				return formatErr(err)
			}
			return out
		})
	})
}

func run(t *testing.T, cat testCatalog, d *datadriven.TestData) (string, error) {
	opts := Options{MaterializedView: d.HasArg("mv")}
	if d.HasArg("params") {
		var ps []string
		d.ScanArgs(t, "params", &ps)
		for _, p := range ps {
			typ := repr.Unknown
			if p != "unknown" {
				var err error
				if typ, err = repr.TypeByName(p, nil); err != nil {
					t.Fatal(err)
				}
			}
			opts.ParamTypes = append(opts.ParamTypes, typ)
		}
	}
	switch d.Cmd {
	case "plan":
		res, err := pg_query.Parse(d.Input)
		if err != nil {
			return "", err
		}
		q, err := PlanQuery(cat, res.Stmts[0].Stmt, opts)
		if err != nil {
			return "", err
		}
		return formatQuery(q), nil
	case "dml":
		res, err := pg_query.Parse(d.Input)
		if err != nil {
			return "", err
		}
		return planDML(cat, res.Stmts[0].Stmt, opts)
	case "scalar":
		var typ string
		d.ScanArgs(t, "type", &typ)
		want, err := repr.TypeByName(typ, nil)
		if err != nil {
			t.Fatal(err)
		}
		e, err := PlanScalar(cat, parseExpr(t, d.Input), want)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: %s\n", e.Type().Name(), e), nil
	}
	t.Fatalf("unknown command %s", d.Cmd)
	return "", nil
}

func formatErr(err error) string {
	e := repr.ErrorFrom(err)
	s := fmt.Sprintf("error %s: %s", e.Code, e.Message)
	if e.Position > 0 {
		s += fmt.Sprintf(" (position %d)", e.Position)
	}
	return s + "\n"
}

func formatColumns(cols []ResultColumn) string {
	var parts []string
	for _, c := range cols {
		s := c.Name + " " + c.Type.Name()
		if c.TableID != 0 {
			s += fmt.Sprintf(" (table %d attr %d)", c.TableID, c.ColumnAttr)
		}
		parts = append(parts, s)
	}
	return "columns: " + strings.Join(parts, ", ") + "\n"
}

func formatQuery(q *Query) string {
	var b strings.Builder
	b.WriteString(formatColumns(q.Columns))
	if len(q.OrderBy) > 0 {
		fmt.Fprintf(&b, "order by: %s\n", ir.OrderString(q.OrderBy))
	}
	if q.Limit >= 0 || q.Offset > 0 {
		fmt.Fprintf(&b, "limit: %d offset: %d\n", q.Limit, q.Offset)
	}
	if len(q.ParamTypes) > 0 {
		var ps []string
		for _, p := range q.ParamTypes {
			ps = append(ps, p.Name())
		}
		fmt.Fprintf(&b, "params: %s\n", strings.Join(ps, ", "))
	}
	if q.Rows != nil {
		fmt.Fprintf(&b, "evaluated at plan time: %d rows\n", len(q.Rows))
	}
	b.WriteString(q.WithRel().Rel.String())
	return b.String()
}

func exprList(es []expr.Expr) string {
	var parts []string
	for _, e := range es {
		if e == nil {
			parts = append(parts, "<nil>")
			continue
		}
		parts = append(parts, e.String())
	}
	return strings.Join(parts, ", ")
}

func planDML(cat testCatalog, stmt *pg_query.Node, opts Options) (string, error) {
	var b strings.Builder
	var returning []expr.Expr
	var rcols []ResultColumn
	switch {
	case stmt.GetInsertStmt() != nil:
		ins, err := PlanInsert(cat, stmt.GetInsertStmt(), opts)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "insert into %s\n%s", ins.Table.Name, formatQuery(ins.Source))
		returning, rcols = ins.Returning, ins.ReturningColumns
	case stmt.GetUpdateStmt() != nil:
		up, err := PlanUpdate(cat, stmt.GetUpdateStmt(), opts)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "update %s\nfilter: %v\nset: %s\n", up.Table.Name, up.Filter, exprList(up.Set))
		if up.From != nil {
			fmt.Fprintf(&b, "from:\n%s", formatQuery(up.From))
		}
		returning, rcols = up.Returning, up.ReturningColumns
	case stmt.GetDeleteStmt() != nil:
		del, err := PlanDelete(cat, stmt.GetDeleteStmt(), opts)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "delete from %s\nfilter: %v\n", del.Table.Name, del.Filter)
		if del.From != nil {
			fmt.Fprintf(&b, "using:\n%s", formatQuery(del.From))
		}
		returning, rcols = del.Returning, del.ReturningColumns
	default:
		return "", fmt.Errorf("not a DML statement")
	}
	if len(returning) > 0 {
		fmt.Fprintf(&b, "returning: %s\n%s", exprList(returning), formatColumns(rcols))
	}
	return b.String(), nil
}
