package exec

import "github.com/eddydb/eddy/repr"

// outCache remembers the output rows of the groups that the last
// committed Step of a reduceOp touched, so that the next Step to touch
// such a group takes its old output row from here instead of computing
// it again from the group's state (decoding the key columns, unpacking
// and finishing every aggregate: for a statement that touches every
// group once, that second computation was a tenth of the write path's
// CPU).
//
// Invariant: for every i, rows[i] is the output of groups[i] as of the
// end of the last committed Step that ran finish, which is the group's
// output now (only a Step changes a group's state, and a rolled-back
// Step restores it). A group's out field is an index that finish set;
// it is trusted only if groups[out] is that very group, so an index left
// by a rolled-back Step, or by a Step before the last, never matches a
// stale row: groups holds only the last committed Step's groups, and
// holding them keeps their addresses from being reused.
//
// Size: one Step's touched groups (a pointer and a row header each); the
// rows are those the Step emitted, kept alive until the next committed
// Step replaces them. Rows are never modified once emitted.
type outCache struct {
	groups []*group
	rows   []repr.Row
	// next* are the pending Step's, promoted by commit.
	nextGroups []*group
	nextRows   []repr.Row
	pending    bool
}

// get returns g's output row as of the last committed Step, if known.
func (c *outCache) get(g *group) (repr.Row, bool) {
	i := int(g.out)
	if i < len(c.groups) && c.groups[i] == g {
		return c.rows[i], true
	}
	return nil, false
}

// put records row as g's output at the end of the pending Step.
func (c *outCache) put(g *group, row repr.Row) {
	g.out = int32(len(c.nextGroups))
	c.nextGroups = append(c.nextGroups, g)
	c.nextRows = append(c.nextRows, row)
	c.pending = true
}

// commit makes the pending Step's rows the ones get answers from; a
// committed Step that did not run finish leaves them as they were.
func (c *outCache) commit() {
	if !c.pending {
		return
	}
	clear(c.groups)
	clear(c.rows)
	c.groups, c.nextGroups = c.nextGroups, c.groups[:0]
	c.rows, c.nextRows = c.nextRows, c.rows[:0]
	c.pending = false
}

// rollback forgets the pending Step's rows.
func (c *outCache) rollback() {
	clear(c.nextGroups)
	clear(c.nextRows)
	c.nextGroups, c.nextRows = c.nextGroups[:0], c.nextRows[:0]
	c.pending = false
}
