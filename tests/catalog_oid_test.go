package tests

import (
	"context"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestCatalogOIDs checks what pgjdbc relies on: a result column's table
// OID and attribute number in RowDescription name a pg_class row and its
// pg_attribute row, and user objects keep their OIDs across a restart.
func TestCatalogOIDs(t *testing.T) {
	s := harness.StartEddy(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, s.DSN())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := connect()
	if _, err := c.Exec(ctx, "CREATE TABLE oids (a int PRIMARY KEY, b text, c numeric(5,1))"); err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query(ctx, "SELECT c, a FROM oids")
	if err != nil {
		t.Fatal(err)
	}
	fields := append([]pgconn.FieldDescription(nil), rows.FieldDescriptions()...) // pgx reuses them
	rows.Close()
	if len(fields) != 2 {
		t.Fatalf("%d result columns", len(fields))
	}
	for _, f := range fields {
		var rel, att string
		err := c.QueryRow(ctx, "SELECT c.relname::text, a.attname::text FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid WHERE c.oid = $1 AND a.attnum = $2",
			f.TableOID, f.TableAttributeNumber).Scan(&rel, &att)
		if err != nil || rel != "oids" || att != f.Name {
			t.Errorf("column %s: table OID %d attnum %d names %s.%s (%v)", f.Name, f.TableOID, f.TableAttributeNumber, rel, att, err)
		}
	}
	oidsOf := func(c *pgx.Conn) (rel, con uint32) {
		err := c.QueryRow(ctx, "SELECT 'oids'::regclass::oid, (SELECT oid FROM pg_constraint WHERE conname = 'oids_pkey')").Scan(&rel, &con)
		if err != nil {
			t.Fatal(err)
		}
		return rel, con
	}
	rel, con := oidsOf(c)
	c.Close(ctx)
	s.Restart()
	c = connect()
	defer c.Close(ctx)
	if rel2, con2 := oidsOf(c); rel2 != rel || con2 != con || rel < 16384 {
		t.Errorf("OIDs before the restart %d, %d; after %d, %d", rel, con, rel2, con2)
	}
}
