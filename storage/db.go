package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configures Open. The zero value gives defaults sized for a
// 2-core machine with 24 GiB of memory.
type Options struct {
	// CacheSize is the block cache size in bytes (default 1 GiB). Hot table
	// and view rows also live in Collections, so the cache mostly serves
	// operator state and restarts.
	CacheSize int64
	// MemTableSize is the size of one memtable in bytes (default
	// DefaultMemTableSize). Larger memtables mean fewer flushes and less
	// write amplification for state that is overwritten often, and state
	// that is written and deleted within one memtable (a window's rows,
	// range-deleted when it closes) is never flushed at all.
	MemTableSize uint64
	// MaxCompactions bounds concurrent compactions (default 1, leaving the
	// other core to the dataflows).
	MaxCompactions int
	// Logger receives Pebble's log messages (default slog.Default()).
	Logger *slog.Logger
	// FS is the file system (default the OS's). Tests use
	// vfs.NewCrashableMem to simulate power loss.
	FS vfs.FS
	// DiskReserve is the free space in bytes below which writes are
	// refused with 53100 (see Disk space in disk.go; default twice the
	// memtable size plus 64 MiB; negative: no guard).
	DiskReserve int64
	// BatchKeep bounds the spare memory a batch keeps for reuse when it
	// is reset (default and most: 16 MiB). A store under a small memory
	// budget keeps less: the spares stand between checkpoints.
	BatchKeep int
}

// DefaultMemTableSize is the default size of one memtable: 256 MiB, so
// that the state a streaming view writes and deletes again within seconds
// dies in the memtable. Nexmark q7 keeps each bid of an open 10-second
// window as interval-join state (about 250 MB of writes per million
// events at 230 bytes a bid) and range-deletes it when the window
// closes: with 64 MiB memtables nearly every bid was flushed to L0 and
// then rewritten by a compaction that dropped it; with 256 MiB many die
// in the memtable (2M events: 324 MB flushed instead of 517 MB, 0.93 GB
// written to sstables instead of 1.3 GB; BENCHMARKS.md, "256 MiB
// memtables"). The cost is memory outside the Go heap (up to two
// memtables while one flushes), WAL files preallocated at 110% of it,
// and a longer WAL replay after a crash; a memory budget shrinks it
// (sql's storeOptions).
const DefaultMemTableSize = 256 << 20

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	if o.CacheSize <= 0 {
		o.CacheSize = 1 << 30
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = DefaultMemTableSize
	}
	if o.MaxCompactions <= 0 {
		o.MaxCompactions = 1
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.DiskReserve == 0 {
		o.DiskReserve = 2*int64(o.MemTableSize) + 64<<20
	}
	return o
}

// DB is Eddy's durable store. It is safe for concurrent use.
type DB struct {
	pdb  *pebble.DB
	dir  string
	fs   vfs.FS
	disk diskGuard
	// snap, when not nil, makes this DB a read-only view of the store at
	// one moment (NewSnapshot): Get and the scans of spilled collections
	// read it instead of the live store.
	snap *pebble.Snapshot
	// iters keeps spilled collections' idle iterators (iters.go).
	iters iterCache
	// async is the batch pending in CommitAsync (async.go).
	async asyncState
	// batchKeep is Options.BatchKeep, for the batches it makes.
	batchKeep int
}

// reader returns what reads go to: the snapshot, or the live store.
func (db *DB) reader() pebble.Reader {
	if db.snap != nil {
		return db.snap
	}
	return db.pdb
}

// NewSnapshot returns a read-only DB that sees the store as it is now,
// whatever is committed later (a Pebble snapshot: it pins the versions
// it sees until Close). Only reads (Get, Scan, spilled collections'
// reads) may use it.
func (db *DB) NewSnapshot() *DB {
	_ = db.WaitPending() // a failed commit breaks its writer, which reports it
	return &DB{pdb: db.pdb, dir: db.dir, fs: db.fs, snap: db.pdb.NewSnapshot(), batchKeep: db.batchKeep}
}

// CloseSnapshot releases a DB returned by NewSnapshot; it does nothing
// for the live store or a nil DB.
func (db *DB) CloseSnapshot() error {
	if db == nil || db.snap == nil {
		return nil
	}
	db.releaseIters(true)
	err := db.snap.Close()
	db.snap = nil
	return err
}

// ErrLocked is returned (wrapped) by Open when another process, or another
// DB in this process, already holds the directory.
var ErrLocked = errors.New("storage: data directory is in use by another Eddy process")

