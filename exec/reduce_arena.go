package exec

import "github.com/cockroachdb/apd/v3"

// groupArena holds what a reduceOp keeps per group beside its group
// struct: the packed accumulators (words and decimal pointers, see
// expr.AccClass.Pack) and the multiset pointers, addressed by group id, in
// chunks that never move and double from 16 groups to 4096 (numbered as
// joinSide's rows, chunkOf). A group thus costs no slice header and no
// allocation of its own for them, and the words, which hold no pointers,
// are not scanned by the collector. Ids of freed groups are reused once
// the Step that freed them has ended (release), so an undo record's id
// stays the group's.
type groupArena struct {
	// words, decs and sets are the numbers of each per group.
	words, decs, sets int
	chunks            []groupChunk
	allocated         int32
	free              []int32
}

// groupChunk is one chunk of a groupArena.
type groupChunk struct {
	words []int64
	decs  []*apd.Decimal
	sets  []*multiset
}

// alloc returns a fresh id, whose words are zero and pointers nil.
func (a *groupArena) alloc() int32 {
	if n := len(a.free); n > 0 {
		id := a.free[n-1]
		a.free = a.free[:n-1]
		return id
	}
	id := a.allocated
	a.allocated++
	if c, _ := chunkOf(id); c == len(a.chunks) {
		n := chunkSize(c)
		a.chunks = append(a.chunks, groupChunk{
			words: make([]int64, n*a.words),
			decs:  make([]*apd.Decimal, n*a.decs),
			sets:  make([]*multiset, n*a.sets),
		})
	}
	return id
}

// release clears id's state (so its decimals and multisets can be
// collected) and makes it available to alloc.
func (a *groupArena) release(id int32) {
	clear(a.wordsOf(id))
	clear(a.decsOf(id))
	clear(a.setsOf(id))
	a.free = append(a.free, id)
}

// wordsOf returns id's accumulator words.
func (a *groupArena) wordsOf(id int32) []int64 {
	c, off := chunkOf(id)
	return a.chunks[c].words[off*a.words : (off+1)*a.words : (off+1)*a.words]
}

// decsOf returns id's decimal pointers.
func (a *groupArena) decsOf(id int32) []*apd.Decimal {
	c, off := chunkOf(id)
	return a.chunks[c].decs[off*a.decs : (off+1)*a.decs : (off+1)*a.decs]
}

// setsOf returns id's multisets, one per slot (nil until used).
func (a *groupArena) setsOf(id int32) []*multiset {
	c, off := chunkOf(id)
	return a.chunks[c].sets[off*a.sets : (off+1)*a.sets : (off+1)*a.sets]
}
