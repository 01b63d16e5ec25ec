package tests

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// replaySchema is the schema the replayed queries were captured over.
const replaySchema = `CREATE TABLE t1 (id int PRIMARY KEY, name text NOT NULL DEFAULT 'x', score numeric(10,2));
CREATE TABLE t2 (id serial PRIMARY KEY, t1_id int REFERENCES t1(id), note varchar(20) UNIQUE);
CREATE VIEW v1 AS SELECT id, name FROM t1;
CREATE MATERIALIZED VIEW m1 AS SELECT name, count(*) AS n FROM t1 GROUP BY name;
CREATE INDEX t1_name_idx ON t1 (name);`

// replayQuery is one captured client query.
type replayQuery struct{ client, sql string }

// readReplay parses testdata/catalog_replay.sql.
func readReplay(t *testing.T) []replayQuery {
	data, err := os.ReadFile("testdata/catalog_replay.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []replayQuery
	for _, block := range strings.Split(string(data), "\n;;\n") {
		_, rest, ok := strings.Cut(block, "-- client: ")
		if !ok {
			continue
		}
		client, sql, _ := strings.Cut(rest, "\n")
		out = append(out, replayQuery{client, strings.TrimSpace(sql)})
	}
	return out
}

// TestCatalogReplay replays every captured client catalog query against
// Eddy (simple protocol, as psql sends them) and fails on any error.
func TestCatalogReplay(t *testing.T) {
	replay(t, harness.StartTarget(t))
}

// TestCatalogReplayPostgres replays them against PostgreSQL, which proves
// the corpus runs there.
func TestCatalogReplayPostgres(t *testing.T) {
	replay(t, harness.StartPostgres(t))
}

func replay(t *testing.T, s *harness.Server) {
	qs := readReplay(t)
	if len(qs) < 50 {
		t.Fatalf("testdata/catalog_replay.sql holds %d queries, want the whole corpus", len(qs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, replaySchema).ReadAll(); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, q := range qs {
		if _, err := c.Exec(ctx, q.sql).ReadAll(); err != nil {
			failed++
			t.Errorf("%s: %v\n%s", q.client, err, q.sql)
		}
	}
	t.Logf("%d of %d queries ran", len(qs)-failed, len(qs))
}
