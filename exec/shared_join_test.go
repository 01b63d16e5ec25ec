package exec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// testArrangement is a shared arrangement for tests: the multiset of
// rows of one collection, looked up by the key encoding of some columns.
type testArrangement struct {
	cols []int
	rows map[string]int64 // repr.AppendRowKey -> count
	row  map[string]repr.Row
}

func (a *testArrangement) apply(r repr.Row, d int64) {
	k := string(repr.AppendRowKey(nil, r))
	a.rows[k] += d
	a.row[k] = r
	if a.rows[k] == 0 {
		delete(a.rows, k)
	}
}

// Lookup serves index 9; with a decoder it decodes each row's value
// encoding with it, as the coordinator's collections do.
func (a *testArrangement) Lookup(index uint64, key []byte, d *repr.ColDecoder, fn func(repr.Row, int64) bool) error {
	if index != 9 {
		return fmt.Errorf("no index %d", index)
	}
	keys := make([]string, 0, len(a.rows))
	for k := range a.rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := a.row[k]
		if !bytes.HasPrefix(repr.AppendColsKey(nil, r, a.cols), key) {
			continue
		}
		if d != nil {
			var err error
			if r, err = d.Decode(repr.AppendRow(nil, r)); err != nil {
				return err
			}
		}
		if !fn(r, a.rows[k]) {
			break
		}
	}
	return nil
}

// TestSharedJoinRandom feeds random insertions and retractions of two
// collections, in random batches (some rolled back, some after a restore
// from the logged state), to an inner join that keeps both sides and to
// the same join reading its right side, through an MFP, from a shared
// arrangement that the test keeps as the coordinator would (updated
// before each Step, undone with a rolled-back Step), and checks that the
// two always emit the same changes.
func TestSharedJoinRandom(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	const base = `%0 = Source coll=1 :: int4, int4, text
%1 = Source coll=2 :: int4, int4, text
%2 = MFP map=[(#1 + 1)] filter=[(#2 <> 'c')] project=[#3, #0, #2] <- %1
%3 = Join kind=inner on=[#0=#1] residual=[(#1 <= #3)]`
	plain := buildText(t, base+" <- %0, %2")
	shared := buildText(t, base+" shared=right:9 <- %0, %2")
	arr := &testArrangement{cols: []int{0}, rows: map[string]int64{}, row: map[string]repr.Row{}}
	live := [2]map[string]int64{{}, {}}
	store := newMemStore()
	for step := 1; step <= 300; step++ {
		in := map[repr.CollectionID][]repr.Update{}
		for c := range 2 {
			in[repr.CollectionID(c+1)] = randomChanges(rng, live[c], repr.Time(step))
		}
		for _, u := range in[2] {
			arr.apply(u.Row, u.Diff)
		}
		want, err := plain.Step(nil, repr.Time(step), in, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := &opBatch{}
		got, err := shared.StepInput(nil, repr.Time(step), Input{Updates: in, Arrangements: arr}, w)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := formatDelta(want), formatDelta(got); a != b {
			t.Fatalf("step %d: plain join\n%s\nshared join\n%s", step, a, b)
		}
		if rng.IntN(8) == 0 { // undo the step everywhere
			plain.Rollback()
			shared.Rollback()
			for _, u := range in[2] {
				arr.apply(u.Row, -u.Diff)
			}
			for c := range 2 {
				for _, u := range in[repr.CollectionID(c+1)] {
					live[c][string(repr.AppendRowKey(nil, u.Row))] -= u.Diff
				}
			}
			continue
		}
		plain.Commit()
		shared.Commit()
		w.apply(store)
		if rng.IntN(20) == 0 { // restart the shared join from its log
			shared = buildText(t, base+" shared=right:9 <- %0, %2")
			if err := shared.Restore(store); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// randomChanges returns a few random updates of a collection (k, v, s),
// retracting only rows that live holds, and applies them to live.
func randomChanges(rng *rand.Rand, live map[string]int64, t repr.Time) []repr.Update {
	var out []repr.Update
	for i := rng.IntN(6); i > 0; i-- {
		r := repr.Row{repr.NewInt(rng.Int64N(4)), repr.NewInt(rng.Int64N(5)), repr.NewText(string(rune('a' + rng.IntN(3))))}
		if rng.IntN(8) == 0 {
			r[0] = repr.Null
		}
		k := string(repr.AppendRowKey(nil, r))
		d := int64(1)
		if live[k] > 0 && rng.IntN(2) == 0 {
			d = -1
		}
		live[k] += d
		out = append(out, repr.Update{Row: r, Time: t, Diff: d})
	}
	return out
}

func buildText(t *testing.T, text string) *Dataflow {
	t.Helper()
	p, err := dataflow.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// formatUpdates prints consolidated updates, one per line, sorted.
func formatDelta(us []repr.Update) string {
	var lines []string
	for _, u := range Consolidate(append([]repr.Update(nil), us...)) {
		lines = append(lines, fmt.Sprintf("%s %+d", dataflow.FormatRow(u.Row), u.Diff))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
