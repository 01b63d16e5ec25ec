package exec

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// deltaJoin is a multiway inner equi-join (dataflow.DeltaJoin) that keeps
// no intermediate result: a change of input i runs input i's path, a
// sequence of lookups into the other inputs' arrangements, each by a key
// of the columns bound so far, and emits every complete row that passes
// the On checks and the residual (Materialize's delta join). For changes
// of several inputs in one Step, path i must see the inputs before i as
// they are after the Step and those after i as they were before it
// (d(A⋈B⋈C) = dA⋈B⋈C + A'⋈dB⋈C + A'⋈B'⋈dC), so that each output change is
// produced once:
//
//   - private arrangements (the operator's own, one per (input, key))
//     change in input order: path i runs, then input i's changes enter
//     its arrangements, so path i sees inputs j < i new and j > i old;
//   - a shared arrangement (an index the caller keeps) is always as of
//     the Step, already holding the input's changes dJ: a path reading
//     input j > i from it subtracts dJ's rows of the key (old = new - dJ);
//   - a borrowed arrangement (DeltaLookup.Borrow: an earlier delta join's
//     private arrangement of the same input node by the same key) is read
//     the same way: the lender has stepped, so it holds dJ too.
//
// State: for each private arrangement, the input's live rows by its key,
// kept as a joinOp keeps one side (joinSide: each distinct row once, in
// its value encoding); nothing for shared lookups and nothing per
// intermediate row. Size: O(live rows of each privately arranged input,
// once per key it is looked up by). Logged state: {arrangement number + 1}
// {0x01} row-key -> row(count, 0, columns...).
type deltaJoin struct {
	spec   dataflow.DeltaJoin
	off    []int // first output column of each input
	widths []int
	width  int
	paths  [][]deltaStage
	// start holds, per path, the checks that need only the changed input.
	start []deltaChecks
	arrs  []deltaArr
	// readers read the inputs looked up in shared arrangements (nil for
	// the others).
	readers []*sharedReader
	// olds indexes, per input and key of a shared lookup, the input's
	// changes of this Step by key (built on first use, see oldRows).
	olds map[deltaKey]map[string][]int
	// memos hold, for this Step, the rows each shared lookup found by
	// key (a span of memoRows), one per distinct sharedLookup of the
	// paths (deltaStage.memo), since a Step's changes probe the same
	// keys again and again (the lineitems of one order its order, every
	// change its nation); the arrangements do not change during a Step.
	memos      []map[string][2]int
	memoRows   []repr.Update
	ins        [][]repr.Update
	kbuf, cbuf []byte
	cur        repr.Row
	bufs       [][]repr.Update // per path depth: the rows a lookup found
}

// deltaArr is one private arrangement: input's rows by key cols (input
// columns), kept in side 0 of a joinOp.
type deltaArr struct {
	input int
	cols  []int
	j     *joinOp
}

// deltaKey names an arrangement by input and key columns (input columns,
// printed).
type deltaKey struct {
	input int
	cols  string
}

// sharedLookup names a lookup of a shared arrangement: the arrangement
// and the input and key columns it is read by.
type sharedLookup struct {
	index uint64
	key   deltaKey
}

// deltaStage is one lookup of a path.
type deltaStage struct {
	input  int
	from   []int // output columns bound before the lookup
	cols   []int // the input's key columns
	arr    int   // private arrangement, or -1
	shared uint64
	// borrow is the node of the lender (DeltaLookup.Borrow, 0: none);
	// lender and lent are set by linkBorrows to its operator and the
	// number of its arrangement this lookup reads.
	borrow int
	lender *deltaJoin
	lent   int
	// groups is set instead of lender when the lender is a Reduce.
	groups *groupLender
	memo   int      // the shared lookup's memo (o.memos)
	key    deltaKey // the input and key columns
	deltaChecks
}

// deltaChecks are the On pairs not used as lookup keys and the residual
// predicates that become decidable at one point of a path.
type deltaChecks struct {
	pairs    []dataflow.DeltaPair
	residual []expr.Expr
}

