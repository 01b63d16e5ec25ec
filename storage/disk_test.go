package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestStamp checks that a stamp reads back as written, that a directory
// without one reports none, and that a damaged one is an error naming it.
func TestStamp(t *testing.T) {
	dir := t.TempDir()
	db := openTest(t, dir)
	if _, ok, err := db.ReadStamp(); ok || err != nil {
		t.Fatalf("a new directory's stamp: ok %v, err %v", ok, err)
	}
	want := Stamp{Checkpoint: 1<<40 + 7, NextID: 1234}
	for _, s := range []Stamp{{Checkpoint: 1, NextID: 1000}, want} {
		if err := db.WriteStamp(s); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := db.ReadStamp()
	if !ok || err != nil || got.Checkpoint != want.Checkpoint || got.NextID != want.NextID || got.Manifest == 0 || got.ManifestSize == 0 {
		t.Fatalf("ReadStamp = %+v, %v, %v; want %+v with the current MANIFEST", got, ok, err, want)
	}
	if err := db.checkManifest(); err != nil {
		t.Fatalf("an intact store fails its MANIFEST check: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, stampFile), []byte("eddystamp1\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.ReadStamp(); err == nil || !strings.Contains(err.Error(), stampFile) {
		t.Fatalf("a truncated stamp: %v, want an error naming %s", err, stampFile)
	}
}

// TestDiskGuardCache checks that a cached reading admits writes far from
// the reserve without reading the free space, but never past twice the
// floor, and that a disk filled by someone else is noticed once the
// reading is older than freshFor.
func TestDiskGuardCache(t *testing.T) {
	free, reads := int64(1<<30), 0
	g := diskGuard{dir: "/data", reserve: 64 << 20, recent: &freeCache{},
		free: func(string) (int64, error) { reads++; return free, nil }}
	for range 10 {
		if err := g.admit(1<<20, g.reserve); err != nil {
			t.Fatal(err)
		}
	}
	if reads != 1 {
		t.Fatalf("%d free-space reads for 10 small writes far from the reserve, want 1", reads)
	}
	if err := g.admit(900<<20, g.reserve); err != nil || reads != 2 {
		t.Fatalf("a write nearing twice the floor: err %v after %d reads; want it read and admitted", err, reads)
	}
	free = 10 << 20 // another process filled the disk
	time.Sleep(freshFor + 10*time.Millisecond)
	if err := g.admit(1, g.reserve); err == nil {
		t.Fatal("a full disk was not noticed after the reading went stale")
	}
}
