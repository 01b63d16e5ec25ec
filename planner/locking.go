package planner

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// SELECT ... FOR UPDATE / FOR NO KEY UPDATE / FOR SHARE / FOR KEY SHARE.
//
// Eddy's transactions are optimistic, so a row lock is a promise checked
// at COMMIT rather than a wait: the statement layer records the rows the
// query read of each locked table and fails the block's COMMIT with 40001
// if a concurrent commit changed one of them (sql/locks.go). To know
// those rows, the query is planned with each locked table's whole row
// appended to its select list (t.*), after the visible columns; the rows
// are the ones the query returns, after its ORDER BY and LIMIT. Only a
// plain SELECT over tables may lock, as in PostgreSQL (no GROUP BY,
// DISTINCT, aggregates, window functions or set operations); a locking
// clause on views, subqueries or functions in FROM, and on the nullable
// side of an outer join is 0A000. A locking block below the top level
// runs as a query of its own (lockedSubquery, below). SKIP LOCKED and
// NOWAIT look up the locks other open blocks hold (sql/rowlocks.go).

// Lock is a table whose rows a query locks: each row of the query
// carries the table's row read in columns [Col, Col+len(table columns)).
type Lock struct {
	Table *Relation
	Col   int
	// KeyOnly is FOR KEY SHARE: only a change of the row's primary key
	// (or its deletion) conflicts.
	KeyOnly bool
	// Strength is the lock's strength (the strongest clause naming it).
	Strength LockStrength
	// Wait is what to do about rows other open blocks hold locks on.
	Wait LockWait
}

// LockStrength is a row lock's strength, weakest first (PostgreSQL's
// LockTupleMode).
type LockStrength int8

// The row lock strengths.
const (
	ForKeyShare LockStrength = iota
	ForShare
	ForNoKeyUpdate
	ForUpdate
)

// Conflicts reports whether locks of strengths a and b held by two
// transactions conflict (PostgreSQL's row-level lock conflict table).
func (a LockStrength) Conflicts(b LockStrength) bool {
	return a+b >= 3
}

// LockWait is a locking clause's wait policy.
type LockWait int8

// The wait policies: Eddy never waits (a conflicting COMMIT fails with
// 40001); SKIP LOCKED skips rows another open block holds a conflicting
// lock on, NOWAIT fails with 55P03 on one.
const (
	LockNoWait LockWait = iota
	LockSkipLocked
	LockErrorLocked
)

// lockedRel is a table a locking clause applies to: its FROM entry
// (rv) and the name its columns are qualified by.
type lockedRel struct {
	rv       *pg_query.RangeVar
	alias    string
	strength LockStrength
	wait     LockWait
}

