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

// topkRandomPlans are TopK plans beyond randomPlans' one: ranked output
// (rows re-emitted when their position moves), and ordering on one column
// only, so that ties are broken by the whole row. %r is rank=true or
// nothing.
var topkRandomPlans = []string{
	`%0 = Source coll=1 :: int4, int4, text
%1 = TopK key=[#0] order=[#1%d] limit=%l offset=%o%r <- %0`,
	`%0 = Source coll=1 :: int4, int4, text
%1 = TopK key=[] order=[#2%d] limit=%l offset=%o%r <- %0`,
}

// TestTopKRandom checks ranked and tie-breaking TopK plans the way
// TestIncrementalEqualsBatch checks its plans (incremental = batch, restore,
// rollback), over inserts and deletes.
func TestTopKRandom(t *testing.T) {
	rng := topkRNG(t)
	for iter := range 60 {
		text := instantiateTopK(topkRandomPlans[iter%len(topkRandomPlans)], rng, false)
		if err := runRandom(text, rng); err != nil {
			t.Fatalf("plan:\n%s\n%v", text, err)
		}
	}
}

// TestTopKAppendOnlyRandom checks append-only TopK plans (which keep only
// the rows within offset+limit of each group) over random insert-only
// scripts with rollbacks and restores: after every Step the accumulated
// output equals a fresh dataflow's over the accumulated input.
func TestTopKAppendOnlyRandom(t *testing.T) {
	rng := topkRNG(t)
	for iter := range 60 {
		text := instantiateTopK(topkRandomPlans[iter%len(topkRandomPlans)], rng, true)
		p, err := dataflow.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var script []scriptStep
		err = runScript(p, func(r *randomRun, step uint64) (scriptStep, bool) {
			if step > 30 {
				return scriptStep{}, false
			}
			st := scriptStep{restore: r.restored == nil && rng.IntN(8) == 0, rollback: rng.IntN(6) == 0}
			st.batch = map[repr.CollectionID][]repr.Update{}
			for range rng.IntN(11) {
				st.batch[1] = append(st.batch[1], repr.Update{Row: randomRow(rng), Time: step, Diff: int64(1 + rng.IntN(2))})
			}
			script = append(script, st)
			return st, true
		})
		if err != nil {
			t.Fatalf("plan:\n%s\n%v\nscript:\n%s", text, err, formatScript(script))
		}
	}
}

// topkRNG returns a generator seeded by -seed or the clock, logging the seed.
func topkRNG(t *testing.T) *rand.Rand {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed))
}

// instantiateTopK fills in a TopK template; appendOnly marks the TopK
// append-only (limit then at least 0).
func instantiateTopK(tmpl string, rng *rand.Rand, appendOnly bool) string {
	rank := ""
	if rng.IntN(2) == 0 {
		rank = " rank=true"
	}
	limit := rng.IntN(5)
	if appendOnly {
		rank += " append-only=true"
	} else if rng.IntN(4) == 0 {
		limit = -1
	}
	text := strings.NewReplacer(
		"%d", []string{"", " DESC", " NULLS FIRST", " DESC NULLS LAST"}[rng.IntN(4)],
		"%o", fmt.Sprint(rng.IntN(3)),
		"%r", rank,
	).Replace(tmpl)
	if limit < 0 {
		return strings.Replace(text, " limit=%l", "", 1)
	}
	return strings.Replace(text, "%l", fmt.Sprint(limit), 1)
}
