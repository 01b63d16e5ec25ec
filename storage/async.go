package storage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Pipelined commits. CommitAsync writes a large batch (the engine's
// checkpoint) on a goroutine of its own, so that its sort, its copy into
// Pebble's batch and its memtable insertion overlap the caller's next
// work instead of holding it up. Order is kept by the rule that at most
// one batch is pending and that every later Commit waits for it, except
// a Commit of a batch marked Independent, whose writer guarantees it
// writes no key the pending batch writes and none in a range it deletes
// (the engine's input-log records beside its checkpoint): Pebble then
// applies the two in either order with the same result. With the
// EDDY_STORAGE_CHECK_OVERLAP=1 environment variable (tests), the store
// checks that guarantee and fails an Independent commit that breaks it.

// Pending is a batch being committed by CommitAsync.
type Pending struct {
	done chan struct{}
	err  error
	// keys and ranges are the pending batch's keys and range deletions,
	// recorded when overlaps are checked.
	keys   map[string]struct{}
	ranges [][2][]byte
}

// Wait blocks until the batch is durable (or failed) and returns the
// error of its commit.
func (p *Pending) Wait() error {
	<-p.done
	return p.err
}

// Done reports whether the commit has finished (Wait would not block).
func (p *Pending) Done() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// asyncState is a DB's pending commit (guarded by mu).
type asyncState struct {
	mu      sync.Mutex
	pending *Pending
	// hold, when set (tests: HoldCommitsForTest), is received from before
	// a pending batch is applied: false drops the batch unwritten, as a
	// crash before it landed would; closed, it holds nothing.
	hold chan bool
}

// errDropped is the error of a pending batch a test dropped.
var errDropped = errors.New("storage: pending commit dropped (test)")

// checkOverlap is EDDY_STORAGE_CHECK_OVERLAP=1: Independent commits are
// checked against the pending batch.
var checkOverlap = os.Getenv("EDDY_STORAGE_CHECK_OVERLAP") == "1"

// SetCheckOverlap turns the overlap check on or off (tests); it returns
// the previous setting.
func SetCheckOverlap(on bool) bool {
	prev := checkOverlap
	checkOverlap = on
	return prev
}

// SetIndependent marks b (on) as writing no key of, and none in a range
// deleted by, any batch pending in CommitAsync while b is committed:
// Commit then does not wait for the pending batch. The mark stays across
// Reset.
func (b *Batch) SetIndependent(on bool) { b.independent = on }

// CommitAsync starts committing b (like Commit, synced) and returns at
// once; b belongs to the commit until Pending.Wait returns. A batch still
// pending is waited for first, so at most one is pending and batches land
// in the order of their calls. after, if not nil, runs on the commit's
// goroutine once b is durable (not if the commit failed). A write that
// would leave less than half the disk reserve free fails at once with
// 53100, writing nothing.
func (db *DB) CommitAsync(b *Batch, after func()) (*Pending, error) {
	if b.err != nil {
		return nil, b.err
	}
	if err := db.disk.admit(int64(b.Used()), db.disk.reserve/2); err != nil {
		return nil, err
	}
	if err := db.WaitPending(); err != nil {
		return nil, err
	}
	p := &Pending{done: make(chan struct{})}
	if checkOverlap {
		p.keys, p.ranges = b.keySet()
	}
	db.async.mu.Lock()
	db.async.pending = p
	hold := db.async.hold
	db.async.mu.Unlock()
	go func() {
		defer close(p.done)
		if hold != nil {
			if write, open := <-hold; open && !write {
				p.err = errDropped
				return
			}
		}
		p.err = db.applyRecover(b, after)
	}()
	return p, nil
}

// applyRecover applies b and then runs after (if not nil) on CommitAsync's
// goroutine, turning a panic (a bug) into the pending commit's error, which
// breaks the engine like a failed write instead of killing the process.
func (db *DB) applyRecover(b *Batch, after func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("asynchronous commit panicked: %v", r)
		}
	}()
	if err = db.apply(b); err == nil && after != nil {
		after()
	}
	return err
}

// WaitPending waits for the batch pending in CommitAsync, if any, and
// returns its error (nil if none is pending). A failed pending commit's
// error is returned once.
func (db *DB) WaitPending() error {
	db.async.mu.Lock()
	p := db.async.pending
	db.async.mu.Unlock()
	if p == nil {
		return nil
	}
	err := p.Wait()
	db.async.mu.Lock()
	if db.async.pending == p {
		db.async.pending = nil
	}
	db.async.mu.Unlock()
	return err
}

// pendingFor returns what a Commit of b must wait for: the pending batch,
// unless b is Independent (then nil, after checking b against it when
// overlaps are checked).
func (db *DB) pendingFor(b *Batch) (*Pending, error) {
	db.async.mu.Lock()
	p := db.async.pending
	db.async.mu.Unlock()
	if p == nil || p.Done() {
		return nil, nil
	}
	if !b.independent {
		return p, nil
	}
	if p.keys != nil {
		if k := b.overlap(p); k != nil {
			return nil, fmt.Errorf("storage: an independent commit writes %s, which the pending commit writes", PrettyKey(k))
		}
	}
	return nil, nil
}

// apply writes b to Pebble, synced.
func (db *DB) apply(b *Batch) error {
	err := db.pdb.Apply(b.build(), pebble.Sync)
	b.applied()
	db.releaseIters(false) // the iterators no longer see the whole store
	if err != nil {
		return fmt.Errorf("storage: commit: %w", err)
	}
	return nil
}

// HoldCommitsForTest makes every later CommitAsync wait, before writing,
// for a value sent on the returned channel: true writes the batch, false
// drops it unwritten (a crash before it landed); once the channel is
// closed every batch is written. For tests of recovery.
func (db *DB) HoldCommitsForTest() chan<- bool {
	c := make(chan bool)
	db.async.mu.Lock()
	db.async.hold = c
	db.async.mu.Unlock()
	return c
}

// keySet returns b's point keys and range deletions.
func (b *Batch) keySet() (map[string]struct{}, [][2][]byte) {
	keys := make(map[string]struct{}, len(b.ops))
	var ranges [][2][]byte
	for _, op := range b.ops {
		if op.kind == opDeleteRange {
			ranges = append(ranges, [2][]byte{bytes.Clone(b.key(op)), bytes.Clone(b.value(op))})
			continue
		}
		keys[string(b.key(op))] = struct{}{}
	}
	return keys, ranges
}

// overlap returns a key of b that p writes or deletes a range over, or a
// range of b's that covers a key p writes (its start), or nil.
func (b *Batch) overlap(p *Pending) []byte {
	for _, op := range b.ops {
		k := b.key(op)
		if op.kind == opDeleteRange {
			for pk := range p.keys {
				if bytes.Compare([]byte(pk), k) >= 0 && bytes.Compare([]byte(pk), b.value(op)) < 0 {
					return k
				}
			}
			continue
		}
		if _, ok := p.keys[string(k)]; ok {
			return k
		}
		for _, r := range p.ranges {
			if bytes.Compare(k, r[0]) >= 0 && bytes.Compare(k, r[1]) < 0 {
				return k
			}
		}
	}
	return nil
}
