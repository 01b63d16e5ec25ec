package storage

import (
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/eddydb/eddy/repr"
)

// Disk space.
//
// Pebble cannot survive a failed WAL write: its commit pipeline is left
// broken and it exits the process (a Fatalf). So Eddy never lets a write
// reach Pebble when the data directory's file system is nearly full: a
// guard reads the free space (statfs, a cheap system call, once per commit
// or group of commits, next to an fsync that costs a thousand times more)
// and refuses a write that would leave less than half the reserve free,
// with SQLSTATE 53100, before anything is written. Callers that apply
// changes in memory before their durable write ask CheckSpace first, which
// refuses below the whole reserve: the other half is the margin for the
// batches then written, for memtable flushes and for compactions, which
// also need room while writes are refused. Once space is freed, writes
// simply succeed again. The reserve is a setting (Options.DiskReserve);
// the guard is off for in-memory file systems (tests' crash simulation).

// CodeDiskFull is PostgreSQL's disk_full SQLSTATE.
const CodeDiskFull = "53100"

// diskGuard checks the free space of the data directory's file system.
// The zero value (no dir) admits everything.
type diskGuard struct {
	dir     string
	reserve int64
	// free reports the bytes available to the process (statfs by default;
	// tests substitute their own).
	free func(dir string) (int64, error)
	// recent, when set, lets a write skip the statfs (see freeCache).
	recent *freeCache
}

// freeCache remembers the last free-space reading, so that writes far
// from the reserve skip the system call: within freshFor of a reading,
// a write is admitted without one while the bytes admitted since leave
// more than twice the floor of the reading. Another process filling the
// disk is then noticed within freshFor.
type freeCache struct {
	mu    sync.Mutex
	at    time.Time
	free  int64
	since int64
}

// freshFor is how long a free-space reading is trusted.
const freshFor = 50 * time.Millisecond

// admitCached admits n bytes on a fresh reading with room to spare.
func (c *freeCache) admitCached(n, floor int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) > freshFor || c.free-c.since-n < 2*floor {
		return false
	}
	c.since += n
	return true
}

// note records a reading taken just before admitting n bytes.
func (c *freeCache) note(free, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at, c.free, c.since = time.Now(), free, n
}

// newDiskGuard returns the guard for dir on fs: off unless fs is the
// operating system's.
func newDiskGuard(dir string, fs vfs.FS, reserve int64) diskGuard {
	if fs != vfs.Default || reserve <= 0 {
		return diskGuard{}
	}
	return diskGuard{dir: dir, reserve: reserve, free: statfsFree, recent: &freeCache{}}
}

// statfsFree returns the bytes available to unprivileged writers on the
// file system holding dir.
func statfsFree(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// admit returns a 53100 error if writing n more bytes would leave less
// than floor bytes free. An error reading the free space admits the write
// (the guard must never be the reason a healthy server stops writing).
func (g diskGuard) admit(n, floor int64) error {
	if g.free == nil || g.recent != nil && g.recent.admitCached(n, floor) {
		return nil
	}
	free, err := g.free(g.dir)
	if err != nil || free-n >= floor {
		if err == nil && g.recent != nil {
			g.recent.note(free, n)
		}
		return nil
	}
	return repr.Errorf(CodeDiskFull, "could not write to the data directory: its disk is full").
		WithDetail("%d MiB free on the file system of %s; a write of %d KiB would leave less than the %d MiB Eddy keeps in reserve.",
			free>>20, g.dir, (n+1023)>>10, floor>>20).
		WithHint("Free disk space; writes resume by themselves. Reads keep working.")
}

// CheckSpace returns a 53100 error when the data directory's free space
// is below the whole reserve. Call it before applying changes in memory
// whose durable write must not then fail (see Disk space).
func (db *DB) CheckSpace() error {
	return db.disk.admit(0, db.disk.reserve)
}

// CheckWrite returns a 53100 error when writing n bytes would leave less
// than half the reserve free: Commit's own check, for callers that must
// know before they add to a batch they keep on failure.
func (db *DB) CheckWrite(n int) error {
	return db.disk.admit(int64(n), db.disk.reserve/2)
}

// checkOpenSpace refuses to open a store whose file system has less than
// half the reserve free: replaying the log and flushing it would fail
// inside Pebble, which then exits; a clear error is better.
func (g diskGuard) checkOpenSpace() error {
	if err := g.admit(0, g.reserve/2); err != nil {
		e := repr.ErrorFrom(err)
		return fmt.Errorf("storage: %s: %s %s", g.dir, e.Message, e.Detail)
	}
	return nil
}
