package lower

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/eddydb/eddy/optimizer/ir"
)

// dag merges structurally equal subtrees of an IR tree (hash-consing), so
// that a subplan the tree spells out several times, such as the filtered
// source every HOP branch reads or the same windowed aggregate on both
// sides of q5's join, is lowered once and its node shared by every
// consumer. Nodes whose expressions call a volatile function (random())
// are never merged: each occurrence must draw its own values.
//
// Invariant: every node reachable from a canonical node is canonical, and
// uses counts the edges from canonical parents to each canonical node.
type dag struct {
	canon   map[ir.Rel]ir.Rel
	buckets map[string][]ir.Rel
	uses    map[ir.Rel]int
	ids     map[ir.Rel]int
	// sharedIDs maps an ir.Shared's ID to its canonical node.
	sharedIDs map[int]ir.Rel
}

func newDAG() *dag {
	return &dag{canon: map[ir.Rel]ir.Rel{}, buckets: map[string][]ir.Rel{}, uses: map[ir.Rel]int{}, ids: map[ir.Rel]int{}, sharedIDs: map[int]ir.Rel{}}
}

// intern returns the canonical node equal to rel, interning its subtree.
func (d *dag) intern(rel ir.Rel) ir.Rel {
	if c, ok := d.canon[rel]; ok {
		return c
	}
	kids := rel.Children()
	ck := make([]ir.Rel, len(kids))
	changed := false
	for i, k := range kids {
		ck[i] = d.intern(k)
		changed = changed || ck[i] != k
	}
	node := rel
	if changed {
		node = rel.WithChildren(ck)
	}
	if s, ok := node.(*ir.Shared); ok {
		// One evaluation whatever became of each reference (ir.Shared).
		if c, ok := d.sharedIDs[s.ID]; ok {
			d.canon[rel] = c
			return c
		}
		d.sharedIDs[s.ID] = node
	}
	key := d.key(node, ck)
	if !volatile(node) {
		for _, c := range d.buckets[key] {
			if reflect.DeepEqual(c, node) {
				d.canon[rel] = c
				return c
			}
		}
	}
	d.buckets[key] = append(d.buckets[key], node)
	d.ids[node] = len(d.ids)
	for _, k := range ck {
		d.uses[k]++
	}
	d.canon[rel], d.canon[node] = node, node
	return node
}

// key buckets candidates for equality: the operator type and the
// canonical children (equal nodes have identical canonical children).
func (d *dag) key(node ir.Rel, kids []ir.Rel) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%T", node)
	for _, k := range kids {
		fmt.Fprintf(&b, " %d", d.ids[k])
	}
	return b.String()
}

// shared reports whether more than one consumer reads rel, so a fused
// chain must stop below it and read its one lowered node.
func (d *dag) shared(rel ir.Rel) bool { return d.uses[rel] > 1 }

// volatile reports whether one of rel's own expressions calls a volatile
// function.
func volatile(rel ir.Rel) bool { return ir.OwnVolatile(rel) }
