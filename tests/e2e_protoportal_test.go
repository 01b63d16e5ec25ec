package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestProtocolPortalFetch checks SQL FETCH, MOVE and CLOSE on portals
// bound with the extended protocol, as PostgreSQL allows (they share the
// cursors' namespace): FETCH continues from where Execute stopped and
// Execute from where FETCH stopped, a protocol portal scans only forward
// (55000), FETCH reads text whatever the Bind's result formats, a portal
// without result rows cannot be fetched from, CLOSE drops the portal,
// and the portals of an implicit transaction are gone after its Sync.
// The transcript must equal PostgreSQL's for the same exchange.
func TestProtocolPortalFetch(t *testing.T) {
	want := protocolPortalTranscript(t, harness.StartPostgres(t))
	got := protocolPortalTranscript(t, harness.StartTarget(t))
	if got != want {
		t.Errorf("Eddy's transcript differs from PostgreSQL's\n--- PostgreSQL ---\n%s\n--- Eddy ---\n%s", want, got)
	}
}

// protocolPortalTranscript runs the exchange of TestProtocolPortalFetch
// on s and returns the replies, one line per step.
func protocolPortalTranscript(t *testing.T, s *harness.Server) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var out []string
	simple := func(sql string) {
		out = append(out, sql+": "+simpleReplies(ctx, c, sql))
	}
	proto := func(what string, msgs ...pgproto3.FrontendMessage) {
		out = append(out, what+": "+protoExchange(t, ctx, c, msgs...))
	}
	bind := func(portal, sql string, resultFormats ...int16) []pgproto3.FrontendMessage {
		return []pgproto3.FrontendMessage{&pgproto3.Parse{Query: sql},
			&pgproto3.Bind{DestinationPortal: portal, ResultFormatCodes: resultFormats}}
	}
	simple("CREATE TABLE pp (k int PRIMARY KEY, v text)")
	simple("INSERT INTO pp SELECT g, 'v' || g FROM generate_series(1, 6) AS g")

	simple("BEGIN")
	proto("bind p, execute 2", append(bind("p", "SELECT k, v FROM pp ORDER BY k"), &pgproto3.Execute{Portal: "p", MaxRows: 2})...)
	simple("FETCH 2 FROM p")
	simple("MOVE 1 IN p")
	proto("execute p", &pgproto3.Execute{Portal: "p"})
	simple("FETCH 1 FROM p")
	simple("FETCH FORWARD 0 FROM p")
	simple("CLOSE p")
	proto("execute p after CLOSE", &pgproto3.Execute{Portal: "p"})
	simple("ROLLBACK")

	simple("BEGIN")
	proto("bind b binary", bind("b", "SELECT k, v FROM pp WHERE k < 3 ORDER BY k", 1)...)
	simple("FETCH ALL FROM b")
	proto("bind r", bind("r", "SELECT k FROM pp ORDER BY k")...)
	simple("FETCH ABSOLUTE 2 FROM r")
	simple("FETCH RELATIVE 0 FROM r")
	simple("FETCH BACKWARD 1 FROM r")
	simple("ROLLBACK")

	simple("BEGIN")
	proto("bind ret", bind("ret", "INSERT INTO pp VALUES (7, 'v7'), (8, 'v8') RETURNING k")...)
	simple("FETCH 1 FROM ret")
	simple("FETCH ALL FROM ret")
	simple("SELECT count(*) FROM pp")
	proto("bind ins", bind("ins", "INSERT INTO pp VALUES (9, 'v9')")...)
	simple("FETCH 1 FROM ins")
	simple("ROLLBACK")

	proto("bind s outside a block", bind("s", "SELECT k FROM pp ORDER BY k")...)
	simple("FETCH 1 FROM s")
	proto("execute s", &pgproto3.Execute{Portal: "s"})
	simple("CLOSE s")
	return strings.Join(out, "\n")
}

// simpleReplies runs sql with the simple protocol and renders its results
// (rows, command tags) or its error's SQLSTATE.
func simpleReplies(ctx context.Context, c *pgconn.PgConn, sql string) string {
	res, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return "error " + err.(*pgconn.PgError).Code + " " + err.(*pgconn.PgError).Message
	}
	var out []string
	for _, r := range res {
		for _, row := range r.Rows {
			out = append(out, fmt.Sprintf("%q", row))
		}
		out = append(out, r.CommandTag.String())
	}
	return strings.Join(out, " ")
}
