package tests

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/tests/harness"
)

// The system catalog through the real psql: \d and friends against Eddy
// (testdata/psql_catalog) and the same input against PostgreSQL 15
// (testdata/psql_catalog_postgres, produced with -rewrite). The two files
// hold the same commands, so `diff testdata/psql_catalog
// testdata/psql_catalog_postgres` shows every way Eddy's answers differ
// from PostgreSQL's (OIDs, Eddy's own schema).

// TestPsqlCatalog runs testdata/psql_catalog against Eddy.
func TestPsqlCatalog(t *testing.T) {
	runPsqlCatalog(t, harness.StartTarget(t), "testdata/psql_catalog")
}

// TestPsqlCatalogPostgres runs the same commands against PostgreSQL.
func TestPsqlCatalogPostgres(t *testing.T) {
	runPsqlCatalog(t, harness.StartPostgres(t), "testdata/psql_catalog_postgres")
}

// TestPsqlCatalogSources describes sources and Eddy's own system
// relations (testdata/psql_catalog_sources; Eddy only).
func TestPsqlCatalogSources(t *testing.T) {
	runPsqlCatalog(t, harness.StartEddy(t), "testdata/psql_catalog_sources")
}

// runPsqlCatalog runs a psql_catalog file: each `psql` command feeds its
// input to psql and expects what psql printed.
func runPsqlCatalog(t *testing.T, s *harness.Server, file string) {
	psql := psqlPath(t)
	datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "psql" {
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		return timings.ReplaceAllString(runPsql(t, psql, s, d.Input), "Time: <ms>")
	})
}

// timings matches \timing's reports, which vary from run to run.
var timings = regexp.MustCompile(`Time: [0-9.]+ ms`)

// TestPsqlCatalogSameInput checks that the Eddy and PostgreSQL files run
// the same commands, so their outputs compare.
func TestPsqlCatalogSameInput(t *testing.T) {
	inputs := func(file string) []string {
		var out []string
		datadriven.Walk(t, file, func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			datadriven.RunTestFromString(t, string(data), func(_ *testing.T, d *datadriven.TestData) string {
				out = append(out, d.Cmd+"\n"+d.Input)
				return d.Expected
			})
		})
		return out
	}
	eddy, pg := inputs("testdata/psql_catalog"), inputs("testdata/psql_catalog_postgres")
	if len(eddy) == 0 || !slices.Equal(eddy, pg) {
		t.Fatalf("testdata/psql_catalog and psql_catalog_postgres must hold the same commands:\n%q\n%q", eddy, pg)
	}
}
