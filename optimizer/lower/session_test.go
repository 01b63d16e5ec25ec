package lower

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/optimizer/rules"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

var sessionSeed = flag.Uint64("session-seed", 0, "seed of TestSessionRandom (0: from the clock)")

// sessionQuery is the view TestSessionRandom maintains. The WHERE clause
// has a key conjunct (moved below the SessionWindow) and one over another
// column, which must stay above: rows with v % 5 = 0 still link sessions
// but are not counted.
const sessionQuery = `SELECT k, window_start, window_end, count(*), sum(v)
FROM SESSION(s, ts, INTERVAL '5' SECOND)
WHERE k <> 3 AND v % 5 <> 0
GROUP BY k, window_start, window_end`

// sessionGap is the query's gap in microseconds.
const sessionGap = 5_000_000

// TestSessionRandom plans, optimizes and lowers sessionQuery and runs it
// incrementally over random inserts and deletes of s(k, v, ts), checking
// after every Step that the accumulated output equals the sessions
// recomputed from scratch over the table's current rows. Steps are
// sometimes rolled back, and the dataflow is sometimes rebuilt from its
// logged state. With a watermark on ts, late updates are dropped (the
// model drops them too), sessions close and their state is freed: at the
// end, with the watermark past every row, no state is left. Run with
// -session-seed=N to replay a failure.
func TestSessionRandom(t *testing.T) {
	seed := *sessionSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -session-seed=%d)", seed, seed)
	for _, wm := range []bool{false, true} {
		t.Run(fmt.Sprintf("watermark=%t", wm), func(t *testing.T) {
			for i := range 20 {
				r := &sessionRun{t: t, rng: rand.New(rand.NewPCG(seed, uint64(i))), watermark: wm}
				r.run()
				if t.Failed() {
					t.Fatalf("failed in round %d (seed %d)", i, seed)
				}
			}
		})
	}
}

// sessionRun is one randomized run: the dataflow, its committed state,
// the model table and the accumulated view.
type sessionRun struct {
	t         *testing.T
	rng       *rand.Rand
	watermark bool
	plan      *dataflow.Plan
	df        *exec.Dataflow
	store     map[string][]byte
	// live is the model table: row key -> row and count.
	live map[string]*modelRow
	// view is the accumulated output: row text -> count.
	view map[string]int64
	// wm is the source watermark in microseconds (NoWatermark: none yet).
	wm int64
}

type modelRow struct {
	row repr.Row
	n   int64
}

// base is the first event time the run generates.
var sessionBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func (r *sessionRun) run() {
	r.build()
	r.store, r.live, r.view, r.wm = map[string][]byte{}, map[string]*modelRow{}, map[string]int64{}, exec.NoWatermark
	for step := 1; step <= 60; step++ {
		r.step(uint64(step))
		if r.t.Failed() {
			return
		}
		if r.rng.IntN(10) == 0 {
			r.restore()
		}
	}
	if r.watermark {
		r.finish()
	}
}

