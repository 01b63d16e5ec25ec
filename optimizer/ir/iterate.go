package ir

import (
	"fmt"

	"github.com/eddydb/eddy/repr"
)

// Iterate is the least fixed point of x = Body(x), reached from x = ∅,
// where Body reads x as the LoopVar leaves with the same ID (WITH
// RECURSIVE: Body is Distinct(Union(base, step(x))) for UNION and
// Union(base, step(x)) for UNION ALL). Iteration i+1 evaluates Body over
// iteration i's x; the output is x once an iteration changes nothing. A
// body that never stops changing x (a UNION ALL recursion over a cycle)
// fails at run time once Limit iterations have run (54001).
//
// Rules see Iterate as an opaque operator: none matches it, so no
// predicate, projection or join moves across it (pushing a filter into a
// recursion is correct only when every iteration preserves the filtered
// columns, which no rule proves). Body is rewritten like any subtree:
// every rule is an equivalence and LoopVar is an opaque leaf, so Body
// stays the same function of x. Rules must not change Body's columns.
//
// Rows, when positive, lets the loop stop early, without error, after the
// first iteration at which its output holds at least Rows rows: the
// planner sets it only for an ad hoc query whose LIMIT (no ORDER BY) reads
// the Iterate through row-preserving Maps and Projects, so any Rows of its
// rows answer (PostgreSQL likewise stops a recursion once the LIMIT above
// it is satisfied). A materialized view never has it.
//
// State: the body's stateful operators keep their updates per iteration
// (exec/iterate.go): O(rows of each iteration's change), and a change of
// the inputs recomputes only the (key, iteration) pairs it reaches,
// deletions included.
type Iterate struct {
	ID    int
	Name  string // the recursive query's name, for errors and printing
	Types []repr.T
	Body  Rel
	Limit int64
	Rows  int64
}

// LoopVar is the variable x of the Iterate with the same ID, read inside
// its Body: at iteration i+1, the Body's value at iteration i (empty at
// iteration 0). It is meaningless outside that Body.
type LoopVar struct {
	ID    int
	Name  string
	Types []repr.T
}

// ColTypes implements Rel.
func (it *Iterate) ColTypes() []repr.T { return it.Types }

// Children implements Rel.
func (it *Iterate) Children() []Rel { return []Rel{it.Body} }

// WithChildren implements Rel.
func (it *Iterate) WithChildren(in []Rel) Rel { c := *it; c.Body = in[0]; return &c }

// String implements Rel.
func (it *Iterate) String() string { return Format(it) }

func (it *Iterate) header() string {
	rows := ""
	if it.Rows > 0 {
		rows = fmt.Sprintf(" rows=%d", it.Rows)
	}
	return fmt.Sprintf("Iterate %s id=%d limit=%d%s %s", it.Name, it.ID, it.Limit, rows, typeList(it.Types))
}

// ColTypes implements Rel.
func (v *LoopVar) ColTypes() []repr.T { return v.Types }

// Children implements Rel.
func (v *LoopVar) Children() []Rel { return nil }

// WithChildren implements Rel.
func (v *LoopVar) WithChildren([]Rel) Rel { return v }

// String implements Rel.
func (v *LoopVar) String() string { return Format(v) }

func (v *LoopVar) header() string { return fmt.Sprintf("LoopVar %s id=%d", v.Name, v.ID) }

// ReadsLoopVar reports whether rel reads the LoopVar id.
func ReadsLoopVar(rel Rel, id int) bool {
	if v, ok := rel.(*LoopVar); ok {
		return v.ID == id
	}
	for _, c := range rel.Children() {
		if ReadsLoopVar(c, id) {
			return true
		}
	}
	return false
}
