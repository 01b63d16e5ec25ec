package clients

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// capture makes TestCaptureClientQueries renew testdata/replay_captured.sql.
var capture = flag.Bool("capture", false, "capture the clients' catalog queries to PostgreSQL into testdata/replay_captured.sql")

// replayFiles are the replay corpora: the queries the client programs
// sent to PostgreSQL 15 (captured through queryProxy) and those BI and
// admin tools send (taken from their source).
var replayFiles = []string{"testdata/replay_captured.sql", "testdata/replay_tools.sql", "testdata/replay_bi.sql", tabCompleteFile, "testdata/replay_superset.sql"}

// replayQuery is one query of a replay corpus. Every catalog query a
// client program, BI or admin tool sends lives in one of these files, in
// one format; a block is
//
//	-- client: TOOL (what it was doing)
//	[-- from: where the query comes from: REPOSITORY FILE (FUNCTION)]
//	[-- params: JSON array of text parameters (null for NULL)]
//	[-- param-sql: EXPR; EXPR  (parameters computed by SQL on each
//	                            server first; the query then uses JDBC's ?
//	                            placeholders, numbered $1, $2, ... as
//	                            pgjdbc does)]
//	[-- compare | -- compare: rows | columns | run]
//	[-- ignore: COLUMN, COLUMN  (values left out of the comparison)]
//	[-- gap: why Eddy does not run it yet  (it must fail on Eddy)]
//	[-- differs: why Eddy's columns or rows differ (logged while they do;
//	                            an error once they equal PostgreSQL's)]
//	SQL
//	;;
//
// Only the captured corpora (replay_captured.sql, replay_tabcomplete.sql:
// what the client programs sent) go without "-- from"; TestReplay
// requires it everywhere else. A file whose first
// block is "-- setup" runs that SQL first, on its own Eddy server and
// PostgreSQL database besides schema.sql.
//
// Every query must run on both servers with the same column names and
// types (compare: run only runs it); "-- compare" (or compare: rows)
// also compares the rows, OID-typed values masked, sorted.
type replayQuery struct {
	client  string
	from    string
	sql     string
	params  []*string
	compare bool
	// mode is "" (columns compared), "rows" (compare), "columns" or "run".
	mode     string
	paramSQL []string
	ignore   []string
	gap      string
	differs  string
}

// TestCaptureClientQueries runs every client program against PostgreSQL 15
// through a logging proxy and writes the catalog queries they sent (Query
// and Parse messages, with the first Bind's text parameters) to
// testdata/replay_captured.sql. Run it with -capture; it keeps the
// "-- compare" marks of queries already in the file.
func TestCaptureClientQueries(t *testing.T) {
	if !*capture {
		t.Skip("run with -capture to renew testdata/replay_captured.sql")
	}
	pg := harness.StartPostgres(t)
	marked := map[string]bool{}
	for _, q := range readReplay(t, replayFiles[0]) {
		marked[q.key()] = q.compare
	}
	var out []replayQuery
	seen := map[string]bool{}
	for _, c := range clientList {
		argv := c.command(t)
		dsn := freshDatabase(t, pg)
		proxy := startProxy(t, fmt.Sprintf("127.0.0.1:%d", pg.Port()))
		proxy.setClient(c.name)
		runProgram(t, c, argv, strings.Replace(dsn, fmt.Sprintf(":%d/", pg.Port()), fmt.Sprintf(":%d/", proxy.port()), 1))
		for _, l := range proxy.queries() {
			q := replayQuery{client: c.name, sql: strings.TrimSpace(l.sql), params: l.params}
			if l.binary || !catalogQuery(q.sql) || seen[q.key()] {
				continue
			}
			seen[q.key()], q.compare = true, marked[q.key()]
			out = append(out, q)
		}
	}
	writeReplay(t, replayFiles[0], capturedHeader, out)
}

// catalogRE finds the references to the system catalogs and the catalog
// functions that make a query worth replaying.
var catalogRE = regexp.MustCompile(`(?i)\b(pg_catalog|information_schema|pg_[a-z_]+|version\s*\(|current_schemas?\b|current_setting|format_type)|^\s*show\b`)

// catalogQuery reports whether a client's query reads the catalog.
func catalogQuery(sql string) bool { return catalogRE.MatchString(sql) }

// key identifies a query by its text and parameters.
func (q replayQuery) key() string {
	p, _ := json.Marshal(q.params)
	return q.sql + "\x00" + string(p)
}

