package storage

import "bytes"

// entryTree is the ordered set of a Collection's entries by key
// (entryLess): a B-tree of entry values specialized to entry, with
// copy-on-write clones (Snapshot).
//
// Why not google/btree, which the indexes use: its generic search calls
// the comparison through a function value inside sort.Search's closure,
// two indirect calls per probe with both 48-byte entries copied, so a
// descent cost ~15 ns per comparison whatever the cache did. A 1,000-row
// view takes one descent per touched group per commit and a table one per
// inserted row (20 comparisons at a million rows): together a tenth of a
// prepared INSERT's CPU (BENCHMARKS.md, write path). Here the comparison
// (the keys' 12-byte prefixes, then their bytes) is inlined into the
// binary search.
//
// Invariants: every node but the root holds 1 to maxItems items in key
// order, an inner node one child more than items, and the keys of
// children[i] lie between items[i-1] and items[i]; all leaves are at one
// depth. A node is written only by the tree whose cow token it carries;
// another tree's write copies it first, so a clone shares every node
// until one side writes to it. A tree is used by one goroutine at a time
// (reads may share it: they write nothing).
type entryTree struct {
	root *enode
	n    int
	cow  *treeToken
}

// treeToken marks the nodes a tree may write in place. It has a field so
// that two tokens never share an address.
type treeToken struct{ _ byte }

// enode is a node of an entryTree; children is nil in a leaf.
type enode struct {
	items    []entry
	children []*enode
	cow      *treeToken
}

const (
	// maxItems and minItems bound a node's items: a node is split when
	// full before a descent passes it, and a child with minItems or
	// fewer is grown (from a sibling, or merged) before a deletion
	// descends into it.
	maxItems = 2*btreeDegree - 1
	minItems = btreeDegree - 1
)

// newEntryTree returns an empty tree.
func newEntryTree() *entryTree { return &entryTree{cow: new(treeToken)} }

// Len returns the number of entries.
func (t *entryTree) Len() int { return t.n }

// Clear removes every entry.
func (t *entryTree) Clear() { t.root, t.n = nil, 0 }

// Clone returns a copy of t sharing its nodes: each of the two trees
// copies a shared node the first time it writes to it.
func (t *entryTree) Clone() *entryTree {
	out := &entryTree{root: t.root, n: t.n, cow: new(treeToken)}
	t.cow = new(treeToken)
	return out
}

// cmpEntry compares the keys of a and b as entryLess orders them.
func cmpEntry(a, b *entry) int {
	switch {
	case a.pfx != b.pfx:
		if a.pfx < b.pfx {
			return -1
		}
		return 1
	case a.pfx2 != b.pfx2:
		if a.pfx2 < b.pfx2 {
			return -1
		}
		return 1
	}
	return bytes.Compare(a.kv[:a.klen], b.kv[:b.klen])
}

// find returns the index of the first item of n not less than k and
// whether its key is k's.
func (n *enode) find(k *entry) (int, bool) {
	lo, hi := 0, len(n.items)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmpEntry(&n.items[m], k) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(n.items) && cmpEntry(&n.items[lo], k) == 0
}

// Get returns the entry whose key is k's.
func (t *entryTree) Get(k entry) (entry, bool) {
	n := t.root
	for n != nil {
		i, found := n.find(&k)
		if found {
			return n.items[i], true
		}
		if n.children == nil {
			break
		}
		n = n.children[i]
	}
	return entry{}, false
}

// mutableFor returns n if cow may write it, else a copy that cow owns.
func (n *enode) mutableFor(cow *treeToken) *enode {
	if n.cow == cow {
		return n
	}
	out := &enode{cow: cow, items: make([]entry, len(n.items), cap(n.items))}
	copy(out.items, n.items)
	if n.children != nil {
		out.children = make([]*enode, len(n.children), cap(n.children))
		copy(out.children, n.children)
	}
	return out
}

// mutableChild makes child i of n (which cow owns) writable by cow and
// returns it.
func (n *enode) mutableChild(i int, cow *treeToken) *enode {
	c := n.children[i].mutableFor(cow)
	n.children[i] = c
	return c
}