// planLocking plans a top-level SELECT with a locking clause: sel with
// the locked tables' rows appended to its select list, and the locks.
func (b *builder) planLocking(sel *pg_query.SelectStmt) (*planned, []Lock, error) {
	p, locks, err := b.planLockTargets(sel, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	p.cols = p.cols[:locks[0].Col]
	return p, locks, nil
}

// planLockTargets plans locking block sel (over outer, when a
// decorrelated subquery) with the locked tables' rows appended to its
// select list, and the locks, whose Col counts from the first of p.cols.
func (b *builder) planLockTargets(sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*planned, []Lock, error) {
	if err := checkLockable(sel); err != nil {
		return nil, nil, err
	}
	rels, err := lockedRels(sel)
	if err != nil {
		return nil, nil, err
	}
	tables := make([]*Relation, len(rels))
	for i, r := range rels {
		if tables[i], err = b.lockedTable(sel, r); err != nil {
			return nil, nil, err
		}
	}
	out := proto.Clone(sel).(*pg_query.SelectStmt)
	out.LockingClause = nil
	for i, r := range rels {
		out.TargetList = append(out.TargetList, lockTargets(i, r, tables[i])...)
	}
	p, err := b.planQuery(out, parent, outer)
	if err != nil {
		return nil, nil, err
	}
	col := len(p.cols)
	locks := make([]Lock, len(rels))
	for i := len(rels) - 1; i >= 0; i-- {
		col -= len(tables[i].Columns)
		locks[i] = Lock{Table: tables[i], Col: col, KeyOnly: rels[i].strength == ForKeyShare,
			Strength: rels[i].strength, Wait: rels[i].wait}
	}
	return p, locks, nil
}

// lockedTable resolves a locked FROM entry, which must be a table: a
// WITH query, view or materialized view is refused as in PostgreSQL.
func (b *builder) lockedTable(sel *pg_query.SelectStmt, r lockedRel) (*Relation, error) {
	name := lockName(sel.LockingClause[0].GetLockingClause())
	if w := sel.WithClause; w != nil && r.rv.Schemaname == "" {
		for _, c := range w.Ctes {
			if c.GetCommonTableExpr().Ctename == r.rv.Relname {
				return nil, repr.Unsupported("%s on WITH query %q", name, r.rv.Relname)
			}
		}
	}
	rel, err := b.cat.Relation(r.rv.Schemaname, r.rv.Relname)
	if err != nil {
		return nil, withPos(err, r.rv.Location)
	}
	switch rel.Kind {
	case RelTable:
		return rel, nil
	case RelMaterializedView:
		return nil, repr.Errorf(repr.CodeWrongObjectType, "cannot lock rows in materialized view %q", rel.Name)
	}
	return nil, repr.Unsupported("%s on %q, which is not a table", name, rel.Name)
}

// LockedTables returns the FROM entries a top-level SELECT's locking
// clauses lock (for privilege checks: locking needs UPDATE, as in
// PostgreSQL 15), or nil when it has none or they are invalid (planning
// reports why).
func LockedTables(sel *pg_query.SelectStmt) []*pg_query.RangeVar {
	if sel == nil || len(sel.LockingClause) == 0 {
		return nil
	}
	rels, err := lockedRels(sel)
	if err != nil {
		return nil
	}
	out := make([]*pg_query.RangeVar, len(rels))
	for i, r := range rels {
		out[i] = r.rv
	}
	return out
}

// LockName is the name of a SELECT's first locking clause ("FOR
// UPDATE"), as PostgreSQL names the command in errors.
func LockName(sel *pg_query.SelectStmt) string {
	return lockName(sel.LockingClause[0].GetLockingClause())
}

// lockName is a locking clause's name in errors (FOR UPDATE, FOR SHARE).
func lockName(lc *pg_query.LockingClause) string {
	switch lc.Strength {
	case pg_query.LockClauseStrength_LCS_FORKEYSHARE:
		return "FOR KEY SHARE"
	case pg_query.LockClauseStrength_LCS_FORSHARE:
		return "FOR SHARE"
	case pg_query.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return "FOR NO KEY UPDATE"
	}
	return "FOR UPDATE"
}

// checkLockable refuses a locking clause on a query whose rows are not
// table rows (PostgreSQL's 0A000 errors), and the wait policies Eddy
// cannot honour.
func checkLockable(sel *pg_query.SelectStmt) error {
	name := lockName(sel.LockingClause[0].GetLockingClause())
	var aggs []*pg_query.FuncCall
	for _, t := range sel.TargetList {
		collectAggs(t, &aggs)
	}
	reason := ""
	switch {
	case sel.Op != pg_query.SetOperation_SETOP_NONE:
		reason = "is not allowed with UNION/INTERSECT/EXCEPT"
	case len(sel.ValuesLists) > 0:
		reason = "cannot be applied to VALUES"
	case len(sel.DistinctClause) > 0:
		reason = "is not allowed with DISTINCT clause"
	case len(sel.GroupClause) > 0:
		reason = "is not allowed with GROUP BY clause"
	case sel.HavingClause != nil:
		reason = "is not allowed with HAVING clause"
	case len(aggs) > 0:
		reason = "is not allowed with aggregate functions"
	case len(blockWindowCalls(sel)) > 0:
		reason = "is not allowed with window functions"
	}
	if reason != "" {
		return repr.Errorf(repr.CodeFeatureNotSupported, "%s %s", name, reason)
	}
	return nil
}

// lockedRels returns the tables the locking clauses lock: those named by
// their OF lists, or every FROM item when a clause has none.
func lockedRels(sel *pg_query.SelectStmt) ([]lockedRel, error) {
	var all []lockedRel
	var others []string // FROM items that are not table references
	for _, item := range sel.FromClause {
		collectLockable(item, false, &all, &others)
	}
	var out []lockedRel
	seen := map[string]int{}
	add := func(r lockedRel, lc *pg_query.LockingClause) {
		r.strength, r.wait = lockStrength(lc), lockWait(lc)
		if i, ok := seen[r.alias]; ok { // the stronger lock and policy win
			out[i].strength, out[i].wait = max(out[i].strength, r.strength), max(out[i].wait, r.wait)
			return
		}
		seen[r.alias] = len(out)
		out = append(out, r)
	}
	for _, n := range sel.LockingClause {
		lc := n.GetLockingClause()
		if len(lc.LockedRels) == 0 {
			if len(others) > 0 {
				return nil, repr.Unsupported("%s on %s", lockName(lc), others[0])
			}
			for _, r := range all {
				add(r, lc)
			}
			continue
		}
		for _, ln := range lc.LockedRels {
			name := ln.GetRangeVar().GetRelname()
			r, ok := findLocked(all, name)
			if !ok {
				if isOther(others, name) {
					return nil, repr.Unsupported("%s on %s", lockName(lc), name)
				}
				return nil, repr.Errorf(repr.CodeUndefinedTable, "relation %q in %s clause not found in FROM clause", name, lockName(lc))
			}
			add(r, lc)
		}
	}
	return out, nil
}

// collectLockable adds the table references of FROM item n to tables and
// describes every other item (subqueries, functions, the nullable side of
// an outer join) in others.
func collectLockable(n *pg_query.Node, nullable bool, tables *[]lockedRel, others *[]string) {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		alias := rv.Relname
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		if nullable {
			*others = append(*others, "the nullable side of an outer join ("+alias+")")
			return
		}
		*tables = append(*tables, lockedRel{rv: rv, alias: alias})
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		collectLockable(j.Larg, nullable || j.Jointype == pg_query.JoinType_JOIN_RIGHT || j.Jointype == pg_query.JoinType_JOIN_FULL, tables, others)
		collectLockable(j.Rarg, nullable || j.Jointype == pg_query.JoinType_JOIN_LEFT || j.Jointype == pg_query.JoinType_JOIN_FULL, tables, others)
	case n.GetRangeSubselect() != nil:
		name := "a subquery in FROM"
		if a := n.GetRangeSubselect().Alias; a != nil {
			name += " (" + a.Aliasname + ")"
		}
		*others = append(*others, name)
	default:
		*others = append(*others, strings.ToLower(nodeName(n))+" in FROM")
	}
}

