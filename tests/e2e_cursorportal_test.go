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

// TestCursorPortal checks that a DECLAREd cursor is a protocol portal, as
// in PostgreSQL (psycopg 3's server-side cursors rely on it): Describe and
// Execute with a row limit by the cursor's name, interleaved with FETCH;
// a WITH HOLD cursor after COMMIT; protocol Close of a cursor; Describe of
// an unknown portal. The same transcript is expected from PostgreSQL
// (TestCursorPortalPostgres).
func TestCursorPortal(t *testing.T) { runCursorPortal(t, harness.StartTarget(t)) }

// TestCursorPortalPostgres runs the same exchange against PostgreSQL.
func TestCursorPortalPostgres(t *testing.T) { runCursorPortal(t, harness.StartPostgres(t)) }

func runCursorPortal(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	simple := func(sql string) string {
		res, err := c.Exec(ctx, sql).ReadAll()
		if err != nil {
			return "error " + err.(*pgconn.PgError).Code
		}
		var out []string
		for _, r := range res {
			for _, row := range r.Rows {
				out = append(out, fmt.Sprintf("%s", row))
			}
		}
		return strings.Join(out, " ")
	}
	simple("CREATE TABLE cp (k int PRIMARY KEY, v text)")
	simple("INSERT INTO cp SELECT g, 'v' || g FROM generate_series(1, 5) AS g")
	simple("BEGIN")
	simple("DECLARE c CURSOR FOR SELECT k, v FROM cp ORDER BY k")
	var got []string
	got = append(got, protoExchange(t, ctx, c, &pgproto3.Describe{ObjectType: 'P', Name: "c"},
		&pgproto3.Execute{Portal: "c", MaxRows: 2}))
	got = append(got, "FETCH: "+simple("FETCH 1 FROM c"))
	got = append(got, protoExchange(t, ctx, c, &pgproto3.Execute{Portal: "c"}, &pgproto3.Close{ObjectType: 'P', Name: "c"}))
	got = append(got, "after close: "+simple("FETCH 1 FROM c"))
	simple("ROLLBACK")
	simple("BEGIN")
	simple("DECLARE h CURSOR WITH HOLD FOR SELECT v FROM cp WHERE k > 3 ORDER BY k")
	simple("COMMIT")
	got = append(got, "pg_cursors: "+simple("SELECT name, is_holdable FROM pg_cursors ORDER BY name"))
	got = append(got, protoExchange(t, ctx, c, &pgproto3.Describe{ObjectType: 'P', Name: "h"},
		&pgproto3.Execute{Portal: "h", MaxRows: 5}))
	got = append(got, "CLOSE: "+simple("CLOSE h"))
	got = append(got, protoExchange(t, ctx, c, &pgproto3.Describe{ObjectType: 'P', Name: "h"}))
	simple("BEGIN")
	got = append(got, protoExchange(t, ctx, c, &pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{DestinationPortal: "p"}))
	got = append(got, "DECLARE over a portal: "+simple("DECLARE p CURSOR FOR SELECT 2"))
	simple("ROLLBACK")
	simple("BEGIN")
	simple("DECLARE q CURSOR FOR SELECT 2")
	got = append(got, protoExchange(t, ctx, c, &pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{DestinationPortal: "q"}))
	got = append(got, protoExchange(t, ctx, c, &pgproto3.Execute{Portal: "q"}))
	simple("ROLLBACK")
	want := []string{
		"RowDescription k,v; DataRow [1 v1]; DataRow [2 v2]; PortalSuspended; ReadyForQuery T",
		"FETCH: [3 v3]",
		"DataRow [4 v4]; DataRow [5 v5]; CommandComplete SELECT 2; CloseComplete; ReadyForQuery T",
		"after close: error 34000",
		"pg_cursors: [h t]",
		"RowDescription v; DataRow [v4]; DataRow [v5]; CommandComplete SELECT 2; ReadyForQuery I",
		"CLOSE: ",
		"Error 34000; ReadyForQuery I",
		"ParseComplete; BindComplete; ReadyForQuery T",
		"DECLARE over a portal: error 42P03",
		"ParseComplete; Error 42P03; ReadyForQuery E",
		"Error 25P02; ReadyForQuery E",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// protoExchange sends msgs and a Sync and returns the replies up to
// ReadyForQuery, one short line each.
func protoExchange(t *testing.T, ctx context.Context, c *pgconn.PgConn, msgs ...pgproto3.FrontendMessage) string {
	t.Helper()
	f := c.Frontend()
	for _, m := range msgs {
		f.Send(m)
	}
	f.Send(&pgproto3.Sync{})
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		m, err := c.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *pgproto3.RowDescription:
			var names []string
			for _, fd := range m.Fields {
				names = append(names, string(fd.Name))
			}
			out = append(out, "RowDescription "+strings.Join(names, ","))
		case *pgproto3.DataRow:
			out = append(out, fmt.Sprintf("DataRow %s", m.Values))
		case *pgproto3.CommandComplete:
			out = append(out, "CommandComplete "+string(m.CommandTag))
		case *pgproto3.ErrorResponse:
			out = append(out, "Error "+m.Code)
		case *pgproto3.ReadyForQuery:
			return strings.Join(append(out, "ReadyForQuery "+string(m.TxStatus)), "; ")
		default:
			out = append(out, strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3."))
		}
	}
}
