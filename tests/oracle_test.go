package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// oracleSteps is how many write steps TestOracle takes: a few dozen in
// `make test`, more with EDDY_ORACLE_STEPS (make oracle).
func oracleSteps() int {
	if n, err := strconv.Atoi(os.Getenv("EDDY_ORACLE_STEPS")); err == nil && n > 0 {
		return n
	}
	return 40
}

// oracleTable is a random table: k int (a primary key or not), a int,
// b text, c numeric(6,2); every column but a key may be NULL, and in some
// tables one of a, b, c is NULL in every row.
type oracleTable struct {
	name  string
	pk    bool
	nulls byte // the column ('a', 'b' or 'c') always NULL, or 0
}

// oracleView is a materialized view with the SQL that recomputes it ad hoc
// (views over views inline their input as a subquery).
type oracleView struct {
	name, def, adhoc string
	agg              bool // grouped: usable as the input of a view over a view
	// cols, key and rows describe a generated view (oracle_gen_test.go) to
	// the generator; cols is nil for the fixed shapes of randomQuery.
	cols []gcol
	key  string
	rows float64
	// spent is the time the view's ad hoc query took, on the target and
	// on PostgreSQL; n is its last row count (logged by TestOracle).
	spent [2]time.Duration
	n     int
	full  int // checks that found the view not empty
	// slowPG marks a view whose query PostgreSQL could not answer within
	// mirrorTimeout, or which has cost PostgreSQL more than mirrorBudget
	// in all: it is then compared with the target's own query only.
	slowPG bool
}

// mirrorTimeout and mirrorBudget bound the PostgreSQL side of the oracle:
// some generated shapes (correlated subqueries over inlined views) take
// PostgreSQL seconds per check, which would make a run's length depend on
// its seed.
const (
	mirrorTimeout = "5s"
	mirrorBudget  = 5 * time.Second
)

// oracle is the state of one TestOracle run.
type oracle struct {
	t      *testing.T
	ctx    context.Context
	rng    *rand.Rand
	target *pgconn.PgConn
	mirror *pgconn.PgConn // PostgreSQL with the same tables and writes; may be nil
	isPG   bool           // the target itself is PostgreSQL
	tables []oracleTable
	views  []oracleView
	nextK  map[string]int // per table, so k = k joins across tables match
	log    []string
	spent  [2]time.Duration // writes on the target and on the mirror
	nviews int              // views attempted, for their names
}

