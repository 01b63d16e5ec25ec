package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/eddydb/eddy/expr"
)

// GROUP BY keys with subqueries (GROUP BY 1 over a select-list lookup,
// GROUP BY CASE WHEN EXISTS (...) ...) are planned like aggregate
// arguments: decorrelating a subquery appends its column to the grouping's
// input, which keeps its rows and its other columns. Planning the same
// subquery again would make other columns, so an expression is matched
// with such a key by its parse tree instead (PostgreSQL's equal() on the
// parsed expressions, which ignores locations).

// subqueryKey is a GROUP BY key holding a subquery: its parse tree and
// its index among the grouping keys.
type subqueryKey struct {
	node *pg_query.Node
	key  int
}

// groupKeyIndex plans GROUP BY key n (unless an equal key was planned:
// matchExpr, or the same parse tree for one with subqueries), appending it
// to keys, and returns its index there.
func (from *ectx) groupKeyIndex(n *pg_query.Node, keys *[]expr.Expr, subKeys *[]subqueryKey) (int, error) {
	if !hasSubLink(n) {
		e, err := from.groupKey(n)
		if err != nil {
			return 0, err
		}
		i := matchExpr(e, *keys)
		if i < 0 {
			i, *keys = len(*keys), append(*keys, e)
		}
		return i, nil
	}
	for _, k := range *subKeys {
		if sameParse(k.node, n) {
			return k.key, nil
		}
	}
	saved := from.noSubquery
	// A session window groups its own input, which has no room for them.
	from.noSubquery = from.b.sessions.scopes[from.sc] != nil
	e, err := from.groupKey(n)
	from.noSubquery = saved
	if err != nil {
		return 0, err
	}
	i := len(*keys)
	*keys = append(*keys, e)
	*subKeys = append(*subKeys, subqueryKey{node: n, key: i})
	return i, nil
}

// subqueryKeyOf returns the index of the GROUP BY key with subqueries
// whose parse tree equals n's.
func (g *grouping) subqueryKeyOf(n *pg_query.Node) (int, bool) {
	if len(g.subKeys) == 0 || !hasSubLink(n) {
		return 0, false
	}
	for _, k := range g.subKeys {
		if sameParse(k.node, n) {
			return k.key, true
		}
	}
	return 0, false
}

// sameParse reports whether two parse trees are equal but for their
// locations.
func sameParse(a, b *pg_query.Node) bool {
	if a == b {
		return true
	}
	ca, cb := proto.Clone(a), proto.Clone(b)
	clearLocations(ca.ProtoReflect())
	clearLocations(cb.ProtoReflect())
	return proto.Equal(ca, cb)
}

// clearLocations zeroes every "location" field of m and its messages.
func clearLocations(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Name() == "location" && fd.Kind() == protoreflect.Int32Kind:
			m.Clear(fd)
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := range l.Len() {
				clearLocations(l.Get(i).Message())
			}
		case fd.IsMap():
		case fd.Kind() == protoreflect.MessageKind:
			clearLocations(v.Message())
		}
		return true
	})
}
