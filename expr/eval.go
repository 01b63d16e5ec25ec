package expr

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/eddydb/eddy/repr"
)

// Type returns the column's type.
func (c *Col) Type() repr.T { return c.T }

// Eval returns row[Idx].
func (c *Col) Eval(_ *Ctx, row repr.Row) (repr.Datum, error) {
	if c.Idx < 0 || c.Idx >= len(row) {
		return repr.Null, fmt.Errorf("column #%d out of range for row of %d columns", c.Idx, len(row))
	}
	return row[c.Idx], nil
}

// Type returns the literal's type.
func (l *Lit) Type() repr.T { return l.T }

// Eval returns the constant.
func (l *Lit) Eval(*Ctx, repr.Row) (repr.Datum, error) { return l.D, nil }

// Type returns the function's result type.
func (c *Call) Type() repr.T { return c.Fn.Ret }

// Eval evaluates the arguments left to right and applies the function; a
// strict function returns NULL on any NULL argument without running Impl.
// The arguments live on ctx's argument stack for the duration of Impl (Impl
// must not retain the slice), so a call allocates nothing of its own.
func (c *Call) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	if ctx == nil {
		ctx = &Ctx{}
	}
	base := len(ctx.args)
	for _, a := range c.Args {
		d, err := evalArg(ctx, a, row)
		if err != nil || (d.IsNull() && c.Fn.Strict) {
			ctx.args = ctx.args[:base]
			return repr.Null, err
		}
		ctx.args = append(ctx.args, d)
	}
	end := len(ctx.args)
	d, err := c.Fn.Impl(ctx, ctx.args[base:end:end])
	ctx.args = ctx.args[:base]
	return d, err
}

// evalArg is a.Eval(ctx, row) with columns and literals, most of the
// arguments of most calls, read in place instead of through the interface
// method: the same values and errors, without an indirect call and a
// Datum's copy through it per argument.
func evalArg(ctx *Ctx, a Expr, row repr.Row) (repr.Datum, error) {
	switch a := a.(type) {
	case *Col:
		if a.Idx >= 0 && a.Idx < len(row) {
			return row[a.Idx], nil
		}
	case *Lit:
		return a.D, nil
	}
	return a.Eval(ctx, row)
}

// Type returns the target type.
func (c *Cast) Type() repr.T { return c.To }

// Eval converts the argument's value; NULL casts to NULL.
func (c *Cast) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	d, err := c.Arg.Eval(ctx, row)
	if err != nil || d.IsNull() {
		return repr.Null, err
	}
	if isRegCast(c.Arg.Type(), c.To) {
		return regCast(ctx, d, c.Arg.Type(), c.To)
	}
	if ctx != nil && ctx.IntervalStyle == repr.IntervalSQLStandard && c.To.Family == repr.FamInterval && textual(c.Arg.Type()) {
		iv, err := repr.ParseIntervalStyled(d.Text(), "second", false, ctx.IntervalStyle)
		if err != nil {
			return repr.Null, err
		}
		return castDatum(iv, repr.IntervalT, c.To, ctx.Location(), c.Explicit)
	}
	if ctx != nil && (ctx.FloatDigits != 0 || ctx.IntervalStyle != 0) && StyledCast(c.Arg.Type(), c.To) {
		st := repr.TextStyle{Loc: ctx.Location(), FloatDigits: ctx.FloatDigits, Interval: ctx.IntervalStyle}
		s := repr.FormatTextStyle(d, c.Arg.Type(), st)
		return castDatum(repr.NewText(s), repr.Text, c.To, ctx.Location(), c.Explicit)
	}
	out, err := castDatum(d, c.Arg.Type(), c.To, ctx.Location(), c.Explicit)
	if err != nil {
		if v, ok, err2 := castReadingNow(ctx, d, c.Arg.Type(), c.To); ok {
			return v, err2
		}
	}
	return out, err
}

// Type is boolean.
func (a *And) Type() repr.T { return repr.Bool }

// Eval is three-valued AND: false if any argument is false (later arguments
// are then not evaluated), else NULL if any is NULL, else true.
func (a *And) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	if m := members(&a.set, a.Args, "<>"); m != noMembers {
		return m.eval(ctx, row)
	}
	return evalConnective(ctx, row, a.Args, false)
}

// Type is boolean.
func (o *Or) Type() repr.T { return repr.Bool }

// Eval is three-valued OR: true if any argument is true, else NULL if any
// is NULL, else false.
func (o *Or) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	if m := members(&o.set, o.Args, "="); m != noMembers {
		return m.eval(ctx, row)
	}
	return evalConnective(ctx, row, o.Args, true)
}

