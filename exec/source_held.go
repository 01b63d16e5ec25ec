package exec

import (
	"container/heap"
	"fmt"
	"math"
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// heldRows is the state of an event-time Source over a collection that
// retracts without checking what it retracts (a FORMAT DEBEZIUM source
// created before sources checked their deletions against their live
// rows, sql/source_rows.go; the planner sets Retracts only for those):
// per row at or above the watermark, the copies the
// Source let through. A deletion is let through only for copies it
// holds; the rest of it (a row the source never delivered, or deleted
// more often than it inserted) is dropped and counted with the late
// changes, so the operators downstream only ever see a collection (no
// negative multiplicities, which they cannot hold consistently across a
// checkpoint). A row below the watermark is forgotten: any later change
// of it is late and dropped before this check, so the rule is the same
// live, replayed after a restart, and in a later view's backfill (whose
// watermark rises at the same cuts).
//
// Size: one entry per distinct row at or above the watermark, freed as
// the watermark passes it (its heap entry too). Logged state: {0x02} row
// value encoding -> row(count).
type heldRows struct {
	rows            map[string]*heldRow
	byTS            heldHeap
	undo            []heldUndo
	kbuf, lbuf, enc []byte
}

// heldRow is a held row: its value encoding (the logged key), event time
// (math.MinInt64 for NULL) and count.
type heldRow struct {
	enc string
	ts  int64
	n   int64
}

// heldUndo is a held row's map entry before the pending Step changed it
// (nil: absent).
type heldUndo struct {
	key string
	was *heldRow
}

// tagHeld is the state key tag of a held row.
const tagHeld byte = 0x02

func newHeldRows() *heldRows { return &heldRows{rows: map[string]*heldRow{}} }

// apply returns the updates of in (none late) the Source lets through,
// holding their rows, and the multiplicity it dropped.
func (h *heldRows) apply(s *stepCtx, prefix []byte, eventCol int, in []repr.Update) ([]repr.Update, int64) {
	out := make([]repr.Update, 0, len(in))
	var dropped int64
	for _, u := range in {
		h.kbuf = repr.AppendRowKey(h.kbuf[:0], u.Row)
		r := h.rows[string(h.kbuf)]
		if u.Diff < 0 {
			have := int64(0)
			if r != nil {
				have = r.n
			}
			if -u.Diff > have {
				dropped += -u.Diff - have
				u.Diff = -have
			}
			if u.Diff == 0 {
				continue
			}
		}
		h.change(s, prefix, r, u, eventCol)
		out = append(out, u)
	}
	return out, dropped
}

// change adds u's diff to its row's count (r: the held row, nil if none),
// recording the undo and logging the new count.
func (h *heldRows) change(s *stepCtx, prefix []byte, r *heldRow, u repr.Update, eventCol int) {
	key := string(h.kbuf)
	if r == nil {
		h.enc = repr.AppendRow(h.enc[:0], u.Row)
		r = &heldRow{enc: string(h.enc), ts: heldTS(u.Row[eventCol])}
		h.undo = append(h.undo, heldUndo{key: key})
		heap.Push(&h.byTS, heldRef{ts: r.ts, key: key})
	} else {
		old := *r
		h.undo = append(h.undo, heldUndo{key: key, was: &old})
	}
	r.n += u.Diff
	h.put(s, prefix, key, r)
}

// put stores r under key (removing it at count 0) and logs it.
func (h *heldRows) put(s *stepCtx, prefix []byte, key string, r *heldRow) {
	h.lbuf = append(append(append(h.lbuf[:0], prefix...), tagHeld), r.enc...)
	if r.n == 0 {
		delete(h.rows, key)
		s.log.del(h.lbuf)
		return
	}
	h.rows[key] = r
	h.enc = repr.AppendRow(h.enc[:0], repr.Row{repr.NewInt(r.n)})
	s.log.set(h.lbuf, h.enc)
}

// prune forgets the rows below watermark wm.
func (h *heldRows) prune(s *stepCtx, prefix []byte, wm int64) {
	for len(h.byTS) > 0 && h.byTS[0].ts < wm {
		ref := heap.Pop(&h.byTS).(heldRef)
		r := h.rows[ref.key]
		if r == nil || r.ts != ref.ts {
			continue // deleted, or pushed again for a later insert
		}
		old := *r
		h.undo = append(h.undo, heldUndo{key: ref.key, was: &old})
		r.n = 0
		h.put(s, prefix, ref.key, r)
	}
}

// commit forgets the pending Step's undo records.
func (h *heldRows) commit() { h.undo = h.undo[:0] }

// rollback restores the held rows as they were before the pending Step,
// newest change first; a row it brings back gets a heap entry again.
func (h *heldRows) rollback() {
	for i := len(h.undo) - 1; i >= 0; i-- {
		u := h.undo[i]
		if u.was == nil {
			delete(h.rows, u.key)
			continue
		}
		r := *u.was
		if _, ok := h.rows[u.key]; !ok {
			heap.Push(&h.byTS, heldRef{ts: r.ts, key: u.key})
		}
		h.rows[u.key] = &r
	}
	h.undo = h.undo[:0]
}

// restore loads one logged held row (value: row(count)).
func (h *heldRows) restore(eventCol int, enc, value []byte) error {
	row, err := repr.DecodeRow(enc)
	if err != nil || eventCol >= len(row) {
		return errCorrupt
	}
	v, err := repr.DecodeRow(value)
	if err != nil || len(v) != 1 || v[0].Int() <= 0 {
		return errCorrupt
	}
	key := string(repr.AppendRowKey(nil, row))
	r := &heldRow{enc: string(enc), ts: heldTS(row[eventCol]), n: v[0].Int()}
	h.rows[key] = r
	heap.Push(&h.byTS, heldRef{ts: r.ts, key: key})
	return nil
}

// debug prints the held rows, sorted.
func (h *heldRows) debug() []string {
	var lines []string
	for _, r := range h.rows {
		row, err := repr.DecodeRow([]byte(r.enc))
		if err != nil {
			lines = append(lines, fmt.Sprintf("corrupt held row: %v", err))
			continue
		}
		lines = append(lines, fmt.Sprintf("held %s x%d", dataflow.FormatRow(row), r.n))
	}
	slices.Sort(lines)
	return lines
}

// heldTS is a row's event time for pruning: NULL sorts below every
// watermark (a change of it is late once there is one).
func heldTS(d repr.Datum) int64 {
	if v, ok := wmValue(d); ok {
		return v
	}
	return math.MinInt64
}

// heldRef is a heap entry: a held row's event time and key. Entries of
// rows deleted since stay until popped (lazy deletion).
type heldRef struct {
	ts  int64
	key string
}

// heldHeap is a min-heap of heldRefs by event time.
type heldHeap []heldRef

func (q heldHeap) Len() int           { return len(q) }
func (q heldHeap) Less(i, j int) bool { return q[i].ts < q[j].ts }
func (q heldHeap) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *heldHeap) Push(x any)        { *q = append(*q, x.(heldRef)) }
func (q *heldHeap) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
