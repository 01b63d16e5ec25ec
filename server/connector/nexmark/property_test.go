package nexmark

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the randomized tests (0: from the clock)")

// testSeed returns the seed of a randomized test and logs it.
func testSeed(t *testing.T) uint64 {
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", s, s)
	return s
}

// TestResumeEqualsTail checks that NewAt(cfg, k) yields the tail of
// New(cfg)'s sequence from event k, for random configs and offsets.
func TestResumeEqualsTail(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 1))
	for range 50 {
		cfg := Config{EventRate: 1 + r.Int64N(1_000_000), Seed: r.Uint64(), BaseTime: r.Int64N(2e12)}
		const total = 600
		want := generate(New(cfg), total)
		k := r.Int64N(total)
		got := generate(NewAt(cfg, k), total-k)
		for i := range got {
			if repr.CompareRows(got[i], want[k+int64(i)]) != 0 {
				t.Fatalf("cfg %+v: NewAt(%d) event %d = %v, want %v", cfg, k, k+int64(i), got[i], want[k+int64(i)])
			}
		}
	}
}

// TestResumeFarOffset checks resumption far into the sequence, where the
// hot and random ids depend on the offset: a generator that walked there
// and one that jumped agree.
func TestResumeFarOffset(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 2))
	cfg := DefaultConfig()
	cfg.Seed = r.Uint64()
	k := 200_000 + r.Int64N(100_000)
	g := New(cfg)
	var row repr.Row
	for range k {
		g.Next(&row)
	}
	want := generate(g, 200)
	got := generate(NewAt(cfg, k), 200)
	for i := range want {
		if repr.CompareRows(got[i], want[i]) != 0 {
			t.Fatalf("event %d: %v, want %v", k+int64(i), got[i], want[i])
		}
	}
}

// TestNextOfFiltersNext checks that NextOf(t) yields exactly the events of
// type t that Next yields, with the same numbers and rows.
func TestNextOfFiltersNext(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NumEvents = 1234
	all := generate(New(cfg), 2000)
	for _, tt := range []TableType{Person, Auction, Bid} {
		g := New(cfg)
		var row repr.Row
		want := int64(0)
		for {
			n, ok := g.NextOf(tt, &row)
			for ; want < int64(len(all)) && TypeOf(want) != tt; want++ {
			}
			if !ok {
				if want < int64(len(all)) {
					t.Fatalf("%s: NextOf ended before event %d", tt, want)
				}
				break
			}
			if n != want || repr.CompareRows(row, all[n]) != 0 {
				t.Fatalf("%s: NextOf = %d %v, want %d %v", tt, n, row, want, all[want])
			}
			want++
		}
	}
}

// TestRowReuse checks that Next reuses a large enough row and that rows of
// different widths follow each other correctly.
func TestRowReuse(t *testing.T) {
	g := New(DefaultConfig())
	row := make(repr.Row, 0, 16)
	for range 100 {
		tt, _ := g.Next(&row)
		if len(row) != len(tt.Columns()) || cap(row) != 16 {
			t.Fatalf("%s row has len %d cap %d", tt, len(row), cap(row))
		}
	}
}

// generate returns up to n rows from g, copied.
func generate(g *Generator, n int64) []repr.Row {
	var out []repr.Row
	var row repr.Row
	for range n {
		if _, ok := g.Next(&row); !ok {
			break
		}
		out = append(out, append(repr.Row(nil), row...))
	}
	return out
}

// TestEventTime checks the event-time formula against a direct computation
// in floating point for rates that divide and do not divide 1e6.
func TestEventTime(t *testing.T) {
	for _, rate := range []int64{1, 3, 7, 1000, 100_000, 333_333, 10_000_000} {
		c := Config{EventRate: rate, BaseTime: 5}
		for _, n := range []int64{0, 1, 2, 49, 50, 999_999, 1 << 40} {
			want := 5 + int64(float64(n)*1000/float64(rate)+1e-9)
			if n < 1<<30 && c.EventTime(n) != want {
				t.Errorf("rate %d: EventTime(%d) = %d, want %d", rate, n, c.EventTime(n), want)
			}
			if c.EventTime(n) > c.EventTime(n+1) {
				t.Errorf("rate %d: event time decreases at %d", rate, n)
			}
		}
	}
	if got := (Config{EventRate: 1}).EventTime(1 << 50); got != (1<<50)*1000 {
		t.Errorf("EventTime overflowed: %d", got)
	}
}

// TestSkipOfEqualsNextOf checks that SkipOf(t, m) leaves a generator where
// m calls of NextOf(t) would, for random starts, counts and ends: the same
// position and the same events after it.
func TestSkipOfEqualsNextOf(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 3))
	seeds := []uint64{r.Uint64(), r.Uint64()} // a seed's channel table is built once
	for range 2000 {
		cfg := DefaultConfig()
		cfg.Seed = seeds[r.IntN(len(seeds))]
		start := r.Int64N(5000)
		if r.IntN(2) == 0 {
			cfg.NumEvents = start + r.Int64N(400)
		}
		tt := []TableType{Person, Auction, Bid}[r.IntN(3)]
		m := r.Int64N(300)
		walked, skipped := NewAt(cfg, start), NewAt(cfg, start)
		var row repr.Row
		for range m {
			walked.NextOf(tt, &row)
		}
		skipped.SkipOf(tt, m)
		if walked.Position() != skipped.Position() {
			t.Fatalf("%s from %d, %d events, NumEvents %d: SkipOf at %d, NextOf at %d",
				tt, start, m, cfg.NumEvents, skipped.Position(), walked.Position())
		}
		var a, b repr.Row
		na, oka := walked.NextOf(tt, &a)
		nb, okb := skipped.NextOf(tt, &b)
		if na != nb || oka != okb || repr.CompareRows(a, b) != 0 {
			t.Fatalf("%s from %d, %d events: next %d %v %v, want %d %v %v", tt, start, m, nb, okb, b, na, oka, a)
		}
	}
}