// Open opens (creating if needed) the store in dir.
func Open(dir string, opts Options) (*DB, error) {
	opts = opts.withDefaults()
	if err := opts.FS.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: creating %s: %w", dir, err)
	}
	disk := newDiskGuard(dir, opts.FS, opts.DiskReserve)
	if err := disk.checkOpenSpace(); err != nil {
		return nil, err
	}
	if err := (&DB{dir: dir, fs: opts.FS}).checkManifest(); err != nil {
		return nil, err
	}
	cache := pebble.NewCache(opts.CacheSize)
	defer cache.Unref() // Pebble holds its own reference while open.
	maxComp := opts.MaxCompactions
	po := &pebble.Options{
		Cache:                      cache,
		MemTableSize:               opts.MemTableSize,
		FS:                         opts.FS,
		Logger:                     slogAdapter{opts.Logger},
		FormatMajorVersion:         pebble.FormatNewest,
		CompactionConcurrencyRange: func() (int, int) { return 1, maxComp },
		// Pebble is write-mostly here: collections and operator state
		// live in memory and are read back only at restart, so the LSM is
		// shaped for write amplification, not read cost: more L0 files
		// before a compaction and a large base level (fewer levels for
		// every byte to be rewritten through).
		L0CompactionThreshold: 16,
		L0StopWritesThreshold: 64,
		LBaseMaxBytes:         2 << 30,
	}
	// No level is compressed: below the 2 GiB base level the base is L6
	// itself, and spilled operator state churns through it (every spilled
	// join row is written, rewritten by each L0 compaction while open, and
	// deleted), so compressing it costs CPU at every compaction and every
	// read of a spilled row (q7 under 256 MiB: 16% of the CPU of its
	// compactions), for disk space only.
	po.ApplyCompressionSettings(writeMostlyCompression)
	pdb, err := pebble.Open(dir, po)
	if err != nil {
		if isLockErr(err) {
			return nil, fmt.Errorf("%w: %s (%v)", ErrLocked, dir, err)
		}
		return nil, fmt.Errorf("storage: opening %s: %w", dir, err)
	}
	return &DB{pdb: pdb, dir: dir, fs: opts.FS, disk: disk, batchKeep: opts.BatchKeep}, nil
}

// writeMostlyCompression leaves every level uncompressed: with reads
// only at restart or of spilled state, compressing data that the next
// compaction rewrites costs CPU for nothing.
func writeMostlyCompression() pebble.DBCompressionSettings {
	cs := pebble.UniformDBCompressionSettings(block.NoCompression)
	cs.Name = "write-mostly"
	return cs
}

// isLockErr reports whether err is Pebble failing to take the LOCK file:
// fcntl's EAGAIN/EACCES from another process, or Pebble's in-process check.
func isLockErr(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) ||
		strings.Contains(err.Error(), "lock held by current process")
}

// Close flushes nothing (every commit is already synced) and releases the
// directory.
func (db *DB) Close() error {
	_ = db.WaitPending() // its writer saw or will see the error
	db.releaseIters(true)
	if err := db.pdb.Close(); err != nil {
		return fmt.Errorf("storage: closing %s: %w", db.dir, err)
	}
	return nil
}

// Commit applies b atomically and durably: it returns nil only once b is
// in the synced WAL. Concurrent Commits share fsyncs. b may be reset and
// reused afterwards. A write that would leave less than half the disk
// reserve free fails with 53100 and writes nothing (see Disk space). A
// batch pending in CommitAsync lands first (Commit waits for it, and
// fails with its error), unless b is Independent (async.go).
func (db *DB) Commit(b *Batch) error {
	if b.err != nil {
		return b.err
	}
	if err := db.disk.admit(int64(b.Used()), db.disk.reserve/2); err != nil {
		return err
	}
	p, err := db.pendingFor(b)
	if err != nil {
		return err
	}
	if p != nil {
		if err := p.Wait(); err != nil {
			return fmt.Errorf("storage: an earlier commit failed: %w", err)
		}
	}
	return db.apply(b)
}

// Get returns a copy of the value stored under key.
func (db *DB) Get(key []byte) (value []byte, ok bool, err error) {
	v, closer, err := db.reader().Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("storage: get %s: %w", PrettyKey(key), err)
	}
	value = append([]byte{}, v...)
	return value, true, closer.Close()
}

// Scan calls fn in key order for every key starting with prefix, on a
// consistent snapshot. The slices are valid only during the call. An
// error from fn stops the scan and is returned as is.
func (db *DB) Scan(prefix []byte, fn func(key, value []byte) error) error {
	it, err := db.reader().NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return fmt.Errorf("storage: scan %s: %w", PrettyKey(prefix), err)
	}
	for valid := it.First(); valid; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err == nil {
			err = fn(it.Key(), v)
		}
		if err != nil {
			_ = it.Close()
			return err
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("storage: scan %s: %w", PrettyKey(prefix), err)
	}
	return nil
}

// DiskUsage estimates the bytes on disk of the keys starting with prefix:
// Pebble's estimate over the sstables overlapping their range (files
// inside it whole, the overlapping data blocks of those at its ends;
// compressed; flushed data only, not the memtables or the WAL).
func (db *DB) DiskUsage(prefix []byte) (uint64, error) {
	n, err := db.pdb.EstimateDiskUsage(prefix, prefixEnd(prefix))
	if err != nil {
		return 0, fmt.Errorf("storage: disk usage of %s: %w", PrettyKey(prefix), err)
	}
	return n, nil
}

// Flush writes the memtables to sstables, where DiskUsage sees them.
func (db *DB) Flush() error {
	if err := db.pdb.Flush(); err != nil {
		return fmt.Errorf("storage: flush: %w", err)
	}
	return nil
}

// slogAdapter routes Pebble's printf-style logging to slog.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Infof(format string, args ...any) {
	a.l.Info(fmt.Sprintf(format, args...), "component", "pebble")
}

func (a slogAdapter) Errorf(format string, args ...any) {
	a.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf is called by Pebble on a broken invariant (corruption); Pebble
// expects it not to return.
func (a slogAdapter) Fatalf(format string, args ...any) {
	a.l.Error(fmt.Sprintf(format, args...), "component", "pebble", "fatal", true)
	os.Exit(2)
}
