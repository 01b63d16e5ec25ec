package kafka

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// rangeIdle is how long ReadRange waits for a record before it asks the
// brokers whether a partition it has not finished has anything left.
const rangeIdle = time.Second

// EarliestOffsets returns the earliest retained offset of each partition
// of cfg.Topic: records before it were deleted by retention.
func EarliestOffsets(ctx context.Context, cfg Config) (map[int32]int64, error) {
	cl, err := kgo.NewClient(cfg.clientOpts()...)
	if err != nil {
		return nil, errBroker("creating client", err)
	}
	defer cl.Close()
	parts, err := partitions(ctx, cl, cfg.Topic)
	if err != nil {
		return nil, err
	}
	return listOffsets(ctx, cl, cfg, parts, -2)
}

// ReadRange reads every partition p of cfg.Topic from offset from[p] up to
// (not including) offset to[p], calling fn with the records of each poll
// in order (a partition missing from to, or with to[p] <= from[p], is not
// read). It reads exactly what a Reader started at from returns before its
// Positions reach to, so a source can read a range it consumed before
// again. A partition whose end (its last stable offset) is reached before
// to[p] (compaction or deletion removed the tail) ends there.
func ReadRange(ctx context.Context, cfg Config, from, to map[int32]int64, fn func([]Record) error) error {
	start := map[int32]int64{}
	for p, end := range to {
		if o := from[p]; o < end {
			start[p] = o
		}
	}
	if len(start) == 0 {
		return nil
	}
	r, err := newReaderAt(cfg, start)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		open := r.unfinished(to)
		if len(open) == 0 {
			return nil
		}
		pctx, cancel := context.WithTimeout(ctx, rangeIdle)
		recs, err := r.Poll(pctx, 0)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		if len(recs) == 0 {
			if done, err := r.drained(ctx, open); err != nil || done {
				return err
			}
			continue
		}
		if err := fn(slices.DeleteFunc(recs, func(rec Record) bool { return rec.Offset >= to[rec.Partition] })); err != nil {
			return err
		}
	}
}

// unfinished returns the partitions whose position is still before to.
func (r *Reader) unfinished(to map[int32]int64) []int32 {
	next := r.Positions()
	var out []int32
	for p, o := range next {
		if o < to[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// drained reports whether every partition of parts has been read to its
// end (nothing more can arrive below the range's end).
func (r *Reader) drained(ctx context.Context, parts []int32) (bool, error) {
	end, err := listOffsets(ctx, r.cl, r.cfg, parts, -1)
	if err != nil {
		return false, err
	}
	next := r.Positions()
	for _, p := range parts {
		if next[p] < end[p] {
			return false, nil
		}
	}
	return true, nil
}
