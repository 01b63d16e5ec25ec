package exec

import (
	"unsafe"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Memory accounting of a Step. When the Step's expr.Ctx has a Memory
// account, the Step estimates what it grows by: the rows its operators
// produce (the slab's chunks, plus an update per row), the state its
// stateful operators add (stepCtx.grown: arranged join rows, new groups)
// and its state log, and reports that growth to the account each time it
// passes memReportBytes, at the points where it already looks at its
// Interrupt channel (between operators and every pollEvery rows). A
// refusal (53200) fails the Step, which rolls back like any other error.
// The estimate is cheap, not exact (strings, decimals and map growth are
// left out): the accountant cross-checks it against the live heap.

const (
	updateBytes = int64(unsafe.Sizeof(repr.Update{}))
	logOpBytes  = int64(unsafe.Sizeof(logOp{}))
	// memReportBytes of estimated growth accumulate before a Step reports
	// them to its account: one call per quarter MiB, never one per row.
	memReportBytes = 256 << 10
)

// growth is the slab's estimated growth ever: its chunks and, per row
// handed out, the update holding it twice over (an output slice grows by
// doubling, so it is up to twice its length, and the array it outgrew
// lives until the next collection).
func (s *rowSlab) growth() int64 { return s.allocated + s.rows*2*updateBytes }

// growth returns the Step's estimated growth so far.
func (s *stepCtx) growth() int64 {
	return s.slab.growth() - s.memBase + s.grown + s.log.size()
}

// account reports the Step's growth since its last report to its account
// once that passes memReportBytes (s.mem is not nil).
func (s *stepCtx) account() error {
	g := s.growth()
	n := g - s.reported
	if n < memReportBytes {
		return nil
	}
	s.reported = g
	return s.mem.Grow(n)
}

// memFreer is an account that takes back bytes its work let go of (sql's
// accounts are).
type memFreer interface{ Free(n int64) }

// pairsOnly reports whether op's output rows are only its output: rows
// it builds from the slab (a join's joined pairs) that its state never
// refers to (a join arranges encodings), so once the nodes consuming them
// are done and the Step lets go of its nodes' outputs (endParts) they
// are garbage.
func pairsOnly(op operator) bool {
	switch op.(type) {
	case *joinOp, *sharedJoin:
		return true
	}
	return false
}

// settle returns to the Step's account the slab growth of its join nodes
// whose pairs a later node consumed (stepCtx.pairs: the pairs a join
// emits and the candidates it tried, which a projection after it copies
// from), once the Step has let go of its nodes' outputs: at most the
// slab's growth beyond out, the rows the Step hands back (its datums and
// updates), which its caller keeps until done, should a join's pairs pass
// through a filter into it. The reservation is unchanged, so the account
// still held the Step's peak; its use afterwards is what the Step left
// live, which the next view's Step in the same commit reuses. Only growth
// already reported is returned. A sharded node's slabs are the shards'
// (their growth is in grown), so it stays accounted.
func (s *stepCtx) settle(out []repr.Update) {
	f, ok := s.mem.(memFreer)
	if !ok || s.pairs == 0 {
		return
	}
	keep := int64(len(out)) * 2 * updateBytes
	for i := range out {
		keep += int64(len(out[i].Row)) * datumBytes
	}
	if n := min(s.pairs, s.slab.growth()-s.memBase-keep, s.reported); n > 0 {
		f.Free(n)
	}
}

// growConsolidate reserves, in ctx's account (if any), the memory that
// consolidating out takes: a key per update and the sorted copy.
func growConsolidate(ctx *expr.Ctx, out []repr.Update) error {
	if ctx == nil || ctx.Memory == nil || len(out) < 1024 {
		return nil
	}
	key := int64(len(repr.AppendRowKey(nil, out[0].Row))) + 8
	return ctx.Memory.Grow(int64(len(out)) * (key + 12 + updateBytes))
}

// groupBytes estimates a new group's memory beyond its key encoding: the
// group, its map entry, its undo record and its accumulator slots.
func (o *reduceOp) groupBytes() int64 {
	return int64(unsafe.Sizeof(group{})+unsafe.Sizeof(groupUndo{})) + mapEntryOverhead +
		int64(o.arena.words)*8 + int64(o.arena.decs)*(8+decimalBytes)
}
