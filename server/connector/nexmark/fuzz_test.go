package nexmark

import (
	"strings"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// FuzzParseOptions feeds ParseOptions arbitrary keys and values: it must
// either return a 22023 error or a config the generator runs with.
func FuzzParseOptions(f *testing.F) {
	f.Add("nexmark.table.type", "bid", "nexmark.event.rate", "1000")
	f.Add("nexmark.table.type", "person", "nexmark.event.num", "10")
	f.Add("nexmark.seed", "18446744073709551615", "nexmark.table.type", "auction")
	f.Add("nexmark.base.time", "-100000000000000", "nexmark.table.type", "bid")
	f.Add("nexmark.max.emit.speed", "off", "connector", "nexmark")
	f.Add("NEXMARK.TABLE.TYPE", " Bid ", "nexmark.event.rate", "+7")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		cfg, tt, err := ParseOptions(map[string]string{k1: v1, k2: v2})
		if err != nil {
			if repr.ErrorCode(err) != repr.CodeInvalidParameter || !strings.Contains(err.Error(), "option") {
				t.Fatalf("error %v has code %s", err, repr.ErrorCode(err))
			}
			return
		}
		if cfg.EventRate <= 0 || cfg.NumEvents < 0 {
			t.Fatalf("invalid config accepted: %+v", cfg)
		}
		var row repr.Row
		_, ok := NewAt(cfg, 49).NextOf(tt, &row)
		if ok && len(row) != len(tt.Columns()) {
			t.Fatalf("row %v does not match %s", row, tt)
		}
	})
}