// newDeltaJoin builds the delta join of node i of p.
func newDeltaJoin(p *dataflow.Plan, i int, in [][]repr.T) (operator, error) {
	n := &p.Nodes[i]
	spec := n.Op.(dataflow.DeltaJoin)
	if err := spec.Check(in); err != nil {
		return nil, err
	}
	o := &deltaJoin{spec: spec, olds: map[deltaKey]map[string][]int{}, readers: make([]*sharedReader, len(in))}
	for _, ts := range in {
		o.widths = append(o.widths, len(ts))
	}
	o.off, o.width = dataflow.Offsets(o.widths)
	o.cur = make(repr.Row, o.width)
	o.bufs = make([][]repr.Update, len(in))
	arrs := map[deltaKey]int{}
	memos := map[sharedLookup]int{}
	for pi, path := range spec.Paths {
		stages, start, err := o.planPath(pi, path, arrs, in)
		if err != nil {
			return nil, err
		}
		o.paths, o.start = append(o.paths, stages), append(o.start, start)
		for k := range stages {
			st := &stages[k]
			if st.shared == 0 {
				continue
			}
			m, ok := memos[sharedLookup{st.shared, st.key}]
			if !ok {
				m = len(memos)
				memos[sharedLookup{st.shared, st.key}] = m
			}
			st.memo = m
			if o.readers[st.input] == nil {
				if o.readers[st.input], err = newSharedReader(p, n.Inputs[st.input], st.cols); err != nil {
					return nil, err
				}
			}
		}
	}
	o.memos = make([]map[string][2]int, len(memos))
	return o, nil
}

// planPath resolves path pi's lookups to arrangements (adding private
// ones to arrs and o.arrs) and places each On check and residual
// predicate at the first point of the path where its columns are bound.
func (o *deltaJoin) planPath(pi int, path []dataflow.DeltaLookup, arrs map[deltaKey]int, in [][]repr.T) ([]deltaStage, deltaChecks, error) {
	bound := make([]bool, len(in))
	bound[pi] = true
	used := map[dataflow.DeltaPair]bool{}
	start := o.checksFor(bound, used)
	var stages []deltaStage
	for _, l := range path {
		if l.Shared != 0 && l.Borrow != 0 {
			return nil, deltaChecks{}, fmt.Errorf("lookup %s both shared and borrowed", l)
		}
		st := deltaStage{input: l.Input, from: l.From, arr: -1, shared: l.Shared, borrow: l.Borrow}
		for k, c := range l.Cols {
			st.cols = append(st.cols, c-o.off[l.Input])
			used[dataflow.DeltaPair{L: l.From[k], R: c}], used[dataflow.DeltaPair{L: c, R: l.From[k]}] = true, true
		}
		st.key = deltaKey{l.Input, fmt.Sprint(st.cols)}
		if l.Shared == 0 && l.Borrow == 0 {
			key := st.key
			a, ok := arrs[key]
			if !ok {
				if len(o.arrs) >= 255 {
					return nil, deltaChecks{}, fmt.Errorf("delta join has more than 255 private arrangements")
				}
				j, err := newJoin(dataflow.Join{LeftKey: st.cols, RightKey: st.cols}, in[l.Input], in[l.Input])
				if err != nil {
					return nil, deltaChecks{}, err
				}
				a = len(o.arrs)
				arrs[key] = a
				o.arrs = append(o.arrs, deltaArr{input: l.Input, cols: st.cols, j: j})
			}
			st.arr = a
		}
		bound[l.Input] = true
		st.deltaChecks = o.checksFor(bound, used)
		stages = append(stages, st)
	}
	return stages, start, nil
}

// checksFor returns the On pairs and residual predicates that are
// decidable over the bound inputs and not yet placed (marking them in
// used; residual predicates by their position, as pairs {-1-i, -1-i}).
func (o *deltaJoin) checksFor(bound []bool, used map[dataflow.DeltaPair]bool) deltaChecks {
	var c deltaChecks
	isBound := func(col int) bool { return bound[o.inputOf(col)] }
	for _, p := range o.spec.On {
		if !used[p] && isBound(p.L) && isBound(p.R) {
			used[p] = true
			c.pairs = append(c.pairs, p)
		}
	}
	for i, e := range o.spec.Residual {
		mark := dataflow.DeltaPair{L: -1 - i, R: -1 - i}
		if used[mark] {
			continue
		}
		ok := true
		for _, col := range expr.Columns(e) {
			ok = ok && isBound(col)
		}
		if ok {
			used[mark] = true
			c.residual = append(c.residual, e)
		}
	}
	return c
}

