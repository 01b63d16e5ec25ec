package sql

import (
	"cmp"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// Name resolution and search_path.
//
// Before a statement is described or run, qualifyNames binds every
// relation name in it to a schema, as PostgreSQL does at parse analysis:
// a name created by the statement goes to its schema or the first
// existing schema of search_path (3F000 when none); a name it refers to
// is looked up in pg_catalog (first unless search_path lists it), then
// search_path's schemas in order, then eddy_catalog (Eddy's own system
// relations), skipping schemas the role may not use. The statement's AST
// is rewritten in place with the schemas found, so everything after this
// point (the planner, DDL, stored view queries deparsed from the AST)
// sees qualified names: a view's meaning never depends on the
// search_path of a later reader. Names of CTEs are left alone (the
// planner resolves them first), as are names found nowhere (their
// statements report them missing).

// searchPathList parses a search_path value into its schema names:
// quoted parts keep their case, "$user" stays as is.
func searchPathList(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		p := strings.TrimSpace(part)
		if p == "" {
			continue
		}
		if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			p = strings.ToLower(p)
		}
		out = append(out, p)
	}
	return out
}

// formatSearchPath renders search_path's list as SHOW prints it.
func formatSearchPath(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = pgQuoteIdent(n)
		if n == "$user" {
			out[i] = `"$user"`
		}
	}
	return strings.Join(out, ", ")
}

