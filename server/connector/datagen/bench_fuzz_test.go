package datagen

import (
	"strings"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// BenchmarkNext measures a typical demo source: a sequence id, two random
// numbers, a short string and a timestamp.
func BenchmarkNext(b *testing.B) {
	cols := []Column{{Name: "id", Type: repr.Int8}, {Name: "v", Type: repr.Int4},
		{Name: "f", Type: repr.Float8}, {Name: "s", Type: repr.Varchar(0)}, {Name: "ts", Type: repr.Timestamp}}
	cfg, err := ParseOptions(cols, map[string]string{"fields.id.kind": "sequence"})
	if err != nil {
		b.Fatal(err)
	}
	g := New(cfg)
	var row repr.Row
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		g.Next(&row)
	}
	reportCPU(b, start, "rows/cpu-s")
}

// FuzzParseOptions feeds ParseOptions arbitrary options over columns of
// every type: it must return a 22023 or 0A000 error, or a config whose rows
// have the columns' types.
func FuzzParseOptions(f *testing.F) {
	f.Add("fields.i4.kind", "sequence", "fields.i4.end", "10")
	f.Add("fields.np.min", "-1.5", "fields.np.max", "999.999")
	f.Add("fields.ts.basetime", "2020-01-01", "fields.ts.max_past", "1 year")
	f.Add("fields.c.length", "4", "datagen.rows.per.second", "100")
	f.Add("fields.b.kind", "sequence", "connector", "datagen")
	f.Add("fields.v5.kind", "sequence", "fields.v5.start", "-9999")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		cfg, err := ParseOptions(allTypes, map[string]string{k1: v1, k2: v2})
		if err != nil {
			if c := repr.ErrorCode(err); c != repr.CodeInvalidParameter && c != repr.CodeFeatureNotSupported ||
				!strings.Contains(err.Error(), "option") && !strings.Contains(err.Error(), "datagen") {
				t.Fatalf("error %v has code %s", err, c)
			}
			return
		}
		g := New(cfg)
		var row repr.Row
		for range 3 {
			if g.Next(&row) {
				for i, d := range row {
					if !d.IsNull() && d.Family() != allTypes[i].Type.Family {
						t.Fatalf("column %s: %v", allTypes[i].Name, d)
					}
				}
			}
		}
	})
}
