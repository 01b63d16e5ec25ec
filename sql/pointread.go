package sql

import (
	"sync/atomic"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/sql/types"
	"github.com/eddydb/eddy/storage"
)

// A point read narrows a query's input snapshot: when a collection feeds
// the query only through one MFP whose filter fixes the collection's
// leading key columns by equality with constants or parameters, only the
// rows under that key prefix can pass the filter, so the query reads them
// with Collection.ScanPrefix instead of copying the whole collection. The
// MFP still applies its whole filter to every row read, so the answer is
// the same as with the full snapshot (a false positive of the prefix is
// filtered out; there are no false negatives because, for the types
// allowed, "=" holds exactly when the key encodings are equal).
//
// Materialized views are keyed by the whole row (leading key columns =
// the first output columns); tables by their primary key. This is the
// index lookup of a PostgreSQL plan, for the keys Eddy already keeps.

// disablePointReads is a test knob: with it set every query reads full
// snapshots, the reference the fast path is compared with.
var disablePointReads bool

// pointReadCount counts the point reads made (tests check that the fast
// path ran).
var pointReadCount atomic.Int64

// pointInput is a collection read through a key-fixing MFP.
type pointInput struct {
	coll dataflow.CollectionID
	// eq maps a column of the collection to the expression (a literal or a
	// parameter) the filter requires it to equal.
	eq map[int]scalar.Expr
}

// pointInputs returns the collections of plan that can be read by key
// prefix: each is read by exactly one Source node, whose only consumer is
// an MFP with at least one column = constant conjunct. Whether the
// conjuncts cover a key prefix depends on the collection (see
// pointSnapshot).
func pointInputs(plan *dataflow.Plan) []pointInput {
	sources := map[dataflow.CollectionID]int{}
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
		if eq := equalities(m.Filter, n.Types); len(eq) > 0 {
			out = append(out, pointInput{coll: s.Collection, eq: eq})
		}
	}
	return out
}

// equalities returns, for the conjuncts of filter of the form
// #col = value (either side) over an input column of a key-safe type,
// the value each column must equal.
func equalities(filter []scalar.Expr, in []types.T) map[int]scalar.Expr {
	var eq map[int]scalar.Expr
	var visit func(e scalar.Expr)
	visit = func(e scalar.Expr) {
		if and, ok := e.(*scalar.And); ok {
			for _, a := range and.Args {
				visit(a)
			}
			return
		}
		col, val, ok := colEquals(e, in)
		if !ok {
			return
		}
		if eq == nil {
			eq = map[int]scalar.Expr{}
		}
		eq[col] = val
	}
	for _, f := range filter {
		visit(f)
	}
	return eq
}

// colEquals matches #col = value where #col is an input column of a
// key-safe type and value is a literal or parameter of the same type.
func colEquals(e scalar.Expr, in []types.T) (int, scalar.Expr, bool) {
	call, ok := e.(*scalar.Call)
	if !ok || call.Fn.Name != "=" || len(call.Args) != 2 {
		return 0, nil, false
	}
	for i := range 2 {
		col, ok := call.Args[i].(*scalar.Col)
		val := call.Args[1-i]
		if !ok || col.Idx >= len(in) || !isConstant(val) || !keySafe(in[col.Idx]) {
			continue
		}
		if in[col.Idx] != col.T || val.Type() != col.T {
			continue
		}
		return col.Idx, val, true
	}
	return 0, nil, false
}

// isConstant reports whether e is a literal or a bound parameter.
func isConstant(e scalar.Expr) bool {
	switch e.(type) {
	case *scalar.Lit, *scalar.Param:
		return true
	}
	return false
}

// keySafe reports whether, for two values of type t, "=" is true exactly
// when their key encodings are equal (char(n) is excluded: it ignores
// trailing blanks; floats and intervals are left out to stay clear of
// their equality corner cases).
func keySafe(t types.T) bool {
	switch t.Family {
	case types.FamBool, types.FamInt, types.FamDate, types.FamTimestamp, types.FamTimestampTZ, types.FamNumeric:
		return true
	case types.FamText:
		return t.Kind != types.KindChar
	}
	return false
}

// pointSnapshot returns the rows of the collection under the key prefix
// that p's equalities fix, as insertions at time t; ok is false when they
// fix no leading key column (or a value is not of the column's family).
// The caller holds e.mu shared.
func (e *Engine) pointSnapshot(p pointInput, ctx *scalar.Ctx, t exec.Time) (out []exec.Update, ok bool, err error) {
	c := e.colls[uint64(p.coll)]
	if c == nil {
		return nil, false, nil
	}
	prefix, ok, err := keyPrefix(c, p.eq, ctx)
	if !ok || err != nil {
		return nil, false, err
	}
	c.ScanPrefix(prefix, func(r types.Row, n int64) bool {
		out = append(out, exec.Update{Row: r, Time: t, Diff: n})
		return true
	})
	return out, true, nil
}

// keyPrefix encodes the values of the longest run of leading key columns
// of c that eq fixes; ok is false when it fixes none or a value is not of
// its column's family. A NULL value encodes as NULL: the rows found (if
// any) are then all rejected by the filter, since "=" is never true with
// NULL.
func keyPrefix(c *storage.Collection, eq map[int]scalar.Expr, ctx *scalar.Ctx) ([]byte, bool, error) {
	prefix := make([]byte, 0, 64)
	for k := 0; ; k++ {
		col, more := keyColumn(c, k)
		if !more {
			break
		}
		v, fixed := eq[col]
		if !fixed {
			break
		}
		d, err := v.Eval(ctx, nil)
		if err != nil {
			return nil, false, err
		}
		if !d.IsNull() && d.Family() != v.Type().Family {
			return nil, false, nil
		}
		prefix = types.AppendKey(prefix, d)
	}
	if len(prefix) == 0 {
		return nil, false, nil
	}
	return prefix, true, nil
}

// keyColumn returns the k-th key column of c: its primary key's, or for a
// multiset (keyed by the whole row) column k itself. more is false past
// the primary key (a multiset's caller stops at the first unfixed column,
// which comes at the latest after the last column).
func keyColumn(c *storage.Collection, k int) (col int, more bool) {
	if kc := c.KeyCols(); kc != nil {
		if k >= len(kc) {
			return 0, false
		}
		return kc[k], true
	}
	return k, true
}
