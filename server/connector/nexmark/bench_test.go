package nexmark

import (
	"testing"

	"github.com/eddydb/eddy/repr"
)

// BenchmarkNext measures the whole event mix through Next, reusing one row.
func BenchmarkNext(b *testing.B) {
	g := New(DefaultConfig())
	var row repr.Row
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		g.Next(&row)
	}
	reportCPU(b, start, "events/cpu-s")
}

// BenchmarkNextOf measures one source's view of the sequence: only its own
// events are generated.
func BenchmarkNextOf(b *testing.B) {
	for _, tt := range []TableType{Person, Auction, Bid} {
		b.Run(tt.String(), func(b *testing.B) {
			g := New(DefaultConfig())
			var row repr.Row
			b.ReportAllocs()
			start := processCPU()
			for b.Loop() {
				g.NextOf(tt, &row)
			}
			reportCPU(b, start, "rows/cpu-s")
		})
	}
}

// BenchmarkNewAt measures resuming at an offset (after the channel table of
// the seed is cached).
func BenchmarkNewAt(b *testing.B) {
	cfg := DefaultConfig()
	var row repr.Row
	for b.Loop() {
		NewAt(cfg, 123_456_789).Next(&row)
	}
}
