package pgregress

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// DefaultFiles are the regression files run when PGREGRESS_FILES is unset,
// in the order of PostgreSQL's parallel_schedule.
var DefaultFiles = strings.Fields(`boolean text int4 int8 float8 numeric strings
	date timestamp interval select select_distinct case union arrays json
	subselect join aggregates window with limit`)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

// TestPGRegress runs test_setup.sql and then the selected files on Eddy and
// PostgreSQL and logs per-file counts by category. It fails only when Eddy
// crashed, hung or raised an internal error.
func TestPGRegress(t *testing.T) {
	dir := os.Getenv("PGREGRESS_DIR")
	if dir == "" {
		t.Skip("PGREGRESS_DIR is not set (see the package comment)")
	}
	files := DefaultFiles
	if f := os.Getenv("PGREGRESS_FILES"); f != "" {
		files = strings.Fields(f)
	}
	report := io.Discard
	if out := os.Getenv("PGREGRESS_OUT"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		report = f
	}
	pg := harness.StartPostgres(t)
	eddy := harness.StartEddy(t, harness.WithArgs("--memory-limit", "2GiB"))
	abs, _ := filepath.Abs(dir)
	r := &Runner{
		PG:     engine{srv: pg, dsn: pg.NewDatabase(t)},
		Eddy:   engine{srv: eddy, dsn: eddy.DSN()},
		Env:    map[string]string{"PG_ABS_SRCDIR": abs, "PG_LIBDIR": abs, "PG_DLSUFFIX": ".so"},
		Report: report,
	}
	var total Counts
	var lines []string
	for _, name := range append([]string{"test_setup"}, files...) {
		src, err := os.ReadFile(filepath.Join(dir, "sql", name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		c := r.RunFile(name, string(src))
		for i := range c {
			total[i] += c[i]
		}
		lines = append(lines, fmt.Sprintf("%s %6.1fs", formatCounts(name, c), time.Since(start).Seconds()))
	}
	lines = append(lines, formatCounts("TOTAL", total))
	t.Log("\n" + formatCounts("file", Counts{}, categoryNames[:]...) + "\n" + strings.Join(lines, "\n"))
	fmt.Fprintf(report, "\n%s\n%s\n", formatCounts("file", Counts{}, categoryNames[:]...), strings.Join(lines, "\n"))
	if total[Crash] > 0 {
		t.Errorf("Eddy crashed, hung or failed internally on %d statements (see PGREGRESS_OUT)", total[Crash])
	}
}

// formatCounts prints one line of the counts table (headings instead of
// numbers when given).
func formatCounts(name string, c Counts, headings ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s", name)
	for i := range c {
		if headings != nil {
			fmt.Fprintf(&b, " %11s", headings[i])
		} else {
			fmt.Fprintf(&b, " %11d", c[i])
		}
	}
	return b.String()
}
