package tests

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// biSchema is the schema testdata/bi/corpus.sql's queries browse: tables
// with a primary key, a foreign key, a unique column, defaults and
// comments, a view, a materialized view, an index and an enum type.
const biSchema = `CREATE TYPE bi_status AS ENUM ('new', 'paid', 'shipped');
CREATE TABLE bi_customers (id int PRIMARY KEY, name text NOT NULL, email varchar(100) UNIQUE);
CREATE TABLE bi_orders (id serial PRIMARY KEY, customer_id int REFERENCES bi_customers(id), amount numeric(10,2), status bi_status DEFAULT 'new', created timestamptz NOT NULL);
COMMENT ON TABLE bi_orders IS 'one row per order';
COMMENT ON COLUMN bi_orders.amount IS 'in euros';
CREATE INDEX bi_orders_created_idx ON bi_orders (created);
CREATE VIEW bi_paid AS SELECT id, amount FROM bi_orders WHERE status = 'paid';
CREATE MATERIALIZED VIEW bi_daily AS SELECT date_trunc('day', created) AS day, sum(amount) AS total FROM bi_orders GROUP BY 1;
INSERT INTO bi_customers VALUES (1, 'ann', 'ann@example.com'), (2, 'bob', NULL);
INSERT INTO bi_orders (customer_id, amount, status, created) VALUES (1, 10.50, 'paid', '2024-01-01 10:15:00+00'), (1, 4.25, 'new', '2024-01-01 10:45:00+00'), (2, 7.00, 'shipped', '2024-01-01 12:00:00+00')`

// biEntry is one query of the corpus.
type biEntry struct {
	source, compare, gap string
	// differs names why Eddy's rows differ from PostgreSQL's on purpose
	// or for a known reason (logged, not failed, while they differ).
	differs        string
	params, ignore []string
	sql            string
}

// biResult is what one query returned: its column names and type OIDs and
// its rows as text (NULL for NULL), or its error.
type biResult struct {
	names []string
	oids  []uint32
	rows  [][]string
	err   error
}

