package nexmark

import (
	"math"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// The event mix: per block of 50 consecutive events, 1 person, 3 auctions
// and 46 bids, in that order.
const (
	proportionTotal   = 50
	personProportion  = 1
	auctionProportion = 3
)

// Generator constants of the reference generators.
const (
	firstPersonID    = 1000
	firstAuctionID   = 1000
	firstCategoryID  = 10
	numCategories    = 5
	activePeople     = 1000 // random bidders and sellers come from the last 1000 persons
	inFlightAuctions = 100  // random bids go to the last 100 auctions
	leadIDs          = 10   // ids just past the last one may be drawn too
	hotRatio         = 100  // hot ids are multiples of 100
)

// Average sizes each event type is padded to (by its extra column), ±20%.
const (
	personSize  = 200
	auctionSize = 500
	bidSize     = 100
)

// horizonEvents is how many events it takes until inFlightAuctions more
// auctions exist: an auction's expiry is drawn from twice that span.
const horizonEvents = inFlightAuctions * proportionTotal / auctionProportion

// pgEpochMs is 2000-01-01 (PostgreSQL's timestamp epoch) in Unix ms.
const pgEpochMs = 946_684_800_000

// Generator produces the Nexmark event sequence of one Config. It is not
// safe for concurrent use; each source runs its own.
type Generator struct {
	cfg      Config
	next     int64
	channels *channelTable
}

// New returns a generator at event 0.
func New(cfg Config) *Generator { return NewAt(cfg, 0) }

// NewAt returns a generator whose first event is number next: it yields the
// same events as New(cfg) after next calls to Next. O(1) in next.
func NewAt(cfg Config, next int64) *Generator {
	if cfg.EventRate <= 0 {
		cfg.EventRate = DefaultEventRate
	}
	return &Generator{cfg: cfg, next: max(next, 0), channels: channelsFor(cfg.Seed)}
}

// Position returns the number of the next event Next will produce: the
// offset a source stores to resume with NewAt.
func (g *Generator) Position() int64 { return g.next }

// TypeOf returns the type of event number n: a pure function of n.
func TypeOf(n int64) TableType {
	switch r := n % proportionTotal; {
	case r < personProportion:
		return Person
	case r < personProportion+auctionProportion:
		return Auction
	}
	return Bid
}

// EventTime returns the event time of event n in ms since the Unix epoch:
// BaseTime + floor(n * 1000 / EventRate), i.e. events spaced by
// 1e6/EventRate µs (one generator), computed without overflow.
func (c Config) EventTime(n int64) int64 {
	rate := c.EventRate
	if rate <= 0 {
		rate = DefaultEventRate
	}
	return c.BaseTime + (n/rate)*1000 + (n%rate)*1000/rate
}

// Next produces the next event of the sequence, writing the row of the
// event's own table into row (reusing its backing array when its capacity
// suffices), and returns the event's type; it returns false, leaving row
// alone, once NumEvents events have been produced.
func (g *Generator) Next(row *repr.Row) (TableType, bool) {
	n := g.next
	if g.cfg.NumEvents > 0 && n >= g.cfg.NumEvents {
		return 0, false
	}
	g.next++
	t := TypeOf(n)
	g.fill(t, n, row)
	return t, true
}

// NextOf skips to the next event of type t, writes its row and returns its
// number; false when NumEvents is reached first. The skipped events are not
// generated (each event is independent), so a source that keeps one type
// pays only for its own events.
func (g *Generator) NextOf(t TableType, row *repr.Row) (int64, bool) {
	n := nextOfType(t, g.next)
	if g.cfg.NumEvents > 0 && n >= g.cfg.NumEvents {
		g.next = max(g.next, g.cfg.NumEvents)
		return 0, false
	}
	g.next = n + 1
	g.fill(t, n, row)
	return n, true
}

// SkipOf moves the generator past the next m events of type t without
// generating them, in O(1): afterwards it is where m calls of NextOf(t)
// would leave it (at NumEvents if the sequence ends first). A source that
// generates one batch in parts starts part k's generator with
// NewAt(cfg, p).SkipOf(t, rows before part k).
func (g *Generator) SkipOf(t TableType, m int64) {
	if m <= 0 {
		return
	}
	last := nthOfType(t, countOfType(t, g.next)+m-1)
	if g.cfg.NumEvents > 0 && last >= g.cfg.NumEvents {
		g.next = max(g.next, g.cfg.NumEvents)
		return
	}
	g.next = last + 1
}

// typeSpan returns where events of type t begin within each block of
// proportionTotal events, and how many of them a block holds.
func typeSpan(t TableType) (off, k int64) {
	switch t {
	case Person:
		return 0, personProportion
	case Auction:
		return personProportion, auctionProportion
	}
	return personProportion + auctionProportion, proportionTotal - personProportion - auctionProportion
}

// countOfType returns how many events of type t precede event n.
func countOfType(t TableType, n int64) int64 {
	off, k := typeSpan(t)
	return n/proportionTotal*k + min(max(n%proportionTotal-off, 0), k)
}

// nthOfType returns the number of the event of type t that has i events of
// type t before it: the inverse of countOfType.
func nthOfType(t TableType, i int64) int64 {
	off, k := typeSpan(t)
	return i/k*proportionTotal + off + i%k
}

// nextOfType returns the smallest event number >= n of type t.
func nextOfType(t TableType, n int64) int64 {
	for TypeOf(n) != t {
		if t == Bid {
			n = n - n%proportionTotal + personProportion + auctionProportion
		} else {
			n++
		}
	}
	return n
}

// fill writes event n, of type t, into row.
func (g *Generator) fill(t TableType, n int64, row *repr.Row) {
	r := connector.NewRand(g.cfg.Seed, n)
	switch t {
	case Person:
		g.person(n, &r, resize(row, len(personColumns)))
	case Auction:
		g.auction(n, &r, resize(row, len(auctionColumns)))
	default:
		g.bid(n, &r, resize(row, len(bidColumns)))
	}
}

// resize sets *row to length n, reusing its array when large enough.
func resize(row *repr.Row, n int) repr.Row {
	if cap(*row) >= n {
		*row = (*row)[:n]
	} else {
		*row = make(repr.Row, n)
	}
	return *row
}

// timestamp converts Unix ms to a timestamp datum.
func timestamp(ms int64) repr.Datum {
	return repr.NewTimestamp((ms - pgEpochMs) * 1000)
}

// lastPerson returns the base-0 id of the last person created at or before
// event n.
func lastPerson(n int64) int64 { return n / proportionTotal }

// lastAuction returns the base-0 id of the last auction created at or
// before event n (-1 before the first).
func lastAuction(n int64) int64 {
	epoch, off := n/proportionTotal, n%proportionTotal
	switch {
	case off < personProportion:
		epoch--
		off = auctionProportion - 1
	case off >= personProportion+auctionProportion:
		off = auctionProportion - 1
	default:
		off -= personProportion
	}
	return epoch*auctionProportion + off
}

// randomPerson returns a base-0 person id among the last activePeople
// persons or up to leadIDs past the last one.
func randomPerson(n int64, r *connector.Rand) int64 {
	num := lastPerson(n) + 1
	active := min(num, activePeople)
	return num - active + r.Int64n(active+leadIDs)
}

// randomAuction returns a base-0 auction id among the last inFlightAuctions
// auctions or up to leadIDs past the last one.
func randomAuction(n int64, r *connector.Rand) int64 {
	hi := lastAuction(n)
	lo := max(hi-inFlightAuctions, 0)
	return lo + r.Int64n(hi-lo+1+leadIDs)
}

// price returns a log-uniform price in cents from 100 to 100,000,000:
// round(10^(6U) * 100).
func price(r *connector.Rand) int64 {
	return int64(math.Round(math.Exp(r.Float64()*6*math.Ln10) * 100))
}

// extra returns the padding that brings an event of the given size to
// target ±20% (of the missing part): empty when size already reaches it.
func extra(r *connector.Rand, size, target int64) string {
	if size >= target {
		return ""
	}
	want := target - size
	delta := (want + 2) / 5
	return poolString(r, want-delta+r.Int64n(2*delta+1))
}
