package exec

import (
	"cmp"
	"errors"
	"slices"
	"unsafe"

	"github.com/eddydb/eddy/repr"
)

// A spilled SessionWindow without Key columns (one group, sessionOp.ks)
// keeps its rows in the store, as of the last checkpoint, in time order
// (the group key is empty, so a row's key is its time and row keys), and
// in memory an index of its sessions (first and last row times, one
// entry per session) and the rows of some whole sessions (the group's
// ents, sorted as in memory). Sessions are at least gap apart, so the
// rows of any set of whole sessions, sorted, split into sessions exactly
// as the whole group does: the in-memory SessionWindow runs unchanged
// over them, provided a Step has loaded every session it reads. Those are
// the sessions with a row within gap of an updated time (the dirty
// sessions, see sessionOp: a change reaches no other) and those the
// watermark closes (which no update of the Step can reach), all found in
// the index and loaded, each by one ScanFrom of its time range, before the
// Step touches the group. A session's stored rows are its rows while it
// is clean: a Step that changes a session replaces its index entries (at
// commit) by the new sessions, dirty until the next checkpoint; clean
// loaded sessions are evicted least recently used first past the cache.
// No close index is kept: the sessions a watermark closes are the
// session index's first entries. A spill (also one that stops a restore
// midway) builds the index from one scan of the store and loads nothing.
type kspill struct {
	// rs holds the reader, the node's prefix, the cache bound and the
	// counts (its keys map is unused).
	rs  residency
	idx []kspan
	// pend are the index changes of the pending Step, applied in order
	// at commit.
	pend  []kchange
	clock uint64
	// perRow estimates a row's bytes in memory.
	perRow int64
	// res holds the starts of the loaded sessions (so that trimming and
	// marking clean cost what is resident, not the index).
	res  map[int64]struct{}
	kbuf []byte
}

// kspan is one session of the index: the times of its first and last
// rows, its rows, and whether they are in memory.
type kspan struct {
	start, last   int64
	rows          int64
	loaded, dirty bool
	used          uint64
}

// kchange is an index change: session start removed or span added.
type kchange struct {
	add  bool
	span kspan
}

// ksessionSpillTo makes the keyless o spilled (see kspill): the index
// from one scan of the store, nothing loaded.
func (o *sessionOp) ksessionSpillTo(r StateReader, prefix []byte, cache int64) error {
	ks := &kspill{rs: residency{r: r, prefix: append([]byte(nil), prefix...), cache: cache}, res: map[int64]struct{}{}}
	var cur *kspan
	var size int64
	err := r.Scan(prefix, func(k, v []byte) error {
		e, err := o.decodeSentry(v)
		if err != nil {
			return err
		}
		size += int64(len(k)) + sentryCost(0, e.row)
		if cur != nil && e.ts-cur.last < o.spec.Gap {
			cur.last, cur.rows = e.ts, cur.rows+1
			return nil
		}
		ks.idx = append(ks.idx, kspan{start: e.ts, last: e.ts, rows: 1})
		cur = &ks.idx[len(ks.idx)-1]
		return nil
	})
	if err != nil {
		return err
	}
	var rows int64
	for _, sp := range ks.idx {
		rows += sp.rows
	}
	ks.perRow = max(size/max(rows, 1), 1)
	clear(o.groups)
	o.idx = closeIndex[string]{}
	o.ks = ks
	return nil
}

// decodeSentry decodes a stored row: its count and columns.
func (o *sessionOp) decodeSentry(value []byte) (sentry, error) {
	r, err := repr.DecodeRow(value)
	if err != nil || len(r) < 2 || r[0].Family() != repr.FamInt {
		return sentry{}, errCorrupt
	}
	row := r[1:]
	if o.spec.TimeCol >= len(row) || row[o.spec.TimeCol].IsNull() {
		return sentry{}, errCorrupt
	}
	return sentry{ts: row[o.spec.TimeCol].Micros(), rk: string(repr.AppendRowKey(nil, row)), row: row, n: r[0].Int()}, nil
}