// insertAt inserts e at position i of n's items.
func (n *enode) insertAt(i int, e entry) {
	n.items = append(n.items, entry{})
	copy(n.items[i+1:], n.items[i:])
	n.items[i] = e
}

// removeAt removes and returns item i of n.
func (n *enode) removeAt(i int) entry {
	e := n.items[i]
	copy(n.items[i:], n.items[i+1:])
	n.items[len(n.items)-1] = entry{} // drop the reference for the collector
	n.items = n.items[:len(n.items)-1]
	return e
}

// insertChildAt inserts c at position i of n's children.
func (n *enode) insertChildAt(i int, c *enode) {
	n.children = append(n.children, nil)
	copy(n.children[i+1:], n.children[i:])
	n.children[i] = c
}

// removeChildAt removes and returns child i of n.
func (n *enode) removeChildAt(i int) *enode {
	c := n.children[i]
	copy(n.children[i:], n.children[i+1:])
	n.children[len(n.children)-1] = nil
	n.children = n.children[:len(n.children)-1]
	return c
}

// split moves the items of n after item i, and the children after child
// i, to a new node, and returns item i (which leaves n too) and the new
// node. The new node is allocated at full capacity: it only grows until
// it is split in turn.
func (n *enode) split(i int, cow *treeToken) (entry, *enode) {
	mid := n.items[i]
	next := &enode{cow: cow, items: make([]entry, len(n.items)-i-1, maxItems)}
	copy(next.items, n.items[i+1:])
	clear(n.items[i:])
	n.items = n.items[:i]
	if n.children != nil {
		next.children = make([]*enode, len(n.children)-i-1, maxItems+1)
		copy(next.children, n.children[i+1:])
		clear(n.children[i+1:])
		n.children = n.children[:i+1]
	}
	return mid, next
}

// splitAt is where a full node splits for an insertion of e: at the
// middle, except for a leaf that e extends past its last item, which
// keeps all but its last item. Keys that arrive in increasing order (a
// serial primary key) thus leave full leaves behind them instead of half
// full ones, and the new leaf they continue in never empties: e goes to
// it at once.
func splitAt(n *enode, e *entry) int {
	if n.children == nil && cmpEntry(&n.items[len(n.items)-1], e) < 0 {
		return len(n.items) - 1
	}
	return maxItems / 2
}

// ReplaceOrInsert puts e in t, replacing and returning the entry with
// its key if there was one.
func (t *entryTree) ReplaceOrInsert(e entry) (entry, bool) {
	if t.root == nil {
		t.root = &enode{cow: t.cow, items: []entry{e}}
		t.n++
		return entry{}, false
	}
	t.root = t.root.mutableFor(t.cow)
	if len(t.root.items) >= maxItems {
		mid, next := t.root.split(splitAt(t.root, &e), t.cow)
		old := t.root
		t.root = &enode{cow: t.cow, items: make([]entry, 1, maxItems), children: make([]*enode, 2, maxItems+1)}
		t.root.items[0] = mid
		t.root.children[0], t.root.children[1] = old, next
	}
	old, found := t.root.insert(&e, t.cow)
	if !found {
		t.n++
	}
	return old, found
}

// insert puts e in the subtree of n (which cow owns and which is not
// full), splitting full nodes on the way down.
func (n *enode) insert(e *entry, cow *treeToken) (entry, bool) {
	for {
		i, found := n.find(e)
		if found {
			old := n.items[i]
			n.items[i] = *e
			return old, true
		}
		if n.children == nil {
			n.insertAt(i, *e)
			return entry{}, false
		}
		if c := n.children[i]; len(c.items) >= maxItems {
			c = n.mutableChild(i, cow)
			mid, next := c.split(splitAt(c, e), cow)
			n.insertAt(i, mid)
			n.insertChildAt(i+1, next)
			switch cmp := cmpEntry(e, &n.items[i]); {
			case cmp == 0:
				old := n.items[i]
				n.items[i] = *e
				return old, true
			case cmp > 0:
				i++
			}
		}
		n = n.mutableChild(i, cow)
	}
}