// readBICorpus parses testdata/bi/corpus.sql.
func readBICorpus(t *testing.T) []biEntry {
	data, err := os.ReadFile("testdata/bi/corpus.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []biEntry
	for _, block := range strings.Split(string(data), "\n;;\n") {
		var e biEntry
		var body []string
		for _, line := range strings.Split(block, "\n") {
			key, val, isKey := strings.Cut(line, ": ")
			switch {
			case isKey && key == "-- source":
				e.source = val
			case isKey && key == "-- compare":
				e.compare = val
			case isKey && key == "-- gap":
				e.gap = val
			case isKey && key == "-- differs":
				e.differs = val
			case isKey && key == "-- params":
				for _, p := range strings.Split(val, "; ") {
					e.params = append(e.params, strings.TrimSpace(p))
				}
			case isKey && key == "-- ignore":
				e.ignore = strings.Split(val, ", ")
			case e.source != "":
				body = append(body, line)
			}
		}
		if e.source == "" {
			continue
		}
		if e.compare != "rows" && e.compare != "columns" && e.compare != "run" {
			t.Fatalf("%s: compare %q: want rows, columns or run", e.source, e.compare)
		}
		e.sql = strings.TrimSpace(strings.Join(body, "\n"))
		out = append(out, e)
	}
	return out
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

// runBICorpus runs every entry on s over the extended protocol (as the
// tools' drivers do), its parameters evaluated first.
func runBICorpus(t *testing.T, s *harness.Server, entries []biEntry) []biResult {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, biSchema).ReadAll(); err != nil {
		t.Fatalf("schema: %v", err)
	}
	out := make([]biResult, len(entries))
	for i, e := range entries {
		var params [][]byte
		for _, p := range e.params {
			r := c.ExecParams(ctx, "SELECT ("+p+")::text", nil, nil, nil, nil).Read()
			if r.Err != nil || len(r.Rows) != 1 {
				t.Fatalf("%s: parameter %s: %v", e.source, p, r.Err)
			}
			params = append(params, r.Rows[0][0])
		}
		r := c.ExecParams(ctx, jdbcPlaceholders(e.sql), params, nil, nil, nil).Read()
		res := biResult{err: r.Err}
		for _, f := range r.FieldDescriptions {
			res.names, res.oids = append(res.names, f.Name), append(res.oids, f.DataTypeOID)
		}
		for _, row := range r.Rows {
			var cells []string
			for _, v := range row {
				if v == nil {
					cells = append(cells, "NULL")
				} else {
					cells = append(cells, string(v))
				}
			}
			res.rows = append(res.rows, cells)
		}
		out[i] = res
	}
	return out
}

// comparableRows returns r's rows without the columns of type oid and
// those named in ignore, sorted.
func comparableRows(r biResult, ignore []string) []string {
	var out []string
	for _, row := range r.rows {
		var cells []string
		for j, v := range row {
			if r.oids[j] != 26 && !slices.Contains(ignore, r.names[j]) {
				cells = append(cells, v)
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	slices.Sort(out)
	return out
}

// TestBICorpus runs the catalog queries of Grafana's PostgreSQL data
// source, Metabase's sync, DBeaver's navigator and pgAdmin's browser
// (testdata/bi/corpus.sql) against Eddy: each must run, except the known
// gaps the corpus lists, which must still fail (so a fixed gap is noticed
// and its marker removed). With EDDY_CLIENTS_POSTGRES=1 (`make bi`) it
// runs them against PostgreSQL 15 too, where every one must run, and
// compares column names and types (compare: columns, rows) and rows
// (compare: rows), except where a "-- differs:" line names a known
// difference.
func TestBICorpus(t *testing.T) {
	entries := readBICorpus(t)
	if len(entries) < 12 {
		t.Fatalf("testdata/bi/corpus.sql holds %d queries, want the whole corpus", len(entries))
	}
	eddy := runBICorpus(t, harness.StartTarget(t), entries)
	ran := 0
	for i, e := range entries {
		switch r := eddy[i]; {
		case e.gap == "" && r.err != nil:
			t.Errorf("%s: %v\n%s", e.source, r.err, e.sql)
		case e.gap != "" && r.err == nil:
			t.Errorf("%s: known gap %q now runs: remove its -- gap line", e.source, e.gap)
		case r.err == nil:
			ran++
		default:
			t.Logf("known gap: %s: %s (%v)", e.source, e.gap, r.err)
		}
	}
	t.Logf("%d of %d queries ran", ran, len(entries))
	if os.Getenv("EDDY_CLIENTS_POSTGRES") != "1" {
		return
	}
	pg := runBICorpus(t, harness.StartPostgres(t), entries)
	for i, e := range entries {
		p, r := pg[i], eddy[i]
		if p.err != nil {
			t.Errorf("%s: PostgreSQL: %v", e.source, p.err)
			continue
		}
		if r.err != nil || e.compare == "run" {
			continue
		}
		if (!slices.Equal(p.names, r.names) || !slices.Equal(p.oids, r.oids)) && e.differs != "" {
			t.Logf("known difference: %s: %s", e.source, e.differs)
			continue
		}
		if !slices.Equal(p.names, r.names) || !slices.Equal(p.oids, r.oids) {
			t.Errorf("%s: columns differ:\n eddy %v %v\n   pg %v %v", e.source, r.names, r.oids, p.names, p.oids)
			continue
		}
		if e.compare == "rows" {
			er, pr := comparableRows(r, e.ignore), comparableRows(p, e.ignore)
			switch same := slices.Equal(er, pr); {
			case !same && e.differs == "":
				t.Errorf("%s: rows differ:\n eddy %q\n   pg %q", e.source, er, pr)
			case !same:
				t.Logf("known difference: %s: %s", e.source, e.differs)
			case e.differs != "":
				t.Errorf("%s: rows now equal PostgreSQL's: remove its -- differs line", e.source)
			}
		}
	}
}
