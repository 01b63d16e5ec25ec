package exec

import (
	"encoding/binary"
	"unsafe"

	"github.com/eddydb/eddy/repr"
)

// State size estimators of the operators beyond Reduce, Threshold and
// Join (statesize.go): TopK (and its watermarked form windowTopK, which
// embeds it), Window, TemporalFilter, SessionWindow, DeltaJoin, the retracting
// event-time Source (its held rows) and the
// append-only join. Each reads at most sizeSample groups, partitions,
// rows or buckets: a count kept per group (TopK's rows per group, a
// window partition's positions, a bucket's records) is exact while the
// operator has at most sizeSample of them and extrapolated from the
// sample beyond, like the bytes.

// datumBytes is the size of one repr.Datum value (its heap parts apart).
var datumBytes = int64(unsafe.Sizeof(repr.Datum{}))

// rowBytes estimates the heap bytes of row: its datums and their strings
// and decimals.
func rowBytes(row repr.Row) int64 {
	n := int64(len(row)) * datumBytes
	for i := range row {
		n += datumHeapBytes(row[i])
	}
	return n
}

// datumHeapBytes estimates the heap bytes d points to: its string or
// decimal.
func datumHeapBytes(d repr.Datum) int64 {
	n := int64(len(d.Text()))
	if d.Family() == repr.FamNumeric {
		n += decimalBytes
	}
	return n
}

// sample accumulates per-entry counts and bytes over at most sizeSample
// entries of n and extrapolates them to all n.
type sample struct {
	n, sampled  int
	rows, bytes int64
}

// add records one sampled entry's rows and bytes; it reports false once
// the sample is full (the caller stops iterating).
func (s *sample) add(rows, bytes int64) bool {
	if s.sampled == sizeSample {
		return false
	}
	s.sampled++
	s.rows += rows
	s.bytes += bytes
	return true
}

// total is the extrapolated (rows, bytes) over all n entries.
func (s *sample) total() (rows, bytes int64) {
	return scaleSample(s.n, s.sampled, s.rows), scaleSample(s.n, s.sampled, s.bytes)
}

// stateSize reports the distinct rows kept by every group (exact up to
// sizeSample groups) and an estimate of their bytes: each row's
// encoding and entry, each group's entry and slice.
func (o *topkOp) stateSize() (rows, bytes int64) {
	s := sample{n: len(o.groups)}
	entry := int64(unsafe.Sizeof(krow{})) + int64(unsafe.Sizeof((*krow)(nil)))
	group := int64(unsafe.Sizeof(kgroup{})) + mapEntryOverhead
	for key, g := range o.groups {
		b := group + int64(len(key))
		for _, r := range g.rows {
			b += entry + int64(len(r.data))
		}
		if !s.add(int64(len(g.rows)), b) {
			break
		}
	}
	return s.total()
}

// stateSize reports the positions of every partition (one per copy of a
// live input row; exact up to sizeSample partitions) and an estimate of
// their bytes: a row and its sort key per distinct run of copies (copies
// share them) is approximated by one per position, plus the function
// slots of each position.
func (o *windowOp) stateSize() (rows, bytes int64) {
	s := sample{n: len(o.parts)}
	slots := int64(o.width) * datumBytes
	entry := int64(unsafe.Sizeof(went{}))
	for key, p := range o.parts {
		b := int64(unsafe.Sizeof(wpart{})) + mapEntryOverhead + int64(len(key))
		for _, c := range p.seq.chunks {
			for i := range c.e {
				b += entry + slots + rowBytes(c.e[i].row) + int64(len(c.e[i].sk))
			}
		}
		if !s.add(int64(p.seq.n), b) {
			break
		}
	}
	return s.total()
}

// stateSize reports the remembered rows (exact) and an estimate of their
// bytes: each entry, its row and key, its map entry and queue item.
func (o *temporalOp) stateSize() (rows, bytes int64) {
	s := sample{n: len(o.rows)}
	for _, e := range o.rows {
		if !s.add(1, o.entryCost(e)) {
			break
		}
	}
	_, bytes = s.total()
	return int64(len(o.rows)), bytes
}

// stateSize reports the live rows of every group (exact up to sizeSample
// groups) and an estimate of their bytes.
func (o *sessionOp) stateSize() (rows, bytes int64) {
	s := sample{n: len(o.groups)}
	entry := int64(unsafe.Sizeof(sentry{}))
	for key, g := range o.groups {
		b := int64(unsafe.Sizeof(sgroup{})) + mapEntryOverhead + int64(len(key))
		for i := range g.ents {
			b += entry + int64(len(g.ents[i].rk)) + rowBytes(g.ents[i].row)
		}
		if !s.add(int64(len(g.ents)), b) {
			break
		}
	}
	return s.total()
}

// stateSize reports the rows of the private arrangements (an input
// arranged by two keys counts twice) and their estimated bytes; shared
// lookups read indexes, listed in eddy_indexes.
func (o *deltaJoin) stateSize() (rows, bytes int64) {
	for _, a := range o.arrs {
		r, b := a.j.stateSize()
		rows, bytes = rows+r, bytes+b
	}
	return rows, bytes
}

// stateSize reports the rows stored on both sides (counted in up to
// sizeSample buckets per side, extrapolated beyond) and their bytes: the
// buckets' records, keys and entries.
func (o *appendJoin) stateSize() (rows, bytes int64) {
	for i := range o.sides {
		s := sample{n: len(o.sides[i].buckets)}
		for key, b := range o.sides[i].buckets {
			size := int64(unsafe.Sizeof(appendBucket{})) + mapEntryOverhead + int64(len(key)) + int64(cap(b.recs))
			if !s.add(countRecords(b.recs), size) {
				break
			}
		}
		r, b := s.total()
		rows, bytes = rows+r, bytes+b
	}
	return rows, bytes
}

// countRecords counts an appendBucket's records (uvarint length, then
// that many bytes, back to back).
func countRecords(recs []byte) int64 {
	var n int64
	for len(recs) > 0 {
		l, w := binary.Uvarint(recs)
		if w <= 0 || uint64(len(recs)-w) < l {
			break
		}
		recs = recs[w+int(l):]
		n++
	}
	return n
}

// stateSize reports the rows a Source holds (retracting event-time
// sources only; the others keep no rows) and an estimate of their bytes:
// each row's map entry, key (shared with its heap entry) and value
// encodings, and heap entry.
func (o *sourceOp) stateSize() (rows, bytes int64) {
	if o.held == nil {
		return -1, -1
	}
	sampled, size := 0, int64(0)
	for k, r := range o.held.rows {
		if sampled == sizeSample {
			break
		}
		sampled++
		size += int64(len(k)+len(r.enc)) + int64(unsafe.Sizeof(*r)+unsafe.Sizeof(heldRef{})) + mapEntryOverhead
	}
	return int64(len(o.held.rows)), scaleSample(len(o.held.rows), sampled, size)
}