// TestOracle builds random tables and views, applies random writes in
// random transactions, and after every step checks that each view equals
// its query run ad hoc on the target and, when PostgreSQL is installed, the
// same query on PostgreSQL fed the same statements. A failure prints the
// seed and the statement log.
func TestOracle(t *testing.T) {
	seed := testSeed(t)
	o := &oracle{t: t, rng: rand.New(rand.NewPCG(uint64(seed), 7)), nextK: map[string]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	o.ctx = ctx
	s := harness.StartTarget(t)
	o.target, o.isPG = pgConnect(t, ctx, s.DSN()), s.Kind() == harness.Postgres
	if !o.isPG && harness.PostgresBinDir() != "" {
		o.mirror = pgConnect(t, ctx, harness.StartPostgres(t).DSN())
		if _, err := o.mirror.Exec(ctx, "SET statement_timeout = '"+mirrorTimeout+"'").ReadAll(); err != nil {
			t.Fatal(err)
		}
	} else if !o.isPG {
		t.Log("PostgreSQL not installed: comparing views with the target's own queries only")
	}
	defer func() {
		o.logTimes()
		if t.Failed() {
			t.Logf("seed %d; statement log:\n%s", seed, strings.Join(o.log, ";\n"))
		}
	}()
	o.setup()
	for step := range oracleSteps() {
		o.step()
		if !o.check(step) {
			return
		}
	}
}

// setup creates 2-3 tables, 4-8 views, then some rows.
func (o *oracle) setup() {
	for i := range 2 + o.rng.IntN(2) {
		tb := oracleTable{name: fmt.Sprintf("t%d", i), pk: o.rng.IntN(3) > 0}
		if o.rng.IntN(5) == 0 {
			tb.nulls = "abc"[o.rng.IntN(3)]
		}
		key := "k int"
		if tb.pk {
			key = "k int PRIMARY KEY"
		}
		o.mustBoth(fmt.Sprintf("CREATE TABLE %s (%s, a int, b text, c numeric(6,2))", tb.name, key))
		o.tables = append(o.tables, tb)
	}
	for range 4 + o.rng.IntN(5) {
		o.addView()
	}
	for _, tb := range o.tables {
		if o.rng.IntN(5) > 0 { // else empty until a write fills it
			o.mustBoth(o.insert(tb, 3+o.rng.IntN(5), false))
		}
	}
}

// addView creates one random view on the target: mostly from the query
// generator, now and then one of randomQuery's fixed shapes or a view over
// one of those.
func (o *oracle) addView() {
	name := fmt.Sprintf("v%d", o.nviews)
	o.nviews++
	if o.rng.IntN(5) > 0 {
		g := &qgen{o: o, rng: o.rng}
		q := g.genView()
		v := oracleView{name: name, def: o.render(q.sql, false), adhoc: o.render(q.sql, true),
			agg: q.grouped, cols: q.cols, key: q.key, rows: max(q.rows, 1)}
		o.createView(v)
		return
	}
	def := o.randomQuery()
	v := oracleView{name: name, def: def, adhoc: def, agg: strings.Contains(def, "GROUP BY")}
	if aggs := o.aggViews(); len(aggs) > 0 && o.rng.IntN(3) == 0 {
		in := aggs[o.rng.IntN(len(aggs))]
		v.def = fmt.Sprintf("SELECT g, n * 2 AS n2, s FROM %s WHERE n > 1", in.name)
		v.adhoc = fmt.Sprintf("SELECT g, n * 2 AS n2, s FROM (%s) AS %s WHERE n > 1", in.adhoc, in.name)
		v.agg = false
	}
	o.createView(v)
}

// createView creates v on the target. If the target refuses it, the
// definition is run on PostgreSQL too, to tell a generator bug (PostgreSQL
// refuses it as well) from a gap in the target; the test fails either way,
// but goes on with the other views so one run finds more.
func (o *oracle) createView(v oracleView) {
	sql := fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.def)
	o.log = append(o.log, sql)
	if _, err := o.target.Exec(o.ctx, sql).ReadAll(); err != nil {
		if o.mirror != nil {
			if _, errM := o.mirror.Exec(o.ctx, v.adhoc).ReadAll(); errM != nil && !canceled(errM) {
				o.t.Fatalf("generator bug: PostgreSQL also refuses %s: %v", v.adhoc, errM)
			}
		}
		o.t.Errorf("%s: %v", sql, err)
		return
	}
	o.views = append(o.views, v)
}

// aggViews returns the grouped views of randomQuery (columns g, n, s, ...).
func (o *oracle) aggViews() []oracleView {
	var out []oracleView
	for _, v := range o.views {
		if v.agg && v.cols == nil {
			out = append(out, v)
		}
	}
	return out
}

// table picks a random table.
func (o *oracle) table() oracleTable { return o.tables[o.rng.IntN(len(o.tables))] }

// randomQuery returns a random view definition from the supported SQL.
func (o *oracle) randomQuery() string {
	x, y := o.table(), o.table()
	n := o.rng.IntN(10)
	switch o.rng.IntN(7) {
	case 0:
		return fmt.Sprintf("SELECT k, a + %d AS a1, b FROM %s WHERE a > %d OR b IS NULL", n, x.name, n)
	case 1:
		return fmt.Sprintf("SELECT a %% 3 AS g, count(*) AS n, sum(c) AS s, min(b) AS mn, max(a) AS mx, avg(a) AS av FROM %s GROUP BY a %% 3", x.name)
	case 2:
		return fmt.Sprintf("SELECT b AS g, count(a) AS n, sum(a) AS s, max(c) AS mx FROM %s WHERE c IS NOT NULL GROUP BY b", x.name)
	case 3:
		return fmt.Sprintf("SELECT x.k, x.a, y.b, y.c * 2 AS c2 FROM %s x JOIN %s y ON x.a = y.a", x.name, y.name)
	case 4:
		return fmt.Sprintf("SELECT x.k, x.b, y.k AS yk FROM %s x LEFT JOIN %s y ON x.k = y.a AND y.c > %d", x.name, y.name, n)
	case 5:
		return fmt.Sprintf("SELECT DISTINCT a %% 4 AS m, b IS NULL AS bn FROM %s", x.name)
	}
	return fmt.Sprintf("SELECT y.b AS g, count(*) AS n, sum(x.a) AS s FROM %s x JOIN %s y ON x.k = y.k GROUP BY y.b", x.name, y.name)
}

