package server

import "github.com/eddydb/eddy/repr"

// Read-ahead for deterministic sources. A source's goroutine used to
// generate a batch, then wait while the engine ingested it (the Step, the
// commit, the synced log write), then generate the next: generation was
// serial with everything else on the source's path. readAhead generates
// batch i+1 on a goroutine of its own (in parts, generateSplit) while
// batch i is ingested. Since a batch is a pure function of its start
// position and size, a batch generated ahead is byte-identical to the one
// generated on demand; one whose start or size turns out wrong (the
// previous batch was refused and shrank, or a retry resumes elsewhere) is
// dropped and the batch generated again. At most one batch is ahead, so
// the memory it costs is one batch's rows.

// aheadBatch is a batch being generated ahead: rows [from, ...) of up to
// size rows; rows and after are set when done is closed.
type aheadBatch struct {
	from  int64
	size  int
	done  chan struct{}
	rows  []repr.Row
	after int64
	// failed is set when generating ahead panicked: take then generates
	// the batch on demand, on the source's goroutine, whose recovery
	// reports the failure on the source.
	failed bool
}

// readAhead generates a deterministic source's batches one ahead of the
// engine. Only the source's goroutine calls its methods.
type readAhead struct {
	workers int
	gen     func(from int64) blockGen
	ahead   *aheadBatch
}

// newReadAhead returns a read-ahead over gen (the blocks of the batch
// that starts at from), generating each batch in workers parts.
func newReadAhead(workers int, gen func(from int64) blockGen) *readAhead {
	return &readAhead{workers: workers, gen: gen}
}

// take returns the batch of up to size rows starting at from and the
// position after it: the batch generated ahead if it is that one, else
// one generated now (after the one ahead, if any, has finished, so that
// no generation outlives the call that dropped it).
func (r *readAhead) take(from int64, size int) ([]repr.Row, int64) {
	a := r.ahead
	r.ahead = nil
	if a != nil {
		<-a.done
		if a.from == from && a.size == size && !a.failed {
			return a.rows, a.after
		}
	}
	return generateSplit(r.workers, size, r.gen(from))
}

// start begins generating the batch of up to size rows starting at from
// on a goroutine of its own, for the next take. A batch already ahead is
// waited for and dropped.
func (r *readAhead) start(from int64, size int) {
	r.stop()
	a := &aheadBatch{from: from, size: size, done: make(chan struct{})}
	r.ahead = a
	go func() {
		defer func() {
			if recover() != nil {
				a.rows, a.failed = nil, true
			}
			close(a.done)
		}()
		a.rows, a.after = generateSplit(r.workers, size, r.gen(from))
	}()
}

// stop waits for the batch ahead, if any, and drops it.
func (r *readAhead) stop() {
	if a := r.ahead; a != nil {
		<-a.done
		r.ahead = nil
	}
}
