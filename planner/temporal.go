package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Temporal filters. A materialized view may compare a row expression with
// the current time in its WHERE clause, as Materialize allows with
// mz_now():
//
//	WHERE ts > now() - INTERVAL '1 hour'          (also >=, <, <=)
//	WHERE now() BETWEEN ts AND ts + INTERVAL '1 day'
//
// with now() (or current_timestamp) on either side, optionally plus or
// minus constant intervals. The engine maintains such a view as time
// passes: a row is in it exactly while the condition holds for the
// wall-clock time of the maintenance step (see exec/temporal.go). Each
// such conjunct becomes a bound on now: `x > now() + c` is now < x - c,
// `x >= now() + c` is now < x - c + 1µs (times are integral microseconds),
// `x < now() + c` is now >= x - c + 1µs and `x <= now() + c` is now >= x
// - c, giving ir.TemporalFilter{Lower, Upper} with lower <= now < upper.
// Moving c across the comparison is exact only for intervals without
// months (a month has no fixed length: ts > now() - 1 month is not ts +
// 1 month > now() at month ends), so those are rejected; days count as 24
// hours, since views are maintained in UTC. Any other use of now() in a
// view (another comparison, an OR, the select list, a join condition) is
// 0A000.

// nowFuncs are the functions that read the statement time.
var nowFuncs = map[string]bool{"now": true, "current_timestamp": true,
	"transaction_timestamp": true, "statement_timestamp": true}

// isNow reports whether e is a call of a now() function.
func isNow(e expr.Expr) bool {
	c, ok := e.(*expr.Call)
	return ok && nowFuncs[c.Fn.Name] && len(c.Args) == 0
}

// noteNow records a call of now() planned for a materialized view; it must
// be consumed by a temporal filter (checkNowConsumed).
func (b *builder) noteNow(c *expr.Call) {
	if b.nowCalls == nil {
		b.nowCalls = map[*expr.Call]bool{}
	}
	b.nowCalls[c] = false
}

// errNowInView is the error for a use of now() a view cannot maintain.
func errNowInView() error {
	return repr.Unsupported("calling now() in a materialized view outside a temporal filter " +
		"(a WHERE conjunct expr <op> now() [+/- INTERVAL '...'])")
}

// checkNowConsumed fails if some planned now() call did not become part of
// a temporal filter.
func (b *builder) checkNowConsumed() error {
	for _, used := range b.nowCalls {
		if !used {
			return errNowInView()
		}
	}
	return nil
}

// temporalFilter applies the WHERE predicate pred to rel: in a
// materialized view, its conjuncts that compare with now() become one
// TemporalFilter above a Filter of the others.
func (b *builder) temporalFilter(rel ir.Rel, pred expr.Expr) (ir.Rel, error) {
	if !b.opts.MaterializedView || len(b.nowCalls) == 0 {
		return ir.NewFilter(rel, pred), nil
	}
	var rest, lower, upper []expr.Expr
	for _, c := range flattenAnd(pred, nil) {
		if !b.callsNow(c) {
			rest = append(rest, c)
			continue
		}
		lo, up, err := b.temporalBound(c)
		if err != nil {
			return nil, err
		}
		lower, upper = append(lower, lo...), append(upper, up...)
	}
	out := ir.NewFilter(rel, rest...)
	if len(lower)+len(upper) > 0 {
		out = &ir.TemporalFilter{Input: out, Lower: lower, Upper: upper}
	}
	return out, nil
}

// flattenAnd appends the conjuncts of e to out.
func flattenAnd(e expr.Expr, out []expr.Expr) []expr.Expr {
	if a, ok := e.(*expr.And); ok {
		for _, x := range a.Args {
			out = flattenAnd(x, out)
		}
		return out
	}
	return append(out, e)
}

// callsNow reports whether e contains a now() call.
func (b *builder) callsNow(e expr.Expr) bool {
	if isNow(e) {
		return true
	}
	for _, k := range expr.Children(e) {
		if b.callsNow(k) {
			return true
		}
	}
	return false
}

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}

// temporalBound turns one conjunct `x op now() ± c` (or `now() ± c op x`)
// into a lower or upper bound on now.
func (b *builder) temporalBound(e expr.Expr) (lower, upper []expr.Expr, err error) {
	call, ok := e.(*expr.Call)
	if !ok || len(call.Args) != 2 || flipped[call.Fn.Name] == "" {
		return nil, nil, errNowInView()
	}
	op, x, nowSide := call.Fn.Name, call.Args[0], call.Args[1]
	if b.callsNow(x) {
		op, x, nowSide = flipped[op], nowSide, x
	}
	if b.callsNow(x) || expr.IsVolatile(x) {
		return nil, nil, errNowInView()
	}
	off, now, err := nowOffset(nowSide)
	if err != nil {
		return nil, nil, err
	}
	// x op now + off  <=>  now op' x - off, with one microsecond more for
	// the strict lower and the non-strict upper bound.
	adj := -off
	if op == "<" || op == ">=" {
		adj++
	}
	bound, err := b.shift(x, adj)
	if err != nil {
		return nil, nil, err
	}
	b.nowCalls[now] = true
	if op == "<" || op == "<=" {
		return []expr.Expr{bound}, nil, nil
	}
	return nil, []expr.Expr{bound}, nil
}

// nowOffset matches now() plus or minus constant intervals (possibly cast
// between timestamp types, which is exact in UTC), returning the total
// offset in microseconds and the now() call.
func nowOffset(e expr.Expr) (int64, *expr.Call, error) {
	switch e := e.(type) {
	case *expr.Call:
		if isNow(e) {
			return 0, e, nil
		}
		if len(e.Args) != 2 || e.Fn.Name != "+" && e.Fn.Name != "-" {
			break
		}
		base, iv := e.Args[0], e.Args[1]
		if e.Fn.Name == "+" && iv.Type().Family != repr.FamInterval {
			base, iv = iv, base
		}
		off, now, err := nowOffset(base)
		if err != nil {
			return 0, nil, err
		}
		d, err := intervalMicros(iv)
		if err != nil {
			return 0, nil, err
		}
		if e.Fn.Name == "-" {
			d = -d
		}
		return off + d, now, nil
	case *expr.Cast:
		if f := e.To.Family; f == repr.FamTimestamp || f == repr.FamTimestampTZ {
			return nowOffset(e.Arg)
		}
	}
	return 0, nil, errNowInView()
}

// intervalMicros returns the length of a constant interval without months.
func intervalMicros(e expr.Expr) (int64, error) {
	lit, ok := expr.Fold(e).(*expr.Lit)
	if !ok || lit.D.IsNull() || lit.D.Family() != repr.FamInterval {
		return 0, errNowInView()
	}
	iv := lit.D.Interval()
	if iv.Months != 0 {
		return 0, repr.Unsupported("a temporal filter with an interval of months or years (use days)")
	}
	return int64(iv.Days)*86_400_000_000 + iv.Micros, nil
}

// shift returns x + d microseconds (x itself when d is 0).
func (b *builder) shift(x expr.Expr, d int64) (expr.Expr, error) {
	if d == 0 {
		return x, nil
	}
	lit := &expr.Lit{D: repr.NewInterval(repr.Interval{Micros: d}), T: repr.IntervalT}
	fn, want, err := expr.ResolveOp("+", []repr.T{x.Type(), repr.IntervalT})
	if err != nil {
		return nil, err
	}
	return b.call(fn, []expr.Expr{x, lit}, want)
}
