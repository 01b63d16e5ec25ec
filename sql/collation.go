package sql

import (
	"github.com/eddydb/eddy/repr"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// checkColumnCollation vets the COLLATE clause of a column definition (of
// a table, ALTER TABLE ADD COLUMN or a composite type's attribute) whose
// type is t. Eddy compares text by bytes, which is PostgreSQL's "C"
// collation (also "POSIX", "ucs_basic" and the database default, since
// Eddy's databases use the C locale), so those are accepted; any other
// collation is 0A000 naming it, as `expr COLLATE name` is in the planner:
// accepting it would sort, group, compare and deduplicate the column by
// bytes where PostgreSQL follows the collation (a case-insensitive one
// would even merge rows), a silently wrong answer. As in PostgreSQL, only
// collatable types (text and arrays of text) take a collation (42804).
func checkColumnCollation(cd *pg.ColumnDef, t repr.T) error {
	cc := cd.CollClause
	if cc == nil {
		return nil
	}
	if t.Family != repr.FamText && !(t.Family == repr.FamArray && t.Elem == repr.FamText) {
		return repr.Errorf(repr.CodeDatatypeMismatch, "collations are not supported by type %s", t.Name()).WithPosition(cc.Location + 1)
	}
	name := ""
	if n := len(cc.Collname); n > 0 {
		name = cc.Collname[n-1].GetString_().GetSval()
	}
	switch name {
	case "C", "POSIX", "default", "ucs_basic":
		return nil
	}
	return repr.Unsupported("collation %q (Eddy compares text as the \"C\" collation does)", name).WithPosition(cc.Location + 1)
}
