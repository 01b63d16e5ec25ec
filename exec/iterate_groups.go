package exec

import "github.com/eddydb/eddy/repr"

// loopMarks is embedded in the groups of the loop operators (loopCount's
// cgroup, loopJoin's and loopReduce's lbucket): the iteration of the
// pending Step at which the group was last queued, and the Step (epoch)
// that last touched it.
type loopMarks struct {
	mark  int
	stamp uint64
}

func (m *loopMarks) marks() *loopMarks { return m }

// loopGroups is what the loop operators share (loopCount, loopJoin,
// loopReduce): the groups to evaluate at the current iteration, each
// once, and the schedule of the later iterations at which the groups the
// Step touched have past diffs (see iterate.go).
type loopGroups[G interface{ marks() *loopMarks }] struct {
	sched loopSchedule[G]
	cand  []G
	seen  map[int]bool
}

// begin starts iteration k: the candidates are the groups scheduled at k.
func (q *loopGroups[G]) begin(k int) {
	q.cand = q.cand[:0]
	for _, g := range q.sched.take(k) {
		q.queue(g, k)
	}
}

// queue adds g to the groups evaluated at iteration k, once.
func (q *loopGroups[G]) queue(g G, k int) {
	if m := g.marks(); m.mark != k {
		m.mark = k
		q.cand = append(q.cand, g)
	}
}

// touch reports whether the Step numbered epoch touches g for the first
// time, resetting its mark then; the caller then schedules g (after) at
// the later iterations of its past diffs.
func (q *loopGroups[G]) touch(epoch uint64, g G) bool {
	m := g.marks()
	if m.stamp == epoch {
		return false
	}
	m.stamp, m.mark = epoch, -1
	if q.seen == nil {
		q.seen = map[int]bool{}
	}
	clear(q.seen)
	return true
}

// after schedules g at every iteration after k at which p has a diff.
func (q *loopGroups[G]) after(k int, g G, p []iterDiff) { scheduleAfter(&q.sched, k, g, q.seen, p) }

// foldHist folds h's pending diffs into its past ones and logs them under
// key (row(history..., row...)), or deletes key once no diff is left,
// which it reports.
func foldHist(s *stepCtx, key []byte, h *ihist, row repr.Row, scratch *repr.Row) (gone bool) {
	h.p, h.n = h.merged(), nil
	if len(h.p) == 0 {
		s.log.del(key)
		return true
	}
	*scratch = append(appendHist((*scratch)[:0], h.p), row...)
	s.log.set(key, repr.AppendRow(nil, *scratch))
	return false
}

// decodeLogged decodes a value foldHist logged: the history and the row.
func decodeLogged(value []byte) ([]iterDiff, repr.Row, error) {
	r, err := repr.DecodeRow(value)
	if err != nil {
		return nil, nil, errCorrupt
	}
	return decodeHist(r)
}