// value returns a random SQL literal for column col of tb, sometimes
// NULL, always when it is tb's all-NULL column.
func (o *oracle) value(tb oracleTable, col byte) string {
	if o.rng.IntN(6) == 0 || col == tb.nulls {
		return "NULL"
	}
	switch col {
	case 'a':
		return strconv.Itoa(o.rng.IntN(12) - 2)
	case 'b':
		return fmt.Sprintf("'%c'", 'p'+rune(o.rng.IntN(5)))
	}
	return fmt.Sprintf("%d.%02d", o.rng.IntN(20)-5, o.rng.IntN(100))
}

// insert returns an INSERT of n rows into tb. With reuse, now and then it
// reuses a key, which a keyed table must reject as a whole statement.
func (o *oracle) insert(tb oracleTable, n int, reuse bool) string {
	rows := make([]string, n)
	for i := range rows {
		o.nextK[tb.name]++
		k := o.nextK[tb.name]
		if reuse && o.rng.IntN(15) == 0 {
			k = 1 + o.rng.IntN(k)
		}
		rows[i] = fmt.Sprintf("(%d, %s, %s, %s)", k, o.value(tb, 'a'), o.value(tb, 'b'), o.value(tb, 'c'))
	}
	return fmt.Sprintf("INSERT INTO %s VALUES %s", tb.name, strings.Join(rows, ", "))
}

// write returns a random INSERT, UPDATE or DELETE.
func (o *oracle) write() string {
	tb := o.table()
	m := 2 + o.rng.IntN(4)
	switch o.rng.IntN(6) {
	case 0, 1:
		return o.insert(tb, 1+o.rng.IntN(4), true)
	case 2:
		return fmt.Sprintf("UPDATE %s SET a = a + %d WHERE k %% %d = %d", tb.name, o.rng.IntN(5)-2, m, o.rng.IntN(m))
	case 3:
		return fmt.Sprintf("UPDATE %s SET b = %s, c = %s WHERE a %% %d = %d", tb.name, o.value(tb, 'b'), o.value(tb, 'c'), m, o.rng.IntN(m))
	case 4:
		if o.rng.IntN(6) == 0 {
			return "DELETE FROM " + tb.name // empty again
		}
		return fmt.Sprintf("DELETE FROM %s WHERE k %% %d = %d", tb.name, m, o.rng.IntN(m))
	}
	return fmt.Sprintf("DELETE FROM %s WHERE a > %d OR c IS NULL", tb.name, o.rng.IntN(12))
}

// step applies one write, or a transaction of 1-4 writes that commits or
// (one time in four) rolls back.
func (o *oracle) step() {
	if o.rng.IntN(2) == 0 {
		o.both(o.write())
		return
	}
	o.both("BEGIN")
	for range 1 + o.rng.IntN(4) {
		o.both(o.write())
	}
	if o.rng.IntN(4) == 0 {
		o.both("ROLLBACK")
	} else {
		o.both("COMMIT")
	}
}