func findLocked(rels []lockedRel, name string) (lockedRel, bool) {
	for _, r := range rels {
		if r.alias == name {
			return r, true
		}
	}
	return lockedRel{}, false
}

// isOther reports whether name is the alias some non-table item's
// description mentions.
func isOther(others []string, name string) bool {
	for _, o := range others {
		if strings.Contains(o, "("+name+")") {
			return true
		}
	}
	return false
}

// lockTargets are the select-list entries reading the whole row of the
// i-th locked table: one per column, named so that no ORDER BY or GROUP
// BY name can refer to them.
func lockTargets(i int, r lockedRel, t *Relation) []*pg_query.Node {
	var renamed []*pg_query.Node
	if r.rv.Alias != nil {
		renamed = r.rv.Alias.Colnames
	}
	out := make([]*pg_query.Node, len(t.Columns))
	for j, c := range t.Columns {
		name := c.Name
		if j < len(renamed) {
			name = renamed[j].GetString_().GetSval()
		}
		ref := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(r.alias), pg_query.MakeStrNode(name)}, -1)
		out[j] = &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{
			Name: fmt.Sprintf("?lock %d.%d?", i, j), Val: ref, Location: -1}}}
	}
	return out
}

// lockStrength is a locking clause's strength.
func lockStrength(lc *pg_query.LockingClause) LockStrength {
	switch lc.Strength {
	case pg_query.LockClauseStrength_LCS_FORKEYSHARE:
		return ForKeyShare
	case pg_query.LockClauseStrength_LCS_FORSHARE:
		return ForShare
	case pg_query.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return ForNoKeyUpdate
	}
	return ForUpdate
}

