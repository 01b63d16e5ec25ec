package bench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Latencies records durations and reports percentiles. The zero value is
// ready; it is not safe for concurrent use (give each goroutine its own
// and Merge them).
type Latencies struct {
	d      []time.Duration
	sorted bool
}

// Add records one duration.
func (l *Latencies) Add(d time.Duration) {
	l.d = append(l.d, d)
	l.sorted = false
}

// Merge adds every duration recorded by o.
func (l *Latencies) Merge(o *Latencies) {
	l.d = append(l.d, o.d...)
	l.sorted = false
}

// Len returns the number of recorded durations.
func (l *Latencies) Len() int { return len(l.d) }

// Percentile returns the smallest recorded duration d such that at least
// p percent of the durations are <= d (nearest rank), or 0 if none.
func (l *Latencies) Percentile(p float64) time.Duration {
	if len(l.d) == 0 {
		return 0
	}
	if !l.sorted {
		slices.Sort(l.d)
		l.sorted = true
	}
	rank := int(math.Ceil(p / 100 * float64(len(l.d))))
	return l.d[min(max(rank, 1), len(l.d))-1]
}

// Summary returns "n=<count> p50=<..> p99=<..> p99.9=<..> max=<..>".
func (l *Latencies) Summary() string {
	return fmt.Sprintf("n=%d p50=%v p99=%v p99.9=%v max=%v", l.Len(),
		round(l.Percentile(50)), round(l.Percentile(99)), round(l.Percentile(99.9)), round(l.Percentile(100)))
}

// round keeps three significant digits or microsecond precision, so
// summaries stay readable.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d.Round(100 * time.Nanosecond)
}