// inputOf returns the input whose columns include output column c.
func (o *deltaJoin) inputOf(c int) int {
	for i := len(o.off) - 1; i > 0; i-- {
		if c >= o.off[i] {
			return i
		}
	}
	return 0
}

// sharedInputMFP returns the MFP that maps the rows of shared input node
// in's source collection to the input's rows (nil: in is the Source);
// the key columns must be source columns.
func sharedInputMFP(p *dataflow.Plan, in int, keys []int) (*mfpOp, error) {
	src := &p.Nodes[in]
	m, ok := src.Op.(dataflow.MFP)
	if !ok {
		if _, ok := src.Op.(dataflow.Source); !ok {
			return nil, fmt.Errorf("shared input %%%d is not a Source", in)
		}
		return nil, nil
	}
	base := p.Nodes[src.Inputs[0]]
	if _, ok := base.Op.(dataflow.Source); !ok {
		return nil, fmt.Errorf("shared input %%%d is not an MFP over a Source", in)
	}
	for _, k := range keys {
		if m.Project[k] >= len(base.Types) {
			return nil, fmt.Errorf("shared input's join key #%d is computed, not a source column", k)
		}
	}
	return newMFP(m, base.Types)
}

func (o *deltaJoin) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	o.ins = ins
	clear(o.olds)
	o.forget()
	var out []repr.Update
	var err error
	for i := range ins {
		for _, u := range ins[i] {
			if out, err = o.runPath(s, i, u, out); err != nil {
				return nil, err
			}
		}
		if err := o.arrange(s, i, ins[i]); err != nil {
			return nil, err
		}
	}
	o.ins = nil
	o.forget()
	return out, o.log(s)
}

// forget drops the Step's memo of shared lookups (also at the start of a
// Step, after one that failed).
// A large Step's buffer is let go rather than kept between Steps; the
// memos' maps are emptied and kept unless large (deltaMemoKeep keys), so
// that a Step does not grow each from empty again (rehashing was two
// thirds of their insertion cost in TPC-H refresh batches).
func (o *deltaJoin) forget() {
	clear(o.memoRows)
	for i, m := range o.memos {
		if len(m) > deltaMemoKeep {
			o.memos[i] = nil
		} else {
			clear(m)
		}
	}
	o.memoRows = o.memoRows[:0]
	if cap(o.memoRows) > 1024 {
		o.memoRows = nil
	}
}

// deltaMemoKeep is the most keys a shared lookup's memo may hold to be
// kept (emptied) for the next Step.
const deltaMemoKeep = 4096

// arrange adds input i's changes to its private arrangements.
func (o *deltaJoin) arrange(s *stepCtx, i int, ups []repr.Update) error {
	for a := range o.arrs {
		if o.arrs[a].input != i {
			continue
		}
		for _, u := range ups {
			r, _, err := o.arrs[a].j.lookup(s, 0, u.Row)
			if err != nil {
				return err
			}
			r.n += u.Diff
		}
	}
	return nil
}

// runPath joins change u of input i along i's path.
func (o *deltaJoin) runPath(s *stepCtx, i int, u repr.Update, out []repr.Update) ([]repr.Update, error) {
	copy(o.cur[o.off[i]:], u.Row)
	ok, err := o.holds(s, o.start[i])
	if err != nil || !ok {
		return out, err
	}
	return o.extend(s, i, 0, u.Diff, out)
}

