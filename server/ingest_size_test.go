package server

import "testing"

// TestIngestSize checks that refusals halve a source's batches down to
// minIngestBatch, that only stuckRefusals refusals in a row at that size
// report it stuck, and that commits grow the batches back.
func TestIngestSize(t *testing.T) {
	s := newIngestSize()
	var sizes []int
	for s.rows() > minIngestBatch {
		if s.refused() {
			t.Fatalf("stuck at %d rows", s.rows())
		}
		sizes = append(sizes, s.rows())
	}
	if len(sizes) != 7 || sizes[0] != ingestBatch/2 {
		t.Fatalf("sizes after refusals %v, want 7 halvings from %d", sizes, ingestBatch)
	}
	for i := 1; i < stuckRefusals; i++ {
		if s.refused() {
			t.Fatalf("stuck after %d refusals at the smallest size", i)
		}
	}
	s.committed() // a commit in between: not stuck in a row
	if s.rows() != 2*minIngestBatch {
		t.Fatalf("%d rows after a commit, want %d", s.rows(), 2*minIngestBatch)
	}
	s.refused() // back to the smallest size
	for i := 1; i < stuckRefusals; i++ {
		if s.refused() {
			t.Fatalf("stuck after %d refusals in a row at the smallest size", i)
		}
	}
	if !s.refused() {
		t.Fatalf("not stuck after %d refusals in a row at the smallest size", stuckRefusals+1)
	}
	for range 10 {
		s.committed()
	}
	if s.rows() != ingestBatch {
		t.Fatalf("%d rows after commits, want %d", s.rows(), ingestBatch)
	}
}

// TestIngestSizeFit checks that a batch over the budget's share makes
// the source's batches as small as the share allows (not below
// minIngestBatch), that commits grow them back only to that size, and
// that smaller rows let them grow back to ingestBatch.
func TestIngestSizeFit(t *testing.T) {
	s := newIngestSize()
	if s.fit(ingestBatch, 8<<20, 0) || s.rows() != ingestBatch {
		t.Fatalf("no bound: %d rows", s.rows())
	}
	// 1 KiB rows, a 256 KiB share: 256 rows.
	if !s.fit(ingestBatch, ingestBatch<<10, 256<<10) || s.rows() != 256 || !s.atFull() {
		t.Fatalf("%d rows under a 256 KiB share of 1 KiB rows, want 256 at full size", s.rows())
	}
	if s.fit(256, 256<<10, 256<<10) {
		t.Fatal("a batch of exactly the share is over it")
	}
	s.refused()
	if s.rows() != 128 || s.atFull() || s.afterCommit() != 256 {
		t.Fatalf("after a refusal %d rows (after a commit %d), want 128 then 256", s.rows(), s.afterCommit())
	}
	for range 5 {
		s.committed()
	}
	if s.rows() != 256 {
		t.Fatalf("%d rows after commits, want the share's 256", s.rows())
	}
	if !s.fit(256, 256<<20, 1<<20) || s.rows() != minIngestBatch {
		t.Fatalf("%d rows for 1 MiB rows, want at least %d", s.rows(), minIngestBatch)
	}
	s.fit(64, 64*100, 1<<20) // 100-byte rows: 10K fit, ingestBatch at most
	for range 10 {
		s.committed()
	}
	if s.rows() != ingestBatch {
		t.Fatalf("%d rows for small rows, want %d", s.rows(), ingestBatch)
	}
}
