package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

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

// TestJoinChainTable links and unlinks rows of few distinct hashes (so
// chains mix hashes and grow across doublings) and checks that head and
// following list each hash's arranged rows exactly, newest first, as a
// map of chains per hash would.
func TestJoinChainTable(t *testing.T) {
	js := newJoinSide([]int{0})
	rng := rand.New(rand.NewPCG(1, 2))
	model := map[uint32][]int32{} // per hash, newest first
	var live []*jrow
	for step := range 20000 {
		if len(live) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(live))
			r := live[i]
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
			js.unlink(r)
			ids := model[r.hash]
			k := slices.Index(ids, r.id)
			model[r.hash] = slices.Delete(ids, k, k+1)
			js.release()
		} else {
			h := uint32(rng.IntN(300)) * 0x9e3779b1
			r := js.alloc(fmt.Sprint(step), h)
			js.linkKey(r, []byte{byte(h)}, false)
			live = append(live, r)
			model[h] = append([]int32{r.id}, model[h]...)
		}
		if step%97 != 0 {
			continue
		}
		if js.live != len(live) || len(js.heads) < js.live {
			t.Fatalf("step %d: live %d (want %d) in %d slots", step, js.live, len(live), len(js.heads))
		}
		for h, want := range model {
			var got []int32
			for r := js.head(h); r != nil; r = js.following(r) {
				got = append(got, r.id)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("step %d, hash %x: chain %v, want %v", step, h, got, want)
			}
		}
	}
}
