package server

import (
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector/nexmark"
)

// TestReadAheadEqualsSerial checks that batches taken through readAhead
// are, byte for byte, the batches one generator walking the source gives,
// when the guess started ahead is right (the next batch at the size a
// commit leaves), when it is wrong (a refused batch shrank the size, or
// the loop resumes at another position: the batch ahead must be dropped,
// never returned), and when the source ends.
func TestReadAheadEqualsSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(splitSeed(t), 3))
	cfg := nexmark.DefaultConfig()
	cfg.Seed = r.Uint64()
	cfg.NumEvents = 20_000 + r.Int64N(20_000)
	for _, n := range splitCounts {
		ra := newReadAhead(n, func(from int64) blockGen { return nexmarkBlock(cfg, nexmark.Bid, from) })
		pos, size := r.Int64N(1_000), 4096
		for step := 0; ; step++ {
			got, gotPos := ra.take(pos, size)
			want, wantPos := serialNexmark(cfg, nexmark.Bid, pos, size)
			checkSameBatch(t, "read-ahead", n, pos, got, want, gotPos, wantPos)
			if len(want) == 0 {
				break
			}
			switch r.IntN(4) {
			case 0: // the guess is wrong: the batch shrinks
				ra.start(wantPos, size)
				size = max(size/2, 64)
			case 1: // the guess is wrong: resume elsewhere
				ra.start(wantPos, size)
				wantPos -= r.Int64N(100)
			default:
				size = min(2*size, ingestBatch)
				ra.start(wantPos, size)
			}
			pos = wantPos
		}
		ra.stop()
	}
}

// TestReadAheadPanicRegenerates checks that a panic while generating a
// batch ahead does not escape its goroutine (it would end the process):
// take then generates the batch on demand, on the caller's goroutine.
func TestReadAheadPanicRegenerates(t *testing.T) {
	cfg := nexmark.DefaultConfig()
	cfg.NumEvents = 10_000
	calls := 0
	ra := newReadAhead(1, func(from int64) blockGen {
		calls++
		if calls == 1 {
			return func(int, []repr.Row) (int, int64) { panic("generator bug") }
		}
		return nexmarkBlock(cfg, nexmark.Bid, from)
	})
	ra.start(0, 512)
	got, gotPos := ra.take(0, 512)
	want, wantPos := serialNexmark(cfg, nexmark.Bid, 0, 512)
	checkSameBatch(t, "after a panic ahead", 1, 0, got, want, gotPos, wantPos)
	if calls != 2 {
		t.Fatalf("generator called %d times, want 2 (ahead, then on demand)", calls)
	}
}