// lockWait is a locking clause's wait policy.
func lockWait(lc *pg_query.LockingClause) LockWait {
	switch lc.WaitPolicy {
	case pg_query.LockWaitPolicy_LockWaitSkip:
		return LockSkipLocked
	case pg_query.LockWaitPolicy_LockWaitError:
		return LockErrorLocked
	}
	return LockNoWait
}

// Row locks below the top level: SELECT * FROM (SELECT ... FOR UPDATE
// SKIP LOCKED LIMIT 1) s, WITH c AS (SELECT ... FOR SHARE) ..., a
// sublink's query, a view's definition. As in PostgreSQL, which does not
// pull such a block up into its parent, the block is a unit: the
// statement layer runs it first as a top-level locking query of its own
// (so its rows are locked, and SKIP LOCKED, NOWAIT and LIMIT act on them
// as at the top level), and the statement is planned with the block
// standing for the rows it returned (a constant relation). Every row the
// block returns is locked, even those the enclosing query then discards:
// more conflicts, never fewer. A block reading the enclosing query's
// columns (LATERAL, a correlated sublink) or earlier WITH queries cannot
// run alone: 0A000.

// LockedSubqueries are the results of a statement's locking blocks below
// its top level, in the order planning meets them.
type LockedSubqueries struct {
	Rows []*CTEResult
	// describe plans the blocks for their columns, without rows; met
	// counts the blocks planned so.
	describe bool
	met      int
}

// Met reports whether planning in describe mode met a locking block: its
// plan must not run.
func (l *LockedSubqueries) Met() bool { return l.met > 0 }

// DescribeLockedSubqueries is the Options.Locked that plans a
// statement's locking blocks below the top level for their columns only.
func DescribeLockedSubqueries() *LockedSubqueries {
	return &LockedSubqueries{describe: true}
}

// NeedLockedRows is the planning error asking the statement layer to run
// Query, the next locking block below the top level, as a query of its
// own, append its result to Options.Locked and plan again. For a block
// reading the enclosing query's columns, Plan is instead the planned
// query locking its rows (correlatedLocks); its result is not read.
type NeedLockedRows struct {
	Query *pg_query.Node
	Plan  *Query
}

func (e *NeedLockedRows) Error() string { return "planning needs the rows of a locking subquery" }

