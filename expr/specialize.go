package expr

import (
	"cmp"

	"github.com/cockroachdb/apd/v3"

	"github.com/eddydb/eddy/repr"
)

// fastKind marks the overloads that Specialize can evaluate without the
// generic call path (Func.fast; 0: none).
type fastKind uint8

const (
	// fastShift is timestamp[tz] + interval (Func.fastSign 1) or -
	// interval (-1), the interval second.
	fastShift fastKind = iota + 1
	// fastCmp is a comparison of two values of one integer-like family
	// (int2/4/8, date, timestamp, timestamptz), which repr.Compare orders
	// by their 64-bit value; Func.fastOp says which.
	fastCmp
	// fastNumMul is numeric * numeric.
	fastNumMul
)

// cmpOp is a comparison operator of a fastCmp overload.
type cmpOp uint8

const (
	cmpEq cmpOp = iota
	cmpNe
	cmpLt
	cmpLe
	cmpGt
	cmpGe
)

// cmpOps names the comparison operators by their SQL names.
var cmpOps = map[string]cmpOp{"=": cmpEq, "<>": cmpNe, "<": cmpLt, "<=": cmpLe, ">": cmpGt, ">=": cmpGe}

// cmpPredicates returns the comparison operators' predicates on the sign
// of a comparison, by SQL name: the one definition every comparison
// overload (and Specialize's fastCmp) uses.
func cmpPredicates() map[string]func(int) bool {
	out := make(map[string]func(int) bool, len(cmpOps))
	for name, op := range cmpOps {
		out[name] = op.holds
	}
	return out
}

// holds reports whether c (the sign of a comparison) satisfies op.
func (op cmpOp) holds(c int) bool {
	switch op {
	case cmpEq:
		return c == 0
	case cmpNe:
		return c != 0
	case cmpLt:
		return c < 0
	case cmpLe:
		return c <= 0
	case cmpGt:
		return c > 0
	}
	return c >= 0
}

// Specialize returns an expression that evaluates exactly as e does
// (same values, same errors, arguments evaluated in the same order and
// as far) but faster for the shapes per-row operators evaluate most: a
// timestamp shifted by a constant interval of microseconds only (HOP's
// window starts and ends, `t - INTERVAL '10' SECOND`), comparisons of
// integers, dates and timestamps (`t < window_end`), a numeric constant
// times an integer cast to numeric (`0.908 * price`) and casts between
// string types that cannot change the value (relabel). Calls are
// rewritten inside the arguments of calls, casts, NOT, IS NULL and of
// AND/OR (unless the connective hashes its arms as an IN list: members);
// other nodes are kept as they are.
//
// The result is for evaluation only: its new nodes print as the calls
// they replace but are opaque to code that walks expressions by type
// (column analysis, CSE, EXPLAIN), which must run on e instead.
func Specialize(e Expr) Expr {
	var c *Call
	switch e := e.(type) {
	case *Call:
		c = e
	case *Cast:
		return specializeCast(e)
	case *And:
		if args, ok := specializeArms(e.Args, "<>"); ok {
			return &And{Args: args}
		}
		return e
	case *Or:
		if args, ok := specializeArms(e.Args, "="); ok {
			return &Or{Args: args}
		}
		return e
	case *Not:
		if a := Specialize(e.Arg); a != e.Arg {
			return &Not{Arg: a}
		}
		return e
	case *IsNull:
		if a := Specialize(e.Arg); a != e.Arg {
			return &IsNull{Arg: a, Negate: e.Negate}
		}
		return e
	default:
		return e
	}
	args, changed := c.Args, false
	for i, a := range c.Args {
		if s := Specialize(a); s != a {
			if !changed {
				args, changed = append([]Expr(nil), c.Args...), true
			}
			args[i] = s
		}
	}
	switch {
	case c.Fn.fast == fastShift && len(args) == 2:
		if s, ok := newShift(c, args[0], args[1]); ok {
			return s
		}
	case c.Fn.fast == fastCmp && len(args) == 2:
		return &cmpCall{call: c, a: args[0], b: args[1], op: c.Fn.fastOp}
	case c.Fn.fast == fastNumMul && len(args) == 2:
		if s, ok := newMulInt(c, args[0], args[1]); ok {
			return s
		}
	}
	if !changed {
		return c
	}
	return &Call{Fn: c.Fn, Args: args}
}

// shiftCall is timestamp[tz] ± a literal interval without months or days:
// the generic implementation's arithmetic (addInterval, infinities kept,
// 22008 on overflow) with the interval decoded and negated once.
type shiftCall struct {
	call *Call
	arg  Expr
	iv   repr.Interval
	tz   bool
}