// listedSchemas returns search_path's schemas that exist, "$user"
// replaced by the current role's name.
func (s *Session) listedSchemas(cat *Catalog) []string {
	v, _ := s.settings.get("search_path")
	var out []string
	for _, n := range searchPathList(v) {
		switch n {
		case "$user":
			n = s.currentUser()
		case tempSchemaAlias:
			n = s.ownTempSchema(cat) // "" (skipped) until it exists
		}
		if cat.schemas[n] != nil && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// searchPath returns the schemas unqualified names are looked up in, in
// order: pg_catalog first unless listed, then the listed ones.
func (s *Session) searchPath(cat *Catalog) []string {
	listed := s.listedSchemas(cat)
	if !slices.Contains(listed, nsPgCatalog) {
		listed = append([]string{nsPgCatalog}, listed...)
	}
	// The session's temporary schema comes first unless listed (temp.go).
	if t := s.ownTempSchema(cat); t != "" && !slices.Contains(listed, t) {
		listed = append([]string{t}, listed...)
	}
	return listed
}

// creationSchema returns the schema an unqualified CREATE puts its object
// in: the first existing schema search_path lists.
func (s *Session) creationSchema(cat *Catalog) (string, error) {
	if l := s.listedSchemas(cat); len(l) > 0 {
		return l[0], nil
	}
	return "", repr.Errorf(codeInvalidSchemaName, "no schema has been selected to create in")
}

// relationIn reports whether schema holds a relation called name.
func relationIn(cat *Catalog, schema, name string) bool {
	return sysRelsByName[qualified(schema, name)] != nil || cat.byName[qualified(schema, name)] != nil
}

// resolveSchema returns the schema of the relation an unqualified name
// refers to ("" if none): the first on the search path that holds it
// and that the role may use, else eddy_catalog.
func (s *Session) resolveSchema(cat *Catalog, name string) string {
	for _, ns := range s.searchPath(cat) {
		if relationIn(cat, ns, name) && s.mayUseSchema(cat, ns) {
			return ns
		}
	}
	if relationIn(cat, nsEddyCatalog, name) {
		return nsEddyCatalog
	}
	return ""
}

// visible reports whether relation name of schema ns is the one its
// unqualified name finds on the search path (pg_table_is_visible): ns
// comes first among the path's schemas that hold the name. eddy_catalog
// is a system schema like information_schema: its relations are visible
// only when search_path lists it, so clients that list the visible
// relations outside pg_catalog and information_schema (psql's \d, \dv,
// SQLAlchemy's get_view_names) do not take them for the user's; the
// fallback that finds them unqualified (resolveSchema) is Eddy's
// convenience beyond the path.
func (s *Session) visible(cat *Catalog, ns, name string) bool {
	for _, p := range s.searchPath(cat) {
		if p == ns {
			return s.mayUseSchema(cat, ns)
		}
		if relationIn(cat, p, name) && s.mayUseSchema(cat, p) {
			return false
		}
	}
	return false
}

// qualifyNames binds the relation names of st to schemas (see above),
// under the engine's read lock, and returns the privileges the statement
// needs on the relations it names.
func (s *Session) qualifyNames(st *parse.Stmt) ([]privNeed, error) {
	s.e.mu.RLock()
	defer s.e.mu.RUnlock()
	q := &qualifier{s: s, cat: s.e.cat, ctes: map[string]bool{}, done: map[*pg.RangeVar]bool{}}
	var err error
	if st.AST != nil {
		err = q.stmt(st.AST)
	} else {
		err = q.ext(st.Ext)
	}
	return q.needs, err
}

// qualifier rewrites one statement's names.
type qualifier struct {
	s    *Session
	cat  *Catalog
	ctes map[string]bool // every CTE name of the statement
	// priv is what a name the generic walk finds needs (0: nothing, for
	// DDL, whose rules are ownership); needs collects them; done are the
	// names already handled.
	priv  aclMode
	needs []privNeed
	done  map[*pg.RangeVar]bool
	// colRefs are the statement's column references (columnRefs);
	// writes, while the DML target is recorded, the columns it assigns.
	colRefs [][]string
	writes  colUse
	sets    colUse
	// ops are the operators recorded (operator), by name and arity.
	ops map[string]bool
}

// needWriting is need for a statement's target, which assigns the
// columns of use.
func (q *qualifier) needWriting(rv *pg.RangeVar, priv aclMode, use colUse) error {
	q.writes = use
	defer func() { q.writes = colUse{} }()
	return q.need(rv, priv)
}

// need qualifies rv and records that the statement needs priv on it.
func (q *qualifier) need(rv *pg.RangeVar, priv aclMode) error {
	if rv == nil {
		return nil
	}
	q.done[rv] = true
	if err := q.ref(rv); err != nil {
		return err
	}
	q.record(rv, priv)
	return nil
}

// record notes a need for priv on the relation rv names, if it exists.
func (q *qualifier) record(rv *pg.RangeVar, priv aclMode) {
	if priv == 0 || rv.Schemaname == "" {
		return
	}
	if o := q.cat.lookup(rv.Schemaname, rv.Relname); o != nil {
		q.needs = append(q.needs, privNeed{id: o.ID, priv: priv, reads: readUse(q.colRefs, rv, o), writes: q.writes, sets: q.sets})
	} else if r := lookupSysRel(rv.Schemaname, rv.Relname); r != nil && superuserOnly[r.name] {
		q.needs = append(q.needs, privNeed{id: r.id, priv: priv})
	}
}

// dmlPrivs records the privileges of a DML statement's target: its own,
// and SELECT when the statement reads the target's rows.
func (q *qualifier) dmlPrivs(n *pg.Node) error {
	switch {
	case n.GetExplainStmt() != nil: // EXPLAIN checks a write's privileges too
		return q.dmlPrivs(n.GetExplainStmt().Query)
	case n.GetInsertStmt() != nil:
		st := n.GetInsertStmt()
		p := privInsert
		if len(st.ReturningList) > 0 || st.OnConflictClause != nil {
			p |= privSelect
		}
		if oc := st.OnConflictClause; oc != nil && oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
			p |= privUpdate
			q.sets = conflictSets(oc)
			defer func() { q.sets = colUse{} }()
		}
		return q.needWriting(st.Relation, p, insertUse(st))
	case n.GetUpdateStmt() != nil:
		st := n.GetUpdateStmt()
		p := privUpdate
		if st.WhereClause != nil || len(st.ReturningList) > 0 || len(st.FromClause) > 0 || setReads(st) {
			p |= privSelect
		}
		q.sets = updateUse(st)
		defer func() { q.sets = colUse{} }()
		return q.needWriting(st.Relation, p, q.sets)
	case n.GetDeleteStmt() != nil:
		st := n.GetDeleteStmt()
		p := privDelete
		if st.WhereClause != nil || len(st.ReturningList) > 0 || len(st.UsingClause) > 0 {
			p |= privSelect
		}
		return q.need(st.Relation, p)
	case n.GetSelectStmt() != nil:
		for _, rv := range planner.LockedTables(n.GetSelectStmt()) {
			if err := q.need(rv, privSelect|privUpdate); err != nil {
				return err
			}
		}
	case n.GetTruncateStmt() != nil:
		for _, r := range n.GetTruncateStmt().Relations {
			if err := q.need(r.GetRangeVar(), privTruncate); err != nil {
				return err
			}
		}
	case n.GetCopyStmt() != nil && n.GetCopyStmt().Relation != nil:
		p, use := privSelect, copyUse(n.GetCopyStmt())
		if n.GetCopyStmt().IsFrom {
			p = privInsert
		} else {
			q.colRefs = use.refs()
		}
		return q.needWriting(n.GetCopyStmt().Relation, p, use)
	}
	return nil
}

// readsRows reports whether the names in statement n are read (need
// SELECT): queries, DML, COPY, views, EXPLAIN and cursors.
func readsRows(n *pg.Node) bool {
	switch {
	case n.GetSelectStmt() != nil, n.GetInsertStmt() != nil, n.GetUpdateStmt() != nil, n.GetDeleteStmt() != nil,
		n.GetCopyStmt() != nil, n.GetViewStmt() != nil, n.GetCreateTableAsStmt() != nil, n.GetExplainStmt() != nil,
		n.GetDeclareCursorStmt() != nil:
		return true
	}
	return false
}

// stmt qualifies a PostgreSQL statement: first the names it creates,
// then every name it refers to.
func (q *qualifier) stmt(n *pg.Node) error {
	walked := withoutLiteralRows(n)
	if readsRows(n) {
		q.priv = privSelect
		q.colRefs = stmtColumnRefs(walked)
	}
	err := q.dmlPrivs(n)
	explicitView := false
	ces, _ := planner.ModifyingCTEs(n)
	for _, ce := range ces {
		if err == nil {
			err = q.dmlPrivs(ce.Ctequery)
		}
	}
	switch {
	case n.GetCreateStmt() != nil:
		if err = q.target(n.GetCreateStmt().Relation); err == nil {
			err = checkOnCommit(n.GetCreateStmt().Relation, n.GetCreateStmt().Oncommit)
		}
		q.columnTypes(n.GetCreateStmt().TableElts)
	case n.GetAlterTableStmt() != nil:
		for _, c := range n.GetAlterTableStmt().Cmds {
			q.columnTypes([]*pg.Node{c.GetAlterTableCmd().GetDef()})
		}
	case n.GetViewStmt() != nil:
		explicitView = n.GetViewStmt().View.Schemaname != ""
		err = q.target(n.GetViewStmt().View)
	case n.GetCreateTableAsStmt() != nil:
		into := n.GetCreateTableAsStmt().Into
		if err = q.target(into.Rel); err == nil && n.GetCreateTableAsStmt().Objtype == pg.ObjectType_OBJECT_TABLE {
			err = checkOnCommit(into.Rel, into.OnCommit)
		}
	case n.GetCompositeTypeStmt() != nil:
		err = q.target(n.GetCompositeTypeStmt().Typevar)
	case n.GetCreateEnumStmt() != nil:
		err = q.enumTarget(n.GetCreateEnumStmt())
	case n.GetAlterEnumStmt() != nil:
		l := &pg.List{Items: n.GetAlterEnumStmt().TypeName}
		if err = q.nameList(l, 0); err == nil {
			n.GetAlterEnumStmt().TypeName = l.Items
		}
	case n.GetRenameStmt() != nil && n.GetRenameStmt().RenameType == pg.ObjectType_OBJECT_TYPE:
		if l := n.GetRenameStmt().Object.GetList(); l != nil {
			err = q.nameList(l, 0)
		}
	case n.GetCreateSeqStmt() != nil:
		err = q.target(n.GetCreateSeqStmt().Sequence)
	case n.GetDropStmt() != nil:
		err = q.dropNames(n.GetDropStmt())
	case n.GetCommentStmt() != nil:
		err = q.commentName(n.GetCommentStmt())
	}
	if err != nil {
		return err
	}
	if err := q.refs(walked); err != nil {
		return err
	}
	if ct := n.GetCreateTableAsStmt(); ct != nil && ct.Objtype == pg.ObjectType_OBJECT_MATVIEW && readsTemp(ct.Query) {
		return errTempMatView
	}
	if n.GetViewStmt() != nil {
		if err := q.tempView(n.GetViewStmt(), explicitView); err != nil {
			return err
		}
		// PostgreSQL checks a view's functions for the role that queries
		// the view (callNeeds), not when it is created.
		q.needs = slices.DeleteFunc(q.needs, func(n privNeed) bool { return n.fn != "" })
	}
	return nil
}

// withoutLiteralRows returns n, or for an INSERT ... VALUES a copy of its
// InsertStmt and SelectStmt without the VALUES rows that hold only
// literals, which name no relation and no column: the walks over the
// statement need not visit the thousands of constants of a bulk insert.
// Everything else, the target RangeVar included, is shared with n, so
// qualifying a name in the copy qualifies it in n.
func withoutLiteralRows(n *pg.Node) *pg.Node {
	ins := n.GetInsertStmt()
	sel := ins.GetSelectStmt().GetSelectStmt()
	if !bareValues(sel) {
		return n
	}
	var kept []*pg.Node
	for _, row := range sel.ValuesLists {
		if !allLiterals(row.GetList().GetItems()) {
			kept = append(kept, row)
		}
	}
	if len(kept) == len(sel.ValuesLists) {
		return n
	}
	selCopy := &pg.SelectStmt{ValuesLists: kept, Op: sel.Op, LimitOption: sel.LimitOption}
	insCopy := &pg.InsertStmt{Relation: ins.Relation, Cols: ins.Cols, OnConflictClause: ins.OnConflictClause,
		ReturningList: ins.ReturningList, WithClause: ins.WithClause, Override: ins.Override,
		SelectStmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: selCopy}}}
	return &pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: insCopy}}
}

