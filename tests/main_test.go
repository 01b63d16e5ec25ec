package tests

import (
	"flag"
	"os"
	"testing"

	"github.com/eddydb/eddy/tests/harness"
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(harness.Main(m))
}
