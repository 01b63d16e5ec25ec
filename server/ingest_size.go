package server

// ingestSize is how many rows a source hands the engine per commit:
// ingestBatch, halved after each batch the memory budget refuses (53200)
// down to minIngestBatch, and doubled back towards ingestBatch by each
// commit. A budget whose standing state leaves no room for a large
// commit's maintenance still takes small ones (the accountant lets small
// work reach further into the budget, sql's memory.go), so a source slows
// down instead of retrying the same refused batch forever. Only the
// source's goroutine uses it.
//
// Under a memory budget a batch is also at most full rows, so that its
// rows take at most the engine's SourceBatchBytes (fit): under a tiny
// budget 8192 rows are a large part of it (an auction batch is about 5
// MiB), and rows in flight are not reserved, so they measure as the
// standing memory every commit, and the source's own, is refused for.
type ingestSize struct {
	n int
	// full is the size of a batch the budget did not refuse:
	// ingestBatch, or less when fit bounds it (minIngestBatch at least).
	full int
	// stuck counts the refusals in a row at minIngestBatch.
	stuck int
}

// minIngestBatch is the smallest batch a refused source shrinks to.
const minIngestBatch = 64

// stuckRefusals is how many refusals in a row at minIngestBatch, while
// no other work holds memory, stop a source with 53200 (each retry comes
// retryDelay after the last, and each refusal has asked the engine to
// spill what it can).
const stuckRefusals = 10

// newIngestSize returns the size of a source's first batch.
func newIngestSize() *ingestSize { return &ingestSize{n: ingestBatch, full: ingestBatch} }

// rows returns the size of the next batch.
func (s *ingestSize) rows() int { return s.n }

// afterCommit returns the size of the next batch if the current one
// commits (what rows returns after committed).
func (s *ingestSize) afterCommit() int { return min(2*s.n, s.full) }

// atFull reports whether the next batch is full size (not shrunk by a
// refusal).
func (s *ingestSize) atFull() bool { return s.n >= s.full }

// fit bounds full by the memory of a batch just generated: rows rows
// took bytes, and a batch may take at most bound bytes (0: no bound).
// The next batch shrinks at once if it is larger; full may grow back to
// ingestBatch when rows turn out smaller. It reports whether the batch
// just generated is over the new full size: a deterministic source then
// drops it and generates a smaller one from the same position.
func (s *ingestSize) fit(rows int, bytes, bound int64) (over bool) {
	if bound <= 0 || rows == 0 || bytes <= 0 {
		return false
	}
	perRow := max(bytes/int64(rows), 1)
	s.full = int(min(max(bound/perRow, minIngestBatch), ingestBatch))
	s.n = min(s.n, s.full)
	return rows > s.full
}

// committed records a committed batch: the next may be twice as large.
func (s *ingestSize) committed() {
	s.n, s.stuck = min(2*s.n, s.full), 0
}

// refused records a batch the budget refused: the next is half as large.
// It reports whether the source has been refused stuckRefusals times in
// a row at the smallest size.
func (s *ingestSize) refused() bool {
	if s.n <= minIngestBatch {
		s.stuck++
	}
	s.n = max(s.n/2, minIngestBatch)
	return s.stuck >= stuckRefusals
}
