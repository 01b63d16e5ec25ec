package exec

import (
	"cmp"
	"errors"
	"slices"
	"unsafe"

	"github.com/eddydb/eddy/repr"
)

// A spilled Window without PARTITION BY (one partition, windowOp.pg)
// pages its partition's chunks (wseq) instead of whole partitions. The
// store holds the partition in window order: a copy is logged under its
// sort key, row key and copy index, so Pebble's key order is the
// partition's position order and a chunk's copies are the ones stored
// from its first copy's key on, as many as it holds. So a paged-out chunk
// keeps in memory only its page: its length, its first and last rows
// (sort keys included, for searches) and their copy indexes; the
// partition keeps its chunk list (a page per wchunkMax positions at most,
// a few thousand for a million rows) and its offsets' reach (maxN). A
// Step loads the chunks its positions read (ents), exactly as the Window
// in memory would read them, so its work is that of the Window in memory
// plus one seek per chunk loaded: proportional to what changed.
//
// Residency follows the rule of spill_keys.go, per chunk: a chunk a Step
// reads or changes (loads, splits, merges) is dirty until the next
// checkpoint (Flushed) has written it; clean chunks are a cache of the
// store, evicted least recently used first past the cache bound. A clean
// chunk has not changed since the checkpoint made the store equal to the
// partition, and insertions and removals only reach a chunk through ents,
// so the store's copies from its first copy's key on are its copies; a
// chunk created since (a split) is dirty. A copy's index never changes
// (copies are added after a row's last one and removed from it), so a
// page's indexes stay true while it is paged out.

// wpager is the paging state of a spilled Window without PARTITION BY.
type wpager struct {
	// rs holds the reader, the node's prefix, the cache bound and the
	// counts; its keys map is unused (chunks are not named by key).
	rs residency
	// key is the prefix of the partition's copies' keys (node and
	// partition key).
	key []byte
	// resident counts the resident copies; perEnt estimates each one's
	// bytes.
	resident, perEnt int64
	clock            uint64
	// decode decodes a stored copy.
	decode func(value []byte) (went, error)
	kbuf   []byte
}

// wpage is one chunk's page in a paged wseq.
type wpage struct {
	// n, first, last, fidx and lidx are, while the chunk is paged out,
	// its length, its first and last copies (row and sort key) and
	// their copy indexes.
	n           int
	first, last went
	fidx, lidx  int
	used        uint64
	dirty       bool
}

// wloadErr is a failed chunk load, panicked out of the wseq accessors
// and recovered by windowOp.step into its error.
type wloadErr struct{ err error }

// page returns a new chunk's page (nil for a wseq in memory): dirty.
func (g *wpager) page() *wpage {
	if g == nil {
		return nil
	}
	g.clock++
	return &wpage{used: g.clock, dirty: true}
}

// added counts n more (or fewer) resident copies.
func (g *wpager) added(n int64) {
	if g != nil {
		g.resident += n
	}
}

// use returns chunk ci's entries, loading them if paged out, and marks
// it used and dirty.
func (g *wpager) use(s *wseq, ci int) []went {
	c := &s.chunks[ci]
	if c.e == nil {
		g.load(c)
	}
	g.clock++
	c.pg.used, c.pg.dirty = g.clock, true
	return c.e
}

// load reads paged-out chunk c's copies from the store (panicking with a
// wloadErr if it cannot).
func (g *wpager) load(c *wchunk) {
	pg := c.pg
	g.kbuf = append(append(g.kbuf[:0], g.key...), pg.first.sk...)
	g.kbuf = repr.AppendRowKey(g.kbuf, pg.first.row)
	g.kbuf = repr.AppendKey(g.kbuf, repr.NewInt(int64(pg.fidx)))
	e := make([]went, 0, pg.n)
	err := g.rs.r.ScanFrom(g.key, g.kbuf, func(_, v []byte) error {
		w, err := g.decode(v)
		if e = append(e, w); err == nil && len(e) == pg.n {
			err = errStopScan
		}
		return err
	})
	switch {
	case errors.Is(err, errStopScan):
	case err == nil:
		err = errCorrupt // fewer copies than the page says
		fallthrough
	default:
		panic(wloadErr{err})
	}
	c.e = e
	g.resident += int64(pg.n)
	g.rs.loads++
}

// evict pages chunk ci of s out (it must be resident and clean).
func (g *wpager) evict(s *wseq, ci int) {
	c := &s.chunks[ci]
	pg, n := c.pg, len(c.e)
	pg.n = n
	pg.first = went{row: c.e[0].row, sk: c.e[0].sk}
	pg.last = went{row: c.e[n-1].row, sk: c.e[n-1].sk}
	pg.fidx, pg.lidx = s.copyIdx(ci, 0), s.copyIdx(ci, n-1)
	c.e = nil
	g.resident -= int64(n)
	g.rs.evictions++
}

// copyIdx returns the copy index (among its row's copies) of the entry at
// offset off of chunk ci: 0 or n-1 if the chunk is paged out.
func (s *wseq) copyIdx(ci, off int) int {
	c := &s.chunks[ci]
	if c.e == nil {
		if off == 0 {
			return c.pg.fidx
		}
		return c.pg.lidx
	}
	e, k := &c.e[off], 0
	for ; off > 0 && sameCopy(&c.e[off-1], e); off-- {
		k++
	}
	if off > 0 || ci == 0 || !sameCopy(s.lastEnt(ci-1), e) {
		return k
	}
	return k + 1 + s.copyIdx(ci-1, s.chunks[ci-1].size()-1)
}

