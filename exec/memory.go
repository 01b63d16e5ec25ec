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
