package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// literalRowCast is '(...)'::rel, a string literal cast to a table's or
// view's row type: PostgreSQL's record_in splits it into the columns'
// texts (parseRecordLiteral), each then cast to its column's type, so it
// plans as ROW('f1', 'f2', ...)::rel. Only literals: record input of a
// computed text is 0A000 (Eddy's record values are anonymous).
func (c *ectx) literalRowCast(tc *pg_query.TypeCast, rel *Relation) (expr.Expr, error) {
	s := tc.Arg.GetAConst().GetSval()
	if s == nil {
		return nil, repr.Unsupported("a cast of a computed value to the row type %s", rel.Name).WithPosition(tc.Location + 1)
	}
	loc := location(tc.Arg) + 1
	fields, perr := repr.ParseRecordText(s.Sval, len(rel.Columns))
	if perr != nil {
		return nil, perr.WithPosition(loc)
	}
	var err error
	args := make([]expr.Expr, len(fields))
	shape := make([]expr.TableCol, len(fields))
	for i, col := range rel.Columns {
		var lit expr.Expr = &expr.Lit{D: repr.Null, T: col.Type}
		if fields[i] != nil {
			lit = &expr.Lit{D: repr.NewText(*fields[i]), T: repr.Unknown}
		}
		if args[i], err = c.b.explicitCast(lit, col.Type, loc-1); err != nil {
			return nil, withPos(err, loc-1)
		}
		shape[i] = expr.TableCol{Name: col.Name, T: col.Type}
	}
	return c.namedRecord(args, shape, tc.Location)
}