// bareValues reports whether sel is a VALUES list of two or more rows and
// nothing else (no ORDER BY, LIMIT or WITH).
func bareValues(sel *pg.SelectStmt) bool {
	return sel != nil && len(sel.ValuesLists) > 1 && sel.WithClause == nil && len(sel.SortClause) == 0 &&
		sel.LimitOffset == nil && sel.LimitCount == nil && len(sel.LockingClause) == 0 && len(sel.TargetList) == 0 &&
		len(sel.FromClause) == 0 && sel.WhereClause == nil && len(sel.GroupClause) == 0 && sel.HavingClause == nil &&
		len(sel.WindowClause) == 0 && len(sel.DistinctClause) == 0 && sel.IntoClause == nil && sel.Larg == nil && sel.Rarg == nil
}

// allLiterals reports whether every item is an A_Const.
func allLiterals(items []*pg.Node) bool {
	for _, it := range items {
		if it.GetAConst() == nil {
			return false
		}
	}
	return true
}

// ext qualifies an extension statement.
func (q *qualifier) ext(x parse.Ext) error {
	switch x := x.(type) {
	case *parse.CreateSource:
		rv := &pg.RangeVar{Schemaname: x.Schema, Relname: x.Name}
		if err := q.target(rv); err != nil {
			return err
		}
		if isTempSchema(rv.Schemaname) {
			return repr.Unsupported("a temporary source")
		}
		x.Schema = rv.Schemaname
	case *parse.Subscribe:
		q.priv = privSelect
		q.colRefs = [][]string{{"*"}}
		if x.Query != nil {
			q.colRefs = stmtColumnRefs(x.Query)
		}
		if x.Relation != nil {
			return q.need(x.Relation, privSelect)
		}
		return q.refs(x.Query)
	case *parse.DropObject:
		for _, rv := range x.Names {
			if x.Kind == "SINK" && rv.Schemaname == "" && rv.Catalogname == "" {
				rv.Schemaname = q.s.resolveSinkSchema(q.cat, rv.Relname) // sinks are not relations
				continue
			}
			if err := q.ref(rv); err != nil {
				return err
			}
		}
	case *parse.CreateSink:
		rv := &pg.RangeVar{Schemaname: x.Schema, Relname: x.Name}
		if err := q.target(rv); err != nil {
			return err
		}
		if isTempSchema(rv.Schemaname) {
			return repr.Unsupported("a temporary sink")
		}
		x.Schema = rv.Schemaname
		q.priv = privSelect
		q.colRefs = [][]string{{"*"}}
		if x.Query != nil {
			q.colRefs = stmtColumnRefs(x.Query)
		}
		var err error
		if x.From != nil {
			err = q.need(x.From, privSelect)
		} else if x.Query != nil {
			err = q.refs(x.Query)
		}
		if err == nil && ((x.From != nil && isTempSchema(x.From.Schemaname)) || (x.Query != nil && readsTemp(x.Query))) {
			err = repr.Unsupported("a sink reading a temporary table or view") // it would outlive its input
		}
		return err
	}
	return nil
}

