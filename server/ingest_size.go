package server

// ingestSize is how many rows a source hands the engine per commit:
// ingestBatch, halved after each batch the memory budget refuses (53200)
// down to minIngestBatch, and doubled back towards ingestBatch by each
// commit. A budget whose standing state leaves no room for a large
// commit's maintenance still takes small ones (the accountant lets small
// work reach further into the budget, sql's memory.go), so a source slows
// down instead of retrying the same refused batch forever. Only the
// source's goroutine uses it.
type ingestSize struct {
	n int
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
func newIngestSize() *ingestSize { return &ingestSize{n: ingestBatch} }

// rows returns the size of the next batch.
func (s *ingestSize) rows() int { return s.n }

// afterCommit returns the size of the next batch if the current one
// commits (what rows returns after committed).
func (s *ingestSize) afterCommit() int { return min(2*s.n, ingestBatch) }

// committed records a committed batch: the next may be twice as large.
func (s *ingestSize) committed() {
	s.n, s.stuck = min(2*s.n, ingestBatch), 0
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
