package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// checkRecordCompare checks a comparison of two record values that are not
// both row constructors (a whole-row reference against ROW(...)), which
// PostgreSQL evaluates with record_eq and friends rather than field-wise:
// the records must have as many fields, of the same type OIDs (an
// unadorned literal in ROW(...) stays unknown), or it raises 42804. The
// fields' types are known only for row constructors and whole-row
// references; other record values are left unchecked.
func (c *ectx) checkRecordCompare(ln, rn *pg_query.Node, l, r expr.Expr) error {
	if l.Type().Family != repr.FamRecord || r.Type().Family != repr.FamRecord {
		return nil
	}
	lt, lok := recordFieldOIDs(ln, l)
	rt, rok := recordFieldOIDs(rn, r)
	if !lok || !rok {
		return nil
	}
	if len(lt) != len(rt) {
		return repr.Errorf(repr.CodeDatatypeMismatch, "cannot compare record types with different numbers of columns")
	}
	for i := range lt {
		if lt[i] != rt[i] {
			return repr.Errorf(repr.CodeDatatypeMismatch, "cannot compare dissimilar column types %s and %s at record column %d",
				oidName(lt[i]), oidName(rt[i]), i+1)
		}
	}
	return nil
}

// recordFieldOIDs returns the type OIDs of a record's fields: those of a
// row constructor's arguments (0 for an unknown literal: a string or NULL
// without a cast), or of a whole-row reference's columns. ok is false for
// other record values.
func recordFieldOIDs(n *pg_query.Node, e expr.Expr) ([]uint32, bool) {
	if c, ok := e.(*expr.Cast); ok && c.To.IsComposite() && n.GetColumnRef() != nil {
		e = c.Arg // a whole-row reference typed as its relation's row type
	}
	call, isCall := e.(*expr.Call)
	if !isCall || call.Fn.Name != "row" {
		return nil, false
	}
	args := rowArgs(n)
	oids := make([]uint32, len(call.Args))
	for i, a := range call.Args {
		oids[i] = a.Type().OID()
		if len(args) == len(call.Args) && unknownLiteral(args[i]) {
			oids[i] = 0
		}
	}
	return oids, true
}

// unknownLiteral reports whether n is a string literal or NULL without a
// cast, whose type PostgreSQL leaves unknown inside ROW(...).
func unknownLiteral(n *pg_query.Node) bool {
	k := n.GetAConst()
	return k != nil && (k.Isnull || k.GetSval() != nil)
}

// oidName names a type OID as PostgreSQL's messages do (0: unknown).
func oidName(oid uint32) string {
	if oid == 0 {
		return "unknown"
	}
	if t, ok := repr.FromOID(oid); ok {
		return t.Name()
	}
	return "record"
}
