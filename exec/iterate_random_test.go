package exec

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// loopPlans are recursive plans over an edge table (a int4, b int4),
// collection 1: reachability from node 0 (UNION), transitive closure
// (linear, and squared: the variable on both sides of the join, which
// PostgreSQL does not allow but the loop supports), connected components
// by minimum label over undirected edges, reachability through outer
// joins, reachability through an aggregate, and walks through windows
// partitioned by an iteration tag.
var loopPlans = []string{
	`%0 = Source coll=1 name=e :: int4, int4
%1 = Constant rows=[(0)] :: int4
%2 = Variable name=r limit=1000 :: int4
%3 = Join kind=inner on=[#0=#0] <- %2, %0
%4 = MFP project=[#2] <- %3
%5 = Union <- %1, %4
%6 = Reduce key=[#0] aggs=[] <- %5
%7 = Fixpoint <- %2, %6`,
	`%0 = Source coll=1 name=e :: int4, int4
%1 = Variable name=tc limit=1000 :: int4, int4
%2 = Join kind=inner on=[#1=#0] <- %1, %0
%3 = MFP project=[#0, #3] <- %2
%4 = Union <- %0, %3
%5 = Reduce key=[#0, #1] aggs=[] <- %4
%6 = Fixpoint <- %1, %5`,
	`%0 = Source coll=1 name=e :: int4, int4
%1 = Variable name=tc limit=1000 :: int4, int4
%2 = Join kind=inner on=[#1=#0] <- %1, %1
%3 = MFP project=[#0, #3] <- %2
%4 = Union <- %0, %3
%5 = Reduce key=[#0, #1] aggs=[] <- %4
%6 = Fixpoint <- %1, %5`,
	`%0 = Source coll=1 name=e :: int4, int4
%1 = MFP project=[#1, #0] <- %0
%2 = Union <- %0, %1
%3 = MFP project=[#0, #0] <- %2
%4 = Variable name=cc limit=1000 :: int4, int4
%5 = Join kind=inner on=[#0=#0] <- %4, %2
%6 = MFP project=[#3, #1] <- %5
%7 = Union <- %3, %6
%8 = Reduce key=[#0, #1] aggs=[] <- %7
%9 = Fixpoint <- %4, %8
%10 = Reduce key=[#0] aggs=[min(#1)] <- %9`,
	// Outer joins with the variable on the preserved side: a node without
	// out-edges (or NULL) leads to NULL.
	`%0 = Source coll=1 name=e :: int4, int4
%1 = Constant rows=[(0)] :: int4
%2 = Variable name=r limit=1000 :: int4
%3 = Join kind=left on=[#0=#0] residual=[(#2 <> 3)] <- %2, %0
%4 = MFP project=[#2] <- %3
%5 = Union <- %1, %4
%6 = Reduce key=[#0] aggs=[] <- %5
%7 = Fixpoint <- %2, %6`,
	`%0 = Source coll=1 name=e :: int4, int4
%1 = Constant rows=[(0)] :: int4
%2 = Variable name=r limit=1000 :: int4
%3 = Join kind=right on=[#0=#0] <- %0, %2
%4 = MFP project=[#1] <- %3
%5 = Union <- %1, %4
%6 = Reduce key=[#0] aggs=[] <- %5
%7 = Fixpoint <- %2, %6`,
	// An aggregate over the variable: a node is reached once two reached
	// nodes (or node 0 twice over) lead to it.
	`%0 = Source coll=1 name=e :: int4, int4
%1 = Constant rows=[(0)] :: int4
%2 = Variable name=r limit=1000 :: int4
%3 = Join kind=inner on=[#0=#0] <- %2, %0
%4 = Reduce key=[#2] aggs=[count(*), min(#0), sum(DISTINCT #1)] <- %3
%5 = MFP filter=[((#1 >= 2::int8) OR (#2 = 0))] project=[#0] <- %4
%6 = Union <- %1, %5
%7 = Reduce key=[#0] aggs=[] <- %6
%8 = Fixpoint <- %2, %7`,
	// Windows partitioned by the iteration tag (#1), as the planner
	// tags a recursive term's windows: each iteration's rows step on
	// along the two least edges of the iteration, and along the least
	// edge out of each (iteration, node) with a running count.
	`%0 = Source coll=1 name=e :: int4, int4
%1 = Constant rows=[(0, 0)] :: int4, int4
%2 = Variable name=r limit=1000 :: int4, int4
%3 = Join kind=inner on=[#0=#0] <- %2, %0
%4 = Window key=[#1] order=[#3] funcs=[row_number()] <- %3
%5 = MFP filter=[(#4 <= 2::int8), (#1 < 4)] map=[(#1 + 1)] project=[#3, #5] <- %4
%6 = Window key=[#1, #0] order=[#3 DESC] funcs=[rank(), count(*)] <- %3
%7 = MFP filter=[(#4 = 1::int8), (#5 >= 1::int8), (#1 < 3)] map=[(#1 + 1)] project=[#3, #6] <- %6
%8 = Union <- %1, %5, %7
%9 = Fixpoint <- %2, %8`,
	// A window partitioned by the reached node: from every reached node,
	// its least edge (and the next one when they are adjacent nodes).
	`%0 = Source coll=1 name=e :: int4, int4
%1 = Constant rows=[(0)] :: int4
%2 = Variable name=r limit=1000 :: int4
%3 = Join kind=inner on=[#0=#0] <- %2, %0
%4 = Window key=[#0] order=[#2] funcs=[row_number(), lag(#2, 1)] <- %3
%5 = MFP filter=[((#3 = 1::int8) OR ((#4 + 1) = #2))] project=[#2] <- %4
%6 = Union <- %1, %5
%7 = Reduce key=[#0] aggs=[] <- %6
%8 = Fixpoint <- %2, %7`,
}