// evalConnective evaluates AND (dominant=false) or OR (dominant=true):
// the dominant value short-circuits, NULL beats the other value.
func evalConnective(ctx *Ctx, row repr.Row, args []Expr, dominant bool) (repr.Datum, error) {
	sawNull := false
	for _, e := range args {
		d, err := e.Eval(ctx, row)
		if err != nil {
			return repr.Null, err
		}
		switch {
		case d.IsNull():
			sawNull = true
		case d.Bool() == dominant:
			return d, nil
		}
	}
	if sawNull {
		return repr.Null, nil
	}
	return repr.NewBool(!dominant), nil
}

// Type is boolean.
func (n *Not) Type() repr.T { return repr.Bool }

// Eval negates; NOT NULL is NULL.
func (n *Not) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	d, err := n.Arg.Eval(ctx, row)
	if err != nil || d.IsNull() {
		return repr.Null, err
	}
	return repr.NewBool(!d.Bool()), nil
}

// Type is boolean.
func (n *IsNull) Type() repr.T { return repr.Bool }

// Eval never returns NULL.
func (n *IsNull) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	d, err := n.Arg.Eval(ctx, row)
	if err != nil {
		return repr.Null, err
	}
	return repr.NewBool(d.IsNull() != n.Negate), nil
}

// Type returns the CASE's result type.
func (c *Case) Type() repr.T { return c.T }

// Eval returns the THEN of the first WHEN whose condition is true (NULL
// counts as false), else ELSE or NULL. Only the chosen arm is evaluated.
func (c *Case) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	for _, w := range c.Whens {
		d, err := w.Cond.Eval(ctx, row)
		if err != nil {
			return repr.Null, err
		}
		if !d.IsNull() && d.Bool() {
			return w.Then.Eval(ctx, row)
		}
	}
	if c.Else == nil {
		return repr.Null, nil
	}
	return c.Else.Eval(ctx, row)
}

// Type returns the COALESCE's result type.
func (c *Coalesce) Type() repr.T { return c.T }

// Eval returns the first non-NULL argument; later ones are not evaluated.
func (c *Coalesce) Eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	for _, a := range c.Args {
		d, err := a.Eval(ctx, row)
		if err != nil || !d.IsNull() {
			return d, err
		}
	}
	return repr.Null, nil
}

// Fork returns a copy of c for evaluation on another goroutine: the same
// settings, account and Interrupt channel, and its own argument stack (a
// Ctx is single-goroutine state; exec's sharded nodes give each shard a
// fork). The copy shares c's Memory, which must then be safe for
// concurrent use or nil.
func (c *Ctx) Fork() *Ctx {
	f := *c
	f.args = nil
	return &f
}

var locCache sync.Map // time zone name -> *time.Location

// Location returns the session time zone (UTC when empty or unknown).
func (c *Ctx) Location() *time.Location {
	if c == nil || c.TimeZone == "" || c.TimeZone == "UTC" {
		return time.UTC
	}
	if l, ok := locCache.Load(c.TimeZone); ok {
		return l.(*time.Location)
	}
	l, ok := SessionZone(c.TimeZone)
	if !ok {
		l = time.UTC
	}
	locCache.Store(c.TimeZone, l)
	return l
}

// SessionZone resolves a TimeZone setting as PostgreSQL's SET TIME ZONE
// does: UTC's names, a zone database name (any case), a bare number of
// hours east of UTC (-15 to 15), a POSIX offset with or without a name
// ("UTC+3", "<+03>-3", "+02:00": hours west), or a POSIX string with
// daylight saving time ("CST7CDT,M4.1.0,M10.5.0").
func SessionZone(name string) (*time.Location, bool) {
	switch strings.ToUpper(name) {
	case "UTC", "GMT", "Z", "ZULU", "LOCAL", "DEFAULT":
		return time.UTC, true
	}
	if name == "" || name == "Local" {
		return nil, false
	}
	for _, n := range []string{name, titleZone(name)} {
		if loc, err := time.LoadLocation(n); err == nil {
			return loc, true
		}
	}
	if h, err := strconv.Atoi(strings.TrimPrefix(name, "+")); err == nil && h >= -15 && h <= 15 {
		return time.FixedZone(name, h*3600), true
	}
	if loc, ok := repr.POSIXZone(name, true); ok {
		return loc, true
	}
	return repr.POSIXRuleZone(name)
}
