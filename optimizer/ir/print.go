package ir

import (
	"fmt"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Format prints the tree rooted at r, one operator per line, each child
// indented two spaces deeper than its parent.
func Format(r Rel) string {
	var b strings.Builder
	format(&b, r, 0)
	return b.String()
}

func format(b *strings.Builder, r Rel, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	b.WriteString(r.header())
	b.WriteByte('\n')
	for _, c := range r.Children() {
		format(b, c, depth+1)
	}
}

// Equal reports whether a and b print the same (Format(a) == Format(b)):
// the same operators with the same headers over equal inputs. Shared
// subtrees compare by identity first, so comparing a rewritten tree with
// the original costs only the parts the rewrite rebuilt; and each pair of
// distinct nodes is compared once, so two DAGs (decorrelated subqueries
// share their outer input by reference) compare in time linear in their
// nodes, not in their tree unfoldings.
func Equal(a, b Rel) bool {
	return equaler{}.equal(a, b)
}

// equaler remembers the pairs of distinct nodes found equal. A pair found
// unequal ends the comparison, so it needs no entry.
type equaler map[[2]Rel]bool

func (m equaler) equal(a, b Rel) bool {
	if a == b || m[[2]Rel{a, b}] {
		return true
	}
	ca, cb := a.Children(), b.Children()
	if len(ca) != len(cb) || a.header() != b.header() {
		return false
	}
	for i := range ca {
		if !m.equal(ca[i], cb[i]) {
			return false
		}
	}
	m[[2]Rel{a, b}] = true
	return true
}

// String implements Rel.
func (g *Get) String() string { return Format(g) }

// String implements Rel.
func (v *Values) String() string { return Format(v) }

// String implements Rel.
func (m *Map) String() string { return Format(m) }

// String implements Rel.
func (f *Filter) String() string { return Format(f) }

// String implements Rel.
func (p *Project) String() string { return Format(p) }

// String implements Rel.
func (j *Join) String() string { return Format(j) }

// String implements Rel.
func (r *Reduce) String() string { return Format(r) }

// String implements Rel.
func (t *TopK) String() string { return Format(t) }

// String implements Rel.
func (u *Union) String() string { return Format(u) }

// String implements Rel.
func (n *Negate) String() string { return Format(n) }

// String implements Rel.
func (t *Threshold) String() string { return Format(t) }

func (g *Get) header() string {
	s := fmt.Sprintf("Get %s id=%d %s", g.Name, g.ID, typeList(g.Types))
	if g.HasEventTime {
		s += fmt.Sprintf(" watermark=#%d", g.EventTimeCol)
	}
	return s
}

func (v *Values) header() string {
	rows := make([]string, len(v.Rows))
	for i, r := range v.Rows {
		rows[i] = "(" + exprList(r) + ")"
	}
	return fmt.Sprintf("Values %s %s", typeList(v.Types), strings.Join(rows, " "))
}

func (m *Map) header() string {
	base := len(m.Input.ColTypes())
	parts := make([]string, len(m.Exprs))
	for i, e := range m.Exprs {
		parts[i] = fmt.Sprintf("#%d:=%s", base+i, e)
	}
	return "Map " + strings.Join(parts, ", ")
}

func (f *Filter) header() string { return "Filter " + exprList(f.Preds) }

func (p *Project) header() string { return "Project " + colList(p.Cols) }

func (j *Join) header() string {
	if len(j.On) == 0 {
		return "Join " + j.Kind.String()
	}
	return fmt.Sprintf("Join %s on=%s", j.Kind, exprList(j.On))
}

func (r *Reduce) header() string {
	aggs := make([]string, len(r.Aggs))
	for i, a := range r.Aggs {
		aggs[i] = AggString(a)
	}
	s := fmt.Sprintf("Reduce key=[%s] aggs=[%s]", colList(r.Key), strings.Join(aggs, ", "))
	if r.EmitOnClose {
		s += " emit=close"
	}
	return s
}

func (t *TopK) header() string {
	s := fmt.Sprintf("TopK key=[%s] order=[%s] limit=%d offset=%d",
		colList(t.Key), OrderString(t.Order), t.Limit, t.Offset)
	if t.Rank {
		s += " rank"
	}
	return s
}

// String implements Rel.
func (t *TemporalFilter) String() string { return Format(t) }

func (t *TemporalFilter) header() string {
	s := "TemporalFilter"
	if len(t.Lower) > 0 {
		s += " lower=[" + exprList(t.Lower) + "]"
	}
	if len(t.Upper) > 0 {
		s += " upper=[" + exprList(t.Upper) + "]"
	}
	return s
}

func (u *Union) header() string     { return "Union" }
func (n *Negate) header() string    { return "Negate" }
func (t *Threshold) header() string { return "Threshold" }

// AggString prints an aggregate as a call over input column references,
// e.g. "count(*)", "sum(distinct #2)", "string_agg(#1, #3 order by #4
// desc)": the dataflow form in lower case.
func AggString(a expr.Agg) string { return strings.ToLower(a.String()) }

// OrderString prints sort columns as "#0 asc nulls last, #1 desc nulls first".
func OrderString(order []expr.SortCol) string {
	parts := make([]string, len(order))
	for i, o := range order {
		dir, nulls := "asc", "last"
		if o.Desc {
			dir = "desc"
		}
		if o.NullsFirst {
			nulls = "first"
		}
		parts[i] = fmt.Sprintf("#%d %s nulls %s", o.Col, dir, nulls)
	}
	return strings.Join(parts, ", ")
}

func exprList(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

func colList(cols []int) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf("#%d", c)
	}
	return strings.Join(parts, ", ")
}

func typeList(ts []repr.T) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Name()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
