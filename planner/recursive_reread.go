package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// A recursive term names its recursive query once (42P19 otherwise), but
// a WITH query inside the term that reads it may itself be read twice:
//
//	WITH RECURSIVE x(a) AS (VALUES ('a') UNION ALL
//	  (WITH z AS (SELECT * FROM x) SELECT z.a || z1.a FROM z, z AS z1 ...))
//
// PostgreSQL then joins each iteration's working table with itself, while
// Eddy's Iterate computes the fixed point of x = base + step(x), which
// for a step reading x twice also joins rows of different iterations (a
// wrong answer). rereadRecursion finds such a WITH query, for a 0A000.

// rereadRecursion returns the name of a WITH query inside the recursive
// term term that reads the recursive query name (directly or through
// another such WITH query) and is referenced more than once, or "".
func rereadRecursion(term *pg_query.SelectStmt, name string) string {
	found := ""
	walkMessages(term.ProtoReflect(), func(m proto.Message) {
		s, ok := m.(*pg_query.SelectStmt)
		if !ok || found != "" || s.WithClause == nil {
			return
		}
		found = rereadIn(s, name)
	})
	return found
}

// rereadIn checks the WITH list of s (see rereadRecursion).
func rereadIn(s *pg_query.SelectStmt, name string) string {
	readers := []string{name}
	queries := map[string]*pg_query.Node{} // by name: a recursive one's self-reference is not a read
	for _, n := range s.WithClause.Ctes {
		ce := n.GetCommonTableExpr()
		if ce == nil {
			continue
		}
		queries[ce.Ctename] = ce.Ctequery
		for _, r := range readers {
			if references(ce.Ctequery, r) > 0 {
				readers = append(readers, ce.Ctename)
				break
			}
		}
	}
	body := proto.Clone(s).(*pg_query.SelectStmt)
	body.WithClause = nil
	bodyNode := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: body}}
	for _, z := range readers[1:] {
		n := references(bodyNode, z)
		for qn, q := range queries {
			if qn != z {
				n += references(q, z)
			}
		}
		if n > 1 {
			return z
		}
	}
	return ""
}

// checkReread is the 0A000 of rereadRecursion.
func checkReread(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt) error {
	if z := rereadRecursion(sel.Rarg, ce.Ctename); z != "" {
		return repr.Unsupported("a recursive term reading recursive query %q more than once through WITH query %q", ce.Ctename, z).WithPosition(ce.Location + 1)
	}
	return nil
}