// extend performs lookup k of path pi for the bound row o.cur (of
// multiplicity d) and recurses on each match; past the last lookup it
// emits o.cur.
func (o *deltaJoin) extend(s *stepCtx, pi, k int, d int64, out []repr.Update) ([]repr.Update, error) {
	if k == len(o.paths[pi]) {
		if err := s.poll(); err != nil {
			return nil, err
		}
		return append(out, repr.Update{Row: s.slab.concat(o.cur, nil), Time: s.t, Diff: d}), nil
	}
	st := &o.paths[pi][k]
	for _, c := range st.from {
		if o.cur[c].IsNull() {
			return out, nil
		}
	}
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], o.cur, st.from)
	matches, err := o.matches(s, pi, st, o.bufs[k][:0])
	if err != nil {
		return nil, err
	}
	for _, m := range matches {
		copy(o.cur[o.off[st.input]:], m.Row)
		ok, err := o.holds(s, st.deltaChecks)
		if err != nil {
			return nil, err
		}
		if !ok || m.Diff == 0 {
			continue
		}
		if out, err = o.extend(s, pi, k+1, d*m.Diff, out); err != nil {
			return nil, err
		}
	}
	clear(matches)
	o.bufs[k] = matches[:0]
	return out, nil
}

// matches appends to buf the rows of stage st's input whose key is
// o.kbuf, with their multiplicities, as path pi must see them.
func (o *deltaJoin) matches(s *stepCtx, pi int, st *deltaStage, buf []repr.Update) ([]repr.Update, error) {
	if st.arr >= 0 {
		return o.arrangedRows(s, &o.arrs[st.arr], st.input, buf)
	}
	if st.lender != nil {
		buf, err := o.arrangedRows(s, &st.lender.arrs[st.lent], st.input, buf)
		if err != nil {
			return nil, err
		}
		return o.withOld(pi, st, buf), nil
	}
	if st.groups != nil {
		buf, err := st.groups.rows(s, o.kbuf, buf)
		if err != nil {
			return nil, err
		}
		return o.withOld(pi, st, buf), nil
	}
	return o.sharedMatches(s, pi, st, buf)
}

// arrangedRows appends the live rows of arrangement a whose key is
// o.kbuf, decoded as rows of input in.
func (o *deltaJoin) arrangedRows(s *stepCtx, a *deltaArr, in int, buf []repr.Update) ([]repr.Update, error) {
	side := &a.j.sides[0]
	b := side.buckets[string(o.kbuf)]
	if b == nil {
		return buf, nil
	}
	for _, id := range b.rows {
		q := side.at(id)
		if q.n == 0 {
			continue
		}
		row := s.slab.row(o.widths[in])
		if err := repr.DecodeDatums(row, q.enc, &s.slab.decs); err != nil {
			return nil, fmt.Errorf("delta join state: %w", err)
		}
		buf = append(buf, repr.Update{Row: row, Diff: q.n})
	}
	return buf, nil
}

// withOld turns buf, the rows of key o.kbuf of an arrangement that holds
// this Step's changes of st's input, into the rows path pi must see: when
// the input comes after pi in input order (it must be seen as it was),
// the Step's changes of the key are appended negated (old = new - dJ).
func (o *deltaJoin) withOld(pi int, st *deltaStage, buf []repr.Update) []repr.Update {
	if st.input < pi || len(o.ins[st.input]) == 0 {
		return buf
	}
	for _, idx := range o.oldRows(st)[string(o.kbuf)] {
		u := o.ins[st.input][idx]
		buf = append(buf, repr.Update{Row: u.Row, Diff: -u.Diff})
	}
	return buf
}

// sharedMatches appends the shared arrangement's rows of key o.kbuf
// (mapped by the input's MFP) and, when path pi must see the input as it
// was (it comes later in input order), the Step's changes of that key
// negated.
func (o *deltaJoin) sharedMatches(s *stepCtx, pi int, st *deltaStage, buf []repr.Update) ([]repr.Update, error) {
	span, err := o.sharedRows(s, st)
	if err != nil {
		return nil, err
	}
	buf = append(buf, o.memoRows[span[0]:span[1]]...)
	return o.withOld(pi, st, buf), nil
}

// sharedRows returns the span of o.memoRows holding the rows of stage
// st's shared arrangement whose key is o.kbuf, looking them up on the
// first probe of the key in this Step.
func (o *deltaJoin) sharedRows(s *stepCtx, st *deltaStage) ([2]int, error) {
	m := o.memos[st.memo]
	if m == nil {
		m = map[string][2]int{}
		o.memos[st.memo] = m
	}
	if span, ok := m[string(o.kbuf)]; ok {
		return span, nil
	}
	start := len(o.memoRows)
	rows, err := o.readers[st.input].lookup(s, st.shared, o.kbuf, st.cols, o.memoRows)
	if err != nil {
		return [2]int{}, err
	}
	o.memoRows = rows
	span := [2]int{start, len(rows)}
	m[string(o.kbuf)] = span
	return span, nil
}

