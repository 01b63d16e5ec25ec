package nexmark

import (
	"math"
	"strings"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// mixStats accumulates the statistics of a generated sequence that the
// Nexmark spec fixes.
type mixStats struct {
	count       [3]int64
	hotSeller   int64
	hotBidder   int64
	hotAuction  int64
	hotChannel  int64
	channelID   int64 // non-hot bids whose url carries a channel_id
	cheap       int64 // bids priced below 10,000 cents
	minPrice    int64
	maxPrice    int64
	badSize     [3]int64
	sizeSum     [3]int64
	badCategory int64
}

// TestStatistics generates 1M events and checks the mix, the hot-id
// ratios, the price distribution and the padded sizes.
func TestStatistics(t *testing.T) {
	n := int64(1_000_000)
	if testing.Short() {
		n = 100_000
	}
	cfg := DefaultConfig()
	cfg.Seed = 99
	s := mixStats{minPrice: math.MaxInt64}
	g := New(cfg)
	var row repr.Row
	for i := range n {
		tt, _ := g.Next(&row)
		s.add(t, i, tt, row)
	}
	checkMix(t, &s, n)
}

// add folds event i into s, checking per-event invariants.
func (s *mixStats) add(t *testing.T, i int64, tt TableType, row repr.Row) {
	s.count[tt]++
	size := eventSize(tt, row)
	s.sizeSum[tt] += size
	target := [3]int64{personSize, auctionSize, bidSize}[tt]
	if size*5 < target*4 || size*5 > target*6 {
		s.badSize[tt]++
	}
	switch tt {
	case Person:
		if row[0].Int() != i/50+1000 {
			t.Fatalf("event %d: person id %d", i, row[0].Int())
		}
	case Auction:
		s.auction(t, i, row)
	case Bid:
		s.bid(t, i, row)
	}
}

// auction checks and counts an auction row.
func (s *mixStats) auction(t *testing.T, i int64, row repr.Row) {
	lastP := i / 50
	if seller := row[7].Int() - 1000; seller == lastP/100*100 {
		s.hotSeller++
	} else if seller < lastP-1000 || seller > lastP+10 {
		t.Fatalf("event %d: seller %d outside the active persons (last %d)", i, seller, lastP)
	}
	if c := row[8].Int(); c < 10 || c >= 15 {
		s.badCategory++
	}
	if row[6].Micros() <= row[5].Micros() {
		t.Fatalf("event %d: auction expires %v before it starts %v", i, row[6], row[5])
	}
	if row[4].Int() < row[3].Int()+100 {
		t.Fatalf("event %d: reserve %d below initial bid %d + 100", i, row[4].Int(), row[3].Int())
	}
	s.price(row[3].Int())
}

// bid checks and counts a bid row.
func (s *mixStats) bid(t *testing.T, i int64, row repr.Row) {
	lastP, lastA := i/50, i/50*3+2
	if a := row[0].Int() - 1000; a == lastA/100*100 {
		s.hotAuction++
	} else if a < lastA-100 || a > lastA+10 {
		t.Fatalf("event %d: auction %d outside the in-flight auctions (last %d)", i, a, lastA)
	}
	if b := row[1].Int() - 1000; b == lastP/100*100+1 {
		s.hotBidder++
	}
	switch ch, url := row[3].Text(), row[4].Text(); {
	case ch == "Google" || ch == "Facebook" || ch == "Baidu" || ch == "Apple":
		s.hotChannel++
	case !strings.HasPrefix(ch, "channel-") || !strings.HasPrefix(url, "https://www.nexmark.com/"):
		t.Fatalf("event %d: channel %q url %q", i, ch, url)
	case strings.Contains(url, "&channel_id="):
		s.channelID++
	}
	s.price(row[2].Int())
}

// price counts a price.
func (s *mixStats) price(p int64) {
	s.minPrice, s.maxPrice = min(s.minPrice, p), max(s.maxPrice, p)
	if p < 10_000 {
		s.cheap++
	}
}

// eventSize is the size model the extra column pads (see events.go): 8
// bytes per integer or timestamp column plus string lengths, a bid's
// channel and url excluded.
func eventSize(tt TableType, row repr.Row) int64 {
	var size int64
	for i, d := range row {
		if tt == Bid && (i == 3 || i == 4) {
			continue
		}
		if d.Family() == repr.FamText {
			size += int64(len(d.Text()))
		} else {
			size += 8
		}
	}
	return size
}

// checkMix checks the totals against the spec with tolerances far wider
// than the sampling error of a million events (a few standard deviations).
func checkMix(t *testing.T, s *mixStats, n int64) {
	if s.count[Person]*50 != n || s.count[Auction]*50 != 3*n || s.count[Bid]*50 != 46*n {
		t.Errorf("mix %v, want 1:3:46 of %d", s.count, n)
	}
	near := func(what string, got, of int64, want, tol float64) {
		if f := float64(got) / float64(of); math.Abs(f-want) > tol {
			t.Errorf("%s: %.4f, want %.4f ± %.4f", what, f, want, tol)
		} else {
			t.Logf("%s: %.4f (want %.4f)", what, f, want)
		}
	}
	// A random pick lands on the hot id too, rarely: the hot ratios are a
	// little above their nominal values.
	near("hot sellers", s.hotSeller, s.count[Auction], 0.75, 0.02)
	near("hot bidders", s.hotBidder, s.count[Bid], 0.75, 0.02)
	near("hot auctions", s.hotAuction, s.count[Bid], 0.5, 0.02)
	near("hot channels", s.hotChannel, s.count[Bid], 0.5, 0.01)
	near("channel ids", s.channelID, s.count[Bid]-s.hotChannel, 0.9, 0.02)
	prices := s.count[Bid] + s.count[Auction] // bids and initial bids
	near("prices < 100 dollars (log-uniform: 1/3)", s.cheap, prices, 1.0/3, 0.01)
	if s.minPrice < 100 || s.maxPrice > 100_000_000 || s.minPrice > 200 || s.maxPrice < 90_000_000 {
		t.Errorf("prices span [%d, %d], want about [100, 1e8]", s.minPrice, s.maxPrice)
	}
	for tt, bad := range s.badSize {
		if bad > 0 {
			t.Errorf("%s: %d events outside ±20%% of the target size", TableType(tt), bad)
		}
		t.Logf("%s: mean size %.1f", TableType(tt), float64(s.sizeSum[tt])/float64(s.count[tt]))
	}
	near("person mean size / 200", s.sizeSum[Person]/200, s.count[Person], 1, 0.05)
	near("auction mean size / 500", s.sizeSum[Auction]/500, s.count[Auction], 1, 0.05)
	near("bid mean size / 100", s.sizeSum[Bid]/100, s.count[Bid], 1, 0.05)
	if s.badCategory > 0 {
		t.Errorf("%d categories outside [10, 15)", s.badCategory)
	}
}
