package expr

import (
	"sync/atomic"

	"github.com/eddydb/eddy/repr"
)

// memberSet is the hashed form of an Or whose arms all read `term =
// constant` over one term and one type whose key encoding decides
// equality (repr.KeyDecidesEquality): the planner's form of
// `term IN (c1, ..., cn)`; or of an And whose arms all read `term <>
// constant` (`term NOT IN (...)`). Evaluating it costs one evaluation of
// the term and one hash lookup instead of n comparisons, as PostgreSQL
// hashes long IN lists. Its value equals the connective's: NULL if the
// term is NULL; if the term's value is among the constants, true (IN) or
// false (NOT IN); otherwise NULL if some constant is NULL, else false (IN)
// or true (NOT IN).
type memberSet struct {
	term    Expr
	keys    map[string]struct{}
	sawNull bool
	negated bool // NOT IN: an And of <>
}

// noMembers marks an Or that has no member set.
var noMembers = &memberSet{}

// minHashedArms is the shortest Or that is hashed: below it, comparing
// arm by arm costs no more than hashing the term.
const minHashedArms = 8

// members returns the member set of a connective's arms, each `term op
// constant`, kept in set on the first call (concurrent first calls build
// equal sets), or noMembers when the arms are not of that form.
func members(set *atomic.Pointer[memberSet], arms []Expr, op string) *memberSet {
	if m := set.Load(); m != nil {
		return m
	}
	m := buildMembers(arms, op)
	set.Store(m)
	return m
}

// buildMembers returns the member set of arms, or noMembers.
func buildMembers(arms []Expr, op string) *memberSet {
	if len(arms) < minHashedArms {
		return noMembers
	}
	m := &memberSet{keys: make(map[string]struct{}, len(arms)), negated: op == "<>"}
	termText := ""
	for _, a := range arms {
		term, lit, ok := comparesConstant(a, op)
		if !ok {
			return noMembers
		}
		if m.term == nil {
			if IsVolatile(term) {
				return noMembers
			}
			m.term, termText = term, term.String()
		} else if term.String() != termText {
			return noMembers
		}
		if lit.D.IsNull() {
			m.sawNull = true
			continue
		}
		m.keys[string(repr.AppendKey(nil, lit.D))] = struct{}{}
	}
	return m
}

// comparesConstant matches `term op literal` or `literal op term` where
// both sides have one family whose key encoding decides equality (a
// numeric(p,s) column against an unconstrained numeric constant, varchar
// against text); op is "=" or "<>".
func comparesConstant(e Expr, op string) (Expr, *Lit, bool) {
	c, ok := e.(*Call)
	if !ok || c.Fn.Name != op || len(c.Args) != 2 {
		return nil, nil, false
	}
	a, b := c.Args[0].Type(), c.Args[1].Type()
	if a.Family != b.Family || !repr.KeyDecidesEquality(a) || !repr.KeyDecidesEquality(b) {
		return nil, nil, false
	}
	if lit, ok := c.Args[1].(*Lit); ok {
		return c.Args[0], lit, true
	}
	if lit, ok := c.Args[0].(*Lit); ok {
		return c.Args[1], lit, true
	}
	return nil, nil, false
}

// eval computes the Or's value over row.
func (m *memberSet) eval(ctx *Ctx, row repr.Row) (repr.Datum, error) {
	d, err := m.term.Eval(ctx, row)
	if err != nil || d.IsNull() {
		return repr.Null, err
	}
	var buf [32]byte
	if _, ok := m.keys[string(repr.AppendKey(buf[:0], d))]; ok {
		return repr.NewBool(!m.negated), nil
	}
	if m.sawNull {
		return repr.Null, nil
	}
	return repr.NewBool(m.negated), nil
}