// readReplay parses a replay corpus (its setup block apart: readSetup).
func readReplay(t *testing.T, path string) []replayQuery {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) && *capture {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	var out []replayQuery
	for _, block := range strings.Split(string(data), "\n;;\n") {
		_, rest, ok := strings.Cut(block, "-- client: ")
		if !ok {
			continue
		}
		q := replayQuery{}
		q.client, rest, _ = strings.Cut(rest, "\n")
		for {
			line, more, _ := strings.Cut(rest, "\n")
			key, val, isKey := strings.Cut(line, ": ")
			switch {
			case line == "-- compare":
				q.compare, q.mode = true, "rows"
			case !isKey:
				q.sql = strings.TrimSpace(rest)
				out = append(out, q)
				goto next
			case key == "-- params":
				if err := json.Unmarshal([]byte(val), &q.params); err != nil {
					t.Fatalf("%s: bad params %q: %v", path, val, err)
				}
				if q.params == nil {
					q.params = []*string{}
				}
			case key == "-- from":
				q.from = val
			case key == "-- compare":
				if val != "rows" && val != "columns" && val != "run" {
					t.Fatalf("%s: %s: compare %q: want rows, columns or run", path, q.client, val)
				}
				q.mode, q.compare = val, val == "rows"
			case key == "-- param-sql":
				for _, p := range strings.Split(val, "; ") {
					q.paramSQL = append(q.paramSQL, strings.TrimSpace(p))
				}
			case key == "-- ignore":
				q.ignore = strings.Split(val, ", ")
			case key == "-- gap":
				q.gap = val
			case key == "-- differs":
				q.differs = val
			default:
				q.sql = strings.TrimSpace(rest)
				out = append(out, q)
				goto next
			}
			rest = more
		}
	next:
	}
	return out
}

