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
