package sql

// Which catalog objects information_schema shows the reader (the
// session's current user), as PostgreSQL 15's view definitions prune
// their rows: a relation when the reader has the privileges of its owner
// (pg_has_role(relowner, 'USAGE')) or holds one of a set of privileges on
// it or on one of its columns; a column when it holds one on the column;
// a schema when it owns it or holds USAGE or CREATE. System relations are
// readable by everyone (PUBLIC holds SELECT) but those of superuserOnly.

// The privilege sets information_schema's filters ask for: any privilege
// on a relation and its column privileges (tables, views, columns), the
// same without SELECT for constraints ("SELECT privilege omitted, per SQL
// standard"), and those of a sequence.
const (
	shownTablePrivs      = allTablePrivs
	shownColumnPrivs     = allColumnPrivs
	shownConstraintPrivs = allTablePrivs &^ privSelect
	shownConstraintCols  = allColumnPrivs &^ privSelect
	shownSequencePrivs   = allSeqPrivs
)

// isSystemRel reports whether ri is a system relation (pg_catalog's,
// information_schema's or an engine-maintained eddy_catalog one).
func isSystemRel(ri *relInfo) bool { return ri.obj == nil || isSystemRelation(ri.obj.ID) }

// ownsRel reports whether the reader has the privileges of ri's owner.
func (s *sysSnap) ownsRel(ri *relInfo) bool {
	return s.e.isMemberOf(s.privReader(), s.relOwner(ri))
}

// relShown reports whether the reader owns ri, holds one of tablePrivs
// on it, or one of colPrivs on one of its columns.
func (s *sysSnap) relShown(ri *relInfo, tablePrivs, colPrivs aclMode) bool {
	reader := s.privReader()
	if isSystemRel(ri) {
		return !superuserOnly[ri.name] || s.e.isMemberOf(reader, oidSuperuser)
	}
	o := ri.obj
	if held, _ := s.e.rolePrivs(reader, relACL(o), o.Owner, relAllPrivs(o)); held&tablePrivs != 0 {
		return true
	}
	for _, c := range o.Columns {
		if p, _ := s.e.rolePrivs(reader, c.ACL, o.Owner, allColumnPrivs); p&colPrivs != 0 {
			return true
		}
	}
	return false
}

// columnShown reports whether the reader owns ri or holds one of
// shownColumnPrivs on its column i (has_column_privilege: on the relation
// or on the column).
func (s *sysSnap) columnShown(ri *relInfo, i int) bool {
	reader := s.privReader()
	if isSystemRel(ri) {
		return !superuserOnly[ri.name] || s.e.isMemberOf(reader, oidSuperuser)
	}
	o := ri.obj
	if held, _ := s.e.rolePrivs(reader, relACL(o), o.Owner, relAllPrivs(o)); held&shownColumnPrivs != 0 {
		return true
	}
	if i >= len(o.Columns) {
		return false
	}
	p, _ := s.e.rolePrivs(reader, o.Columns[i].ACL, o.Owner, allColumnPrivs)
	return p&shownColumnPrivs != 0
}

// schemaShown reports whether the reader owns sc or holds USAGE or
// CREATE on it.
func (s *sysSnap) schemaShown(sc *Schema) bool {
	reader := s.privReader()
	return s.e.isMemberOf(reader, ownerOID(sc.Owner)) || s.e.hasSchemaPriv(reader, sc, privUsage) ||
		s.e.hasSchemaPriv(reader, sc, privCreate)
}
