package exec

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// TestReduceLazyPaths drives lazy min/max values (multiset_lazy.go)
// through fixed scripts, one per path the random TestReduceLazyRestore
// reaches only now and then. A script line is a Step ("defer" for one
// that defers its state writes, "step" for one that does not) with its
// updates (+v inserts v, -v retracts a copy of v, in every group), and
// "rollback" to roll it back; "flush" runs FlushState; "restore" flushes
// and replaces the dataflow by one restored from the store. After every
// line the output so far must equal that of a dataflow fed the live rows
// from scratch, and a restored dataflow's state must equal the
// from-scratch one's. Each script runs with 1 and 2 workers, over four
// groups (so that both workers hold some).
func TestReduceLazyPaths(t *testing.T) {
	defer func(s, l int) { smallSet, lazyCompactMin = s, l }(smallSet, lazyCompactMin)
	smallSet, lazyCompactMin = 2, 2
	p, err := dataflow.Parse(`%0 = Source coll=1 :: int4, int8, text, text
%1 = Reduce key=[#0] aggs=[min(#1), max(#1), count(*)] <- %0`)
	if err != nil {
		t.Fatal(err)
	}
	// Every script starts from extrema 0 and 1000 with 100 and 200
	// between them in the entries (past smallSet: the hash table, so
	// values between the extrema may go to lz).
	const base = "defer +0 +1000 +100 +200\n"
	scripts := []struct{ name, script string }{
		// A Step that does not defer inserts a value lz holds, then
		// retracts (which settles lz); its rollback must not undo the
		// committed lz copy with the entry's undo record: the Step must
		// settle before it touches the entry.
		{"nondefer-insert-held-rollback", `
defer +500
step +500 -100 rollback
step -1000
step -500
step -200 -0`},
		// The same Step committed, then flushed: its count run must carry
		// the lz copy too, or a restore after the diff run loses it.
		{"nondefer-insert-held-restore", `
defer +500
flush
step +500
restore
step -1000 -500
step -200`},
		{"nondefer-insert-held-commit", `
defer +500 +300
step +500 +300 -100
step -1000 -500
step -500 -300
restore`},
		// A deferring Step appends to lz, then settles it (a retraction)
		// and is rolled back: its own values leave, the earlier ones stay.
		{"rollback-settling-defer", `
defer +500
defer +600 +700 -100 rollback
step -1000
restore
step -500`},
		{"rollback-settling-nondefer", `
defer +500 +600
flush
step -100 +700 rollback
restore
step -1000 -600
step -500`},
		// FlushState after lz was converted to entries: values logged in
		// a diff run before, and values not yet logged, which the next
		// count run must carry.
		{"flush-after-settle", `
defer +500
flush
defer +600 +600
step -100
restore
step -1000 -600
step -600
step -500`},
		{"flush-after-settle-unlogged", `
defer +500 +400
defer +600
step -200
flush
defer +700
restore
step -1000 -700 -600
step -500 -400`},
		// lz merged at FlushState (lazyCompactMin 2), then settled by a
		// retraction of a merged value and rolled back, then restored.
		{"compact-then-settle", `
defer +300 +300 +400 +300 +500
flush
defer +300 +600
flush
step -300 rollback
step -300 -1000
restore
step -600 -500
step -400 -300`},
		// Flushes enough to rewrite the runs with lz holding values
		// logged and not, then a restore.
		{"rewrite-with-lazy", `
defer +500
flush
defer +600
flush
defer +700 +500
flush
defer +300
restore
step -1000 -700
step -600
step -500
step -500`},
		// A deferring Step's retraction of a value only lz holds.
		{"defer-retract-lazy", `
defer +500 +500
defer -500 -1000
restore
step -500`},
	}
	defer func(n, r int) { runCompactMin, runCompactRuns = n, r }(runCompactMin, runCompactRuns)
	for _, compact := range [][2]int{{runCompactMin, runCompactRuns}, {1, 2}} {
		// Second round: every flush past two runs rewrites the multiset's
		// runs (its live entries and all of lz).
		runCompactMin, runCompactRuns = compact[0], compact[1]
		for _, workers := range []int{1, 2} {
			for _, sc := range scripts {
				if err := runLazyScript(p, workers, base+strings.TrimSpace(sc.script)); err != nil {
					t.Errorf("%s, %d workers, runCompactMin %d, runCompactRuns %d: %v", sc.name, workers, compact[0], compact[1], err)
				}
			}
		}
	}
}

