package server

import "testing"

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
