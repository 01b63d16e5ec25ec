package scalar

import (
	"fmt"
	"sync"
	"time"

	"github.com/eddydb/eddy/sql/types"
)

// Type returns the column's type.
func (c *Col) Type() types.T { return c.T }

// Eval returns row[Idx].
func (c *Col) Eval(_ *Ctx, row types.Row) (types.Datum, error) {
	if c.Idx < 0 || c.Idx >= len(row) {
		return types.Null, fmt.Errorf("column #%d out of range for row of %d columns", c.Idx, len(row))
	}
	return row[c.Idx], nil
}

// Type returns the literal's type.
func (l *Lit) Type() types.T { return l.T }

// Eval returns the constant.
func (l *Lit) Eval(*Ctx, types.Row) (types.Datum, error) { return l.D, nil }

// Type returns the function's result type.
func (c *Call) Type() types.T { return c.Fn.Ret }

// Eval evaluates the arguments left to right and applies the function; a
// strict function returns NULL on any NULL argument without running Impl.
// The arguments live on ctx's argument stack for the duration of Impl (Impl
// must not retain the slice), so a call allocates nothing of its own.
func (c *Call) Eval(ctx *Ctx, row types.Row) (types.Datum, error) {
	if ctx == nil {
		ctx = &Ctx{}
	}
	base := len(ctx.args)
	for _, a := range c.Args {
		d, err := a.Eval(ctx, row)
		if err != nil || (d.IsNull() && c.Fn.Strict) {
			ctx.args = ctx.args[:base]
			return types.Null, err
		}
		ctx.args = append(ctx.args, d)
	}
	end := len(ctx.args)
	d, err := c.Fn.Impl(ctx, ctx.args[base:end:end])
	ctx.args = ctx.args[:base]
	return d, err
}

// Type returns the target type.
func (c *Cast) Type() types.T { return c.To }

// Eval converts the argument's value; NULL casts to NULL.
func (c *Cast) Eval(ctx *Ctx, row types.Row) (types.Datum, error) {
	d, err := c.Arg.Eval(ctx, row)
	if err != nil || d.IsNull() {
		return types.Null, err
	}
	return castDatum(d, c.Arg.Type(), c.To, ctx.Location(), c.Explicit)
}

// Type is boolean.
func (a *And) Type() types.T { return types.Bool }

// Eval is three-valued AND: false if any argument is false (later arguments
// are then not evaluated), else NULL if any is NULL, else true.
func (a *And) Eval(ctx *Ctx, row types.Row) (types.Datum, error) {
	return evalConnective(ctx, row, a.Args, false)
}

// Type is boolean.
func (o *Or) Type() types.T { return types.Bool }

// Eval is three-valued OR: true if any argument is true, else NULL if any
// is NULL, else false.
func (o *Or) Eval(ctx *Ctx, row types.Row) (types.Datum, error) {
	return evalConnective(ctx, row, o.Args, true)
}

// evalConnective evaluates AND (dominant=false) or OR (dominant=true):
// the dominant value short-circuits, NULL beats the other value.
func evalConnective(ctx *Ctx, row types.Row, args []Expr, dominant bool) (types.Datum, error) {
	sawNull := false
	for _, e := range args {
		d, err := e.Eval(ctx, row)
		if err != nil {
			return types.Null, err
		}
		switch {
		case d.IsNull():
			sawNull = true
		case d.Bool() == dominant:
			return d, nil
		}
	}
	if sawNull {
		return types.Null, nil
	}
	return types.NewBool(!dominant), nil
}

// Type is boolean.
func (n *Not) Type() types.T { return types.Bool }

// Eval negates; NOT NULL is NULL.
func (n *Not) Eval(ctx *Ctx, row types.Row) (types.Datum, error) {
	d, err := n.Arg.Eval(ctx, row)
	if err != nil || d.IsNull() {
		return types.Null, err
	}
	return types.NewBool(!d.Bool()), nil
}

// Type is boolean.
func (n *IsNull) Type() types.T { return types.Bool }

// Eval never returns NULL.
func (n *IsNull) Eval(ctx *Ctx, row types.Row) (types.Datum, error) {
	d, err := n.Arg.Eval(ctx, row)
	if err != nil {
		return types.Null, err
	}
	return types.NewBool(d.IsNull() != n.Negate), nil
}

// Type returns the CASE's result type.
func (c *Case) Type() types.T { return c.T }

// Eval returns the THEN of the first WHEN whose condition is true (NULL
// counts as false), else ELSE or NULL. Only the chosen arm is evaluated.
func (c *Case) Eval(ctx *Ctx, row types.Row) (types.Datum, error) {
	for _, w := range c.Whens {
		d, err := w.Cond.Eval(ctx, row)
		if err != nil {
			return types.Null, err
		}
		if !d.IsNull() && d.Bool() {
			return w.Then.Eval(ctx, row)
		}
	}
	if c.Else == nil {
		return types.Null, nil
	}
	return c.Else.Eval(ctx, row)
}

// Type returns the COALESCE's result type.
func (c *Coalesce) Type() types.T { return c.T }

// Eval returns the first non-NULL argument; later ones are not evaluated.
func (c *Coalesce) Eval(ctx *Ctx, row types.Row) (types.Datum, error) {
	for _, a := range c.Args {
		d, err := a.Eval(ctx, row)
		if err != nil || !d.IsNull() {
			return d, err
		}
	}
	return types.Null, nil
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
	l, err := time.LoadLocation(c.TimeZone)
	if err != nil {
		if l, err = time.LoadLocation(titleZone(c.TimeZone)); err != nil {
			l = time.UTC
		}
	}
	locCache.Store(c.TimeZone, l)
	return l
}
