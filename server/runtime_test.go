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
		{256 * mib, 100 * mib, 256 * mib * 3 / 4},
		{64 * mib, 40 * mib, 64 * mib * 3 / 4},
	} {
		if got := heapLimit(c.budget, c.outside); got != c.want {
			t.Errorf("heapLimit(%d MiB, %d MiB) = %.1f MiB, want %.1f MiB", c.budget/mib, c.outside/mib,
				float64(got)/mib, float64(c.want)/mib)
		}
	}
}

// TestMemoryFit checks that a memoryFit sets the soft memory limit to
// what it returns: the budget less the memory outside Go, with the store
// counted at its bound while it holds less, and at what it holds beyond
// it (zombie memtables), within minHeapFraction of the budget; and that
// the memory outside both Go and the store counts at the most seen.
func TestMemoryFit(t *testing.T) {
	if ResidentBytes() == 0 {
		t.Skip("no /proc/self/statm")
	}
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	const budget, bound = 64 << 30, 8 << 30
	f := &memoryFit{budget: budget, storeBound: bound}
	got := f.fit(0)
	if now := debug.SetMemoryLimit(-1); now != got {
		t.Fatalf("fit returned %d, the soft limit is %d", got, now)
	}
	if other := budget - bound - got; other != f.other || other <= 0 || other > 1<<30 {
		t.Fatalf("fit(0) = %d: want the budget less the store's bound and the process's %d bytes outside Go", got, f.other)
	}
	if beyond := f.fit(bound + 1<<30); beyond >= got {
		t.Fatalf("a store 1 GiB past its bound left the limit at %d (it was %d)", beyond, got)
	}
	f.other += 1 << 30 // as if once seen: it stays counted
	if again := f.fit(0); again != got-1<<30 {
		t.Fatalf("fit(0) = %d after 1 GiB more was seen outside Go, want %d", again, got-1<<30)
	}
	if small := (&memoryFit{budget: 64 << 20, storeBound: 16 << 20}).fit(0); small != 48<<20 {
		t.Fatalf("fit under a 64 MiB budget = %d, want minHeapFraction of it", small)
	}
}