// runLazyScript runs one script of TestReduceLazyPaths.
func runLazyScript(p *dataflow.Plan, workers int, script string) error {
	live, err := BuildWorkers(p, workers)
	if err != nil {
		return err
	}
	store := newMemStore()
	var rows []repr.Row // the live input, one entry per copy
	outs := map[string]int64{}
	fromScratch := func(ts uint64) (*Dataflow, map[string]int64, error) {
		fresh, err := BuildWorkers(p, workers)
		if err != nil {
			return nil, nil, err
		}
		all := make([]repr.Update, len(rows))
		for i, r := range rows {
			all[i] = repr.Update{Row: r, Time: ts, Diff: 1}
		}
		fout, err := fresh.Step(&expr.Ctx{}, ts, map[repr.CollectionID][]repr.Update{1: all}, nil)
		if err != nil {
			return nil, nil, err
		}
		fresh.Commit()
		return fresh, addOuts(map[string]int64{}, fout), nil
	}
	lazy := false // whether some Step left a value in lz
	for ts, line := range strings.Split(script, "\n") {
		ts := uint64(ts + 1)
		f := strings.Fields(line)
		switch f[0] {
		case "flush", "restore":
			var fb opBatch
			if err := live.FlushState(&fb); err != nil {
				return err
			}
			fb.apply(store)
			if f[0] == "flush" {
				continue
			}
			restored, err := BuildWorkers(p, workers)
			if err != nil {
				return err
			}
			if err := restored.Restore(store); err != nil {
				return fmt.Errorf("line %d: restore: %w", ts, err)
			}
			fresh, _, err := fromScratch(ts)
			if err != nil {
				return err
			}
			want := runsState.ReplaceAllString(fresh.DebugState(1), "")
			if got := runsState.ReplaceAllString(restored.DebugState(1), ""); got != want {
				return fmt.Errorf("line %d: restored state:\n%swant (from scratch):\n%s", ts, got, want)
			}
			live = restored
			continue
		case "defer", "step":
		default:
			return fmt.Errorf("line %d: bad line %q", ts, line)
		}
		var batch []repr.Update
		next := rows
		rollback := false
		for _, w := range f[1:] {
			if w == "rollback" {
				rollback = true
				continue
			}
			v, err := strconv.ParseInt(w[1:], 10, 64)
			if err != nil || (w[0] != '+' && w[0] != '-') {
				return fmt.Errorf("line %d: bad update %q", ts, w)
			}
			for g := range int64(4) {
				r := repr.Row{repr.NewInt(g), repr.NewInt(v), repr.NewText("a"), repr.NewText(",")}
				if w[0] == '+' {
					batch = append(batch, repr.Update{Row: r, Time: ts, Diff: 1})
					next = append(next, r)
					continue
				}
				i := slicesIndexRow(next, r)
				if i < 0 {
					return fmt.Errorf("line %d: %s retracts a row not live", ts, w)
				}
				batch = append(batch, repr.Update{Row: r, Time: ts, Diff: -1})
				next = append(next[:i:i], next[i+1:]...)
			}
		}
		var b opBatch
		in := Input{Updates: map[repr.CollectionID][]repr.Update{1: batch}, DeferState: f[0] == "defer"}
		out, err := live.StepInput(&expr.Ctx{}, ts, in, &b)
		if err != nil {
			return fmt.Errorf("line %d: %w", ts, err)
		}
		lazy = lazy || lazyValues(live) > 0
		if rollback {
			live.Rollback()
		} else {
			live.Commit()
			addOuts(outs, out)
			b.apply(store)
			rows = next
		}
		_, fout, err := fromScratch(ts)
		if err != nil {
			return err
		}
		if got, want := fmt.Sprint(outs), fmt.Sprint(fout); got != want {
			return fmt.Errorf("line %d (%s): output %s, from scratch %s", ts, line, got, want)
		}
	}
	if !lazy {
		return fmt.Errorf("no Step left a value in lz: the script tested nothing")
	}
	return nil
}

// lazyValues counts the lazy values of d's Reduces.
func lazyValues(d *Dataflow) int {
	n := 0
	count := func(o *reduceOp) {
		for _, g := range o.groups {
			for _, ms := range o.sets(g) {
				if ms != nil {
					n += len(ms.lz)
				}
			}
		}
	}
	for _, op := range d.ops {
		switch o := op.(type) {
		case *reduceOp:
			count(o)
		case *shardedOp:
			for _, sh := range o.shards {
				if r, ok := sh.op.(*reduceOp); ok {
					count(r)
				}
			}
		}
	}
	return n
}

// slicesIndexRow is the index of the first row of rows equal to r, or -1.
func slicesIndexRow(rows []repr.Row, r repr.Row) int {
	for i, x := range rows {
		if fmt.Sprint(x) == fmt.Sprint(r) {
			return i
		}
	}
	return -1
}