// oldRows returns the index by key (stage st's columns) of the Step's
// changes of st's input, built on first use.
func (o *deltaJoin) oldRows(st *deltaStage) map[string][]int {
	k := st.key
	if m, ok := o.olds[k]; ok {
		return m
	}
	m := map[string][]int{}
	for idx, u := range o.ins[st.input] {
		if hasNullCol(u.Row, st.cols) {
			continue
		}
		o.cbuf = repr.AppendColsKey(o.cbuf[:0], u.Row, st.cols)
		m[string(o.cbuf)] = append(m[string(o.cbuf)], idx)
	}
	o.olds[k] = m
	return m
}

// holds reports whether the checks pass for o.cur: each pair's columns
// equal as keys (NULL never equal) and each residual predicate true.
func (o *deltaJoin) holds(s *stepCtx, c deltaChecks) (bool, error) {
	for _, p := range c.pairs {
		l, r := o.cur[p.L], o.cur[p.R]
		if l.IsNull() || r.IsNull() {
			return false, nil
		}
		o.kbuf = repr.AppendColsKey(o.kbuf[:0], o.cur, []int{p.L})
		o.cbuf = repr.AppendColsKey(o.cbuf[:0], o.cur, []int{p.R})
		if !bytes.Equal(o.kbuf, o.cbuf) {
			return false, nil
		}
	}
	return residualHolds(s, c.residual, o.cur)
}

// log logs each private arrangement's touched rows under its number.
func (o *deltaJoin) log(s *stepCtx) error {
	prefix := s.prefix
	defer func() { s.prefix = prefix }()
	for a := range o.arrs {
		s.prefix = append(append([]byte(nil), prefix...), byte(a+1))
		if err := o.arrs[a].j.log(s); err != nil {
			return err
		}
	}
	return nil
}

func (o *deltaJoin) commit() {
	for a := range o.arrs {
		o.arrs[a].j.commit()
	}
}

func (o *deltaJoin) rollback() {
	for a := range o.arrs {
		o.arrs[a].j.rollback()
	}
}

// restore loads one logged row of a private arrangement.
func (o *deltaJoin) restore(key, value []byte) error {
	if len(key) < 2 || int(key[0]) < 1 || int(key[0]) > len(o.arrs) {
		return errCorrupt
	}
	return o.arrs[key[0]-1].j.restore(key[1:], value)
}

func (o *deltaJoin) restored() error { return nil }

// linkBorrows resolves the borrowed lookups of every delta join of d
// (DeltaLookup.Borrow) to their lender's operator and arrangement. The
// lender must be an earlier DeltaJoin node that reads the same input node
// and arranges it privately by the same key, and neither may be inside a
// loop (whose nodes step several times per Step). Delta joins are never
// sharded, so d.ops holds them as they are.
func (d *Dataflow) linkBorrows() error {
	for i, op := range d.ops {
		o, ok := op.(*deltaJoin)
		if !ok {
			continue
		}
		for pi := range o.paths {
			for k := range o.paths[pi] {
				if err := d.linkBorrow(i, &o.paths[pi][k]); err != nil {
					return fmt.Errorf("dataflow: node %%%d: %w", i, err)
				}
			}
		}
	}
	return nil
}

