package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// reachPlan is WITH RECURSIVE r(n) AS (VALUES (0) UNION SELECT e.b FROM r
// JOIN e ON e.a = r.n) over edges (a, b), collection 1.
const reachPlan = `%0 = Source coll=1 name=e :: int4, int4
%1 = Constant rows=[(0)] :: int4
%2 = Variable name=r limit=100000 :: int4
%3 = Join kind=inner on=[#0=#0] <- %2, %0
%4 = MFP project=[#2] <- %3
%5 = Union <- %1, %4
%6 = Reduce key=[#0] aggs=[] <- %5
%7 = Fixpoint <- %2, %6`

// Graph size of the reachability benchmarks: 100,000 random edges over
// 50,000 nodes (mean out-degree 2, so most nodes are reachable from 0 and
// the BFS depth is about 20).
const (
	benchEdges = 100000
	benchNodes = 50000
)

// reachGraph returns benchEdges distinct random edges.
func reachGraph(rng *rand.Rand) [][2]int {
	seen := map[[2]int]bool{}
	var es [][2]int
	for len(es) < benchEdges {
		e := [2]int{rng.IntN(benchNodes), rng.IntN(benchNodes)}
		if !seen[e] {
			seen[e] = true
			es = append(es, e)
		}
	}
	return es
}

func edgeUpdate(e [2]int, diff int64) repr.Update {
	return repr.Update{Row: repr.Row{repr.NewInt(int64(e[0])), repr.NewInt(int64(e[1]))}, Diff: diff}
}

// reachState is a reachability dataflow maintained over a graph.
type reachState struct {
	d   *Dataflow
	t   uint64
	w   discardBatch
	ctx expr.Ctx
}

// step applies one batch of edge changes as a committed Step, logging state.
func (s *reachState) step(b *testing.B, us ...repr.Update) int {
	s.t++
	s.w.buf = s.w.buf[:0]
	out, err := s.d.Step(&s.ctx, s.t, map[repr.CollectionID][]repr.Update{1: us}, &s.w)
	if err != nil {
		b.Fatal(err)
	}
	s.d.Commit()
	return len(out)
}

func newReachState(b *testing.B, es [][2]int) *reachState {
	s := &reachState{d: mustBuild(b, reachPlan)}
	all := make([]repr.Update, len(es))
	for i, e := range es {
		all[i] = edgeUpdate(e, 1)
	}
	s.step(b, all...)
	return s
}

// BenchmarkLoopReach measures reachability from one root over a
// 100,000-edge graph: the latency of maintaining it through one edge
// insertion (a random new edge) and one edge deletion (a random existing
// edge), each undone untimed, against recomputing it from scratch (a new
// dataflow fed every edge in one Step without logging state, as an ad hoc
// query runs). changed/op is the mean number of reachable
// nodes an update added or removed.
func BenchmarkLoopReach(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	es := reachGraph(rng)
	b.Run("insert", func(b *testing.B) {
		s := newReachState(b, es)
		changed := 0
		for b.Loop() {
			e := [2]int{rng.IntN(benchNodes), rng.IntN(benchNodes)}
			changed += s.step(b, edgeUpdate(e, 1))
			b.StopTimer()
			s.step(b, edgeUpdate(e, -1))
			b.StartTimer()
		}
		b.ReportMetric(float64(changed)/float64(b.N), "changed/op")
	})
	b.Run("delete", func(b *testing.B) {
		s := newReachState(b, es)
		changed := 0
		for b.Loop() {
			e := es[rng.IntN(len(es))]
			changed += s.step(b, edgeUpdate(e, -1))
			b.StopTimer()
			s.step(b, edgeUpdate(e, 1))
			b.StartTimer()
		}
		b.ReportMetric(float64(changed)/float64(b.N), "changed/op")
	})
	b.Run("recompute", func(b *testing.B) {
		all := make([]repr.Update, len(es))
		for i, e := range es {
			all[i] = edgeUpdate(e, 1)
		}
		for b.Loop() {
			d := mustBuild(b, reachPlan)
			// An ad hoc query: one Step, no state logged.
			if _, err := d.Step(nil, 1, map[repr.CollectionID][]repr.Update{1: all}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
