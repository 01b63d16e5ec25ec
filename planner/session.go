package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// SESSION(rel, t, gap) in FROM yields rel's columns followed by
// window_start and window_end (of t's type, timestamp or timestamptz):
// the bounds of the session window each row belongs to. Rows closer than
// gap (a constant interval without months) to each other, transitively,
// form one session [first t, last t + gap); rows whose t is NULL are
// dropped.
//
// Sessions are formed per group of the enclosing GROUP BY: its columns
// other than window_start and window_end are the session key (as in
// RisingWave, and Flink's SESSION with PARTITION BY), so
//
//	SELECT user_id, window_start, window_end, count(*)
//	FROM SESSION(clicks, ts, INTERVAL '5' SECOND)
//	GROUP BY user_id, window_start, window_end
//
// counts each user's clicks per session of that user. A session is
// data-dependent (a late row can merge two sessions, deleting it splits
// them again), so it is planned as the stateful ir.SessionWindow with the
// key columns, below the Reduce. Hence the restrictions, each 0A000 with
// its reason: the query block must GROUP BY both window_start and
// window_end, its other GROUP BY items must be plain columns of rel, and
// SESSION must be the only FROM item of an uncorrelated query block (the
// key must be known where the session is formed).
//
// Planning is in two steps: the FROM item yields a SessionWindow without
// a key (pending in builder.sessions), and planGrouping, once the GROUP BY
// is resolved, replaces it by one with the key (groupSession).

// sessionState tracks the SESSION windows being planned.
type sessionState struct {
	// pending are the SESSION items planned in FROM clauses being planned
	// (innermost last) not yet claimed by their query block's scope.
	pending []*ir.SessionWindow
	// scopes maps a FROM scope to its SESSION item until its GROUP BY
	// gives it a key.
	scopes map[*scope]*ir.SessionWindow
}

// sessionTVF plans SESSION(rel, t, gap) without its key.
func (b *builder) sessionTVF(rf *pg_query.RangeFunction, fc *pg_query.FuncCall) (ir.Rel, []scopeCol, error) {
	if len(fc.Args) != 3 {
		return nil, nil, repr.Errorf(repr.CodeUndefinedFunction, "session takes 3 arguments, not %d",
			len(fc.Args)).WithPosition(fc.Location + 1)
	}
	rel, cols, err := b.windowInput(fc.Args[0])
	if err != nil {
		return nil, nil, err
	}
	tcol, err := windowTimeCol(fc.Args[1], cols)
	if err != nil {
		return nil, nil, err
	}
	gap, err := b.windowSizes(fc.Args[2:], 1)
	if err != nil {
		return nil, nil, err
	}
	t := &expr.Col{Idx: tcol, T: cols[tcol].typ}
	sw := &ir.SessionWindow{Input: ir.NewFilter(rel, &expr.IsNull{Arg: t, Negate: true}), TimeCol: tcol, Gap: gap[0]}
	b.sessions.pending = append(b.sessions.pending, sw)
	alias := "session"
	var colAliases []*pg_query.Node
	if rf.Alias != nil {
		alias, colAliases = rf.Alias.Aliasname, rf.Alias.Colnames
	}
	for i := range cols {
		cols[i].table = alias
	}
	cols = append(cols, scopeCol{table: alias, name: "window_start", typ: t.T},
		scopeCol{table: alias, name: "window_end", typ: t.T})
	return sw, cols, renameColumns(cols, colAliases, alias)
}

// sessionMark returns the position planFrom passes to claimSession.
func (b *builder) sessionMark() int { return len(b.sessions.pending) }

// claimSession assigns the SESSION items planned since mark to the FROM
// scope sc whose relation is rel: there may be one, and only as the sole
// FROM item of an uncorrelated block.
func (b *builder) claimSession(sc *scope, rel ir.Rel, nItems int, outer *outerRel, mark int) error {
	mine := b.sessions.pending[mark:]
	if len(mine) == 0 {
		return nil
	}
	b.sessions.pending = b.sessions.pending[:mark]
	if len(mine) > 1 || nItems != 1 || outer != nil || rel != ir.Rel(mine[0]) {
		return repr.Unsupported("SESSION windows other than as the only FROM item of an uncorrelated query")
	}
	if b.sessions.scopes == nil {
		b.sessions.scopes = map[*scope]*ir.SessionWindow{}
	}
	b.sessions.scopes[sc] = mine[0]
	return nil
}

// groupSession gives the SESSION item of from's scope, if any, its key:
// the GROUP BY keys other than window_start and window_end, which must
// all be present. It returns from's relation with the keyed SessionWindow
// in place of the pending one.
func (b *builder) groupSession(from *ectx, keys []expr.Expr) (ir.Rel, error) {
	sw := b.sessions.scopes[from.sc]
	if sw == nil {
		return from.rel, nil
	}
	delete(b.sessions.scopes, from.sc)
	n := ir.Arity(sw.Input)
	var key []int
	var hasStart, hasEnd bool
	for _, k := range keys {
		c, ok := k.(*expr.Col)
		switch {
		case !ok || c.Idx > n+1:
			return nil, repr.Unsupported("GROUP BY expressions other than columns of the SESSION relation")
		case c.Idx == n:
			hasStart = true
		case c.Idx == n+1:
			hasEnd = true
		case !containsInt(key, c.Idx):
			key = append(key, c.Idx)
		}
	}
	if !hasStart || !hasEnd {
		return nil, errSessionGrouping()
	}
	keyed := &ir.SessionWindow{Input: sw.Input, Key: key, TimeCol: sw.TimeCol, Gap: sw.Gap}
	return replaceRel(from.rel, sw, keyed), nil
}

// checkSessionGrouped fails if sc's SESSION item was never given a key
// (the block has no GROUP BY).
func (b *builder) checkSessionGrouped(sc *scope) error {
	if b.sessions.scopes[sc] != nil {
		delete(b.sessions.scopes, sc)
		return errSessionGrouping()
	}
	return nil
}

// errSessionGrouping is the error for a SESSION window without a GROUP BY
// of both window columns.
func errSessionGrouping() error {
	return repr.Unsupported("SESSION windows without GROUP BY window_start, window_end").
		WithHint("Sessions are formed per group of the enclosing GROUP BY, which must include window_start and window_end.")
}

// replaceRel returns r with the node old replaced by repl, copying only
// the ancestors of old.
func replaceRel(r, old, repl ir.Rel) ir.Rel {
	if r == old {
		return repl
	}
	return ir.MapChildren(r, func(c ir.Rel) ir.Rel { return replaceRel(c, old, repl) })
}

// containsInt reports whether xs contains x.
func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