// logTimes logs the time spent on writes and each view's ad hoc query, and
// each view's final size, to tell where a slow run went.
func (o *oracle) logTimes() {
	var sb strings.Builder
	fmt.Fprintf(&sb, "writes: target %v, postgres %v", o.spent[0].Round(time.Millisecond), o.spent[1].Round(time.Millisecond))
	for _, v := range o.views {
		fmt.Fprintf(&sb, "\n%s: %d rows (not empty in %d checks); ad hoc: target %v, postgres %v", v.name, v.n, v.full, v.spent[0].Round(time.Millisecond), v.spent[1].Round(time.Millisecond))
		if os.Getenv("EDDY_ORACLE_DEBUG") != "" {
			empty := ""
			if v.full == 0 {
				empty = "always empty: "
			}
			fmt.Fprintf(&sb, " (%s%s)", empty, v.def)
		}
		if v.spent[0] > 10*time.Second {
			fmt.Fprintf(&sb, " (slow ad hoc: %s)", v.adhoc)
		}
	}
	o.t.Log(sb.String())
}

// both runs sql on the target and the mirror and fails the test if one
// accepts what the other rejects (or they reject it differently).
func (o *oracle) both(sql string) {
	o.log = append(o.log, sql)
	start := time.Now()
	_, errT := o.target.Exec(o.ctx, sql).ReadAll()
	o.spent[0] += time.Since(start)
	if o.mirror == nil {
		return
	}
	start = time.Now()
	_, errM := o.mirror.Exec(o.ctx, sql).ReadAll()
	o.spent[1] += time.Since(start)
	if codeOf(errT) != codeOf(errM) {
		o.t.Fatalf("%s:\ntarget: %v\npostgres: %v", sql, errT, errM)
	}
}

// mustBoth runs sql on both engines; it must succeed.
func (o *oracle) mustBoth(sql string) {
	o.mustTarget(sql)
	if o.mirror != nil {
		if _, err := o.mirror.Exec(o.ctx, sql).ReadAll(); err != nil {
			o.t.Fatalf("postgres: %s: %v", sql, err)
		}
	}
}

// mustTarget runs sql on the target only; it must succeed.
func (o *oracle) mustTarget(sql string) {
	o.log = append(o.log, sql)
	if _, err := o.target.Exec(o.ctx, sql).ReadAll(); err != nil {
		o.t.Fatalf("%s: %v", sql, err)
	}
}

// codeOf returns the SQLSTATE of err, "" for nil, or the error text.
func codeOf(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// check compares every view with its ad hoc query on the target and on the
// mirror; it reports whether all matched.
// canceled reports whether err is PostgreSQL's statement timeout (57014).
func canceled(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57014"
}

func (o *oracle) check(step int) bool {
	if err := refreshIfPostgres(o.ctx, o.target, o.isPG); err != nil {
		o.t.Fatalf("refresh: %v", err)
	}
	ok := true
	for i := range o.views {
		v := &o.views[i]
		got, err := queryRows(o.ctx, o.target, "SELECT * FROM "+v.name)
		if err != nil {
			o.t.Fatalf("step %d: reading %s: %v", step, v.name, err)
		}
		v.n = len(got)
		if v.n > 0 {
			v.full++
		}
		start := time.Now()
		want, err := queryRows(o.ctx, o.target, v.adhoc)
		v.spent[0] += time.Since(start)
		if err != nil {
			o.t.Fatalf("step %d: %s: %v", step, v.adhoc, err)
		}
		if !sameRows(got, want) {
			o.t.Errorf("step %d: view %s (%s) differs from its query:\nview:  %v\nquery: %v", step, v.name, v.def, got, want)
			ok = false
		}
		if o.mirror == nil || v.slowPG {
			continue
		}
		start = time.Now()
		pg, err := queryRows(o.ctx, o.mirror, v.adhoc)
		v.spent[1] += time.Since(start)
		if canceled(err) || v.spent[1] > mirrorBudget {
			o.t.Logf("step %d: PostgreSQL has spent %v on view %s; compared with the target's query only from now on", step, v.spent[1].Round(time.Millisecond), v.name)
			v.slowPG = true
		}
		if canceled(err) {
			continue
		}
		if err != nil {
			o.t.Fatalf("step %d: postgres: %s: %v", step, v.adhoc, err)
		}
		if !sameRows(got, pg) {
			o.t.Errorf("step %d: view %s (%s) differs from PostgreSQL:\nview:     %v\npostgres: %v", step, v.name, v.def, got, pg)
			ok = false
		}
	}
	return ok
}