// lockedSubquery plans query block sel, which has a locking clause and is
// not the statement's top level, as the rows it returned when the
// statement layer ran it (Options.Locked).
func (b *builder) lockedSubquery(sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*planned, error) {
	name := lockName(sel.LockingClause[0].GetLockingClause())
	switch {
	case b.opts.MaterializedView:
		return b.unlockedBlock(sel, parent, outer, false)
	case b.opts.Locked == nil:
		return nil, repr.Unsupported("%s in a subquery, WITH query or view of this statement (EXPLAIN ANALYZE of a write, COPY (write), a data-modifying WITH part)", name)
	case b.opts.Locked.describe:
		b.opts.Locked.met++
		return b.unlockedBlock(sel, parent, outer, true)
	}
	i, ok := b.lockSlots[sel]
	if !ok {
		i = len(b.lockSlots)
		b.lockSlots[sel] = i
	}
	switch {
	case outer != nil && i >= len(b.opts.Locked.Rows):
		return nil, b.correlatedLocks(sel, parent, outer)
	case outer != nil:
		return b.unlockedBlock(sel, parent, outer, true)
	case recording(parent):
		// Decorrelation's first pass (subquery.go): a block that reads
		// the enclosing query's columns is planned again over them.
		hits := recordedHits(parent)
		p, err := b.unlockedBlock(sel, parent, outer, true)
		if err != nil || recordedHits(parent) > hits {
			return p, err
		}
	}
	if i >= len(b.opts.Locked.Rows) {
		return nil, &NeedLockedRows{Query: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}}
	}
	res := b.opts.Locked.Rows[i]
	return &planned{rel: constRel(res.Columns, res.Rows), cols: res.Columns, limit: -1}, nil
}

// correlatedLocks returns the NeedLockedRows that locks the rows of
// locking block sel, which reads the enclosing query's columns: sel
// planned over every outer value (the decorrelated subquery's outer
// set, outer) with the locked tables' rows appended, as a query of its
// own (Plan). The statement is then planned with the block unlocked. As
// PostgreSQL runs such a block once per outer row, locking the rows it
// returns, this locks the rows it returns for any outer value: a
// superset where the enclosing query stops early (EXISTS reads one row),
// more conflicts, never fewer. SKIP LOCKED and NOWAIT, which would then
// skip or fail on rows PostgreSQL never reads, are 0A000.
func (b *builder) correlatedLocks(sel *pg_query.SelectStmt, parent *scope, outer *outerRel) error {
	for _, n := range sel.LockingClause {
		if lc := n.GetLockingClause(); lockWait(lc) != LockNoWait {
			return repr.Unsupported("%s with SKIP LOCKED or NOWAIT in a subquery that reads the enclosing query's columns", lockName(lc))
		}
	}
	p, locks, err := b.planLockTargets(sel, parent, outer)
	if err != nil {
		return err
	}
	rel := p.rel
	if p.limit >= 0 || p.offset > 0 {
		rel = &ir.TopK{Input: rel, Key: limitKey(p), Order: p.order, Limit: p.limit, Offset: p.offset}
	}
	for i := range locks {
		locks[i].Col += p.nOuter
	}
	return &NeedLockedRows{Plan: &Query{Rel: rel, Limit: -1, Locks: locks}}
}

// recording reports whether sc or a scope enclosing it records the
// references subqueries make to it (decorrelation's first pass).
func recording(sc *scope) bool {
	for ; sc != nil; sc = sc.parent {
		if sc.rec != nil {
			return true
		}
	}
	return false
}

// unlockedBlock plans locking block sel without its locks: to describe
// a statement (anyWait), or in a materialized view's query, as
// PostgreSQL computes the view when no other transaction holds a lock:
// the locks would last only while the view is created, and a maintained
// view cannot honour SKIP LOCKED or NOWAIT (0A000).
func (b *builder) unlockedBlock(sel *pg_query.SelectStmt, parent *scope, outer *outerRel, anyWait bool) (*planned, error) {
	for _, n := range sel.LockingClause {
		if lc := n.GetLockingClause(); !anyWait && lockWait(lc) != LockNoWait {
			return nil, repr.Unsupported("%s with SKIP LOCKED or NOWAIT in a materialized view", lockName(lc))
		}
	}
	if err := checkLockable(sel); err != nil {
		return nil, err
	}
	if _, err := lockedRels(sel); err != nil {
		return nil, err
	}
	plain := proto.Clone(sel).(*pg_query.SelectStmt)
	plain.LockingClause = nil
	return b.planBlock(plain, parent, outer)
}
