package exec

import (
	"maps"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestTimedCloseDeletesRange checks a spilled q7 join keyed by time
// (join_time.go): the watermark that closes the early bids (prices 1, 50
// and 200) reads no stored bid and logs one range deletion of the bids'
// closed buckets, no point deletion; the logged state equals the
// in-memory join's at every checkpoint; a window's change of price 45
// then loads that price's one open bid with one seek into its one
// bucket, and a window of a price
// whose bids all closed reads nothing.
func TestTimedCloseDeletesRange(t *testing.T) {
	defer func(n int) { buildWorkers = n }(buildWorkers)
	buildWorkers = 1
	r, err := newSpillRun(q7Plan, false)
	if err != nil {
		t.Fatal(err)
	}
	if closingJoin(r.sp.ops[3]).tm == nil {
		t.Fatal("q7's join is not keyed by time")
	}
	const sec = 1000 * usPerMs
	bid := func(id, price, ts int64) repr.Update {
		return repr.Update{Row: repr.Row{repr.NewInt(id), repr.NewInt(price), repr.NewTimestamp(ts)}, Diff: 1}
	}
	var first []repr.Update
	for i := range int64(5) {
		first = append(first, bid(i, 1, (i+1)*usPerMs))
	}
	first = append(first, bid(10, 50, 6*usPerMs), bid(11, 200, 7*usPerMs))
	for p := int64(2); p <= 45; p++ {
		first = append(first, bid(100+p, p, 25*sec))
	}
	sc := &scanCounter{StateReader: r.spStore, node: nodePrefix(nil, 3), scans: map[byte]int{}, rows: map[byte]int{}}
	steps := []struct {
		bids              []repr.Update
		wm                int64
		scans, rows       int // of the bids (tag 5) in this Step
		ranges, pointDels int // logged for the bids
	}{
		// The first close logs a range from the lowest bucket on.
		{bids: first, ranges: 1},
		{},
		{wm: 20 * sec, ranges: 1},
		// A bid of price 46 in the open window replaces its max of 45,
		// whose retraction loads price 45's open bid; one of price 1 in
		// a later window loads price 1, whose bids all closed: no read.
		{bids: []repr.Update{bid(2000, 46, 26*sec), bid(2001, 1, 35*sec)}, wm: 20 * sec, scans: 1, rows: 1},
	}
	bidTag := string(nodePrefix(nil, 3)) + "\x05"
	for i, st := range steps {
		if i == 1 && !r.sp.SpillNode(3, sc, 1<<20) {
			t.Fatal("the join did not spill")
		}
		for j := range st.bids {
			st.bids[j].Time = uint64(i + 1)
		}
		scans, rows := sc.scans[5], sc.rows[5]
		in := Input{Updates: map[repr.CollectionID][]repr.Update{1: st.bids}, Watermarks: map[repr.CollectionID]int64{1: st.wm}}
		if err := r.feed(uint64(i+1), in, false); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if got, want := [2]int{sc.scans[5] - scans, sc.rows[5] - rows}, [2]int{st.scans, st.rows}; got != want {
			t.Errorf("step %d: %d scans of the bids reading %d rows, want %d and %d", i+1, got[0], got[1], want[0], want[1])
		}
		var ranges, dels int
		for _, op := range r.spPend.ops {
			switch {
			case op.ranged && string(op.key[:len(bidTag)]) == bidTag:
				ranges++
			case op.del && !op.ranged && len(op.key) > len(bidTag) && string(op.key[:len(bidTag)]) == bidTag:
				dels++
			}
		}
		if ranges != st.ranges || dels != st.pointDels {
			t.Errorf("step %d: %d range and %d point deletions of bids logged, want %d and %d", i+1, ranges, dels, st.ranges, st.pointDels)
		}
		r.memPend.apply(r.memStore)
		r.spPend.apply(r.spStore)
		r.memPend.ops, r.spPend.ops = nil, nil
		if !maps.EqualFunc(r.memStore.m, r.spStore.m, func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Fatalf("step %d: stores differ: in memory %d keys, spilled %d keys", i+1, len(r.memStore.m), len(r.spStore.m))
		}
		r.sp.Flushed()
	}
	stored := 0
	for k := range r.spStore.m {
		if len(k) > len(bidTag) && k[:len(bidTag)] == bidTag {
			stored++
		}
	}
	if stored != 44+2 {
		t.Errorf("%d bids stored, want the 46 open ones", stored)
	}
}