// Delete removes the entry whose key is k's and returns it.
func (t *entryTree) Delete(k entry) (entry, bool) {
	if t.root == nil {
		return entry{}, false
	}
	t.root = t.root.mutableFor(t.cow)
	old, found := t.root.remove(&k, t.cow)
	// Merges may have emptied the root and, below it, the child that
	// remove then treated as the root, and so on down.
	for len(t.root.items) == 0 && t.root.children != nil {
		t.root = t.root.children[0]
	}
	if found {
		t.n--
	}
	return old, found
}

// remove deletes the entry with k's key (k nil: the largest entry) from
// the subtree of n, which cow owns; n holds more than minItems items
// unless it is the root. Leaves split at their end (splitAt) may hold
// fewer than minItems, so a merge may leave a child that must grow again:
// each step adds at least one item to it, and takes at most one from n.
func (n *enode) remove(k *entry, cow *treeToken) (entry, bool) {
	for {
		if len(n.items) == 0 && n.children != nil {
			// The root lost its last item to a merge: its one child is
			// the root now (Delete makes it so).
			n = n.mutableChild(0, cow)
			continue
		}
		var i int
		var found bool
		if k == nil {
			if n.children == nil {
				return n.removeAt(len(n.items) - 1), true
			}
			i = len(n.items)
		} else {
			i, found = n.find(k)
			if n.children == nil {
				if !found {
					return entry{}, false
				}
				return n.removeAt(i), true
			}
		}
		if len(n.children[i].items) <= minItems {
			n.grow(i, cow)
			continue // the items moved: look again
		}
		c := n.mutableChild(i, cow)
		if found {
			// The entry is here: its place takes the largest entry of
			// the subtree to its left (which has items to spare).
			old := n.items[i]
			n.items[i], _ = c.remove(nil, cow)
			return old, true
		}
		n = c
	}
}

// grow gives child i of n (which cow owns) an item more: one of a
// sibling's through n if a sibling has items to spare, else by merging
// it with a sibling and the item between them (neither sibling has more
// than minItems, so the merged node holds at most maxItems).
func (n *enode) grow(i int, cow *treeToken) {
	switch {
	case i > 0 && len(n.children[i-1].items) > minItems:
		c, left := n.mutableChild(i, cow), n.mutableChild(i-1, cow)
		c.insertAt(0, n.items[i-1])
		n.items[i-1] = left.removeAt(len(left.items) - 1)
		if left.children != nil {
			c.insertChildAt(0, left.removeChildAt(len(left.children)-1))
		}
	case i < len(n.items) && len(n.children[i+1].items) > minItems:
		c, right := n.mutableChild(i, cow), n.mutableChild(i+1, cow)
		c.items = append(c.items, n.items[i])
		n.items[i] = right.removeAt(0)
		if right.children != nil {
			c.children = append(c.children, right.removeChildAt(0))
		}
	default:
		if i >= len(n.items) {
			i--
		}
		c := n.mutableChild(i, cow)
		mid := n.removeAt(i)
		right := n.removeChildAt(i + 1)
		c.items = append(append(c.items, mid), right.items...)
		if right.children != nil {
			c.children = append(c.children, right.children...)
		}
	}
}

// Ascend calls fn for every entry in key order until fn returns false.
func (t *entryTree) Ascend(fn func(entry) bool) {
	if t.root != nil {
		t.root.ascend(nil, fn)
	}
}

// AscendGreaterOrEqual calls fn in key order for the entries whose key is
// not less than from's until fn returns false.
func (t *entryTree) AscendGreaterOrEqual(from entry, fn func(entry) bool) {
	if t.root != nil {
		t.root.ascend(&from, fn)
	}
}

// ascend calls fn in order for the entries of n's subtree not less than
// from (nil: all) and reports whether fn never returned false.
func (n *enode) ascend(from *entry, fn func(entry) bool) bool {
	i := 0
	if from != nil {
		i, _ = n.find(from)
	}
	for ; i <= len(n.items); i++ {
		if n.children != nil && !n.children[i].ascend(from, fn) {
			return false
		}
		from = nil // everything after child i is past from
		if i < len(n.items) && !fn(n.items[i]) {
			return false
		}
	}
	return true
}
