package expr

import "github.com/eddydb/eddy/repr"

// Sequence functions: nextval, currval, setval and lastval read and advance
// the session's sequences through Ctx.Session.Sequences. They are volatile:
// never folded, and refused in materialized views.
func init() {
	seqs := func(c *Ctx, name string) (Sequences, error) {
		if c.Session == nil || c.Session.Sequences == nil {
			return nil, repr.Unsupported("%s() outside a session", name)
		}
		return c.Session.Sequences, nil
	}
	i8, t := repr.Int8, repr.Text
	volatile := func(f *Func) { f.Volatile = true }
	volatile(fn("nextval", i8, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		s, err := seqs(c, "nextval")
		if err != nil {
			return repr.Null, err
		}
		v, err := s.NextVal(a[0].Text())
		return repr.NewInt(v), err
	}, t))
	volatile(fn("currval", i8, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		s, err := seqs(c, "currval")
		if err != nil {
			return repr.Null, err
		}
		v, err := s.CurrVal(a[0].Text())
		return repr.NewInt(v), err
	}, t))
	volatile(fn("lastval", i8, func(c *Ctx, _ []repr.Datum) (repr.Datum, error) {
		s, err := seqs(c, "lastval")
		if err != nil {
			return repr.Null, err
		}
		v, err := s.LastVal()
		return repr.NewInt(v), err
	}))
	setval := func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		s, err := seqs(c, "setval")
		if err != nil {
			return repr.Null, err
		}
		called := len(a) < 3 || a[2].Bool()
		v, err := s.SetVal(a[0].Text(), a[1].Int(), called)
		return repr.NewInt(v), err
	}
	volatile(fn("setval", i8, setval, t, i8))
	volatile(fn("setval", i8, setval, t, i8, repr.Bool))
}
