package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// Temporary SQL functions (CREATE FUNCTION pg_temp.f ...), as
// PostgreSQL has them: the function lives in the session's temporary
// schema pg_temp_N (temp.go), is dropped with it when the session ends,
// and is found only by a call qualified with pg_temp (PostgreSQL never
// searches the temporary schema for functions, so that a temporary
// function cannot hijack a call). The statement layer rewrites pg_temp.f
// into pg_temp_N.f, and Catalog.Functions finds schema-qualified temporary
// names only: another session's function is never found.

// tempCall qualifies a call of pg_temp.f with the session's own
// temporary schema. A session without one leaves the name, which
// finds no function (42883).
func (q *qualifier) tempCall(fc *pg.FuncCall) {
	n := len(fc.Funcname)
	if n < 2 || fc.Funcname[n-2].GetString_().GetSval() != tempSchemaAlias {
		return
	}
	if own := q.s.ownTempSchema(q.cat); own != "" {
		fc.Funcname[n-2] = pg.MakeStrNode(own)
	}
}

// tempRoutine returns ow with a pg_temp schema qualifier replaced by the
// session's own temporary schema (DROP FUNCTION pg_temp.f(int)), as
// tempCall does for a call; ow itself when it names no pg_temp routine.
// The caller holds e.mu.
func (s *Session) tempRoutine(cat *Catalog, ow *pg.ObjectWithArgs) *pg.ObjectWithArgs {
	n := len(ow.Objname)
	if n < 2 || ow.Objname[n-2].GetString_().GetSval() != tempSchemaAlias {
		return ow
	}
	own := s.ownTempSchema(cat)
	if own == "" {
		return ow
	}
	c := proto.Clone(ow).(*pg.ObjectWithArgs)
	c.Objname[n-2] = pg.MakeStrNode(own)
	return c
}
