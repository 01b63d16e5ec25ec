package sql

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Sources every view sees whole: a materialized view created while a
// source has been running is backfilled with the source's history, from
// its start up to its committed position, before it joins the live feed
// at exactly that position (the source's reader cannot commit meanwhile:
// its IngestChanges waits for the engine lock the backfill holds). The
// connector runtime reads the history (SourceHistory: the deterministic
// generators regenerate it, Kafka reads it again from the start offsets).
//
// Late rows and window closing are replayed as the source's earlier views
// saw them. A row is late when its event time is below the watermark as it
// was before its batch; the history is read in larger chunks than the live
// batches, so the engine keeps, per source, a cut for each batch that had
// late rows: the position before that batch and the watermark then. The
// backfill raises the new view's watermark to a cut's watermark just before
// the rows after the cut (an empty Step), and to the source's current
// watermark at the end. Between cuts no batch had a late row, so judging
// its rows against the lower watermark at the previous cut drops nothing
// too; the view ends with exactly the rows the earlier views kept, and its
// windows close where theirs did.

// SourceHistory is implemented by a Connectors value whose sources can be
// read again from their start.
type SourceHistory interface {
	// History reads def's changes from position from (the source's start:
	// nil or empty for the beginning) up to position to, the source's
	// committed position, in order, calling emit with consecutive chunks.
	// cuts are positions between from and to, in order; seg is the number
	// of cuts at or before the chunk's changes (a chunk never spans a
	// cut). Changes carry their partitions. When part of the history can
	// no longer be read (Kafka retention dropped it) History reads what
	// remains and returns a notice saying what is missing.
	History(ctx context.Context, def SourceDef, from, to []byte, cuts [][]byte,
		emit func(changes []Change, seg int) error) (notice *repr.Error, err error)
}

// sourceStartKey holds the position a source started reading at: set by
// the source's first batch (its position when that batch is empty, as
// Kafka's pinning of its startup offsets is; else empty, the beginning).
func sourceStartKey(id uint64) []byte {
	return storage.MetaKey(fmt.Sprintf("source/%d/start", id))
}

// sourceCutPrefix prefixes a source's cuts, keyed by the logical time of
// the batch that had late rows.
func sourceCutPrefix(id uint64) []byte {
	return storage.MetaKey(fmt.Sprintf("source/%d/cut/", id))
}

// historyCut is a cut: the position before a batch with late rows and the
// source's watermark then (has false: none yet).
type historyCut struct {
	pos []byte
	wm  int64
	has bool
}

// encodeCut encodes a cut: a flag byte (1: has a watermark), the
// watermark as 8 bytes big-endian, then the position.
func encodeCut(c historyCut) []byte {
	buf := []byte{0}
	if c.has {
		buf[0] = 1
	}
	buf = binary.BigEndian.AppendUint64(buf, uint64(c.wm))
	return append(buf, c.pos...)
}

func decodeCut(v []byte) (historyCut, error) {
	if len(v) < 9 {
		return historyCut{}, fmt.Errorf("corrupt source cut %x", v)
	}
	return historyCut{has: v[0] == 1, wm: int64(binary.BigEndian.Uint64(v[1:9])), pos: bytes.Clone(v[9:])}, nil
}

// noteSourceHistory writes to b what a later view's backfill needs of a
// batch about to commit at time t: the source's start (first batch ever)
// and, when the batch had late rows, a cut before it. prevWM and prevHas
// are the watermark before the batch; st.position is loaded.
func (e *Engine) noteSourceHistory(st *sourceState, b *storage.Batch, t repr.Time, changes []Change, position []byte, prevWM int64, prevHas bool) {
	id := st.def.ID
	if st.position == nil {
		start := []byte{}
		if len(changes) == 0 {
			start = position
		}
		b.Set(sourceStartKey(id), start)
	}
	if st.pendingLate > 0 {
		key := binary.BigEndian.AppendUint64(sourceCutPrefix(id), uint64(t))
		b.Set(key, encodeCut(historyCut{pos: st.position, wm: prevWM, has: prevHas}))
	}
}

// loadPosition loads st.position from storage once.
func (e *Engine) loadPosition(st *sourceState) error {
	if st.posLoaded {
		return nil
	}
	from, err := e.SourcePosition(st.def.ID)
	if err != nil {
		return err
	}
	st.position, st.posLoaded = from, true
	return nil
}

// sourceCuts returns a source's cuts in order.
func (e *Engine) sourceCuts(id uint64) ([]historyCut, error) {
	var cuts []historyCut
	err := e.db.Scan(sourceCutPrefix(id), func(_, v []byte) error {
		c, err := decodeCut(v)
		cuts = append(cuts, c)
		return err
	})
	return cuts, err
}

// backfill is a new view's backfill in progress: its dataflow, output
// collection, time and batch (nil for a SUBSCRIBE's transient view, which
// logs nothing).
type backfill struct {
	e  *Engine
	mv *matView
	c  *storage.Collection
	t  repr.Time
	b  *storage.Batch
	// interrupt closes when the statement is cancelled; mem is the
	// statement's memory account (nil: none).
	interrupt <-chan struct{}
	mem       expr.Memory
}

// step runs one backfill Step and applies its output to the view.
func (bf *backfill) step(in exec.Input) error {
	ctx := bf.e.viewCtx()
	ctx.Interrupt, ctx.Memory = bf.interrupt, bf.mem
	in.Now, in.Arrangements = bf.e.wall.last, arrangements{bf.e}
	var w exec.StateWriter // nil for a transient view: no state logged
	if bf.b != nil {
		w = bf.b.Prefixed(storage.StatePrefix(bf.mv.obj.ID))
	}
	out, err := bf.mv.df.StepInput(ctx, bf.t, in, w)
	if err != nil {
		return err
	}
	return applyOutput(bf.c, out, bf.b)
}

