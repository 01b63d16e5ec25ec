package sql

import (
	"sync"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// rowLockTable is the engine's registry of the row locks open blocks
// hold, for SKIP LOCKED and NOWAIT (nothing ever waits on it): the rows
// a block read with a locking clause, at that clause's strength, and the
// rows it updated or deleted (holdWritten: PostgreSQL's writers lock the
// rows they change). A row is named by its table and
// primary key (its whole value without one). A block's locks are
// released when it ends; an autocommit statement takes none. It costs
// one map entry per locked row while the block lasts.
type rowLockTable struct {
	mu        sync.Mutex
	held      map[rowLockKey]map[*Session]planner.LockStrength
	bySession map[*Session][]rowLockKey
}

type rowLockKey struct {
	table uint64
	key   string
}

// lockKeyOf names row r of table t.
func lockKeyOf(t *planner.Relation, r repr.Row) rowLockKey {
	if t.PrimaryKey != nil {
		return rowLockKey{uint64(t.ID), string(repr.AppendColsKey(nil, r, t.PrimaryKey))}
	}
	return rowLockKey{uint64(t.ID), rowKey(r)}
}

// lockedByOthers reports whether a session other than s holds a lock on
// k that conflicts with strength. The caller holds l.mu.
func (l *rowLockTable) lockedByOthers(k rowLockKey, s *Session, strength planner.LockStrength) bool {
	for o, st := range l.held[k] {
		if o != s && st.Conflicts(strength) {
			return true
		}
	}
	return false
}

// take records that s holds a lock of strength on k (keeping the
// stronger of two). The caller holds l.mu.
func (l *rowLockTable) take(k rowLockKey, s *Session, strength planner.LockStrength) {
	if l.held == nil {
		l.held, l.bySession = map[rowLockKey]map[*Session]planner.LockStrength{}, map[*Session][]rowLockKey{}
	}
	m := l.held[k]
	if m == nil {
		m = map[*Session]planner.LockStrength{}
		l.held[k] = m
	}
	if old, ok := m[s]; !ok || strength > old {
		if !ok {
			l.bySession[s] = append(l.bySession[s], k)
		}
		m[s] = strength
	}
}

// holdWritten records the rows block s updated (olds, replaced by news)
// or deleted (news nil) of table t: as PostgreSQL's writers, at FOR NO
// KEY UPDATE strength when the primary key stays (or the table has
// none), else FOR UPDATE.
func (l *rowLockTable) holdWritten(s *Session, t *planner.Relation, olds, news []repr.Row) {
	if s == nil || len(olds) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, r := range olds {
		k, strength := lockKeyOf(t, r), planner.ForUpdate
		if news != nil && (t.PrimaryKey == nil || lockKeyOf(t, news[i]) == k) {
			strength = planner.ForNoKeyUpdate
		}
		l.take(k, s, strength)
	}
}

// release drops every lock s holds.
func (l *rowLockTable) release(s *Session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range l.bySession[s] {
		delete(l.held[k], s)
		if len(l.held[k]) == 0 {
			delete(l.held, k)
		}
	}
	delete(l.bySession, s)
}

// errLockNotAvailable is NOWAIT's error, PostgreSQL's.
func errLockNotAvailable(table string) error {
	return repr.Errorf("55P03", "could not obtain lock on row in relation %q", table)
}

// lockRows applies q's wait policy to its result rows (sorted, before
// OFFSET and LIMIT) for session s (nil outside a block), in order until
// OFFSET plus LIMIT rows are kept: SKIP LOCKED drops a row another open
// block holds a conflicting lock on, NOWAIT fails on one; the rows kept
// are locked for s. It returns the rows to present.
func (l *rowLockTable) lockRows(q *planner.Query, rows []repr.Row, s *Session) ([]repr.Row, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := rows[:0:0]
	for _, r := range rows {
		if q.Limit >= 0 && int64(len(kept)) >= q.Offset+q.Limit {
			break // PostgreSQL locks rows as LIMIT asks for them
		}
		skip := false
		for _, lk := range q.Locks {
			k := lockKeyOf(lk.Table, r[lk.Col:lk.Col+len(lk.Table.Columns)])
			if !l.lockedByOthers(k, s, lk.Strength) {
				continue
			}
			if lk.Wait == planner.LockErrorLocked {
				return nil, errLockNotAvailable(lk.Table.Name)
			}
			skip = skip || lk.Wait == planner.LockSkipLocked
		}
		if !skip {
			kept = append(kept, r)
		}
	}
	kept = window(kept, q.Offset, q.Limit)
	if s != nil {
		for _, r := range kept {
			for _, lk := range q.Locks {
				l.take(lockKeyOf(lk.Table, r[lk.Col:lk.Col+len(lk.Table.Columns)]), s, lk.Strength)
			}
		}
	}
	return kept, nil
}
