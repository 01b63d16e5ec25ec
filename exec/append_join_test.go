package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// appendJoinPlans are plans with append-only joins over sources with
// columns (k int4, v int4, s text); %a is replaced by a random parameter.
// Each is compared with the same plan without append-only=true (joinOp).
var appendJoinPlans = []string{
	// A residual, whose division may fail.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#0=#0] residual=[((#1 / (#4 + %a)) >= 0)] append-only=true <- %0, %1`,
	// Two-column key, a filter below, a Reduce above.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = MFP filter=[(#1 > %a)] <- %0
%3 = Join kind=inner on=[#0=#0, #2=#2] append-only=true <- %2, %1
%4 = Reduce key=[#2] aggs=[count(*), sum(#4), max(#1)] <- %3`,
	// A join of a join, the same source on both sides.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[#0=#1] append-only=true <- %0, %1
%3 = Join kind=inner on=[#2=#2] residual=[(#4 <> #6)] append-only=true <- %2, %0`,
	// A cross join.
	`%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = Join kind=inner on=[] residual=[(#0 < (#3 + %a))] append-only=true <- %0, %1`,
}

// TestAppendJoinEqualsJoin checks, for random plans and random
// insert-only update sequences in random batch sizes (multiplicities up
// to 3, NULL keys), that an append-only join (appendJoin) produces after
// every Step the same output and the same errors as joinOp on the same
// plan without the flag; that rolled-back Steps leave no trace; and that
// an appendJoin restored from its logged state has the same state and
// goes on producing the same outputs.
func TestAppendJoinEqualsJoin(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^3))
	for iter := range 80 {
		text := instantiate(appendJoinPlans[iter%len(appendJoinPlans)], rng)
		script := randomAppendScript(rng, 2, 30)
		if err := runAppendScript(text, script); err != nil {
			script, err = shrinkAppendScript(text, script, err)
			t.Fatalf("seed %d, plan:\n%s\n%v\nshrunk script:\n%s", seed, text, err, formatScript(script))
		}
	}
}

// randomAppendScript draws steps of up to 10 insertions (diff 1 to 3) of
// random rows into collections 1..srcs, some rolled back, some preceded by
// a restore.
func randomAppendScript(rng *rand.Rand, srcs, steps int) []scriptStep {
	var script []scriptStep
	for range steps {
		st := scriptStep{batch: map[repr.CollectionID][]repr.Update{}, rollback: rng.IntN(6) == 0, restore: rng.IntN(6) == 0}
		for range rng.IntN(11) {
			c := repr.CollectionID(1 + rng.IntN(srcs))
			st.batch[c] = append(st.batch[c], repr.Update{Row: randomRow(rng), Diff: int64(1 + rng.IntN(3))})
		}
		script = append(script, st)
	}
	return script
}

// shrinkAppendScript drops steps while the script still fails.
func shrinkAppendScript(text string, script []scriptStep, err error) ([]scriptStep, error) {
	for i := 0; i < len(script); {
		shorter := slices.Delete(slices.Clone(script), i, i+1)
		if e := runAppendScript(text, shorter); e != nil {
			script, err = shorter, e
			continue
		}
		i++
	}
	return script, err
}

// runAppendScript runs script on the plan text with append-only joins and
// on the same plan without the flag, comparing them after every Step.
func runAppendScript(text string, script []scriptStep) error {
	ap, err := dataflow.Parse(text)
	if err != nil {
		return err
	}
	jp, err := dataflow.Parse(strings.ReplaceAll(text, " append-only=true", ""))
	if err != nil {
		return err
	}
	a, err := buildAppendJoins(ap)
	if err != nil {
		return err
	}
	j, err := Build(jp)
	if err != nil {
		return err
	}
	store := newMemStore()
	for i, st := range script {
		ts := uint64(i + 1)
		if st.restore {
			if a, err = restoreAppendJoins(ap, store, a); err != nil {
				return fmt.Errorf("step %d: %w", ts, err)
			}
		}
		if err := stepBoth(a, j, store, ts, retimeBatch(st.batch, ts), st.rollback); err != nil {
			return fmt.Errorf("step %d: %w", ts, err)
		}
	}
	return nil
}

// buildAppendJoins builds p and checks that its append-only joins run as
// appendJoins (so the comparison cannot silently test joinOp twice).
func buildAppendJoins(p *dataflow.Plan) (*Dataflow, error) {
	d, err := Build(p)
	if err != nil {
		return nil, err
	}
	for i, n := range p.Nodes {
		if op, ok := n.Op.(dataflow.Join); ok && op.AppendOnly {
			if _, ok := unsharded(d.ops[i]).(*appendJoin); !ok {
				return nil, fmt.Errorf("node %%%d runs as %T, not an appendJoin", i, unsharded(d.ops[i]))
			}
		}
	}
	return d, nil
}

// restoreAppendJoins restores a fresh dataflow for p from store and checks
// that every node's state equals live's.
func restoreAppendJoins(p *dataflow.Plan, store *memStore, live *Dataflow) (*Dataflow, error) {
	d, err := buildAppendJoins(p)
	if err != nil {
		return nil, err
	}
	if err := d.Restore(store); err != nil {
		return nil, err
	}
	for i := range p.Nodes {
		if got, want := d.DebugState(i), live.DebugState(i); got != want {
			return nil, fmt.Errorf("restored node %%%d:\n%slive:\n%s", i, got, want)
		}
	}
	return d, nil
}

// stepBoth steps a (logging to store unless rolled back) and j with the
// same batch and compares their outputs or errors.
func stepBoth(a, j *Dataflow, store *memStore, ts uint64, batch map[repr.CollectionID][]repr.Update, rollback bool) error {
	var b opBatch
	outA, errA := a.Step(&expr.Ctx{}, ts, batch, &b)
	outJ, errJ := j.Step(&expr.Ctx{}, ts, batch, nil)
	if (errA == nil) != (errJ == nil) || errA != nil && repr.ErrorCode(errA) != repr.ErrorCode(errJ) {
		return fmt.Errorf("append-only join error %v, join error %v", errA, errJ)
	}
	if got, want := formatUpdates(outA), formatUpdates(outJ); got != want {
		return fmt.Errorf("append-only join output:\n%sjoin output:\n%s", got, want)
	}
	if errA != nil {
		return nil
	}
	if rollback {
		a.Rollback()
		j.Rollback()
		return nil
	}
	a.Commit()
	j.Commit()
	b.apply(store)
	return nil
}