// replaySources feeds the new view the history of every source it reads
// that has run (see the comment at the top of this file), then every
// source's current watermark. notice receives what the connectors could
// not replay.
func (bf *backfill) replaySources(notice func(*repr.Error)) error {
	e := bf.e
	for _, cid := range bf.mv.df.Sources() {
		st := e.sources[uint64(cid)]
		if st == nil || st.def.IsTable {
			continue
		}
		if err := bf.replaySource(st, notice); err != nil {
			return err
		}
	}
	if wms := e.sourceWatermarks(bf.mv.sources); wms != nil {
		return bf.step(exec.Input{Watermarks: wms})
	}
	return nil
}

// replaySource feeds one source's history from its start to its
// committed position, raising the watermark at each cut.
func (bf *backfill) replaySource(st *sourceState, notice func(*repr.Error)) error {
	e := bf.e
	if err := e.loadPosition(st); err != nil || st.position == nil {
		return err // never ran: nothing to replay
	}
	if st.rows != nil && st.rows.eventCol < 0 {
		return bf.replayRows(st)
	}
	h, ok := e.connectors.(SourceHistory)
	if !ok {
		notice(repr.Errorf("01000", "source %s cannot be replayed: view %s sees only its events from now on", st.def.Name, bf.mv.obj.Name))
		return nil
	}
	start, _, err := e.db.Get(sourceStartKey(st.def.ID))
	if err != nil {
		return err
	}
	cuts, err := e.sourceCuts(st.def.ID)
	if err != nil {
		return err
	}
	cutPos := make([][]byte, len(cuts))
	for i, c := range cuts {
		cutPos[i] = c.pos
	}
	cid := repr.CollectionID(st.def.ID)
	seg := 0
	chk := newHistoryCheck(st)
	emit := func(changes []Change, s int) error {
		for ; seg < s; seg++ {
			if c := cuts[seg]; c.has {
				if err := chk.raise(c.wm); err != nil {
					return err
				}
				if err := bf.step(exec.Input{Watermarks: map[repr.CollectionID]int64{cid: c.wm}}); err != nil {
					return err
				}
			}
		}
		updates, err := chk.updates(changes, bf.t)
		if err != nil || len(updates) == 0 {
			return err
		}
		return bf.step(exec.Input{Updates: map[repr.CollectionID][]repr.Update{cid: updates}})
	}
	ctx, cancel := interruptContext(bf.interrupt)
	defer cancel()
	n, err := h.History(ctx, st.def, start, st.position, cutPos, emit)
	if err != nil {
		if ctx.Err() != nil {
			return exec.ErrCanceled
		}
		return err
	}
	if n != nil {
		notice(n)
	}
	return nil
}

// replayRows feeds the new view the live rows of a retracting source
// without a watermark (source_rows.go), backfillChunk distinct rows per
// Step: that is all its history amounts to, since without event time a
// view is a function of its inputs' multisets (a table's backfill is its
// rows), so the view ends where the earlier ones are, without reading
// the history again (nor missing what retention dropped since) and
// holding only a chunk in memory when the rows are spilled.
func (bf *backfill) replayRows(st *sourceState) error {
	cid := repr.CollectionID(st.def.ID)
	var from []byte
	for {
		var updates []repr.Update
		from = st.rows.c.ScanChunk(from, backfillChunk, func(row repr.Row, n int64) {
			updates = append(updates, repr.Update{Row: row, Time: bf.t, Diff: n})
		})
		if len(updates) > 0 {
			if err := bf.step(exec.Input{Updates: map[repr.CollectionID][]repr.Update{cid: updates}}); err != nil {
				return err
			}
		}
		if from == nil {
			return nil
		}
	}
}

// historyCheck checks a retracting source's deletions during a backfill
// as ingestion did (source_rows.go): a fresh multiset (in memory,
// unlogged) fed the history in order, judging lateness against the
// watermark the backfill has raised so far, drops exactly the deletions
// the live check dropped. Between cuts no change was late live, nor is it
// against the lower watermark here; a change late live comes right after
// a cut that raises this watermark to the one it was late against; and
// the multisets agree on every row at or above the live watermark, the
// only rows a change that is not late can touch.
type historyCheck struct {
	def   *SourceDef
	rows  *sourceRows // nil: the source does not check its deletions
	wm    int64
	hasWM bool
}

func newHistoryCheck(st *sourceState) *historyCheck {
	h := &historyCheck{def: &st.def}
	if st.rows != nil {
		h.rows = newSourceRows(&st.def)
	}
	return h
}

// raise raises the watermark to wm at a cut, forgetting the rows below.
func (h *historyCheck) raise(wm int64) error {
	if h.rows == nil {
		return nil
	}
	prev, hasPrev := h.wm, h.hasWM
	h.wm, h.hasWM = wm, true
	return h.rows.prune(prev, hasPrev, wm, nil)
}

// updates returns the updates of a history chunk that ingestion passed on.
func (h *historyCheck) updates(changes []Change, t repr.Time) ([]repr.Update, error) {
	if h.rows == nil {
		return sourceUpdates(h.def, changes, t)
	}
	updates, _, err := h.rows.apply(changes, t, nil, h.wm, h.hasWM)
	return updates, err
}

// interruptContext is a context cancelled when interrupt closes.
func interruptContext(interrupt <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	if interrupt != nil {
		go func() {
			select {
			case <-interrupt:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, cancel
}
