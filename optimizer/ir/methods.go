package ir

import "github.com/eddydb/eddy/repr"

// ColTypes implements Rel.
func (g *Get) ColTypes() []repr.T { return g.Types }

// ColTypes implements Rel.
func (v *Values) ColTypes() []repr.T { return v.Types }

// ColTypes implements Rel: the input's columns then one per expression.
func (m *Map) ColTypes() []repr.T {
	in := m.Input.ColTypes()
	out := make([]repr.T, len(in), len(in)+len(m.Exprs))
	copy(out, in)
	for _, e := range m.Exprs {
		out = append(out, e.Type())
	}
	return out
}

// ColTypes implements Rel.
func (f *Filter) ColTypes() []repr.T { return f.Input.ColTypes() }

// ColTypes implements Rel.
func (p *Project) ColTypes() []repr.T {
	in := p.Input.ColTypes()
	out := make([]repr.T, len(p.Cols))
	for i, c := range p.Cols {
		out[i] = in[c]
	}
	return out
}

// ColTypes implements Rel: left columns then right columns.
func (j *Join) ColTypes() []repr.T {
	l, r := j.Left.ColTypes(), j.Right.ColTypes()
	out := make([]repr.T, 0, len(l)+len(r))
	return append(append(out, l...), r...)
}

// ColTypes implements Rel: the key columns then one per aggregate.
func (r *Reduce) ColTypes() []repr.T {
	in := r.Input.ColTypes()
	out := make([]repr.T, 0, len(r.Key)+len(r.Aggs))
	for _, k := range r.Key {
		out = append(out, in[k])
	}
	for _, a := range r.Aggs {
		out = append(out, a.T)
	}
	return out
}

// ColTypes implements Rel.
func (t *TopK) ColTypes() []repr.T {
	if t.Rank {
		in := t.Input.ColTypes()
		return append(in[:len(in):len(in)], repr.Int8)
	}
	return t.Input.ColTypes()
}

// ColTypes implements Rel: the first input's types.
func (u *Union) ColTypes() []repr.T { return u.Inputs[0].ColTypes() }

// ColTypes implements Rel.
func (n *Negate) ColTypes() []repr.T { return n.Input.ColTypes() }

// ColTypes implements Rel.
func (t *Threshold) ColTypes() []repr.T { return t.Input.ColTypes() }

// Children implements Rel.
func (g *Get) Children() []Rel { return nil }

// Children implements Rel.
func (v *Values) Children() []Rel { return nil }

// Children implements Rel.
func (m *Map) Children() []Rel { return []Rel{m.Input} }

// Children implements Rel.
func (f *Filter) Children() []Rel { return []Rel{f.Input} }

// Children implements Rel.
func (p *Project) Children() []Rel { return []Rel{p.Input} }

// Children implements Rel.
func (j *Join) Children() []Rel { return []Rel{j.Left, j.Right} }

// Children implements Rel.
func (r *Reduce) Children() []Rel { return []Rel{r.Input} }

// Children implements Rel.
func (t *TopK) Children() []Rel { return []Rel{t.Input} }

// Children implements Rel.
func (u *Union) Children() []Rel { return u.Inputs }

// Children implements Rel.
func (n *Negate) Children() []Rel { return []Rel{n.Input} }

// Children implements Rel.
func (t *Threshold) Children() []Rel { return []Rel{t.Input} }

// WithChildren implements Rel.
func (g *Get) WithChildren([]Rel) Rel { return g }

// WithChildren implements Rel.
func (v *Values) WithChildren([]Rel) Rel { return v }

// WithChildren implements Rel.
func (m *Map) WithChildren(in []Rel) Rel { c := *m; c.Input = in[0]; return &c }

// WithChildren implements Rel.
func (f *Filter) WithChildren(in []Rel) Rel { c := *f; c.Input = in[0]; return &c }

// WithChildren implements Rel.
func (p *Project) WithChildren(in []Rel) Rel { c := *p; c.Input = in[0]; return &c }

// WithChildren implements Rel.
func (j *Join) WithChildren(in []Rel) Rel { c := *j; c.Left, c.Right = in[0], in[1]; return &c }

// WithChildren implements Rel.
func (r *Reduce) WithChildren(in []Rel) Rel { c := *r; c.Input = in[0]; return &c }

// WithChildren implements Rel.
func (t *TopK) WithChildren(in []Rel) Rel { c := *t; c.Input = in[0]; return &c }

// WithChildren implements Rel.
func (u *Union) WithChildren(in []Rel) Rel { return &Union{Inputs: append([]Rel(nil), in...)} }

// WithChildren implements Rel.
func (n *Negate) WithChildren(in []Rel) Rel { return &Negate{Input: in[0]} }

// WithChildren implements Rel.
func (t *Threshold) WithChildren(in []Rel) Rel { return &Threshold{Input: in[0]} }

// ColTypes implements Rel.
func (t *TemporalFilter) ColTypes() []repr.T { return t.Input.ColTypes() }

// Children implements Rel.
func (t *TemporalFilter) Children() []Rel { return []Rel{t.Input} }

// WithChildren implements Rel.
func (t *TemporalFilter) WithChildren(in []Rel) Rel { c := *t; c.Input = in[0]; return &c }
