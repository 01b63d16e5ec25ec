package ir

import (
	"fmt"
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Shared is its input, evaluated once however many times the tree reads
// it: every Shared with the same ID stands for one evaluation of one
// relation, so the dataflow computes its rows once and every reference
// reads them. The planner wraps a relation in it when it reads the
// relation twice and the relation calls a volatile function (random(),
// nextval()): decorrelation reads the outer relation once to compute a
// subquery's domain and once to join the results back, and both reads
// must see the same drawn values, as PostgreSQL's single evaluation per
// row does.
//
// Rules see Shared as an opaque operator: none matches it, so no
// predicate, projection or map moves into it (a filter pushed into one
// reference would make it a different relation from the others, and so
// a second evaluation). Its input is rewritten like any subtree, and
// rules are equivalences, so any reference's input stands for all of
// them; lowering lowers one. Stateless.
type Shared struct {
	ID    int
	Input Rel
}

// NewShared returns Shared(in) with the given identity.
func NewShared(id int, in Rel) Rel { return &Shared{ID: id, Input: in} }

// ColTypes implements Rel.
func (s *Shared) ColTypes() []repr.T { return s.Input.ColTypes() }

// Children implements Rel.
func (s *Shared) Children() []Rel { return []Rel{s.Input} }

// WithChildren implements Rel.
func (s *Shared) WithChildren(in []Rel) Rel { return &Shared{ID: s.ID, Input: in[0]} }

// String implements Rel.
func (s *Shared) String() string { return Format(s) }

func (s *Shared) header() string { return fmt.Sprintf("Shared id=%d", s.ID) }

// Volatile reports whether rel calls a volatile function anywhere in its
// tree (its own expressions or any input's), aggregates and table
// functions included.
func Volatile(rel Rel) bool {
	seen := map[Rel]bool{}
	var walk func(Rel) bool
	walk = func(r Rel) bool {
		if seen[r] {
			return false
		}
		seen[r] = true
		if OwnVolatile(r) {
			return true
		}
		for _, k := range r.Children() {
			if walk(k) {
				return true
			}
		}
		return false
	}
	return walk(rel)
}

// OwnVolatile reports whether one of rel's own expressions (not its
// inputs') calls a volatile function.
func OwnVolatile(rel Rel) bool {
	return slices.ContainsFunc(OwnExprs(rel), expr.IsVolatile)
}

// OwnExprs returns the scalar expressions rel evaluates per row itself
// (not its inputs'): a Map's, a Filter's or a Join's predicates, a
// FlatMap's arguments, a Values' rows.
func OwnExprs(rel Rel) []expr.Expr {
	var es []expr.Expr
	switch r := rel.(type) {
	case *Map:
		es = r.Exprs
	case *Filter:
		es = r.Preds
	case *Join:
		es = r.On
	case *TemporalFilter:
		es = append(append(es, r.Lower...), r.Upper...)
	case *FlatMap:
		for _, c := range r.Funcs {
			es = append(es, c.Args...)
		}
		es = append(es, r.On...)
	case *Values:
		for _, row := range r.Rows {
			es = append(es, row...)
		}
	}
	return es
}
