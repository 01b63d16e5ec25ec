package exec

import (
	"github.com/eddydb/eddy/sql/types"
)

// appendAcc appends the datums that persist ac (see accClass).
func (a *aggSpec) appendAcc(r types.Row, ac *acc) types.Row {
	n := types.NewInt(ac.n)
	switch a.cls {
	case clsCount:
		return append(r, n)
	case clsInt:
		if ac.dec != nil {
			return append(r, n, types.NewNumeric(ac.dec))
		}
		return append(r, n, types.NewInt(ac.i))
	case clsFloat:
		return append(r, n, types.NewFloat(ac.f), types.NewFloat(ac.c),
			types.NewInt(ac.nan), types.NewInt(ac.pinf), types.NewInt(ac.ninf))
	case clsNumeric:
		dec := types.Null
		if ac.dec != nil {
			dec = types.NewNumeric(ac.dec)
		}
		return append(r, n, dec, types.NewInt(ac.nan), types.NewInt(ac.pinf), types.NewInt(ac.ninf))
	case clsInterval:
		return append(r, n, types.NewInt(ac.i), types.NewInt(ac.day), types.NewInt(ac.us))
	case clsBool:
		return append(r, n, types.NewInt(ac.i))
	}
	return r
}

// accWidth is the number of datums appendAcc writes.
func (a *aggSpec) accWidth() int {
	return [...]int{clsNone: 0, clsCount: 1, clsInt: 2, clsFloat: 6, clsNumeric: 5, clsInterval: 4, clsBool: 2}[a.cls]
}

// decodeAcc is the inverse of appendAcc.
func (a *aggSpec) decodeAcc(r types.Row) acc {
	var ac acc
	if len(r) == 0 {
		return ac
	}
	ac.n = r[0].Int()
	switch a.cls {
	case clsInt:
		if r[1].Family() == types.FamNumeric {
			ac.dec = r[1].Numeric()
		} else {
			ac.i = r[1].Int()
		}
	case clsFloat:
		ac.f, ac.c = r[1].Float(), r[2].Float()
		ac.nan, ac.pinf, ac.ninf = r[3].Int(), r[4].Int(), r[5].Int()
	case clsNumeric:
		if !r[1].IsNull() {
			ac.dec = r[1].Numeric()
		}
		ac.nan, ac.pinf, ac.ninf = r[2].Int(), r[3].Int(), r[4].Int()
	case clsInterval:
		ac.i, ac.day, ac.us = r[1].Int(), r[2].Int(), r[3].Int()
	case clsBool:
		ac.i = r[1].Int()
	}
	return ac
}

// restore loads a group record or a multiset entry.
func (o *reduceOp) restore(key, value []byte) error {
	r, err := types.DecodeRow(value)
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

func (o *reduceOp) restoreGroup(key string, r types.Row) error {
	nk := len(o.spec.Key)
	want := nk + 1
	for i := range o.aggs {
		want += o.aggs[i].accWidth()
	}
	if len(r) != want {
		return errCorrupt
	}
	o.kbuf = append(o.kbuf[:0], key...)
	g := o.newGroup(nil)
	if nk > 0 {
		g.keyRow = r[:nk:nk]
	}
	g.rows = r[nk].Int()
	off := nk + 1
	for ai := range o.aggs {
		w := o.aggs[ai].accWidth()
		g.accs[ai] = o.aggs[ai].decodeAcc(r[off : off+w])
		off += w
	}
	return nil
}

func (o *reduceOp) restoreEntry(key []byte, r types.Row) error {
	if len(r) != 4 {
		return errCorrupt
	}
	glen := int(r[0].Int())
	if glen < 0 || glen+1 > len(key) {
		return errCorrupt
	}
	g := o.groups[string(key[:glen])]
	slot := int(key[glen])
	if g == nil || slot >= len(o.slotOrdered) {
		return errCorrupt
	}
	if o.slotKeys[slot] {
		if g.sets[slot] == nil {
			g.sets[slot] = newKeySet()
		}
		g.sets[slot].keys[string(key[glen+1:])] = struct{}{}
		return nil
	}
	if g.sets[slot] == nil {
		g.sets[slot] = newMultiset(o.slotOrdered[slot])
	}
	g.sets[slot].insert(newEntry(string(key[glen+1:]), r[2], r[3], r[1].Int()))
	return nil
}

// restored recomputes the output row of every restored group.
func (o *reduceOp) restored() error {
	var slab rowSlab
	for _, g := range o.groups {
		out, err := o.output(&slab, g)
		if err != nil {
			return err
		}
		g.out = out
	}
	return nil
}