// readSetup returns the SQL of a corpus file's "-- setup" block, if any.
func readSetup(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(data), "\n;;\n") {
		if _, rest, ok := strings.Cut(block, "\n-- setup\n"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// capturedHeader heads replay_captured.sql.
const capturedHeader = `-- Catalog queries the client programs of tests/clients sent to PostgreSQL
-- 15 over schema.sql, captured through queryProxy by
-- go test ./tests/clients -run TestCaptureClientQueries -capture
-- (a query with "-- params" came as Parse/Bind with those text parameters).
-- TestReplay runs every one against Eddy; "-- compare" ones must return
-- PostgreSQL's results (OID columns masked, rows sorted).

`

// writeReplay writes a captured corpus under its header.
func writeReplay(t *testing.T, path, header string, qs []replayQuery) {
	var b strings.Builder
	b.WriteString(header)
	for _, q := range qs {
		fmt.Fprintf(&b, "-- client: %s\n", q.client)
		if q.params != nil {
			p, _ := json.Marshal(q.params)
			fmt.Fprintf(&b, "-- params: %s\n", p)
		}
		if q.compare {
			b.WriteString("-- compare\n")
		}
		fmt.Fprintf(&b, "%s\n;;\n\n", q.sql)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReplay runs the replay corpora against Eddy and PostgreSQL 15 over
// schema.sql (and a file's setup): every query must run on both, except
// a known gap, which must still fail on Eddy (so a fixed gap is noticed
// and its line removed); columns must match PostgreSQL's and "-- compare"
// rows too, except where "-- differs" names why (see replayQuery). With
// -v it lists the unmarked queries whose results differ from
// PostgreSQL's; -rewrite marks every unmarked query whose results match
// (it never unmarks one).
func TestReplay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	eddy := connect(ctx, t, freshDatabase(t, harness.StartEddy(t)))
	// Without PostgreSQL installed only Eddy's half runs: every query
	// runs, every known gap still fails.
	var pgSrv *harness.Server
	var pg *pgconn.PgConn
	if harness.PostgresBinDir() != "" || os.Getenv("EDDY_REQUIRE_PG") == "1" {
		pgSrv = harness.StartPostgres(t)
		pg = connect(ctx, t, freshDatabase(t, pgSrv))
	} else {
		t.Log("PostgreSQL is not installed: the queries run on Eddy alone")
	}
	for _, file := range replayFiles {
		qs := readReplay(t, file)
		if len(qs) < 10 {
			t.Fatalf("%s holds %d queries, want the whole corpus", file, len(qs))
		}
		e, p := eddy, pg
		if setup := readSetup(t, file); setup != "" {
			e = connect(ctx, t, freshDatabase(t, harness.StartEddy(t)))
			conns := map[string]*pgconn.PgConn{"Eddy": e}
			if pgSrv != nil {
				p = connect(ctx, t, freshDatabase(t, pgSrv))
				conns["PostgreSQL"] = p
			}
			for name, c := range conns {
				if _, err := c.Exec(ctx, setup).ReadAll(); err != nil {
					t.Fatalf("%s: setup on %s: %v", file, name, err)
				}
			}
		}
		var st replayStats
		captured := file == replayFiles[0] || file == tabCompleteFile
		for i := range qs {
			if !captured && qs[i].from == "" {
				t.Errorf("%s query %d (%s): no -- from line saying where the query comes from", filepath.Base(file), i+1, qs[i].client)
			}
			st.check(ctx, t, file, i, &qs[i], e, p)
		}
		if *rewrite {
			rewriteMarks(t, file, qs)
		}
		t.Logf("%s: %d of %d queries ran (%d known gaps); %d compared equal to PostgreSQL; %d unmarked differ", file, st.ran, len(qs), st.gaps, st.compared, st.differ)
	}
}

// replayStats counts what TestReplay saw in one file.
type replayStats struct{ ran, gaps, compared, differ int }

// check runs query i of file (q) on Eddy (e) and PostgreSQL (p) and
// reports how they differ (TestReplay).
func (st *replayStats) check(ctx context.Context, t *testing.T, file string, i int, q *replayQuery, e, p *pgconn.PgConn) {
	where := fmt.Sprintf("%s query %d (%s)", filepath.Base(file), i+1, q.client)
	var want string
	if p != nil {
		var err error
		if want, err = runReplay(ctx, p, *q); err != nil {
			t.Errorf("%s fails on PostgreSQL: %v", where, err)
			return
		}
	}
	got, err := runReplay(ctx, e, *q)
	switch {
	case q.gap != "" && err == nil:
		t.Errorf("%s: known gap %q now runs: remove its -- gap line", where, q.gap)
		return
	case q.gap != "":
		st.gaps++
		t.Logf("%s: known gap: %s (%v)", where, q.gap, err)
		return
	case err != nil:
		t.Errorf("%s: %v\n%s", where, err, q.sql)
		return
	}
	st.ran++
	sameCols, same := columnsOf(got) == columnsOf(want), got == want
	switch {
	case p == nil || q.mode == "run":
	case q.differs != "" && (!sameCols || q.compare && !same):
		t.Logf("%s: known difference: %s", where, q.differs)
	case q.differs != "":
		t.Errorf("%s: results now equal PostgreSQL's: remove its -- differs line", where)
	case !sameCols:
		t.Errorf("%s: columns differ from PostgreSQL's\n%s\n--- want ---\n%s\n--- got ---\n%s", where, q.sql, columnsOf(want), columnsOf(got))
	case q.compare && !same:
		t.Errorf("%s: results differ from PostgreSQL\n%s\n--- want ---\n%s--- got ---\n%s", where, q.sql, want, got)
	case q.compare:
		st.compared++
	case !same:
		st.differ++
		t.Logf("%s: differs from PostgreSQL (not marked -- compare)\n%s\n--- want ---\n%s--- got ---\n%s", where, q.sql, want, got)
	case *rewrite && q.mode == "":
		q.compare, q.mode = true, "rows"
		st.compared++
	}
}

// rewriteMarks adds "-- compare" to the queries of a corpus file that
// qs marks, keeping the rest of the file as it is.
func rewriteMarks(t *testing.T, path string, qs []replayQuery) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "\n;;\n")
	i := 0
	for b, block := range blocks {
		head, rest, ok := strings.Cut(block, "-- client: ")
		if !ok {
			continue
		}
		if qs[i].compare && !strings.Contains(rest, "\n-- compare\n") {
			client, sql, _ := strings.Cut(rest, "\n")
			if p, ok := strings.CutPrefix(sql, "-- params: "); ok {
				line, more, _ := strings.Cut(p, "\n")
				client, sql = client+"\n-- params: "+line, more
			}
			blocks[b] = head + "-- client: " + client + "\n-- compare\n" + sql
		}
		i++
	}
	if err := os.WriteFile(path, []byte(strings.Join(blocks, "\n;;\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// connect opens one connection, closed at the end of the test.
func connect(ctx context.Context, t *testing.T, dsn string) *pgconn.PgConn {
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// oidTypes are the types whose values are OIDs, which differ between Eddy
// and PostgreSQL: oid, regproc, regprocedure, regclass, regtype,
// regnamespace, regrole, xid, oidvector, oid[].
var oidTypes = map[uint32]bool{26: true, 24: true, 2202: true, 2205: true, 2206: true, 4089: true, 4096: true, 28: true, 30: true, 1028: true}

// runReplay runs one query (simple protocol, or extended with its text
// parameters) and renders its results: the column names, then the rows
// sorted, OID-typed values masked.
func runReplay(ctx context.Context, c *pgconn.PgConn, q replayQuery) (string, error) {
	var b strings.Builder
	if q.paramSQL != nil {
		params, err := sqlParams(ctx, c, q.paramSQL)
		if err != nil {
			return "", err
		}
		r, err := readResult(c.ExecParams(ctx, jdbcPlaceholders(q.sql), params, nil, nil, nil))
		if err != nil {
			return "", err
		}
		renderResult(&b, r, q.ignore)
		return b.String(), nil
	}
	if q.params != nil {
		params := make([][]byte, len(q.params))
		for i, p := range q.params {
			if p != nil {
				params[i] = []byte(*p)
			}
		}
		r, err := readResult(c.ExecParams(ctx, q.sql, params, nil, nil, nil))
		if err != nil {
			return "", err
		}
		renderResult(&b, r, q.ignore)
		return b.String(), nil
	}
	mrr := c.Exec(ctx, q.sql)
	for mrr.NextResult() {
		r, err := readResult(mrr.ResultReader())
		if err != nil {
			mrr.Close()
			return "", err
		}
		renderResult(&b, r, q.ignore)
	}
	if err := mrr.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// readResult reads one result set. Unlike ResultReader.Read it keeps the
// columns of a result without rows.
func readResult(rr *pgconn.ResultReader) (*pgconn.Result, error) {
	r := &pgconn.Result{}
	for rr.NextRow() {
		row := make([][]byte, len(rr.Values()))
		for i, v := range rr.Values() {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		r.Rows = append(r.Rows, row)
	}
	r.FieldDescriptions = append([]pgconn.FieldDescription(nil), rr.FieldDescriptions()...)
	var err error
	r.CommandTag, err = rr.Close()
	return r, err
}

// columnsOf is the "columns:" lines of a rendered result: the names and
// types of its columns.
func columnsOf(rendered string) string {
	var out []string
	for _, l := range strings.Split(rendered, "\n") {
		if strings.HasPrefix(l, "columns: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// presentedOID maps the type OIDs of PostgreSQL catalog columns that Eddy
// presents as another type (sql's sysTypeAliases; issue 7 asks for
// aclitem as text), and of EXPLAIN (FORMAT XML)'s xml column, to the
// OID Eddy presents.
func presentedOID(oid uint32) uint32 {
	switch oid {
	case 1033, 194, 2277, 869, 3220: // aclitem, pg_node_tree, anyarray, inet, pg_lsn
		return 25
	case 1034: // aclitem[]
		return 1009
	case 28: // xid
		return 20
	case 142: // xml (EXPLAIN (FORMAT XML)'s result; Eddy has no xml type)
		return 25
	}
	return oid
}

// sqlParams evaluates each expression on c, as text: the parameters of
// a "-- param-sql" query.
func sqlParams(ctx context.Context, c *pgconn.PgConn, exprs []string) ([][]byte, error) {
	var out [][]byte
	for _, p := range exprs {
		r := c.ExecParams(ctx, "SELECT ("+p+")::text", nil, nil, nil, nil).Read()
		if r.Err != nil || len(r.Rows) != 1 {
			return nil, fmt.Errorf("parameter %s: %v", p, r.Err)
		}
		out = append(out, r.Rows[0][0])
	}
	return out, nil
}

// jdbcPlaceholders numbers JDBC's ? placeholders outside string literals
// and quoted identifiers ($1, $2, ...), as pgjdbc does before sending.
func jdbcPlaceholders(sql string) string {
	var b strings.Builder
	n, quote := 0, rune(0)
	for _, r := range sql {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote = r
		case quote == 0 && r == '?':
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// renderResult appends one result set to b: a "columns:" line of the
// columns' names and type OIDs, then the rows, the values of the columns
// named in ignore masked.
func renderResult(b *strings.Builder, r *pgconn.Result, ignore []string) {
	var names []string
	for _, f := range r.FieldDescriptions {
		names = append(names, fmt.Sprintf("%s::%d", f.Name, presentedOID(f.DataTypeOID)))
	}
	fmt.Fprintf(b, "columns: %s\n", strings.Join(names, ", "))
	rows := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		vals := make([]string, len(row))
		for j, v := range row {
			switch {
			case v == nil:
				vals[j] = "NULL"
			case oidTypes[r.FieldDescriptions[j].DataTypeOID]:
				vals[j] = "<oid>"
			case slices.Contains(ignore, r.FieldDescriptions[j].Name):
				vals[j] = "<ignored>"
			default:
				vals[j] = string(v)
			}
		}
		rows[i] = strings.Join(vals, "|")
	}
	slices.Sort(rows)
	for _, row := range rows {
		b.WriteString(row + "\n")
	}
}