// kload loads, before a Step of the keyless spilled o touches its group,
// the sessions with a row within gap of an updated time and those the
// watermark wm closes (wm NoWatermark: none).
func (o *sessionOp) kload(ins []repr.Update, wm int64) error {
	ks, gap := o.ks, o.spec.Gap
	for _, u := range ins {
		if v := u.Row[o.spec.TimeCol]; !v.IsNull() {
			t := v.Micros()
			i, _ := slices.BinarySearchFunc(ks.idx, satAdd(t, -gap), func(sp kspan, lo int64) int { return cmp.Compare(sp.last, lo+1) })
			for ; i < len(ks.idx) && ks.idx[i].start < satAdd(t, gap); i++ {
				if err := o.kloadSpan(i); err != nil {
					return err
				}
			}
		}
	}
	if wm == NoWatermark {
		return nil
	}
	for i := 0; i < len(ks.idx) && satAdd(ks.idx[i].last, gap) <= wm; i++ {
		if err := o.kloadSpan(i); err != nil {
			return err
		}
	}
	return nil
}

// kloadSpan makes session i of the index resident: its stored rows go
// into the group's ents, in order.
func (o *sessionOp) kloadSpan(i int) error {
	ks := o.ks
	sp := &ks.idx[i]
	ks.clock++
	sp.used = ks.clock
	if sp.loaded {
		return nil
	}
	ks.kbuf = repr.AppendKey(append(ks.kbuf[:0], ks.rs.prefix...), wmDatum(o.tt, sp.start))
	var rows []sentry
	err := ks.rs.r.ScanFrom(ks.rs.prefix, ks.kbuf, func(_, v []byte) error {
		e, err := o.decodeSentry(v)
		if err == nil && e.ts > sp.last {
			return errStopScan
		}
		rows = append(rows, e)
		return err
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return err
	}
	if int64(len(rows)) != sp.rows {
		return errCorrupt
	}
	g := o.groups[""]
	if g == nil {
		g = &sgroup{in: true}
		o.groups[""] = g
	}
	at, _ := slices.BinarySearchFunc(g.ents, sp.start, func(e sentry, t int64) int { return cmp.Compare(e.ts, t) })
	g.ents = slices.Insert(g.ents, at, rows...)
	sp.loaded = true
	ks.res[sp.start] = struct{}{}
	ks.rs.bytes += sp.rows * ks.perRow
	ks.rs.loads++
	return nil
}

// kchanged records, for the pending Step, that the dirty sessions old
// (of the rows before) become new (of ents).
func (o *sessionOp) kchanged(old []sbounds, ents []sentry, new []sbounds) {
	for _, b := range old {
		o.ks.pend = append(o.ks.pend, kchange{span: kspan{start: b.start}})
	}
	for _, b := range new {
		o.ks.pend = append(o.ks.pend, kchange{add: true, span: kspan{start: b.start, last: ents[b.hi-1].ts,
			rows: int64(b.hi - b.lo), loaded: true, dirty: true}})
	}
}

// kclosed records that closing dropped the sessions of ents.
func (o *sessionOp) kclosed(ents []sentry) {
	for lo := 0; lo < len(ents); lo = o.sessionEnd(ents, lo) {
		o.ks.pend = append(o.ks.pend, kchange{span: kspan{start: ents[lo].ts}})
	}
}

// kcommit applies the pending Step's index changes and evicts past the
// cache. A session removed and one added in its place (the same session
// changed) replace each other in place, and closed sessions leave from
// the front, so a Step's index changes move no other entries.
func (o *sessionOp) kcommit() {
	ks := o.ks
	for j := 0; j < len(ks.pend); j++ {
		c := ks.pend[j]
		i, found := ks.find(c.span.start)
		if c.add {
			ks.clock++
			c.span.used = ks.clock
			ks.idx = slices.Insert(ks.idx, i, c.span)
			ks.loadedNow(&ks.idx[i])
			continue
		}
		if !found {
			continue
		}
		ks.unload(&ks.idx[i])
		if j+1 < len(ks.pend) && ks.pend[j+1].add && ks.fits(i, ks.pend[j+1].span.start) {
			j++
			ks.clock++
			ks.idx[i] = ks.pend[j].span
			ks.idx[i].used = ks.clock
			ks.loadedNow(&ks.idx[i])
			continue
		}
		if i == 0 {
			ks.idx = ks.idx[1:]
		} else {
			ks.idx = slices.Delete(ks.idx, i, i+1)
		}
	}
	clear(ks.pend)
	ks.pend = ks.pend[:0]
	o.ktrim()
}

// find returns the index position of the session starting at start
// and whether there is one.
func (ks *kspill) find(start int64) (int, bool) {
	return slices.BinarySearchFunc(ks.idx, start, func(sp kspan, t int64) int { return cmp.Compare(sp.start, t) })
}

// fits reports whether a session starting at start may replace entry i.
func (ks *kspill) fits(i int, start int64) bool {
	return (i == 0 || ks.idx[i-1].start < start) && (i+1 == len(ks.idx) || start < ks.idx[i+1].start)
}

// loadedNow counts sp, a session loaded (or not) just added to the index.
func (ks *kspill) loadedNow(sp *kspan) {
	if sp.loaded {
		ks.res[sp.start] = struct{}{}
		ks.rs.bytes += sp.rows * ks.perRow
	}
}

// unload forgets sp's rows as resident (sp is leaving the index or
// being evicted).
func (ks *kspill) unload(sp *kspan) {
	if sp.loaded {
		delete(ks.res, sp.start)
		ks.rs.bytes -= sp.rows * ks.perRow
	}
}

// ktrim evicts clean loaded sessions, least recently used first, when
// their bytes pass the cache bound, down to three quarters of it.
func (o *sessionOp) ktrim() {
	ks := o.ks
	if ks.rs.bytes <= ks.rs.cache {
		return
	}
	var clean []int
	for start := range ks.res {
		if i, found := ks.find(start); found && !ks.idx[i].dirty {
			clean = append(clean, i)
		}
	}
	slices.SortFunc(clean, func(a, b int) int { return cmp.Compare(ks.idx[a].used, ks.idx[b].used) })
	target, evicted := ks.rs.cache/4*3, false
	for _, i := range clean {
		if ks.rs.bytes <= target {
			break
		}
		ks.unload(&ks.idx[i])
		ks.idx[i].loaded, evicted = false, true
		ks.rs.evictions++
	}
	if g := o.groups[""]; evicted && g != nil {
		o.kdropUnloaded(g)
	}
}

// kdropUnloaded drops from g the rows of the sessions no longer loaded.
func (o *sessionOp) kdropUnloaded(g *sgroup) {
	ks := o.ks
	var sp *kspan
	g.ents = slices.DeleteFunc(g.ents, func(e sentry) bool {
		if sp == nil || e.ts > sp.last {
			i, found := ks.find(e.ts)
			if !found {
				i-- // e is inside the session starting before it
			}
			sp = &ks.idx[i]
		}
		return !sp.loaded
	})
	if len(g.ents) == 0 {
		delete(o.groups, "")
		g.in = false
	}
}

// kflushed marks every session clean (a checkpoint has written them;
// only loaded sessions can be dirty) and evicts past the cache.
func (o *sessionOp) kflushed() {
	ks := o.ks
	for start := range ks.res {
		if i, found := ks.find(start); found {
			ks.idx[i].dirty = false
		}
	}
	o.ktrim()
}

// kspanBytes is the memory of one index entry.
const kspanBytes = int64(unsafe.Sizeof(kspan{}))
