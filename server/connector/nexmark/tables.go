package nexmark

import (
	"math/bits"
	"strconv"
	"sync"

	"github.com/eddydb/eddy/server/connector"
)

// The value lists of the person generator (the Nexmark data set).
var (
	firstNames = [...]string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie",
		"Sarah", "Deiter", "Walter"}
	lastNames = [...]string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith",
		"Jones", "Noris"}
	cities = [...]string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend",
		"Redmond", "Seattle", "Kent", "Cheyenne"}
	states = [...]string{"AZ", "CA", "ID", "OR", "WA", "WY"}
)

// fullNames holds every "first last" combination, so a person's name costs
// no allocation.
var fullNames = func() []string {
	out := make([]string, 0, len(firstNames)*len(lastNames))
	for _, f := range firstNames {
		for _, l := range lastNames {
			out = append(out, f+" "+l)
		}
	}
	return out
}()

// poolLen is the length of pool; maxPoolSlice bounds the substrings taken
// from it (the largest padding is below the auction target of 500 bytes
// plus 20%).
const (
	poolLen      = 1<<16 + maxPoolSlice
	maxPoolSlice = 1024
)

// pool is a fixed random text of lowercase letters with a space at each
// position with probability 1/13. Item names, descriptions and extra
// padding are substrings of it at random offsets: the content is random
// enough for every Nexmark query, and taking a substring allocates nothing.
// It is the same for every seed (the offsets depend on the seed).
var pool = func() string {
	r := connector.NewRand(0x6e65786d61726b, 0) // "nexmark"
	b := make([]byte, poolLen)
	for i := range b {
		b[i] = randChar(&r)
	}
	return string(b)
}()

// randChar returns a lowercase letter, or a space with probability 1/13.
func randChar(r *connector.Rand) byte {
	c := r.Int64n(13 * 26)
	if c < 26 {
		return ' '
	}
	return byte('a' + c%26)
}

// poolString returns a substring of pool of the given length (at most
// maxPoolSlice) at a random offset.
func poolString(r *connector.Rand, length int64) string {
	off := r.Int64n(poolLen - length + 1)
	return pool[off : off+length]
}

// Channels of bids.
const (
	numChannels = 10_000
	baseURL     = "https://www.nexmark.com/"
)

// hotChannels are the four named channels half of all bids use.
var hotChannels = [...]string{"Google", "Facebook", "Baidu", "Apple"}

// channelTable holds, for one seed, each channel's name and URL: as in the
// reference generators' channel cache, a channel's URL is a function of its
// number, so a bid's channel and URL are two table lookups.
type channelTable struct {
	hotURLs [len(hotChannels)]string
	names   [numChannels]string
	urls    [numChannels]string
}

// channelTables caches the table of each recently used seed: the three
// sources of one configuration share one table. The cache is bounded.
var channelTables struct {
	sync.Mutex
	m map[uint64]*channelTable
}

// channelsFor returns the channel table of seed, building it on first use.
func channelsFor(seed uint64) *channelTable {
	channelTables.Lock()
	defer channelTables.Unlock()
	if t, ok := channelTables.m[seed]; ok {
		return t
	}
	if channelTables.m == nil || len(channelTables.m) >= 16 {
		channelTables.m = make(map[uint64]*channelTable)
	}
	t := buildChannels(seed)
	channelTables.m[seed] = t
	return t
}

// buildChannels builds the channel table of seed. Each non-hot channel i is
// named "channel-<i>"; its URL is baseURL plus three random 5-letter path
// elements and "item.htm?query=1", and 90% of them carry
// "&channel_id=<bit-reversed i>". Hot channels have fixed URLs without a
// channel id. All strings share one backing array.
func buildChannels(seed uint64) *channelTable {
	r := connector.NewRand(seed^0x6368616e6e656c, -1) // "channel"
	t := &channelTable{}
	buf := make([]byte, 0, 112*(numChannels+len(hotChannels)))
	var spans [numChannels + len(hotChannels)][2]int
	for i := range spans {
		start := len(buf)
		buf = appendURL(buf, &r)
		if i < numChannels && r.Int64n(10) > 0 {
			buf = append(buf, "&channel_id="...)
			buf = strconv.AppendInt(buf, reverseChannel(i), 10)
		}
		spans[i] = [2]int{start, len(buf)}
	}
	all := string(buf)
	for i := range numChannels {
		t.names[i] = "channel-" + strconv.Itoa(i)
		t.urls[i] = all[spans[i][0]:spans[i][1]]
	}
	for i := range hotChannels {
		s := spans[numChannels+i]
		t.hotURLs[i] = all[s[0]:s[1]]
	}
	return t
}

// appendURL appends a random item URL without a channel id.
func appendURL(buf []byte, r *connector.Rand) []byte {
	buf = append(buf, baseURL...)
	for range 3 {
		for range 5 {
			buf = append(buf, byte('a'+r.Int64n(26)))
		}
		buf = append(buf, '/')
	}
	return append(buf, "item.htm?query=1"...)
}

// reverseChannel returns the absolute value of the 32-bit bit reversal of
// channel i, as the reference generators print it.
func reverseChannel(i int) int64 {
	v := int64(int32(bits.Reverse32(uint32(i))))
	if v < 0 {
		v = -v
	}
	return v
}
