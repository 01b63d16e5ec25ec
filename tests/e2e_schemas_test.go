package tests

import (
	"testing"

	"github.com/eddydb/eddy/tests/harness"
)

// TestPsqlSchemas runs psql's schema and privilege commands (\dn, \dt
// s.*, \d s.t, \dp, \z) against Eddy (testdata/psql_schemas);
// TestPsqlSchemasPostgres runs the same input against PostgreSQL
// (testdata/psql_schemas_postgres), so the two files compare.
func TestPsqlSchemas(t *testing.T) {
	runPsqlRoles(t, harness.StartEddy(t), "testdata/psql_schemas")
}

func TestPsqlSchemasPostgres(t *testing.T) {
	runPsqlRoles(t, harness.StartPostgres(t), "testdata/psql_schemas_postgres")
}
