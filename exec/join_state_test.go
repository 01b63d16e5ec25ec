package exec

import "testing"

// TestJoinChunkIDs: chunkOf maps ids in allocation order onto the chunks
// alloc makes, each id to its own entry.
func TestJoinChunkIDs(t *testing.T) {
	var js joinSide
	for i := range 3*jrowGrown + 5 {
		r := js.alloc("", 0)
		if int(r.id) != i {
			t.Fatalf("entry %d has id %d", i, r.id)
		}
		if c, off := chunkOf(r.id); c != len(js.chunks)-1 || off != len(js.chunks[c])-1 {
			t.Fatalf("id %d: chunkOf = %d, %d; allocated at %d, %d", i, c, off, len(js.chunks)-1, len(js.chunks[len(js.chunks)-1])-1)
		}
		if c := len(js.chunks) - 1; cap(js.chunks[c]) != chunkSize(c) {
			t.Fatalf("chunk %d holds %d entries, want %d", c, cap(js.chunks[c]), chunkSize(c))
		}
	}
}