// catalogName checks a database qualifier: the current database, or 0A000.
func (q *qualifier) catalogName(rv *pg.RangeVar) error {
	if rv.Catalogname == "" {
		return nil
	}
	if rv.Catalogname != q.s.settings.database {
		return repr.Errorf(repr.CodeFeatureNotSupported, "cross-database references are not implemented: %s.%s.%s", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	rv.Catalogname = ""
	return nil
}

// target qualifies the name of an object being created.
func (q *qualifier) target(rv *pg.RangeVar) error {
	if q.wantsTemp(rv) {
		return q.tempTarget(rv)
	}
	if err := q.catalogName(rv); err != nil {
		return err
	}
	if rv.Schemaname == "" {
		ns, err := q.s.creationSchema(q.cat)
		if err != nil {
			return err
		}
		rv.Schemaname = ns
	}
	return q.s.checkCreateIn(q.cat, rv.Schemaname, rv.Relname)
}

// refs qualifies every relation n refers to.
func (q *qualifier) refs(n *pg.Node) error {
	if n == nil {
		return nil
	}
	// One walk collects the names; CTE names must all be known before any
	// name is qualified, and foreign keys' names come first.
	var keys []*pg.Constraint
	var rvs []*pg.RangeVar
	locked := map[*pg.RangeVar]bool{} // locking needs UPDATE, at any depth
	walkProtoPruned(n, func(m proto.Message) bool {
		switch m := m.(type) {
		case *pg.SelectStmt:
			for _, rv := range planner.LockedTables(m) {
				locked[rv] = true
			}
		case *pg.TypeName:
			q.typeName(m)
		case *pg.CommonTableExpr:
			q.ctes[m.Ctename] = true
		case *pg.Constraint:
			if m.Pktable != nil {
				keys = append(keys, m)
			}
		case *pg.RangeVar:
			rvs = append(rvs, m)
		case *pg.FuncCall:
			q.tempCall(m)
			q.call(m)
		case *pg.A_Expr:
			q.operator(m)
		case *pg.A_Const:
			return false // a literal names nothing (VALUES lists of thousands)
		}
		return true
	})
	for _, c := range keys {
		if err := q.need(c.Pktable, privReferences); err != nil {
			return err
		}
	}
	for _, rv := range rvs {
		if q.done[rv] {
			continue
		}
		if err := q.ref(rv); err != nil {
			return err
		}
		if locked[rv] {
			q.record(rv, q.priv|privSelect|privUpdate)
		} else {
			q.record(rv, q.priv)
		}
	}
	return nil
}

// ref qualifies one name referring to an existing relation.
func (q *qualifier) ref(rv *pg.RangeVar) error {
	if err := q.catalogName(rv); err != nil {
		return err
	}
	if rv.Schemaname == tempSchemaAlias {
		rv.Schemaname = cmp.Or(q.s.ownTempSchema(q.cat), tempSchemaAlias)
	}
	if isTempSchema(rv.Schemaname) && rv.Schemaname != q.s.ownTempSchema(q.cat) && relationIn(q.cat, rv.Schemaname, rv.Relname) {
		return errOtherTemp
	}
	if rv.Schemaname != "" {
		return q.s.checkSchemaUsage(q.cat, rv.Schemaname)
	}
	if q.ctes[rv.Relname] {
		return nil
	}
	rv.Schemaname = q.s.resolveSchema(q.cat, rv.Relname)
	if rv.Schemaname == "" && q.cat.lookup("", rv.Relname) != nil {
		// Found only outside the search path (in public when the path
		// leaves it out): name a schema that cannot hold it.
		rv.Schemaname = nsPgCatalog
	}
	return nil
}

// nameList qualifies a dotted object name of DROP or COMMENT (String
// nodes): the last part is the relation; db.schema.name drops the
// current database.
func (q *qualifier) nameList(l *pg.List, extra int) error {
	items := l.GetItems()
	if len(items) < 1+extra {
		return nil
	}
	parts := len(items) - extra
	rv := &pg.RangeVar{Relname: items[parts-1].GetString_().GetSval()}
	switch parts {
	case 3:
		rv.Catalogname, rv.Schemaname = items[0].GetString_().GetSval(), items[1].GetString_().GetSval()
	case 2:
		rv.Schemaname = items[0].GetString_().GetSval()
	}
	if err := q.ref(rv); err != nil {
		return err
	}
	if rv.Schemaname == "" {
		return nil // missing: reported by the statement
	}
	out := []*pg.Node{pg.MakeStrNode(rv.Schemaname), pg.MakeStrNode(rv.Relname)}
	l.Items = append(out, items[parts:]...)
	return nil
}

// dropNames qualifies the relations of a DROP.
func (q *qualifier) dropNames(ds *pg.DropStmt) error {
	switch ds.RemoveType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW,
		pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_INDEX:
		for _, o := range ds.Objects {
			if l := o.GetList(); l != nil {
				if err := q.nameList(l, 0); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// commentName qualifies the relation of COMMENT ON.
func (q *qualifier) commentName(cs *pg.CommentStmt) error {
	l := cs.Object.GetList()
	if l == nil {
		return nil
	}
	switch cs.Objtype {
	case pg.ObjectType_OBJECT_COLUMN:
		return q.nameList(l, 1)
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW,
		pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_INDEX:
		return q.nameList(l, 0)
	}
	return nil
}

// currentSchema is current_schema(): the first existing schema of the
// search path ("" for none).
func (s *Session) currentSchema() string {
	s.e.mu.RLock()
	defer s.e.mu.RUnlock()
	if l := s.listedSchemas(s.e.cat); len(l) > 0 {
		return l[0]
	}
	return ""
}

// applySet executes SET/RESET, keeping search_path's names as SHOW
// prints them.
func (s *Session) applySet(st *pg.VariableSetStmt) error {
	if strings.EqualFold(st.Name, "search_path") && st.Kind == pg.VariableSetKind_VAR_SET_VALUE {
		names := make([]string, 0, len(st.Args))
		for _, a := range st.Args {
			names = append(names, a.GetAConst().GetSval().GetSval())
		}
		return s.setting("search_path", formatSearchPath(names), st.IsLocal)
	}
	return s.execSet(st)
}

// seqName qualifies a sequence name given as text (nextval's argument)
// along the search path; a qualified or unknown name is returned as is.
func (s *Session) seqName(name string) string {
	var out string
	s.e.readLocked(func() { out = s.seqNameHeld(name) })
	return out
}

// seqNameHeld is seqName with e.mu held.
func (s *Session) seqNameHeld(name string) string {
	schema, rel := splitQualifiedName(name)
	if schema != "" {
		return name
	}
	ns := s.resolveSchema(s.e.cat, rel)
	if ns == "" {
		return name
	}
	return pgQuoteIdent(ns) + "." + pgQuoteIdent(rel)
}
