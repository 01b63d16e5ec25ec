package storage

import (
	"errors"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestDiskGuard checks the guard's arithmetic: a write is refused with
// 53100 exactly when it would leave less than the floor free, an
// unreadable free space admits it, and the zero guard admits everything.
func TestDiskGuard(t *testing.T) {
	free := int64(100 << 20)
	g := diskGuard{dir: "/data", reserve: 64 << 20, free: func(string) (int64, error) { return free, nil }}
	for _, c := range []struct {
		n, floor int64
		refused  bool
	}{
		{0, 64 << 20, false},
		{36 << 20, 64 << 20, false},
		{36<<20 + 1, 64 << 20, true},
		{68 << 20, 32 << 20, false},
		{69 << 20, 32 << 20, true},
	} {
		err := g.admit(c.n, c.floor)
		if (err != nil) != c.refused {
			t.Errorf("admit(%d, %d) with %d free: %v, want refused=%v", c.n, c.floor, free, err, c.refused)
		}
		if err != nil && repr.ErrorCode(err) != CodeDiskFull {
			t.Errorf("admit refused with %s, want %s", repr.ErrorCode(err), CodeDiskFull)
		}
	}
	g.free = func(string) (int64, error) { return 0, errors.New("statfs failed") }
	if err := g.admit(1<<40, 1<<40); err != nil {
		t.Errorf("an unreadable free space refused a write: %v", err)
	}
	if err := (diskGuard{}).admit(1<<40, 1<<40); err != nil {
		t.Errorf("the zero guard refused a write: %v", err)
	}
	free = 10 << 20
	g.free = func(string) (int64, error) { return free, nil }
	if err := g.checkOpenSpace(); err == nil {
		t.Error("opening with 10 MiB free under a 64 MiB reserve was allowed")
	}
}