// TestLoopEqualsRecomputation maintains each loop plan over a random graph
// under random batches of edge insertions and deletions (with rollbacks
// and restarts from the logged state) and checks after every batch that
// the maintained result equals the plan run from scratch over the current
// edges.
func TestLoopEqualsRecomputation(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^7))
	for pi, text := range loopPlans {
		for round := range 6 {
			if err := checkLoopRound(rng, text, 4+rng.IntN(8)); err != nil {
				t.Fatalf("seed %d, plan %d, round %d:\n%s\n%v", seed, pi, round, text, err)
			}
		}
	}
}

// checkLoopRound runs 30 random batches over a graph of n nodes.
func checkLoopRound(rng *rand.Rand, text string, n int) error {
	p, err := dataflow.Parse(text)
	if err != nil {
		return err
	}
	d, err := Build(p)
	if err != nil {
		return err
	}
	store := newMemStore()
	edges := map[[2]int]bool{}
	view := map[string]int64{}
	for step := range 30 {
		batch := randomEdgeBatch(rng, n, edges)
		var b opBatch
		out, err := d.Step(nil, repr.Time(step+1), map[repr.CollectionID][]repr.Update{1: batch}, &b)
		if err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		if rng.IntN(5) == 0 {
			d.Rollback()
			continue
		}
		d.Commit()
		b.apply(store)
		applyEdgeBatch(edges, batch)
		for _, u := range out {
			view[dataflow.FormatRow(u.Row)] += u.Diff
		}
		if err := compareScratch(p, edges, view); err != nil {
			return fmt.Errorf("after step %d (batch %v): %w", step, batch, err)
		}
		if rng.IntN(6) == 0 {
			if d, err = restoredDataflow(p, store); err != nil {
				return err
			}
		}
	}
	return nil
}

// randomEdgeBatch draws 1-4 insertions of absent and deletions of present
// edges (self-loops included).
func randomEdgeBatch(rng *rand.Rand, n int, edges map[[2]int]bool) []repr.Update {
	var batch []repr.Update
	picked := map[[2]int]bool{}
	for range 1 + rng.IntN(4) {
		e := [2]int{rng.IntN(n), rng.IntN(n)}
		if picked[e] {
			continue
		}
		picked[e] = true
		diff := int64(1)
		if edges[e] {
			diff = -1
		}
		batch = append(batch, repr.Update{Row: repr.Row{repr.NewInt(int64(e[0])), repr.NewInt(int64(e[1]))}, Diff: diff})
	}
	return batch
}

func applyEdgeBatch(edges map[[2]int]bool, batch []repr.Update) {
	for _, u := range batch {
		e := [2]int{int(u.Row[0].Int()), int(u.Row[1].Int())}
		edges[e] = u.Diff > 0
		if u.Diff < 0 {
			delete(edges, e)
		}
	}
}

// compareScratch runs p once over edges and compares the result with view.
func compareScratch(p *dataflow.Plan, edges map[[2]int]bool, view map[string]int64) error {
	d, err := Build(p)
	if err != nil {
		return err
	}
	var all []repr.Update
	for e := range edges {
		all = append(all, repr.Update{Row: repr.Row{repr.NewInt(int64(e[0])), repr.NewInt(int64(e[1]))}, Diff: 1})
	}
	out, err := d.Step(nil, 1, map[repr.CollectionID][]repr.Update{1: all}, nil)
	if err != nil {
		return err
	}
	want := map[string]int64{}
	for _, u := range out {
		want[dataflow.FormatRow(u.Row)] += u.Diff
	}
	var diffs []string
	for r, n := range view {
		if n != want[r] {
			diffs = append(diffs, fmt.Sprintf("%s: maintained %d, recomputed %d", r, n, want[r]))
		}
	}
	for r, n := range want {
		if _, ok := view[r]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: maintained 0, recomputed %d", r, n))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("edges %v:\n%s", edges, strings.Join(diffs, "\n"))
	}
	return nil
}

// restoredDataflow builds p and restores it from store.
func restoredDataflow(p *dataflow.Plan, store *memStore) (*Dataflow, error) {
	d, err := Build(p)
	if err != nil {
		return nil, err
	}
	return d, d.Restore(store)
}
