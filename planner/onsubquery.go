package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Scalar subqueries in a join's ON condition. An uncorrelated one, (SELECT
// oid FROM pg_class WHERE relname = 'pg_constraint') as pgAdmin writes in
// its LEFT JOINs, has one value for the whole query: it is planned once
// as a column added to the join's left input (a left join with the
// subquery's at most one row, so NULL when it returns none and 21000 when
// several, as scalarSubquery does), which every join kind may read in its
// condition; the join's output drops the column again. A subquery that
// refers to the joined relations or to an outer query, and EXISTS, IN and
// ANY in ON, are planned by filterJoin instead.

// errCorrelatedOn is onSubqueries' refusal of a correlated subquery, which
// filterJoin plans instead.
var errCorrelatedOn = repr.Unsupported("correlated subqueries in JOIN/ON")

// onSubqueries plans the scalar subqueries of quals over left: it returns
// left widened by one column per subquery and each subquery's value over
// the widened relation.
func (b *builder) onSubqueries(quals *pg_query.Node, left ir.Rel) (ir.Rel, map[*pg_query.SubLink]expr.Expr, error) {
	links := scalarSubLinks(quals)
	if len(links) == 0 {
		return left, nil, nil
	}
	ec := &ectx{b: b, sc: &scope{}, rel: left, clause: "JOIN/ON"}
	vals := map[*pg_query.SubLink]expr.Expr{}
	for _, sl := range links {
		v, err := ec.scalarSubquery(sl.Subselect.GetSelectStmt(), sl.Location)
		if e, ok := err.(*repr.Error); ok && (e.Code == "42703" || e.Code == "42P01") {
			return nil, nil, errCorrelatedOn
		} else if err != nil {
			return nil, nil, err
		}
		vals[sl] = v
	}
	return ec.rel, vals, nil
}

// scalarSubLinks lists the scalar subqueries (SELECT ...) of an expression,
// not descending into subqueries.
func scalarSubLinks(n *pg_query.Node) []*pg_query.SubLink {
	var out []*pg_query.SubLink
	for _, sl := range subLinks(n) {
		if sl.SubLinkType == pg_query.SubLinkType_EXPR_SUBLINK && sl.Subselect.GetSelectStmt() != nil {
			out = append(out, sl)
		}
	}
	return out
}

// subLinks lists the subqueries of an expression, not descending into
// subqueries.
func subLinks(n *pg_query.Node) []*pg_query.SubLink {
	var out []*pg_query.SubLink
	if n == nil {
		return nil
	}
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if sl, ok := m.Interface().(*pg_query.SubLink); ok {
			out = append(out, sl)
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					visit(l.Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				visit(v.Message())
			}
			return true
		})
	}
	visit(n.ProtoReflect())
	return out
}
