package exec

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// BenchmarkBidJoin measures Nexmark q20's join shape, a stream of bid-like
// rows (auction, bidder, price, channel, url, date_time, extra) joined on
// auction with a smaller auction-like stream, as joinOp and as appendJoin
// (append-only=true): input rows per second and the live heap each stored
// row costs (state bytes/row, after a GC; the bids' string columns share
// pooled text, as the Nexmark generator's do, so the figure is the
// operator's own).
func BenchmarkBidJoin(b *testing.B) {
	for _, flag := range []string{"", " append-only=true"} {
		name := "join"
		if flag != "" {
			name = "append-only"
		}
		b.Run(name, func(b *testing.B) { benchBidJoin(b, flag) })
	}
}

func benchBidJoin(b *testing.B, flag string) {
	d := mustBuild(b, fmt.Sprintf(`%%0 = Source coll=1 :: int8, int8, int8, text, text, timestamp, text
%%1 = Source coll=2 :: int8, text, int8
%%2 = Join kind=inner on=[#0=#0]%s <- %%0, %%1`, flag))
	rng := rand.New(rand.NewPCG(1, 2))
	pool := bidTextPool(rng)
	var w discardBatch
	ctx := &expr.Ctx{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rows, t := 0, uint64(0)
	for b.Loop() {
		t++
		w.buf = w.buf[:0]
		in := map[repr.CollectionID][]repr.Update{1: bidBatch(rng, pool, 1000, t), 2: auctionBatch(rng, pool, 6, t)}
		if _, err := d.Step(ctx, t, in, &w); err != nil {
			b.Fatal(err)
		}
		d.Commit()
		rows += 1006
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(rows), "state-B/row")
	runtime.KeepAlive(d)
}

// bidTextPool holds the shared strings bid rows draw from: channel names,
// URLs and extra padding of 40 to 100 bytes.
func bidTextPool(rng *rand.Rand) [3][]string {
	var p [3][]string
	for i := range 100 {
		p[0] = append(p[0], fmt.Sprintf("channel-%d", 1000+i))
		p[1] = append(p[1], fmt.Sprintf("https://www.nexmark.com/%s/item.htm?query=1&channel_id=%d", strings.Repeat("abcde/", 3), rng.Uint32()))
		p[2] = append(p[2], strings.Repeat("x", 40+rng.IntN(61)))
	}
	return p
}

// bidBatch draws n fresh bid rows over auctions around 6t (recent ones).
func bidBatch(rng *rand.Rand, p [3][]string, n int, t uint64) []repr.Update {
	us := make([]repr.Update, n)
	for i := range us {
		auction := int64(6*t) - rng.Int64N(600)
		us[i] = repr.Update{Row: repr.Row{repr.NewInt(auction), repr.NewInt(rng.Int64N(1e6)), repr.NewInt(rng.Int64N(1e7)),
			repr.NewText(p[0][rng.IntN(100)]), repr.NewText(p[1][rng.IntN(100)]), repr.NewTimestamp(int64(t)*1e6 + rng.Int64N(1e6)),
			repr.NewText(p[2][rng.IntN(100)])}, Diff: 1}
	}
	return us
}

// auctionBatch draws n auction rows (id, item, category) with ids 6t..6t+5.
func auctionBatch(rng *rand.Rand, p [3][]string, n int, t uint64) []repr.Update {
	us := make([]repr.Update, n)
	for i := range us {
		us[i] = repr.Update{Row: repr.Row{repr.NewInt(int64(6*t) + int64(i%6)), repr.NewText(p[2][rng.IntN(100)]), repr.NewInt(int64(10 + i%5))}, Diff: 1}
	}
	return us
}
