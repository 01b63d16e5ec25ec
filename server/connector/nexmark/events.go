package nexmark

import (
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// Event sizes, which the extra column pads to a target, count 8 bytes per
// integer or timestamp column plus the length of each string column other
// than extra; as in the reference generators, a bid's channel and url are
// not counted (so a bid's extra averages 68 bytes).

// person writes person event n.
func (g *Generator) person(n int64, r *connector.Rand, row repr.Row) {
	name := fullNames[r.Int64n(int64(len(fullNames)))]
	email := emailAddress(r)
	card := creditCard(r)
	city := cities[r.Int64n(int64(len(cities)))]
	state := states[r.Int64n(int64(len(states)))]
	size := int64(8*2 + len(name) + len(email) + len(card) + len(city) + len(state))
	row[0] = repr.NewInt(lastPerson(n) + firstPersonID)
	row[1] = repr.NewText(name)
	row[2] = repr.NewText(email)
	row[3] = repr.NewText(card)
	row[4] = repr.NewText(city)
	row[5] = repr.NewText(state)
	row[6] = timestamp(g.cfg.EventTime(n))
	row[7] = repr.NewText(extra(r, size, personSize))
}

// emailAddress returns 7 random letters + "@" + 5 random letters + ".com".
func emailAddress(r *connector.Rand) string {
	var b [17]byte
	for i := range 7 {
		b[i] = byte('a' + r.Int64n(26))
	}
	b[7] = '@'
	for i := 8; i < 13; i++ {
		b[i] = byte('a' + r.Int64n(26))
	}
	copy(b[13:], ".com")
	return string(b[:])
}

// creditCard returns four space-separated groups of four random digits.
func creditCard(r *connector.Rand) string {
	var b [19]byte
	for g := range 4 {
		v := r.Int64n(10000)
		for i := 3; i >= 0; i-- {
			b[g*5+i] = byte('0' + v%10)
			v /= 10
		}
		if g < 3 {
			b[g*5+4] = ' '
		}
	}
	return string(b[:])
}

// auction writes auction event n.
func (g *Generator) auction(n int64, r *connector.Rand, row repr.Row) {
	t := g.cfg.EventTime(n)
	item := poolString(r, 3+r.Int64n(18))
	desc := poolString(r, 3+r.Int64n(98))
	initial := price(r)
	reserve := initial + price(r)
	horizon := g.cfg.EventTime(n+horizonEvents) - t
	expires := t + 1 + r.Int64n(max(2*horizon, 1))
	seller := lastPerson(n) / hotRatio * hotRatio
	if r.Int64n(4) == 0 {
		seller = randomPerson(n, r)
	}
	row[0] = repr.NewInt(lastAuction(n) + firstAuctionID)
	row[1] = repr.NewText(item)
	row[2] = repr.NewText(desc)
	row[3] = repr.NewInt(initial)
	row[4] = repr.NewInt(reserve)
	row[5] = timestamp(t)
	row[6] = timestamp(expires)
	row[7] = repr.NewInt(seller + firstPersonID)
	row[8] = repr.NewInt(firstCategoryID + r.Int64n(numCategories))
	row[9] = repr.NewText(extra(r, int64(8*7+len(item)+len(desc)), auctionSize))
}

// bid writes bid event n.
func (g *Generator) bid(n int64, r *connector.Rand, row repr.Row) {
	auction := lastAuction(n) / hotRatio * hotRatio
	if r.Int64n(2) == 0 {
		auction = randomAuction(n, r)
	}
	bidder := lastPerson(n)/hotRatio*hotRatio + 1
	if r.Int64n(4) == 0 {
		bidder = randomPerson(n, r)
	}
	var channel, url string
	if r.Int64n(2) == 0 {
		i := r.Int64n(int64(len(hotChannels)))
		channel, url = hotChannels[i], g.channels.hotURLs[i]
	} else {
		i := r.Int64n(numChannels)
		channel, url = g.channels.names[i], g.channels.urls[i]
	}
	row[0] = repr.NewInt(auction + firstAuctionID)
	row[1] = repr.NewInt(bidder + firstPersonID)
	row[2] = repr.NewInt(price(r))
	row[3] = repr.NewText(channel)
	row[4] = repr.NewText(url)
	row[5] = timestamp(g.cfg.EventTime(n))
	row[6] = repr.NewText(extra(r, 8*4, bidSize))
}
