package dataflow

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// DeltaJoin is an inner equi-join of its n >= 3 inputs that keeps no
// intermediate result: Materialize's delta join (after differential
// dataflow's dogsdogsdogs). Its output row is the inputs' columns
// concatenated in input order; every column reference of the operator
// (On, Residual, the lookups' keys) numbers those output columns. A row
// of the product is in the output when every On pair is equal (NULL never
// matches) and every Residual predicate is true.
//
// Paths[i] is input i's path: the order in which a change of input i
// looks up the other inputs, each exactly once, each by a key of columns
// bound by input i and the lookups before it. Path i sees the inputs
// before i (in input order) as they are after the Step and those after i
// as they were before it, so that for changes of several inputs at one
// time each output change is produced exactly once:
//
//	d(A⋈B⋈C) = dA⋈B⋈C + A'⋈dB⋈C + A'⋈B'⋈dC
//
// State: for each distinct (input, key) that some lookup reads without a
// Shared arrangement, that input's live rows arranged by the key; nothing
// else (no intermediate results). A lookup with Shared reads the index of
// the input's source collection, as Join.Shared does (the input is a
// Source or an MFP over one; the key is its leading columns).
type DeltaJoin struct {
	On       []DeltaPair
	Residual []expr.Expr
	Paths    [][]DeltaLookup
}

// DeltaPair is the equality of output columns L and R.
type DeltaPair struct{ L, R int }

// DeltaLookup looks up input Input by the key Cols (output columns of
// Input) whose values are those of the already bound output columns
// From (From[k] = Cols[k] is an On pair). Shared, if not 0, is the
// shared arrangement (index id) read, whose leading columns are Cols in
// order. Borrow, if not 0, is an earlier node of the same plan whose
// state this lookup reads, which by the time this node steps already
// holds the Step's changes (read as a shared arrangement is; differential
// dataflow's arrangements shared between operators): a DeltaJoin that
// reads the same input node and keeps its own arrangement of it by the
// same key (input columns), or the grouped Reduce the input is (or is an
// MFP over, keeping the key columns), looked up by its whole group key in
// order, its group's row computed on lookup. Otherwise the operator's own
// arrangement of Input by Cols. Printed input:#from=#col+#from=#col[@shared|@%borrow].
type DeltaLookup struct {
	Input  int
	From   []int
	Cols   []int
	Shared uint64
	Borrow int
}

func (DeltaJoin) opName() string { return "DeltaJoin" }

func (op DeltaJoin) args() string {
	on := make([]string, len(op.On))
	for i, p := range op.On {
		on[i] = fmt.Sprintf("#%d=#%d", p.L, p.R)
	}
	parts := []string{"on=[" + strings.Join(on, ", ") + "]"}
	if len(op.Residual) > 0 {
		parts = append(parts, "residual="+formatExprs(op.Residual))
	}
	for i, path := range op.Paths {
		steps := make([]string, len(path))
		for j, l := range path {
			steps[j] = l.String()
		}
		parts = append(parts, fmt.Sprintf("path%d=[%s]", i, strings.Join(steps, ", ")))
	}
	return strings.Join(parts, " ")
}

// String prints the lookup as input:#from=#col+...[@shared|@%borrow].
func (l DeltaLookup) String() string {
	keys := make([]string, len(l.Cols))
	for k := range l.Cols {
		keys[k] = fmt.Sprintf("#%d=#%d", l.From[k], l.Cols[k])
	}
	s := fmt.Sprintf("%d:%s", l.Input, strings.Join(keys, "+"))
	if l.Shared != 0 {
		s += "@" + strconv.FormatUint(l.Shared, 10)
	}
	if l.Borrow != 0 {
		s += "@%" + strconv.Itoa(l.Borrow)
	}
	return s
}

var lookupRE = regexp.MustCompile(`^(\d+):(#\d+=#\d+(?:\+#\d+=#\d+)*)(?:@(\d+)|@%(\d+))?$`)

// deltaJoin parses on=[...] residual=[...] path0=[...] ... over inputs
// with column types in.
func (a *argReader) deltaJoin(in [][]repr.T) DeltaJoin {
	var j DeltaJoin
	var all []repr.T
	for _, ts := range in {
		all = append(all, ts...)
	}
	for _, it := range a.list("on") {
		m := onRE.FindStringSubmatch(it)
		if m == nil {
			a.fail(fmt.Errorf("bad join condition %q", it))
			continue
		}
		l, _ := strconv.Atoi(m[1])
		r, _ := strconv.Atoi(m[2])
		j.On = append(j.On, DeltaPair{l, r})
	}
	j.Residual = a.exprs("residual", all)
	for i := range in {
		var path []DeltaLookup
		for _, it := range a.list("path" + strconv.Itoa(i)) {
			path = append(path, a.lookup(it))
		}
		j.Paths = append(j.Paths, path)
	}
	a.fail(j.Check(in))
	return j
}