// linkBorrow resolves stage st of the delta join of node i (see
// linkBorrows).
func (d *Dataflow) linkBorrow(i int, st *deltaStage) error {
	b := st.borrow
	if b == 0 {
		return nil
	}
	if b >= i || d.inLoop(i) || d.inLoop(b) {
		return fmt.Errorf("borrowed arrangement of node %%%d: not an earlier node outside loops", b)
	}
	in := d.plan.Nodes[i].Inputs[st.input]
	if r, ok := d.ops[b].(*reduceOp); ok {
		g, err := d.newGroupLender(b, r, in, st.cols)
		st.groups = g
		return err
	}
	lender, ok := d.ops[b].(*deltaJoin)
	if !ok {
		return fmt.Errorf("borrowed arrangement of node %%%d: not a delta join or grouped Reduce", b)
	}
	for a, arr := range lender.arrs {
		if d.plan.Nodes[b].Inputs[arr.input] == in && slices.Equal(arr.cols, st.cols) {
			st.lender, st.lent = lender, a
			return nil
		}
	}
	return fmt.Errorf("node %%%d keeps no arrangement of %%%d by %v", b, in, st.cols)
}

// inLoop reports whether node i is inside an iteration's loop: from its
// Variable to its Fixpoint (the nodes runLoop steps).
func (d *Dataflow) inLoop(i int) bool {
	for v, op := range d.ops[:i+1] {
		if lv, ok := op.(*loopVar); ok && i <= lv.loop.Fixpoint && v <= i {
			return true
		}
	}
	return false
}

// groupLender serves a delta join's lookups of an input from the groups of
// the grouped Reduce it is read from (DeltaLookup.Borrow naming a
// Reduce): the group of the lookup's key, its row computed as the Reduce
// emits it, mapped by the MFP between the Reduce and the input (if any).
// The Reduce has stepped, so its groups are as of the Step.
type groupLender struct {
	// ops are the dataflow's operators (the Reduce's node may be made
	// sharded after linking) and node the Reduce's.
	ops  []operator
	node int
	mfp  *mfpOp
}

// newGroupLender checks that input node in is the grouped Reduce r (node
// b) or an MFP over it that keeps its key columns, and that the lookup's
// key cols (input columns) are the whole group key in order.
func (d *Dataflow) newGroupLender(b int, r *reduceOp, in int, cols []int) (*groupLender, error) {
	if r.global || len(cols) != len(r.spec.Key) {
		return nil, fmt.Errorf("borrowed groups of node %%%d: not looked up by the whole group key", b)
	}
	g := &groupLender{ops: d.ops, node: b}
	src := cols
	if in != b {
		n := d.plan.Nodes[in]
		m, ok := n.Op.(dataflow.MFP)
		if !ok || n.Inputs[0] != b {
			return nil, fmt.Errorf("borrowed groups of node %%%d: %%%d is not the Reduce or an MFP over it", b, in)
		}
		src = make([]int, len(cols))
		for k, c := range cols {
			src[k] = m.Project[c]
		}
		var err error
		if g.mfp, err = newMFP(m, d.plan.Nodes[b].Types); err != nil {
			return nil, err
		}
	}
	for k, c := range src {
		if c != k {
			return nil, fmt.Errorf("borrowed groups of node %%%d: key column %d is not group key column %d", b, c, k)
		}
	}
	return g, nil
}

// rows appends the input's row of the group whose key encoding is key (at
// most one, of multiplicity 1), loading a spilled group first.
func (g *groupLender) rows(s *stepCtx, key []byte, buf []repr.Update) ([]repr.Update, error) {
	r, err := g.reduce(key)
	if err != nil {
		return nil, err
	}
	if err := r.ensureGroup(key); err != nil {
		return nil, err
	}
	grp := r.groups[string(key)]
	if grp == nil {
		return buf, nil
	}
	row, err := r.output(s.slab, grp)
	if err != nil || row == nil {
		return buf, err
	}
	if g.mfp != nil {
		var ok bool
		if row, ok, err = g.mfp.apply(s, row); err != nil || !ok {
			return buf, err
		}
	}
	return append(buf, repr.Update{Row: row, Diff: 1}), nil
}

// reduce returns the Reduce (or, when it runs as shards, the shard)
// holding the group of key.
func (g *groupLender) reduce(key []byte) (*reduceOp, error) {
	op := g.ops[g.node]
	if sh, ok := op.(*shardedOp); ok {
		op = sh.shards[shardOf(key, len(sh.shards))].op
	}
	r, ok := op.(*reduceOp)
	if !ok {
		return nil, fmt.Errorf("borrowed groups of node %%%d: its operator is a %T", g.node, op)
	}
	return r, nil
}
