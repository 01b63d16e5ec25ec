package exec

import "github.com/eddydb/eddy/repr"

// restore loads a group record or a multiset entry.
func (o *reduceOp) restore(key, value []byte) error {
	r, err := repr.DecodeRow(value)
	if err != nil || len(key) == 0 {
		return errCorrupt
	}
	switch key[0] {
	case tagGroup:
		return o.restoreGroup(string(key[1:]), r)
	case tagEntry:
		return o.restoreEntry(key[1:], r)
	}
	return errCorrupt
}

func (o *reduceOp) restoreGroup(key string, r repr.Row) error {
	nk := len(o.spec.Key)
	want := nk + 1
	for i := range o.aggs {
		want += o.aggs[i].call.Class.Width()
	}
	if len(r) != want || o.groups[key] != nil {
		return errCorrupt
	}
	o.kbuf = append(o.kbuf[:0], key...)
	g := o.newGroup(repr.AppendDatums(o.vbuf[:0], r[:nk]))
	g.rows = r[nk].Int()
	off := nk + 1
	for ai := range o.aggs {
		a := &o.aggs[ai]
		w := a.call.Class.Width()
		ac := a.call.Class.Decode(r[off : off+w])
		o.setAcc(g, a, &ac)
		off += w
	}
	return nil
}

func (o *reduceOp) restoreEntry(key []byte, r repr.Row) error {
	if len(r) != 4 {
		return errCorrupt
	}
	glen := int(r[0].Int())
	if glen < 0 || glen+1 > len(key) {
		return errCorrupt
	}
	g := o.groups[string(key[:glen])]
	slot := int(key[glen])
	if g != nil && slot&int(runSlot) != 0 {
		return o.restoreRun(g, slot&^int(runSlot), key[glen+1:], r)
	}
	if g == nil || slot >= len(o.slotOrdered) {
		return errCorrupt
	}
	sets := o.sets(g)
	if o.slotKeys[slot] {
		if sets[slot] == nil {
			sets[slot] = newKeySet()
		}
		sets[slot].keys[string(key[glen+1:])] = struct{}{}
		return nil
	}
	if o.restorePair(g, slot, r) {
		return nil
	}
	if sets[slot] == nil {
		sets[slot] = newMultiset(o.slotOrdered[slot])
	}
	e := newEntry(key[glen+1:], r[2], r[3], r[1].Int())
	e.legacy = true
	sets[slot].insert(e)
	return nil
}

// restored checks that every restored group's output row can be computed
// (a group's output is recomputed from its state when a Step touches it).
func (o *reduceOp) restored() error {
	var slab rowSlab
	for _, g := range o.groups {
		if _, err := o.output(&slab, g); err != nil {
			return err
		}
	}
	return nil
}