// lookup parses one DeltaLookup.
func (a *argReader) lookup(s string) DeltaLookup {
	m := lookupRE.FindStringSubmatch(s)
	if m == nil {
		a.fail(fmt.Errorf("bad lookup %q (want input:#from=#col+...[@index|@%%node])", s))
		return DeltaLookup{}
	}
	var l DeltaLookup
	l.Input, _ = strconv.Atoi(m[1])
	for _, kv := range strings.Split(m[2], "+") {
		f, c, _ := strings.Cut(kv, "=")
		l.From, l.Cols = append(l.From, a.col(f)), append(l.Cols, a.col(c))
	}
	if m[3] != "" {
		id, err := strconv.ParseUint(m[3], 10, 64)
		a.fail(err)
		if id == 0 {
			a.fail(fmt.Errorf("bad lookup %q: index 0", s))
		}
		l.Shared = id
	}
	if m[4] != "" {
		n, err := strconv.Atoi(m[4])
		a.fail(err)
		if n <= 0 {
			a.fail(fmt.Errorf("bad lookup %q: node %%%d", s, n))
		}
		l.Borrow = n
	}
	return l
}

// Offsets returns the first output column of each input of widths, and
// the output's width.
func Offsets(widths []int) ([]int, int) {
	off := make([]int, len(widths))
	n := 0
	for i, w := range widths {
		off[i] = n
		n += w
	}
	return off, n
}

// Check checks that the join is well formed over inputs of column types
// in: at least three inputs, On pairs in range and of joinable types, and
// each path looking up every other input once, by columns of that input
// paired by On with columns bound before the lookup.
func (op DeltaJoin) Check(in [][]repr.T) error {
	if len(in) < 3 || len(op.Paths) != len(in) {
		return fmt.Errorf("DeltaJoin needs 3 or more inputs and one path each")
	}
	widths := make([]int, len(in))
	var all []repr.T
	for i, ts := range in {
		widths[i] = len(ts)
		all = append(all, ts...)
	}
	off, width := Offsets(widths)
	owner := func(c int) int { // the input of output column c
		i, _ := slices.BinarySearch(off, c+1)
		return i - 1
	}
	for _, p := range op.On {
		if p.L < 0 || p.R < 0 || p.L >= width || p.R >= width || !joinable(all[p.L], all[p.R]) {
			return fmt.Errorf("bad join condition #%d=#%d", p.L, p.R)
		}
	}
	for i, path := range op.Paths {
		if err := op.checkPath(i, path, owner, width); err != nil {
			return fmt.Errorf("path%d: %w", i, err)
		}
	}
	return nil
}

// joinable reports whether columns of types a and b may be paired by an
// equi-join condition: the same type up to its modifier (numeric(6,2)
// joins numeric, varchar(5) joins varchar), whose key encodings
// (repr.AppendColsKey) are equal exactly when the values are. char(n)
// keeps its length: its values are stored padded to it.
func joinable(a, b repr.T) bool {
	a.Precision, a.Scale, b.Precision, b.Scale = 0, 0, 0, 0
	if a.Kind != repr.KindChar {
		a.Length, b.Length = 0, 0
	}
	return a == b
}

// checkPath checks input i's path (see Check).
func (op DeltaJoin) checkPath(i int, path []DeltaLookup, owner func(int) int, width int) error {
	bound := map[int]bool{i: true}
	if len(path) != len(op.Paths)-1 {
		return fmt.Errorf("looks up %d inputs, want %d", len(path), len(op.Paths)-1)
	}
	for _, l := range path {
		if bound[l.Input] || l.Input < 0 || l.Input >= len(op.Paths) || len(l.Cols) == 0 {
			return fmt.Errorf("bad lookup %s", l)
		}
		for k, c := range l.Cols {
			f := l.From[k]
			if c < 0 || f < 0 || c >= width || f >= width || owner(c) != l.Input || !bound[owner(f)] ||
				!slices.Contains(op.On, DeltaPair{f, c}) && !slices.Contains(op.On, DeltaPair{c, f}) {
				return fmt.Errorf("bad lookup key #%d=#%d of %s", f, c, l)
			}
		}
		bound[l.Input] = true
	}
	return nil
}
