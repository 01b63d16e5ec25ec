package tests

import (
	"github.com/cockroachdb/datadriven"
	"testing"

	"github.com/eddydb/eddy/tests/harness"
)

// TestPsqlRoles runs psql's role commands against Eddy
// (testdata/psql_roles); TestPsqlRolesPostgres runs the same input against
// PostgreSQL (testdata/psql_roles_postgres), so the two files compare.
func TestPsqlRoles(t *testing.T) {
	runPsqlRoles(t, harness.StartEddy(t), "testdata/psql_roles")
}

func TestPsqlRolesPostgres(t *testing.T) {
	runPsqlRoles(t, harness.StartPostgres(t), "testdata/psql_roles_postgres")
}

func runPsqlRoles(t *testing.T, s *harness.Server, file string) {
	psql := psqlPath(t)
	datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) string {
		return runPsql(t, psql, s, d.Input)
	})
}
