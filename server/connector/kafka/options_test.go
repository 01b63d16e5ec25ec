package kafka

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
)

// TestOptions runs testdata/options: "parse" takes one key=value option
// per line and prints the Config or the error with its SQLSTATE.
func TestOptions(t *testing.T) {
	datadriven.RunTest(t, "testdata/options", func(t *testing.T, d *datadriven.TestData) string {
		opts := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				opts[k] = v
			}
		}
		cfg, err := ParseOptions(opts)
		if err != nil {
			e := repr.ErrorFrom(err)
			return fmt.Sprintf("error %s: %s\n", e.Code, e.Message)
		}
		return fmt.Sprintf("%+v\n", cfg)
	})
}
