package datagen

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// Generator produces the rows of one Config. It is not safe for concurrent
// use.
type Generator struct {
	cfg    Config
	next   int64
	seeds  []uint64 // per field: Seed mixed with the field's position
	hasSeq bool
}

// New returns a generator at row 0.
func New(cfg Config) *Generator { return NewAt(cfg, 0) }

// NewAt returns a generator whose first row is number next: it yields the
// same rows as New(cfg) after next calls to Next. O(1) in next.
func NewAt(cfg Config, next int64) *Generator {
	g := &Generator{cfg: cfg, next: max(next, 0), seeds: make([]uint64, len(cfg.Fields))}
	for i, f := range cfg.Fields {
		g.seeds[i] = f.Seed + uint64(i+1)*0xd1b54a32d192ed03
		g.hasSeq = g.hasSeq || f.Kind == Sequence
	}
	return g
}

// Position returns the number of the next row: the offset a source stores
// to resume with NewAt.
func (g *Generator) Position() int64 { return g.next }

// Next writes the next row into row (reusing its array when large enough)
// and returns true; it returns false, leaving row alone, once every
// sequence column is exhausted. Without sequence columns it never ends.
func (g *Generator) Next(row *repr.Row) bool {
	n := g.next
	if g.hasSeq && g.exhausted(n) {
		return false
	}
	g.next++
	if cap(*row) >= len(g.cfg.Fields) {
		*row = (*row)[:len(g.cfg.Fields)]
	} else {
		*row = make(repr.Row, len(g.cfg.Fields))
	}
	for i := range g.cfg.Fields {
		(*row)[i] = g.value(i, n)
	}
	return true
}

// exhausted reports whether row n is past the end of every sequence.
func (g *Generator) exhausted(n int64) bool {
	for _, f := range g.cfg.Fields {
		if f.Kind == Sequence && !f.seqDone(n) {
			return false
		}
	}
	return true
}

// seqDone reports whether a sequence field has no value for row n.
func (f *Field) seqDone(n int64) bool { return uint64(n) > uint64(f.hi)-uint64(f.lo) }

// value returns field i's value in row n.
func (g *Generator) value(i int, n int64) repr.Datum {
	f := &g.cfg.Fields[i]
	if f.Kind == Sequence {
		if f.seqDone(n) {
			return repr.Null
		}
		return f.sequenceValue(f.lo + n)
	}
	r := connector.NewRand(g.seeds[i], n)
	return f.randomValue(&r)
}

// sequenceValue returns the datum of sequence value v in f's type.
func (f *Field) sequenceValue(v int64) repr.Datum {
	t := f.Column.Type
	switch t.Family {
	case repr.FamInt:
		return repr.NewInt(v)
	case repr.FamFloat:
		return repr.NewFloat(float64(v))
	case repr.FamNumeric:
		return repr.NewNumeric(apd.New(v*int64(math.Pow10(int(f.scale))), -f.scale))
	}
	return f.text(strconv.FormatInt(v, 10))
}

// randomValue draws a value of f's type from r.
func (f *Field) randomValue(r *connector.Rand) repr.Datum {
	t := f.Column.Type
	switch t.Family {
	case repr.FamBool:
		return repr.NewBool(r.Uint64()&1 == 1)
	case repr.FamInt:
		return repr.NewInt(uniform(r, f.lo, f.hi))
	case repr.FamFloat:
		v := f.flo + r.Float64()*(f.fhi-f.flo)
		if t.Width == 32 {
			v = float64(float32(v))
		}
		return repr.NewFloat(v)
	case repr.FamNumeric:
		return repr.NewNumeric(apd.New(uniform(r, f.lo, f.hi), -f.scale))
	case repr.FamText:
		return f.text(randomString(r, f.length))
	case repr.FamDate:
		return repr.NewDate(int32(uniform(r, f.lo, f.hi)))
	case repr.FamTimestampTZ:
		return repr.NewTimestampTZ(uniform(r, f.lo, f.hi))
	}
	return repr.NewTimestamp(uniform(r, f.lo, f.hi))
}

// uniform returns a value in [lo, hi], lo <= hi, over the whole int64 range.
func uniform(r *connector.Rand, lo, hi int64) int64 {
	span := uint64(hi) - uint64(lo)
	if span == math.MaxUint64 {
		return int64(r.Uint64())
	}
	return int64(uint64(lo) + r.Uint64n(span+1))
}

// alphanumeric is the alphabet of random strings.
const alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randomString returns n random alphanumeric characters.
func randomString(r *connector.Rand, n int64) string {
	var b strings.Builder
	b.Grow(int(n))
	for range n {
		b.WriteByte(alphanumeric[r.Uint64n(uint64(len(alphanumeric)))])
	}
	return b.String()
}

// text returns s as a datum of f's text type, blank-padded for char(n).
func (f *Field) text(s string) repr.Datum {
	t := f.Column.Type
	if t.Kind == repr.KindChar && int32(len(s)) < t.Length {
		s += strings.Repeat(" ", int(t.Length)-len(s))
	}
	return repr.NewText(s)
}