// newShift returns c specialized if its interval is a literal of
// microseconds only whose negation (for -) cannot overflow.
func newShift(c *Call, arg, lit Expr) (*shiftCall, bool) {
	l, ok := lit.(*Lit)
	if !ok || l.D.IsNull() || l.D.Family() != repr.FamInterval {
		return nil, false
	}
	iv := l.D.Interval()
	if iv.Months != 0 || iv.Days != 0 {
		return nil, false
	}
	if c.Fn.fastSign < 0 {
		if iv.Micros == -iv.Micros && iv.Micros != 0 { // MinInt64: the generic path's 22008
			return nil, false
		}
		iv.Micros = -iv.Micros
	}
	return &shiftCall{call: c, arg: arg, iv: iv, tz: c.Fn.Ret.Family == repr.FamTimestampTZ}, true
}

// Type is the timestamp type of the call.
func (s *shiftCall) Type() repr.T { return s.call.Type() }

// String prints the call it replaces.
func (s *shiftCall) String() string { return s.call.String() }

// Eval shifts the argument's value; NULL stays NULL.
func (s *shiftCall) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	d, err := evalArg(ctx, s.arg, row)
	if err != nil || d.IsNull() {
		return repr.Null, err
	}
	r, err := addInterval(d.Micros(), s.iv, nilLoc()) // no months or days: the zone is not read
	if s.tz {
		return repr.NewTimestampTZ(r), err
	}
	return repr.NewTimestamp(r), err
}

// cmpCall is a strict comparison of two integer-like values.
type cmpCall struct {
	call *Call
	a, b Expr
	op   cmpOp
}

// Type is boolean.
func (c *cmpCall) Type() repr.T { return repr.Bool }

// String prints the call it replaces.
func (c *cmpCall) String() string { return c.call.String() }

// Eval compares the arguments, NULL if either is (the second is then not
// evaluated when the first is NULL, as in Call.Eval).
func (c *cmpCall) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	x, err := evalArg(ctx, c.a, row)
	if err != nil || x.IsNull() {
		return repr.Null, err
	}
	y, err := evalArg(ctx, c.b, row)
	if err != nil || y.IsNull() {
		return repr.Null, err
	}
	if x.Family() != y.Family() { // not from a well-typed plan, but keep Compare's answer
		return repr.NewBool(c.op.holds(repr.Compare(x, y))), nil
	}
	return repr.NewBool(c.op.holds(cmp.Compare(x.Int(), y.Int()))), nil
}

// mulIntCall is a finite numeric literal times an integer cast to
// unconstrained numeric (either order): the cast's decimal is built on
// the stack rather than allocated (repr.Cast's apd.New), and the product
// is numericMul's mulSmall; a product past 64 bits takes the generic
// call.
type mulIntCall struct {
	call *Call
	lit  *apd.Decimal
	arg  Expr // the integer the cast converts
	// litFirst: the literal is the first argument.
	litFirst bool
}

// newMulInt returns c specialized if one of a and b is a finite numeric
// literal and the other a plain cast of an integer to numeric without a
// precision.
func newMulInt(c *Call, a, b Expr) (*mulIntCall, bool) {
	l, litFirst := a.(*Lit)
	other := b
	if !litFirst {
		l, _ = b.(*Lit)
		other = a
	}
	cast, ok := other.(*Cast)
	if l == nil || !ok || l.D.IsNull() || l.D.Family() != repr.FamNumeric || l.D.Numeric().Form != apd.Finite {
		return nil, false
	}
	from, to := cast.Arg.Type(), cast.To
	if from.Family != repr.FamInt || to.Family != repr.FamNumeric || to.Precision > 0 || isRegCast(from, to) {
		return nil, false
	}
	return &mulIntCall{call: c, lit: l.D.Numeric(), arg: cast.Arg, litFirst: litFirst}, true
}

// Type is the call's numeric type.
func (m *mulIntCall) Type() repr.T { return m.call.Type() }

// String prints the call it replaces.
func (m *mulIntCall) String() string { return m.call.String() }

// Eval multiplies; a NULL integer gives NULL (the call is strict).
func (m *mulIntCall) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	d, err := evalArg(ctx, m.arg, row)
	if err != nil || d.IsNull() {
		return repr.Null, err
	}
	var n apd.Decimal // what repr.Cast makes of an integer: apd.New(i, 0)
	n.SetInt64(d.Int())
	x, y := m.lit, &n
	if !m.litFirst {
		x, y = y, x
	}
	if r, ok := mulSmall(x, y); ok {
		return repr.NewNumeric(r), nil
	}
	return m.call.Eval(ctx, row)
}
