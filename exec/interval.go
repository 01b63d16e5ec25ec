package exec

import (
	"math"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Interval conditions of a Join. A residual conjunct such as
// b.date_time >= a.date_time or b.date_time <= a.expires relates a column
// (or a monotone expression) of one side to one of the other side. Read
// as lo <= hi (lo < hi when strict), with lo non-decreasing in a column c
// of its side, it says two things about the rows that match:
//
//   - Freeing: a future row x of lo's side has x[c] at or above c's
//     watermark w, so lo(x) >= lo(w). A stored row y of the other side
//     with hi(y) < lo(w) (<= for strict) can therefore never match a future
//     row: it is freed (intervalJoin). Nexmark q4/q9: an auction is freed
//     once the bid watermark passes its expires, a bid once the auction
//     watermark passes its date_time.
//   - Watermarks: in every later output row hi >= lo >= lo(w) when the row
//     comes from a future row of lo's side, which bounds the output columns
//     (joinWM): q7's window end and bid time keep watermarks through the
//     join.
//
// Equalities (residual or equi-join key pairs) count as two inequalities.
// Only conjuncts whose operands read one side each are used, and only when
// both operands have the same watermarkable type family, so that their
// watermark forms (watermark.go) compare as the values do.

// joinIneq is one residual conjunct of a Join read as lo <= hi (lo < hi
// if strict). Column indices are those of the joined row (the left
// columns, then the right ones).
type joinIneq struct {
	lo, hi expr.Expr
	strict bool
	// loSide is the side lo reads (hi reads the other one).
	loSide int
	// loMono is the joined column lo is non-decreasing in, -1 if none.
	loMono int
	// hiCol is the joined column hi is, if hi is a plain column, else -1.
	hiCol int
}

// op prints the comparison.
func (q joinIneq) String() string {
	op := " <= "
	if q.strict {
		op = " < "
	}
	return q.lo.String() + op + q.hi.String()
}

// joinIneqs extracts the inequalities of a Join whose inputs have column
// types left and right: its comparisons (<, <=, >, >=, =) among the
// residual conjuncts (ANDs flattened) whose operands read different sides,
// and its equi-join key pairs.
func joinIneqs(op dataflow.Join, left, right []repr.T) []joinIneq {
	cols := append(append([]repr.T(nil), left...), right...)
	nl := len(left)
	var out []joinIneq
	add := func(lo, hi expr.Expr, strict bool) {
		ls, hs := exprSide(lo, nl), exprSide(hi, nl)
		lt, ht := lo.Type(), hi.Type()
		if ls < 0 || hs < 0 || ls == hs || lt.Family != ht.Family || !watermarkable(lt) {
			return
		}
		q := joinIneq{lo: lo, hi: hi, strict: strict, loSide: ls, loMono: monotoneIn(lo, cols), hiCol: -1}
		if c, ok := hi.(*expr.Col); ok {
			q.hiCol = c.Idx
		}
		out = append(out, q)
	}
	for p, l := range op.LeftKey {
		lc := &expr.Col{Idx: l, T: left[l]}
		rc := &expr.Col{Idx: nl + op.RightKey[p], T: right[op.RightKey[p]]}
		add(lc, rc, false)
		add(rc, lc, false)
	}
	var visit func(e expr.Expr)
	visit = func(e expr.Expr) {
		switch e := e.(type) {
		case *expr.And:
			for _, a := range e.Args {
				visit(a)
			}
		case *expr.Call:
			if len(e.Args) != 2 {
				return
			}
			a, b := e.Args[0], e.Args[1]
			switch e.Fn.Name {
			case "<=":
				add(a, b, false)
			case "<":
				add(a, b, true)
			case ">=":
				add(b, a, false)
			case ">":
				add(b, a, true)
			case "=":
				add(a, b, false)
				add(b, a, false)
			}
		}
	}
	for _, e := range op.Residual {
		visit(e)
	}
	return out
}

// exprSide is the side (0 left, 1 right) whose columns e reads, -1 if it
// reads none or both. nl is the number of left columns.
func exprSide(e expr.Expr, nl int) int {
	side := -1
	walkCols(e, func(c int) {
		s := 0
		if c >= nl {
			s = 1
		}
		switch {
		case side == -1:
			side = s
		case side != s:
			side = -2
		}
	})
	return max(side, -1)
}

// evalMono evaluates e, which reads only column c of a row with column
// types cols, with c set to the value whose watermark form is v, and
// returns the result's watermark form (false if it fails or is NULL).
func evalMono(ctx *expr.Ctx, e expr.Expr, cols []repr.T, c int, v int64, scratch *repr.Row) (int64, bool) {
	if cap(*scratch) < len(cols) {
		*scratch = make(repr.Row, len(cols))
	}
	r := (*scratch)[:len(cols)]
	clear(r)
	r[c] = wmDatum(cols[c], v)
	d, err := e.Eval(ctx, r)
	if err != nil || d.IsNull() {
		return 0, false
	}
	return wmValue(d)
}

// joinWM derives the output watermarks of a Join. A later output row
// comes from a later row of one side joined with a row of the other side
// (stored or later too). For each side s it bounds the columns of such
// rows: s's own columns start at s's input watermarks, and every
// inequality lo <= hi whose hi is a plain column raises hi's bound to lo
// evaluated at the bound of the column lo is monotone in (repeated to a
// fixed point, at most once per inequality: each round only derives
// valid bounds, so stopping early is safe). A column's output watermark is
// the smaller of its bounds for the two sides. This gives equi-join key
// columns the minimum of both sides' watermarks, and q7's window end
// (b1.date_time >= b.date_time) and bid time (b.date_time >= b1.date_time -
// 10s) watermarks through the interval join.
//
// Outer joins: a later row of a preserved side may be output unmatched
// (padded), where no condition holds, so that side's bound is only its
// own input watermarks; columns of a side that is ever NULL-padded get
// no watermark.
type joinWM struct {
	nl              int
	cols            []repr.T
	outer           [2]bool
	edges           []joinIneq
	bounds          [2][]int64
	scratch         repr.Row
	leftOK, rightOK bool
}

// newJoinWM prepares the watermark derivation of a Join.
func newJoinWM(op dataflow.Join, left, right []repr.T) *joinWM {
	j := &joinWM{nl: len(left), cols: append(append([]repr.T(nil), left...), right...)}
	j.outer[0] = op.Kind == dataflow.LeftJoin || op.Kind == dataflow.FullJoin
	j.outer[1] = op.Kind == dataflow.RightJoin || op.Kind == dataflow.FullJoin
	j.leftOK, j.rightOK = !j.outer[1], !j.outer[0]
	for _, q := range joinIneqs(op, left, right) {
		if q.loMono >= 0 && q.hiCol >= 0 {
			j.edges = append(j.edges, q)
		}
	}
	for s := range 2 {
		j.bounds[s] = make([]int64, len(j.cols))
	}
	return j
}

// derive computes out (one value per joined column) from in (the two
// inputs' watermarks); static as for wmNode.derive.
func (j *joinWM) derive(ctx *expr.Ctx, in [][]int64, static bool, out []int64) {
	for s := range 2 {
		b := j.bounds[s]
		for c := range b {
			b[c] = NoWatermark
		}
		copy(b[j.off(s):], in[s])
		if !j.outer[s] {
			j.propagate(ctx, b, static)
		}
	}
	for c := range out {
		if c < j.nl && j.leftOK || c >= j.nl && j.rightOK {
			out[c] = min(j.bounds[0][c], j.bounds[1][c])
		} else {
			out[c] = NoWatermark
		}
	}
}

// off is the first joined column of side s.
func (j *joinWM) off(s int) int {
	if s == 0 {
		return 0
	}
	return j.nl
}

// propagate raises the bounds b along the inequalities.
func (j *joinWM) propagate(ctx *expr.Ctx, b []int64, static bool) {
	for range len(j.edges) {
		changed := false
		for _, q := range j.edges {
			v := b[q.loMono]
			if v == NoWatermark {
				continue
			}
			if !static {
				var ok bool
				if v, ok = evalMono(ctx, q.lo, j.cols, q.loMono, v, &j.scratch); !ok {
					continue
				}
			}
			if v > b[q.hiCol] {
				b[q.hiCol], changed = v, true
			}
		}
		if !changed {
			return
		}
	}
}

// strictNext is the threshold below which values v' satisfy v' < v
// (non-strict) or v' <= v (strict), saturating at the top.
func strictNext(v int64, strict bool) int64 {
	if strict && v < math.MaxInt64 {
		return v + 1
	}
	return v
}
