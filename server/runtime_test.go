package server

import (
	"runtime/debug"
	"testing"
)

// TestParseByteSize checks the units --memory-limit accepts and refuses.
func TestParseByteSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"1048576", 1 << 20}, {"64MiB", 64 << 20}, {"8GiB", 8 << 30}, {"1.5GB", 1_500_000_000},
		{"512 mib", 512 << 20}, {"2k", 2 << 10}, {"10kB", 10_000},
	} {
		got, err := ParseByteSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "GiB", "-1GiB", "8 furlongs", "1e30TiB"} {
		if n, err := ParseByteSize(in); err == nil {
			t.Errorf("ParseByteSize(%q) = %d, want an error", in, n)
		}
	}
}

// TestDefaultMemoryLimit checks that the default budget is positive and
// below physical memory on a Linux machine.
func TestDefaultMemoryLimit(t *testing.T) {
	total := PhysicalMemory()
	if total == 0 {
		t.Skip("no /proc/meminfo")
	}
	n, from := DefaultMemoryLimit()
	if n <= 0 || uint64(n) > total {
		t.Errorf("DefaultMemoryLimit() = %d (%s), physical memory %d", n, from, total)
	}
}

// TestHeapLimit checks that the soft memory limit is the budget less the
// memory outside Go, within minHeapFraction of the budget.
func TestHeapLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ budget, outside, want int64 }{
		{256 * mib, 35 * mib, 221 * mib},
		{256 * mib, 0, 256 * mib},
		{256 * mib, -5 * mib, 256 * mib}, // Go holds memory not yet resident
		{256 * mib, 100 * mib, 256 * mib * 8 / 10},
		{64 * mib, 40 * mib, 64 * mib * 8 / 10},
	} {
		if got := heapLimit(c.budget, c.outside); got != c.want {
			t.Errorf("heapLimit(%d MiB, %d MiB) = %.1f MiB, want %.1f MiB", c.budget/mib, c.outside/mib,
				float64(got)/mib, float64(c.want)/mib)
		}
	}
}

// TestFitMemoryLimit checks that fitMemoryLimit sets the soft memory
// limit to what it returns, within the budget and minHeapFraction of it.
func TestFitMemoryLimit(t *testing.T) {
	if ResidentBytes() == 0 {
		t.Skip("no /proc/self/statm")
	}
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	const budget = 64 << 30
	got := fitMemoryLimit(budget)
	if now := debug.SetMemoryLimit(-1); now != got {
		t.Fatalf("fitMemoryLimit returned %d, the soft limit is %d", got, now)
	}
	if got > budget || got < budget*8/10 {
		t.Fatalf("fitMemoryLimit(%d) = %d: want within the budget and minHeapFraction of it", int64(budget), got)
	}
}
