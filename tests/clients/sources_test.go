package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
)

// sourceDDL is a source (PostgreSQL has none, so no golden transcript):
// a deterministic Nexmark bid stream.
const sourceDDL = `CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR) WITH (connector = 'nexmark', nexmark.table.type = 'bid', nexmark.event.num = '100')`

// TestClientsSources checks that pgjdbc sees an Eddy source as a foreign
// table: getTables lists it and getColumns gives the columns Eddy's own
// catalog (information_schema.columns) gives. A source is not readable
// (its events are not stored), so a query over it is 0A000.
func TestClientsSources(t *testing.T) {
	argv := jdbcCommand(t)
	s := harness.StartEddy(t)
	ctx := context.Background()
	conn := connect(ctx, t, s.DSN())
	if _, err := conn.Exec(ctx, sourceDDL).ReadAll(); err != nil {
		t.Fatal(err)
	}
	// Clients.java DSN sources [DSN]: runProgram appends the DSN again.
	out := parseTranscript(runProgram(t, client{name: "jdbc", dir: "java"}, append(argv, s.DSN(), "sources"), s.DSN()))
	if got, want := out.bodies["source tables"], "bid|FOREIGN TABLE\n1 rows\n"; got != want {
		t.Errorf("getTables(FOREIGN TABLE):\n%s\nwant\n%s", got, want)
	}
	if got, want := out.bodies["source columns"], catalogColumns(ctx, t, conn); got != want {
		t.Errorf("getColumns(bid):\n%s\nwant (information_schema.columns)\n%s", got, want)
	}
	if got := out.bodies["source read"]; !strings.HasPrefix(got, "error 0A000: ") {
		t.Errorf("SELECT FROM a source: %q, want 0A000", got)
	}
}

// catalogColumns renders bid's columns from Eddy's information_schema as
// the jdbc program prints getColumns (name|udt_name|position).
func catalogColumns(ctx context.Context, t *testing.T, conn *pgconn.PgConn) string {
	res, err := conn.Exec(ctx, `SELECT column_name, udt_name, ordinal_position FROM information_schema.columns WHERE table_name = 'bid' ORDER BY ordinal_position`).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, row := range res[0].Rows {
		fmt.Fprintf(&b, "%s|%s|%s\n", row[0], row[1], row[2])
	}
	fmt.Fprintf(&b, "%d rows\n", len(res[0].Rows))
	return b.String()
}
