package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// collate is `expr COLLATE name`. Eddy compares text by bytes, which is
// PostgreSQL's "C" collation (also "POSIX", "ucs_basic" and the database
// default, since Eddy's databases use the C locale), so those collations
// leave the expression as it is; any other is 0A000 naming it. As in
// PostgreSQL, only collatable (text) types take a collation, and an
// untyped literal becomes text.
func (c *ectx) collate(cc *pg_query.CollateClause) (expr.Expr, error) {
	e, err := c.expr(cc.Arg)
	if err != nil {
		return nil, err
	}
	name := opName(cc.Collname)
	switch t := e.Type(); t.Family {
	case repr.FamUnknown:
		if e, err = c.b.coerce(e, repr.Text); err != nil {
			return nil, err
		}
	case repr.FamText:
	default:
		return nil, repr.Errorf(repr.CodeDatatypeMismatch, "collations are not supported by type %s", t.Name()).WithPosition(cc.Location + 1)
	}
	switch name {
	case "C", "POSIX", "default", "ucs_basic":
		return e, nil
	}
	return nil, repr.Unsupported("collation %q (Eddy compares text as the \"C\" collation does)", name).WithPosition(cc.Location + 1)
}