// build plans, optimizes and lowers the query over s.
func (r *sessionRun) build() {
	col := func(n string, t repr.T) planner.Column { return planner.Column{Name: n, Type: t} }
	cat := catalog{"s": {ID: 10, Name: "s", Columns: []planner.Column{col("k", repr.Int8), col("v", repr.Int8),
		col("ts", repr.Timestamp)}, HasEventTime: r.watermark, EventTimeCol: 2}}
	res, err := pg_query.Parse(sessionQuery)
	if err != nil {
		r.t.Fatal(err)
	}
	q, err := planner.PlanQuery(cat, res.Stmts[0].Stmt, planner.Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	rel, _, err := rules.Run(q.Rel, rules.Default...)
	if err != nil {
		r.t.Fatal(err)
	}
	if r.plan, err = Lower(rel); err != nil {
		r.t.Fatal(err)
	}
	if r.df, err = exec.Build(r.plan); err != nil {
		r.t.Fatalf("build: %v\n%s", err, r.plan)
	}
}

// step runs one Step of random updates (and a random watermark), then
// checks the view, or rolls the Step back.
func (r *sessionRun) step(t repr.Time) {
	var us []repr.Update
	pending := map[string]int64{}
	for range 1 + r.rng.IntN(4) {
		u := r.randomUpdate(t, pending)
		pending[string(repr.AppendRowKey(nil, u.Row))] += u.Diff
		us = append(us, u)
	}
	in := exec.Input{Updates: map[repr.CollectionID][]repr.Update{10: us}}
	newWM := r.wm
	if r.watermark && r.rng.IntN(3) == 0 {
		newWM = max(r.wm, repr.TimeToTimestamp(sessionBase)+int64(t)*1_500_000)
		in.Watermarks = map[repr.CollectionID]int64{10: newWM}
	}
	b := &mapBatch{}
	out, err := r.df.StepInput(nil, t, in, b)
	if err != nil {
		r.t.Fatalf("step %d: %v", t, err)
	}
	if r.rng.IntN(8) == 0 {
		r.df.Rollback()
		return
	}
	r.df.Commit()
	b.apply(r.store)
	for _, u := range us {
		r.applyModel(u)
	}
	r.wm = newWM
	for _, u := range out {
		r.view[formatSessionRow(u.Row)] += u.Diff
	}
	r.check(t, us)
}

// randomUpdate inserts a new row or deletes a live one (not already
// deleted by the Step's pending updates), with times within a minute after
// the watermark (sometimes a little before: late).
func (r *sessionRun) randomUpdate(t repr.Time, pending map[string]int64) repr.Update {
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(r.live)) {
		if r.live[k].n+pending[k] > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 && r.rng.IntN(3) == 0 {
		m := r.live[keys[r.rng.IntN(len(keys))]]
		return repr.Update{Row: m.row, Time: t, Diff: -1}
	}
	lo := repr.TimeToTimestamp(sessionBase)
	if r.wm != exec.NoWatermark {
		lo = r.wm - 3_000_000
	}
	ts := lo + int64(r.rng.IntN(60))*1_000_000
	if r.rng.IntN(4) == 0 {
		ts += int64(r.rng.IntN(1_000_000))
	}
	row := repr.Row{repr.NewInt(int64(r.rng.IntN(4))), repr.NewInt(int64(r.rng.IntN(10))), repr.NewTimestamp(ts)}
	return repr.Update{Row: row, Time: t, Diff: 1}
}

// applyModel applies a committed update to the model table unless the
// source drops it as late (its time below the watermark before the Step).
func (r *sessionRun) applyModel(u repr.Update) {
	if r.wm != exec.NoWatermark && u.Row[2].Micros() < r.wm {
		return
	}
	k := string(repr.AppendRowKey(nil, u.Row))
	m := r.live[k]
	if m == nil {
		m = &modelRow{row: u.Row}
		r.live[k] = m
	}
	if m.n += u.Diff; m.n == 0 {
		delete(r.live, k)
	}
}

// check compares the view with the sessions recomputed from the model.
func (r *sessionRun) check(t repr.Time, us []repr.Update) {
	var got []string
	for row, n := range r.view {
		if n < 0 {
			r.t.Errorf("step %d: row %s has count %d", t, row, n)
		}
		for range n {
			got = append(got, row)
		}
	}
	slices.Sort(got)
	want := bruteForceSessions(r.live)
	if !slices.Equal(got, want) {
		r.t.Errorf("step %d (updates %v): view differs\ngot:\n%s\nwant:\n%s\nplan:\n%s", t, us,
			strings.Join(got, "\n"), strings.Join(want, "\n"), r.plan)
	}
}

// bruteForceSessions computes sessionQuery's result from scratch: per k,
// sort the times, cut where consecutive times are gap or more apart, and
// aggregate the rows passing the WHERE clause.
func bruteForceSessions(live map[string]*modelRow) []string {
	byKey := map[int64][]*modelRow{}
	for _, m := range live {
		k := m.row[0].Int()
		byKey[k] = append(byKey[k], m)
	}
	var out []string
	for k, rows := range byKey {
		if k == 3 {
			continue
		}
		slices.SortFunc(rows, func(a, b *modelRow) int { return int(a.row[2].Micros() - b.row[2].Micros()) })
		for lo := 0; lo < len(rows); {
			hi := lo + 1
			for hi < len(rows) && rows[hi].row[2].Micros()-rows[hi-1].row[2].Micros() < sessionGap {
				hi++
			}
			var count, sum int64
			for _, m := range rows[lo:hi] {
				if v := m.row[1].Int(); v%5 != 0 {
					count += m.n
					sum += v * m.n
				}
			}
			if count > 0 {
				first, last := rows[lo].row[2].Micros(), rows[hi-1].row[2].Micros()+sessionGap
				ws, we := repr.FormatText(repr.NewTimestamp(first), repr.Timestamp, time.UTC), repr.FormatText(repr.NewTimestamp(last), repr.Timestamp, time.UTC)
				out = append(out, fmt.Sprintf("%d | %s | %s | %d | %d", k, ws, we, count, sum))
			}
			lo = hi
		}
	}
	slices.Sort(out)
	return out
}

// formatSessionRow prints a row of sessionQuery in PostgreSQL's text
// format (k, window_start, window_end, count, sum).
func formatSessionRow(row repr.Row) string {
	ts := []repr.T{repr.Int8, repr.Timestamp, repr.Timestamp, repr.Int8, repr.Numeric}
	parts := make([]string, len(row))
	for i, d := range row {
		parts[i] = repr.FormatText(d, ts[i], time.UTC)
	}
	return strings.Join(parts, " | ")
}

// restore replaces the dataflow by one rebuilt from the committed state.
func (r *sessionRun) restore() {
	df, err := exec.Build(r.plan)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := df.Restore(mapReader(r.store)); err != nil {
		r.t.Fatalf("restore: %v", err)
	}
	r.df = df
}

// finish moves the watermark past every row: every session closes, and
// the SessionWindow and the Reduce keep no state.
func (r *sessionRun) finish() {
	wm := repr.TimeToTimestamp(sessionBase.Add(24 * time.Hour))
	in := exec.Input{Watermarks: map[repr.CollectionID]int64{10: wm}}
	out, err := r.df.StepInput(nil, 1000, in, &mapBatch{})
	if err != nil {
		r.t.Fatal(err)
	}
	r.df.Commit()
	if len(out) != 0 {
		r.t.Errorf("closing emitted %v", out)
	}
	for i, n := range r.plan.Nodes {
		switch n.Op.(type) {
		case dataflow.SessionWindow, dataflow.Reduce:
			if s := r.df.DebugState(i); s != "empty\n" {
				r.t.Errorf("node %%%d keeps state after every session closed:\n%s", i, s)
			}
		}
	}
}

// mapBatch records a Step's state writes.
type mapBatch struct {
	keys [][]byte
	vals [][]byte // nil: delete
}

func (b *mapBatch) Set(k, v []byte) {
	b.keys, b.vals = append(b.keys, bytes.Clone(k)), append(b.vals, append([]byte{}, v...))
}

func (b *mapBatch) Delete(k []byte) {
	b.keys, b.vals = append(b.keys, bytes.Clone(k)), append(b.vals, nil)
}

func (b *mapBatch) apply(m map[string][]byte) {
	for i, k := range b.keys {
		if b.vals[i] == nil {
			delete(m, string(k))
		} else {
			m[string(k)] = b.vals[i]
		}
	}
}

// mapReader is a StateReader over a map.
type mapReader map[string][]byte

func (m mapReader) Scan(prefix []byte, fn func(k, v []byte) error) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.HasPrefix(k, string(prefix)) {
			if err := fn([]byte(k), m[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m mapReader) ScanFrom(prefix, from []byte, fn func(k, v []byte) error) error {
	return m.Scan(prefix, func(k, v []byte) error {
		if string(k) < string(from) {
			return nil
		}
		return fn(k, v)
	})
}
