package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestSnapshotRandom takes snapshots of an in-memory and a spilling
// collection (each with a column index and a partial index) between random
// spans of changes, rollbacks, checkpoints, spills and flushes, and checks
// after every later span that each snapshot still answers every read as a
// copy built from the rows at the moment it was taken.
func TestSnapshotRandom(t *testing.T) {
	seed := testSeed(t)
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			testSnapshotRandom(t, rand.New(rand.NewPCG(seed, 5)), keyed)
		})
	}
}

// frozen is a snapshot and the reference it must keep matching.
type frozen struct {
	span      int
	snap, ref *Collection
	db        *DB
}

func testSnapshotRandom(t *testing.T, rng *rand.Rand, keyed bool) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	var pk []int
	if keyed {
		pk = []int{0, 1}
	}
	mem, sp := NewCollection(20, pk), NewCollection(30, pk)
	mem.AddIndex(21, []int{1}, nil)
	mem.AddIndexKey(22, spillPartial, nil)
	sp.AddIndex(31, []int{1}, nil)
	sp.AddIndexKey(32, spillPartial, nil)
	var snaps []frozen
	for span := 0; span < 80; span++ {
		if rng.IntN(4) == 0 {
			sdb := db.NewSnapshot()
			snaps = append(snaps, frozen{span, mem.Snapshot(nil), copyColl(mem, pk), nil},
				frozen{span, sp.Snapshot(sdb), copyColl(sp, pk), sdb})
		}
		snapshotSpan(t, rng, db, mem, sp, span, keyed)
		for _, f := range snaps {
			compareColls(t, fmt.Sprintf("span %d, snapshot of span %d", span, f.span), rng, f.ref, f.snap)
		}
	}
	for _, f := range snaps {
		if err := f.db.CloseSnapshot(); err != nil {
			t.Fatal(err)
		}
	}
	if !sp.Spilled() {
		t.Fatal("the spilling collection never spilled")
	}
}

// snapshotSpan applies a random span of changes to both collections and
// commits it (a checkpoint, spilling sp from span 10 on, or flushing it)
// or rolls it back.
func snapshotSpan(t *testing.T, rng *rand.Rand, db *DB, mem, sp *Collection, span int, keyed bool) {
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	mem.Begin()
	sp.Begin()
	for i := rng.IntN(25); i > 0; i-- {
		row, diff := spillChange(rng, keyed)
		_, _ = mem.Apply(row, diff, b), sp.Apply(row, diff, b)
	}
	if rng.IntN(4) == 0 {
		mem.Rollback()
		sp.Rollback()
		return
	}
	mem.Commit()
	sp.Commit()
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if span >= 10 && !sp.Spilled() {
		sp.Spill(db)
	} else if rng.IntN(3) == 0 {
		sp.Flushed()
	}
}

// copyColl returns an in-memory copy of c's rows with indexes like c's
// (ids c's id + 1 and + 2), built row by row.
func copyColl(c *Collection, pk []int) *Collection {
	cp := NewCollection(c.id, pk)
	c.Scan(func(r repr.Row, n int64) bool {
		if err := cp.Apply(r, n, nil); err != nil {
			panic(err)
		}
		return true
	})
	cp.AddIndex(c.id+1, []int{1}, nil)
	cp.AddIndexKey(c.id+2, spillPartial, nil)
	return cp
}
