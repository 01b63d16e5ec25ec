package sql

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// lockedRoutines stands for the session's PL/pgSQL routines while a
// statement holds the engine's lock (ALTER TABLE converting or checking
// the existing rows): a routine runs statements of its own, which take
// that lock, so calling one there would wait for itself forever. The call
// is refused instead. The caller holds e.mu, so reading the catalog is
// safe.
type lockedRoutines struct{ e *Engine }

// CallRoutine implements expr.Routines.
func (r lockedRoutines) CallRoutine(id uint64, _ []repr.Datum) ([]repr.Row, error) {
	name := "a PL/pgSQL function"
	if o := r.e.cat.byID[id]; o != nil {
		name = "PL/pgSQL function " + o.Name
	}
	return nil, repr.Unsupported("calling %s while ALTER TABLE converts or checks a table's existing rows", name)
}

// lockedCtx returns ctx with its session's routines and sequences
// replaced by lockedRoutines and lockedSeqs, which do not take the
// engine's lock the caller holds.
func (e *Engine) lockedCtx(ctx *expr.Ctx, s *Session) *expr.Ctx {
	if ctx == nil || ctx.Session == nil {
		return ctx
	}
	c, si := *ctx, *ctx.Session
	if si.Routines != nil {
		si.Routines = lockedRoutines{e}
	}
	if si.Sequences != nil && s != nil {
		si.Sequences = lockedSeqs{s}
	}
	c.Session = &si
	return &c
}
