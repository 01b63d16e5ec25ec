package server

import (
	"runtime"
	"testing"
)

// TestDefaultWorkers checks the default worker count: one per core the
// process may use, at most one per WorkerMemory of a positive memory
// limit, never fewer than one.
func TestDefaultWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct {
		limit int64
		want  int
	}{
		{0, 4},
		{24 << 20, 1},
		{WorkerMemory, 1},
		{2*WorkerMemory + 1, 2},
		{1 << 30, 4},
	} {
		if got := DefaultWorkers(c.limit); got != c.want {
			t.Errorf("DefaultWorkers(%d) at 4 cores = %d, want %d", c.limit, got, c.want)
		}
	}
}
