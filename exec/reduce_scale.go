package exec

import (
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// A numeric sum, average or variance reports the largest display scale of
// its live values, so it counts the values per scale. Nearly always one
// scale is live per group (a numeric(15,2) column, a product of two), so
// the first is counted in a pair of words among the group's accumulator
// words (aggSpec.pairOff: scale, count; absent when the count is zero),
// and only other scales in the scale slot's multiset: a pair costs 16
// bytes where a multiset of one entry costs ~200. The pair is undone with
// the words and logged as the multiset entry it stands for, so the logged
// state does not tell them apart. Invariant: no multiset entry has the
// pair's scale while the pair is present; the pair takes a new scale only
// when it is absent and the multiset has no entry for that scale.

// addScale adds diff to the count of display scale sc of aggregate a in g.
func (o *reduceOp) addScale(s *stepCtx, g *group, a *aggSpec, sc int64, diff int64) {
	w := o.arena.wordsOf(g.id)[a.pairOff : a.pairOff+2]
	if w[1] != 0 && w[0] == sc {
		w[1] += diff
		return
	}
	v := repr.NewInt(sc)
	o.ebuf = repr.AppendKey(o.ebuf[:0], v)
	if ms := o.sets(g)[a.scaleSlot]; w[1] == 0 && (ms == nil || ms.find(o.ebuf) == nil) {
		w[0], w[1] = sc, diff
		return
	}
	o.addEntry(s, g, a.scaleSlot, v, repr.Null, diff)
}

// maxScale is the largest display scale of a numeric aggregate's live
// values in g.
func (o *reduceOp) maxScale(g *group, sets []*multiset, a *aggSpec) int32 {
	if a.scaleSlot < 0 {
		return 0
	}
	best := int64(0)
	if w := o.arena.wordsOf(g.id)[a.pairOff:]; w[1] > 0 {
		best = w[0]
	}
	if ms := sets[a.scaleSlot]; ms != nil {
		if e := ms.max(); e != nil {
			best = max(best, e.val.Int())
		}
	}
	return int32(best)
}

// logScales logs the change of each scale pair of touched group g from
// its state before the Step (words, the undo record's copy).
func (o *reduceOp) logScales(s *stepCtx, g *group, words []int64) {
	cur := o.arena.wordsOf(g.id)
	for ai := range o.aggs {
		a := &o.aggs[ai]
		if a.scaleSlot < 0 {
			continue
		}
		s0, n0 := words[a.pairOff], words[a.pairOff+1]
		s1, n1 := cur[a.pairOff], cur[a.pairOff+1]
		if !g.in {
			n1 = 0
		}
		if n0 != 0 && (s1 != s0 || n1 == 0) {
			o.scaleKey(s, g, a.scaleSlot, s0)
			s.log.del(o.kbuf)
		}
		if n1 != 0 && (s1 != s0 || n1 != n0) {
			o.scaleKey(s, g, a.scaleSlot, s1)
			r := append(o.scratch[:0], repr.NewInt(int64(g.klen)), repr.NewInt(n1), repr.NewInt(s1), repr.Null)
			o.scratch = r
			o.vbuf = repr.AppendRow(o.vbuf[:0], r)
			s.log.set(o.kbuf, o.vbuf)
		}
	}
}

// scaleKey sets o.kbuf to the state key of scale sc's entry in slot.
func (o *reduceOp) scaleKey(s *stepCtx, g *group, slot int, sc int64) {
	o.kbuf = append(append(append(o.kbuf[:0], s.prefix...), tagEntry), g.key()...)
	o.kbuf = repr.AppendKey(append(o.kbuf, byte(slot)), repr.NewInt(sc))
}

// restorePair restores a logged scale entry of slot into its aggregate's
// pair if the slot has one and it is absent, and reports whether it did.
func (o *reduceOp) restorePair(g *group, slot int, r repr.Row) bool {
	for ai := range o.aggs {
		a := &o.aggs[ai]
		if a.scaleSlot != slot {
			continue
		}
		w := o.arena.wordsOf(g.id)[a.pairOff:]
		if w[1] != 0 || r[2].Family() != repr.FamInt {
			return false
		}
		w[0], w[1] = r[2].Int(), r[1].Int()
		return true
	}
	return false
}

// scaleEntries returns the entries of aggregate a's scale slot in g with
// its pair as one more entry, in key order (for debug and logClosed).
func (o *reduceOp) scaleEntries(g *group, a *aggSpec) []*mentry {
	var es []*mentry
	if a.scaleSlot < 0 {
		return nil
	}
	if ms := o.sets(g)[a.scaleSlot]; ms != nil {
		ms.all(func(e *mentry) { es = append(es, e) })
	}
	if w := o.arena.wordsOf(g.id)[a.pairOff:]; w[1] != 0 {
		v := repr.NewInt(w[0])
		es = append(es, &mentry{key: string(repr.AppendKey(nil, v)), val: v, n: w[1]})
	}
	slices.SortFunc(es, func(x, y *mentry) int { return strings.Compare(x.key, y.key) })
	return es
}