// sameCopy reports whether a and b are copies of one row.
func sameCopy(a, b *went) bool { return compareEnt(a, b.sk, b.row) == 0 }

// flushed marks every chunk of s clean (a checkpoint has written them)
// and evicts past the cache.
func (g *wpager) flushed(s *wseq) {
	if s == nil {
		g.sized(s)
		return
	}
	for i := range s.chunks {
		s.chunks[i].pg.dirty = false
	}
	g.trim(s)
}

// trim pages out clean chunks of s, least recently used first, when the
// resident copies' bytes pass the cache bound, down to three quarters of
// it (as residency.trim). It must not run while a Step is pending.
func (g *wpager) trim(s *wseq) {
	defer g.sized(s)
	if s == nil || g.resident*g.perEnt <= g.rs.cache {
		return
	}
	var clean []int
	for i := range s.chunks {
		if c := &s.chunks[i]; c.e != nil && !c.pg.dirty {
			clean = append(clean, i)
		}
	}
	slices.SortFunc(clean, func(a, b int) int { return cmp.Compare(s.chunks[a].pg.used, s.chunks[b].pg.used) })
	target := g.rs.cache / 4 * 3
	for _, ci := range clean {
		if g.resident*g.perEnt <= target {
			break
		}
		g.evict(s, ci)
	}
}

// sized updates the resident bytes that spilledStats reports: the
// resident copies and every chunk's page with its first and last rows.
func (g *wpager) sized(s *wseq) {
	g.rs.bytes = g.resident * g.perEnt
	if s != nil {
		g.rs.bytes += int64(len(s.chunks)) * (pageBytes + 2*g.perEnt)
	}
}

// The paging of windowOp (winfunc_spill.go calls these when o has no
// PARTITION BY).

// pagedSeq returns the partition of a Window without PARTITION BY (nil
// if it is empty).
func (o *windowOp) pagedSeq() *wseq {
	if p := o.parts[""]; p != nil {
		return &p.seq
	}
	return nil
}

// pageTo makes o paged, reading from r under prefix and caching up to
// cache bytes. Right after a checkpoint the partition in memory is the
// store's, and its chunks become clean pages; in the middle of a restore
// (RestoreWithin stopping) the partition is rebuilt from the store's
// keys instead, every chunk paged out.
func (o *windowOp) pageTo(r StateReader, prefix []byte, cache int64) error {
	g := &wpager{rs: residency{r: r, prefix: append([]byte(nil), prefix...), cache: cache},
		key: append([]byte(nil), prefix...), decode: o.decodeEnt}
	if o.restoring {
		if err := o.scanPages(g); err != nil {
			return err
		}
	} else if s := o.pagedSeq(); s != nil {
		rows, bytes := o.stateSize()
		g.perEnt = max(bytes/max(rows, 1), 1)
		for i := range s.chunks {
			s.chunks[i].pg = &wpage{}
		}
		g.resident = int64(s.n)
		s.pg = g
	}
	if g.perEnt == 0 {
		g.perEnt = o.entryCost(16)
	}
	o.pg = g
	g.trim(o.pagedSeq())
	return nil
}

// scanPages rebuilds o's partition as pages of wchunkMax/2 copies from
// the store's (every chunk paged out), with its offsets' reach.
func (o *windowOp) scanPages(g *wpager) error {
	clear(o.parts)
	p := &wpart{seq: wseq{pg: g}}
	var prev went
	idx, size := 0, int64(0)
	err := g.rs.r.Scan(g.key, func(k, v []byte) error {
		e, err := o.decodeEnt(v)
		if err != nil {
			return err
		}
		size += o.entryCost(len(k))
		if p.seq.n > 0 && sameCopy(&prev, &e) {
			idx++
		} else {
			idx = 0
		}
		e.out, prev = nil, e
		o.noteN(p, e.row)
		p.seq.n++
		last := len(p.seq.chunks) - 1
		if last < 0 || p.seq.chunks[last].pg.n == max(wchunkMax/2, 1) {
			p.seq.chunks = append(p.seq.chunks, wchunk{pg: &wpage{first: e, fidx: idx}})
			last++
		}
		pg := p.seq.chunks[last].pg
		pg.n, pg.last, pg.lidx = pg.n+1, e, idx
		return nil
	})
	if err != nil {
		return err
	}
	g.perEnt = max(size/max(int64(p.seq.n), 1), 1)
	if p.seq.n > 0 {
		o.parts[p.key] = p
	}
	return nil
}

// decodeEnt decodes a stored copy: its row, sort key and slots.
func (o *windowOp) decodeEnt(value []byte) (went, error) {
	r, err := repr.DecodeRow(value)
	if err != nil || len(r) != o.ncols+o.width {
		return went{}, errCorrupt
	}
	row := r[:o.ncols:o.ncols]
	return went{row: row, sk: appendSortKey(nil, row, o.spec.Order), out: r[o.ncols:]}, nil
}

// pageBytes is the memory of a chunk's page without its first and last
// rows (sized counts those as two copies).
const pageBytes = int64(unsafe.Sizeof(wpage{}) + unsafe.Sizeof(wchunk{}))
