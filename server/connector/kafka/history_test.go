package kafka

import (
	"slices"
	"testing"
)

// TestReadRange reads offset ranges of two partitions again: exactly the
// records between the bounds, a partition whose range is empty not at
// all; EarliestOffsets is 0 before any deletion.
func TestReadRange(t *testing.T) {
	cfg := newCluster(t, 2)
	produce(t, cfg, 2, 6, "r")
	ctx := testCtx(t)
	var got []string
	err := ReadRange(ctx, cfg, map[int32]int64{0: 2, 1: 0}, map[int32]int64{0: 5, 1: 3}, func(recs []Record) error {
		got = append(got, values(recs)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"r-p0-2", "r-p0-3", "r-p0-4", "r-p1-0", "r-p1-1", "r-p1-2"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	got = nil
	if err := ReadRange(ctx, cfg, map[int32]int64{0: 4, 1: 3}, map[int32]int64{0: 4, 1: 3}, func(recs []Record) error {
		got = append(got, values(recs)...)
		return nil
	}); err != nil || got != nil {
		t.Fatalf("an empty range read %v (%v)", got, err)
	}
	early, err := EarliestOffsets(ctx, cfg)
	if err != nil || early[0] != 0 || early[1] != 0 {
		t.Fatalf("EarliestOffsets: %v %v", early, err)
	}
}

// TestReadRangeTransactions: under read_committed a range that spans
// aborted records and transaction markers ends where a Reader's position
// reached, returning only the committed records.
func TestReadRangeTransactions(t *testing.T) {
	cfg := newCluster(t, 1)
	p, err := NewProducer(cfg, ProducerOptions{TransactionalID: "t-1", ManualPartitions: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := testCtx(t)
	for i, commit := range []bool{false, true, false, true} {
		if err := p.Begin(); err != nil {
			t.Fatal(err)
		}
		if err := p.Produce(ctx, Record{Value: []byte{'a' + byte(i)}}); err != nil {
			t.Fatal(err)
		}
		end := p.Abort
		if commit {
			end = p.Commit
		}
		if err := end(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewReader(ctx, cfg, map[int32]int64{0: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	live := values(pollN(t, r, 2, 100))
	var got []string
	if err := ReadRange(ctx, cfg, map[int32]int64{0: 0}, r.Positions(), func(recs []Record) error {
		got = append(got, values(recs)...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, live) || !slices.Equal(got, []string{"b", "d"}) {
		t.Fatalf("range read %v, the reader %v, want [b d]", got, live)
	}
}
