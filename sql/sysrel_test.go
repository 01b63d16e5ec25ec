package sql

import (
	"context"
	"testing"
)

// TestSystemRelationsReadable reads every system relation in full, with
// a table, a view, a materialized view, an index, a sequence and
// constraints in the catalog: a rows function naming a column its
// relation lacks fails here (XX000) rather than in a client, and the
// core relations list those objects.
func TestSystemRelationsReadable(t *testing.T) {
	te := newTestEngine(t)
	mustExec(t, te.s, `CREATE TABLE a (id int PRIMARY KEY, v text DEFAULT 'x', CHECK (id > 0));
		CREATE TABLE b (id serial PRIMARY KEY, a_id int REFERENCES a(id), n varchar(3) UNIQUE);
		CREATE VIEW av AS SELECT id FROM a; CREATE MATERIALIZED VIEW am AS SELECT count(*) FROM a;
		CREATE INDEX a_v ON a (v); CREATE SEQUENCE s; COMMENT ON TABLE a IS 'c'`)
	ctx := context.Background()
	for _, r := range sysRelList() {
		stmts, err := te.s.Prepare(ctx, "SELECT * FROM "+r.schema+"."+r.name, nil)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		p, err := stmts[0].Bind(ctx, nil, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		var rows rowCollector
		if _, _, err := p.Execute(ctx, &rows, 0); err != nil {
			t.Errorf("%s.%s: %v", r.schema, r.name, err)
			continue
		}
		if nonEmpty[r.name] && len(rows.rows) == 0 {
			t.Errorf("%s.%s is empty", r.schema, r.name)
		}
		if cols := p.Columns(); len(cols) != len(r.cols) {
			t.Errorf("%s: %d result columns, want %d", r.name, len(cols), len(r.cols))
		}
	}
}

// nonEmpty are the relations that must list the test's objects.
var nonEmpty = map[string]bool{"pg_namespace": true, "pg_class": true, "pg_attribute": true, "pg_type": true,
	"pg_index": true, "pg_constraint": true, "pg_attrdef": true, "pg_description": true, "pg_proc": true,
	"pg_tables": true, "pg_views": true, "pg_matviews": true, "pg_indexes": true, "pg_sequence": true,
	"tables": true, "columns": true, "table_constraints": true, "key_column_usage": true, "referential_constraints": true}

// TestSystemRelationOIDs checks the registry's invariants: unique IDs
// below firstUserID, unique OIDs and names.
func TestSystemRelationOIDs(t *testing.T) {
	oids := map[uint32]string{}
	for _, r := range sysRelList() {
		if r.id >= firstUserID || r.id <= sysSinksID {
			t.Errorf("%s: ID %d outside the system range", r.name, r.id)
		}
		if other, ok := oids[r.oid]; ok {
			t.Errorf("%s and %s share OID %d", r.name, other, r.oid)
		}
		oids[r.oid] = r.name
	}
	if len(sysRelsByName) != len(sysRelsByID) {
		t.Errorf("%d names for %d relations", len(sysRelsByName), len(sysRelsByID))
	}
}
