package sql

import (
	"bytes"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// A point read narrows a query's input snapshot: when a collection feeds
// the query only through one MFP whose filter fixes some columns by
// equality with constants or parameters (`a = 5`, `a IN (1, 2)`) or
// bounds one (`a BETWEEN 3 AND 9`, `a > $1`), only the rows in the
// matching key ranges of one ordered access path can pass the filter, so
// the query reads them instead of copying the whole collection. The
// access paths of a collection are its own key order (a table's primary
// key, a multiset's whole row: a view's first columns lead) and its
// indexes (CREATE INDEX, index.go); the path whose leading columns the
// filter fixes most (then: also bounds the next one; then: the
// collection's own order, which needs no second lookup) is chosen when
// the query runs, so a new index serves prepared statements too. The MFP
// still applies its whole filter to every row read, so the answer is the
// same as with the full snapshot: the ranges may hold rows the filter
// rejects, never miss one it accepts, because for the types allowed "="
// holds exactly when the key encodings are equal and the encodings' byte
// order is the types' order (repr.AppendKey).

// disablePointReads is a test knob: with it set every query reads full
// snapshots, the reference the fast path is compared with.
var disablePointReads bool

// pointReadCount counts the point reads made (tests check that the fast
// path ran).
var pointReadCount atomic.Int64

// maxPrefixes bounds the key prefixes one read probes (the product of
// the IN lists of the fixed columns) on a small collection; columns past
// it are left unfixed. A larger collection allows one probe per
// rowsPerProbe rows: a probe (one seek) costs less than decoding that
// many rows of a scan.
const (
	maxPrefixes  = 1024
	rowsPerProbe = 8
)

// preds are the conjuncts of a filter that an access path can use, by
// the term (termOf) of the column or expression they constrain: the
// values it must equal (several for IN or an OR of equalities) and
// inclusive bounds (a strict bound is widened: the filter rechecks it);
// conj are all the filter's conjuncts, which a partial index's predicate
// must be among.
type preds struct {
	eq     map[string][]expr.Expr
	lo, hi map[string]expr.Expr
	conj   map[string]bool
}

func (p preds) empty() bool {
	return len(p.eq) == 0 && len(p.lo) == 0 && len(p.hi) == 0 && len(p.conj) == 0
}

// pointInput is a collection read through an MFP whose filter has preds.
type pointInput struct {
	coll repr.CollectionID
	// node is the Source node of the plan (for EXPLAIN); ncols the
	// collection's number of columns.
	node, ncols int
	p           preds
}

// pointInputs returns the collections of plan that may be read by key
// range: each is read by exactly one Source node, whose only consumer is
// an MFP with usable predicates. Which access path serves them depends on
// the collection (see choosePath).
func pointInputs(plan *dataflow.Plan) []pointInput {
	sources := map[repr.CollectionID]int{}
	consumers := make([][]int, len(plan.Nodes))
	for i, n := range plan.Nodes {
		if s, ok := n.Op.(dataflow.Source); ok {
			sources[s.Collection]++
		}
		for _, in := range n.Inputs {
			consumers[in] = append(consumers[in], i)
		}
	}
	var out []pointInput
	for i, n := range plan.Nodes {
		s, ok := n.Op.(dataflow.Source)
		if !ok || sources[s.Collection] != 1 || len(consumers[i]) != 1 || i == plan.Output {
			continue
		}
		m, ok := plan.Nodes[consumers[i][0]].Op.(dataflow.MFP)
		if !ok {
			continue
		}
		if p := predicates(m.Filter, n.Types); len(m.Filter) > 0 && !p.empty() {
			out = append(out, pointInput{coll: s.Collection, node: i, ncols: len(n.Types), p: p})
		}
	}
	return out
}

// predicates collects the usable conjuncts of filter over input columns
// of types in (folded as index expressions are, so equal computations
// have equal terms).
func predicates(filter []expr.Expr, in []repr.T) preds {
	p := preds{eq: map[string][]expr.Expr{}, lo: map[string]expr.Expr{}, hi: map[string]expr.Expr{}, conj: map[string]bool{}}
	var visit func(e expr.Expr)
	visit = func(e expr.Expr) {
		switch x := e.(type) {
		case *expr.And:
			for _, a := range x.Args {
				visit(a)
			}
			return
		case *expr.Or:
			if term, vals, ok := inList(x, in); ok && p.eq[term] == nil {
				p.eq[term] = vals
			}
			return
		case *expr.IsNull: // x IS NULL: the rows whose key has NULL there
			if keyTerm(x.Arg, in) && !x.Negate && p.eq[termOf(x.Arg)] == nil {
				p.eq[termOf(x.Arg)] = []expr.Expr{&expr.Lit{D: repr.Null, T: x.Arg.Type()}}
			}
			return
		}
		term, op, val, ok := colCompare(e, in)
		switch {
		case !ok:
		case op == "=":
			p.eq[term] = []expr.Expr{val}
		case op == ">=" || op == ">":
			p.lo[term] = val
		case op == "<=" || op == "<":
			p.hi[term] = val
		}
	}
	for _, f := range filter {
		f = expr.Fold(f)
		conjuncts(f, p.conj)
		visit(f)
	}
	return p
}

// inList matches an OR of x = value over one column or expression x (the
// planner's form of `x IN (...)`).
func inList(or *expr.Or, in []repr.T) (string, []expr.Expr, bool) {
	term := ""
	var vals []expr.Expr
	var visit func(or *expr.Or) bool
	visit = func(or *expr.Or) bool {
		for _, a := range or.Args {
			if inner, ok := a.(*expr.Or); ok { // (a = 1 OR a = 2) OR a = 3
				if !visit(inner) {
					return false
				}
				continue
			}
			t, op, v, ok := colCompare(a, in)
			if !ok || op != "=" || (term != "" && t != term) {
				return false
			}
			term, vals = t, append(vals, v)
		}
		return true
	}
	if !visit(or) {
		return "", nil, false
	}
	return term, vals, term != ""
}

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// colCompare matches x op value (either side; the operator is returned
// as seen from x, which is returned as its term) where x is a key term
// (keyTerm) and value a literal or parameter of the same type.
func colCompare(e expr.Expr, in []repr.T) (string, string, expr.Expr, bool) {
	call, ok := e.(*expr.Call)
	if !ok || flipped[call.Fn.Name] == "" || len(call.Args) != 2 {
		return "", "", nil, false
	}
	for i := range 2 {
		x, val := call.Args[i], call.Args[1-i]
		if !keyTerm(x, in) || !isConstant(val) || val.Type() != x.Type() {
			continue
		}
		op := call.Fn.Name
		if i == 1 {
			op = flipped[op]
		}
		return termOf(x), op, val, true
	}
	return "", "", nil, false
}

// keyTerm reports whether x can key an access path: an input column of
// a key-safe type, or an immutable expression of one over input columns
// (which only an index on that expression can serve).
func keyTerm(x expr.Expr, in []repr.T) bool {
	if !keySafe(x.Type()) || isConstant(x) {
		return false
	}
	if c, ok := x.(*expr.Col); ok {
		return c.Idx < len(in) && in[c.Idx] == c.T
	}
	cols := expr.Columns(x)
	return len(cols) > 0 && cols[len(cols)-1] < len(in) && immutable(x) && colTypesMatch(x, in)
}

// colTypesMatch reports whether every column x reads has its input's
// type.
func colTypesMatch(x expr.Expr, in []repr.T) bool {
	if c, ok := x.(*expr.Col); ok {
		return in[c.Idx] == c.T
	}
	for _, k := range expr.Children(x) {
		if !colTypesMatch(k, in) {
			return false
		}
	}
	return true
}

// isConstant reports whether e is a literal or a bound parameter.
func isConstant(e expr.Expr) bool {
	switch e.(type) {
	case *expr.Lit, *expr.Param:
		return true
	}
	return false
}

// keySafe reports whether a value of type t can key an access path
// (repr.KeyDecidesEquality).
func keySafe(t repr.T) bool { return repr.KeyDecidesEquality(t) }

// accessPath is an ordered way to read a collection: its own key order
// (index 0) or an index, whose key parts have terms (termOf) and display
// names; the filter fixes its first neq parts and, if rng, bounds the
// next one. A partial index is a path only when the filter implies its
// predicate (where: the predicate's text, for EXPLAIN).
type accessPath struct {
	index uint64
	// name is the index's name, or for the collection's own order its
	// primary key's (<table>_pkey) or "" for a multiset.
	name  string
	parts []string
	names []string
	where string
	neq   int
	rng   bool
}

// choosePath returns the best access path of the collection of p that the
// predicates can use (ok false: none; read it whole). The caller holds
// e.mu.
func (e *Engine) choosePath(p pointInput) (accessPath, bool) {
	return e.choosePathIn(p, e.colls[uint64(p.coll)])
}

// choosePathIn is choosePath over c, the collection of p as the reading
// transaction sees it (a snapshot's clone lacks the indexes created
// after it).
func (e *Engine) choosePathIn(p pointInput, c *storage.Collection) (accessPath, bool) {
	obj := e.cat.byID[uint64(p.coll)]
	if c == nil || obj == nil {
		return accessPath{}, false
	}
	cols := c.KeyCols()
	own := accessPath{}
	if cols == nil {
		cols = make([]int, p.ncols)
		for i := range cols {
			cols[i] = i
		}
	} else if obj.PrimaryKey != nil { // a view keyed by its groups has no constraint to name
		own.name = obj.pkeyName()
	}
	key := obj.ownKey
	if key == nil || !samePrefix(key.cols, cols) {
		key = colsKey(obj, cols, false)
	}
	own.parts, own.names = key.terms(), key.names
	limit := max(maxPrefixes, c.Len()/rowsPerProbe)
	best := p.p.fit(own, limit)
	for _, ix := range e.cat.indexesOf(obj.ID) {
		k := ix.ixKey
		if k == nil || !k.impliedBy(p.p.conj) || !slices.Contains(c.Indexes(), ix.ID) {
			continue
		}
		cand := p.p.fit(accessPath{index: ix.ID, name: ix.Name, parts: k.terms(), names: k.names, where: k.whereText}, limit)
		if cand.score() > best.score() {
			best = cand
		}
	}
	return best, best.score() > 0
}

// fit returns path with the number of its leading parts the predicates
// fix (at most limit combinations of their values) and whether they bound
// the next one.
func (p preds) fit(path accessPath, limit int) accessPath {
	n := 1
	for _, part := range path.parts {
		vals := p.eq[part]
		if len(vals) == 0 || n*len(vals) > limit {
			path.rng = p.lo[part] != nil || p.hi[part] != nil
			break
		}
		n *= len(vals)
		path.neq++
	}
	return path
}

// score ranks paths: fixed parts first, then a bounded one, then a
// partial index (it holds fewer rows, and one whose parts the filter
// does not constrain is still worth reading whole).
func (a accessPath) score() int {
	s := 4 * a.neq
	if a.rng {
		s += 2
	}
	if a.where != "" {
		s++
	}
	return s
}

// pointSnapshot returns the rows of p's collection in the key ranges that
// its predicates select on the best access path, as insertions at time t;
// ok is false when no path applies (or a value is not of its column's
// family). The caller holds e.mu shared.
func (e *Engine) pointSnapshot(p pointInput, ctx *expr.Ctx, t repr.Time, ws *writeSet) (out []repr.Update, ok bool, err error) {
	c, err := e.peekColl(uint64(p.coll), ws)
	if c == nil || err != nil {
		return nil, false, err // the caller reads it whole
	}
	path, ok := e.choosePathIn(p, c)
	if !ok {
		return nil, false, nil
	}
	ranges, ok, err := p.p.ranges(path, ctx)
	if !ok || err != nil {
		return nil, false, err
	}
	emit := func(r repr.Row, n int64) bool {
		out = append(out, repr.Update{Row: r, Time: t, Diff: n})
		return true
	}
	for _, r := range ranges {
		if path.index == 0 {
			c.ScanRange(r[0], r[1], emit)
		} else if err := c.ScanIndex(path.index, r[0], r[1], emit); err != nil {
			return nil, false, err
		}
	}
	if ws != nil && ws.snap != nil {
		ws.snap.noteRanges(uint64(p.coll), path.index, ranges, len(out))
	}
	// A multiset read in its own order (no name) has no index: PostgreSQL
	// would scan it.
	e.countScan(ws, uint64(p.coll), path.name, len(out))
	return out, true, nil
}

// ranges evaluates the predicates' values and returns the disjoint key
// ranges [from, to) of path to read, in key order: one per distinct
// combination of the fixed columns' values. ok is false when a value is not of its column's
// family. A NULL value encodes as NULL: the rows found (if any) are all
// rejected by the filter, since comparisons with NULL are never true.
func (p preds) ranges(path accessPath, ctx *expr.Ctx) (out [][2][]byte, ok bool, err error) {
	prefixes := [][]byte{nil}
	for _, part := range path.parts[:path.neq] {
		var next [][]byte
		for _, v := range p.eq[part] {
			d, ok, err := evalKeyValue(v, ctx)
			if !ok || err != nil {
				return nil, false, err
			}
			for _, pre := range prefixes {
				next = append(next, repr.AppendKey(slices.Clip(pre), d))
			}
		}
		prefixes = dedupe(next)
	}
	// Key order: a spilled collection's reads then move its store
	// iterator forward only (storage reuses it across ranges).
	slices.SortFunc(prefixes, bytes.Compare)
	for _, pre := range prefixes {
		from, to := pre, storage.KeyPrefixEnd(pre)
		if path.rng {
			part := path.parts[path.neq]
			if from, ok, err = boundKey(pre, p.lo[part], ctx, false); !ok || err != nil {
				return nil, false, err
			}
			if to, ok, err = boundKey(pre, p.hi[part], ctx, true); !ok || err != nil {
				return nil, false, err
			}
		}
		out = append(out, [2][]byte{from, to})
	}
	return out, true, nil
}

// boundKey returns the range bound for a bound value after prefix: the
// start of its keys (lower) or the end of them (upper); with no value,
// the prefix's own start or end.
func boundKey(prefix []byte, v expr.Expr, ctx *expr.Ctx, upper bool) ([]byte, bool, error) {
	key := slices.Clip(prefix)
	if v != nil {
		d, ok, err := evalKeyValue(v, ctx)
		if !ok || err != nil {
			return nil, false, err
		}
		key = repr.AppendKey(key, d)
	}
	if upper {
		return storage.KeyPrefixEnd(key), true, nil
	}
	return key, true, nil
}

// evalKeyValue evaluates a constant; ok is false if it is not of its
// declared type's family.
func evalKeyValue(v expr.Expr, ctx *expr.Ctx) (repr.Datum, bool, error) {
	d, err := v.Eval(ctx, nil)
	if err != nil {
		return d, false, err
	}
	return d, d.IsNull() || d.Family() == v.Type().Family, nil
}

// dedupe drops repeated prefixes (`a IN (1, 1)` must read its rows once).
func dedupe(keys [][]byte) [][]byte {
	if len(keys) < 2 {
		return keys // a point read's one key: no set to build
	}
	seen := map[string]bool{}
	out := keys[:0]
	for _, k := range keys {
		if !seen[string(k)] {
			seen[string(k)] = true
			out = append(out, k)
		}
	}
	return out
}

// describeAccess prints the access path of p for EXPLAIN, e.g.
// `IndexScan t_a_idx (a = 5)`, `IndexScan u_lower_idx (lower(email) =
// 'x')`, `KeyScan v (g IN (1, 2))` or, for a partial index, `IndexScan
// t_live (id = 2) WHERE deleted IS NULL`; "" when the collection is read
// whole. The caller holds e.mu.
func (e *Engine) describeAccess(p pointInput) string {
	path, ok := e.choosePath(p)
	if !ok {
		return ""
	}
	obj := e.cat.byID[uint64(p.coll)]
	var conds []string
	for i, part := range path.parts[:path.neq] {
		name := path.names[i]
		if vals := p.p.eq[part]; len(vals) == 1 && isNullLit(vals[0]) {
			conds = append(conds, name+" IS NULL")
		} else if len(vals) == 1 {
			conds = append(conds, name+" = "+vals[0].String())
		} else {
			conds = append(conds, name+" IN ("+joinStrings(vals)+")")
		}
	}
	if path.rng {
		part, name := path.parts[path.neq], path.names[path.neq]
		if v := p.p.lo[part]; v != nil {
			conds = append(conds, name+" >= "+v.String())
		}
		if v := p.p.hi[part]; v != nil {
			conds = append(conds, name+" <= "+v.String())
		}
	}
	what := "IndexScan " + path.name
	if path.name == "" {
		what = "KeyScan " + obj.Name
	}
	if len(conds) > 0 {
		what += " (" + strings.Join(conds, " AND ") + ")"
	}
	if path.where != "" {
		what += " WHERE " + path.where
	}
	return what
}

// isNullLit reports whether e is a NULL literal (from col IS NULL).
func isNullLit(e expr.Expr) bool {
	l, ok := e.(*expr.Lit)
	return ok && l.D.IsNull()
}

func joinStrings(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, x := range es {
		parts[i] = x.String()
	}
	return strings.Join(parts, ", ")
}
