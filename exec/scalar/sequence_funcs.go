package scalar

import (
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// Sequence functions: nextval, currval, setval and lastval read and advance
// the session's sequences through Ctx.Session.Sequences. They are volatile:
// never folded, and refused in materialized views.
func init() {
	seqs := func(c *Ctx, name string) (Sequences, error) {
		if c.Session == nil || c.Session.Sequences == nil {
			return nil, pgerr.Unsupported("%s() outside a session", name)
		}
		return c.Session.Sequences, nil
	}
	i8, t := types.Int8, types.Text
	volatile := func(f *Func) { f.Volatile = true }
	volatile(fn("nextval", i8, func(c *Ctx, a []types.Datum) (types.Datum, error) {
		s, err := seqs(c, "nextval")
		if err != nil {
			return types.Null, err
		}
		v, err := s.NextVal(a[0].Text())
		return types.NewInt(v), err
	}, t))
	volatile(fn("currval", i8, func(c *Ctx, a []types.Datum) (types.Datum, error) {
		s, err := seqs(c, "currval")
		if err != nil {
			return types.Null, err
		}
		v, err := s.CurrVal(a[0].Text())
		return types.NewInt(v), err
	}, t))
	volatile(fn("lastval", i8, func(c *Ctx, _ []types.Datum) (types.Datum, error) {
		s, err := seqs(c, "lastval")
		if err != nil {
			return types.Null, err
		}
		v, err := s.LastVal()
		return types.NewInt(v), err
	}))
	setval := func(c *Ctx, a []types.Datum) (types.Datum, error) {
		s, err := seqs(c, "setval")
		if err != nil {
			return types.Null, err
		}
		called := len(a) < 3 || a[2].Bool()
		v, err := s.SetVal(a[0].Text(), a[1].Int(), called)
		return types.NewInt(v), err
	}
	volatile(fn("setval", i8, setval, t, i8))
	volatile(fn("setval", i8, setval, t, i8, types.Bool))
}
