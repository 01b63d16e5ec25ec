package sql

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// ALTER TYPE of a composite type: RENAME TO, and ADD / DROP / RENAME
// ATTRIBUTE, also while table columns use the type (their stored values
// are rewritten to the new fields) and plain views use it (they are
// planned from their stored query at each read) and materialized views
// whose stored plan stays valid (matviewKeepsPlan); others are 0A000, see
// typeInUse. A rename keeps the OID, so columns of the type follow it, and
// rewrites the stored queries that name the type, as PostgreSQL's views
// hold its OID.

// lookupType returns the composite type the names name (42704 when
// none, 42809 when they name a relation), checking ownership.
func (p *Portal) lookupType(names []*pg.Node) (*Object, error) {
	var parts []string
	for _, n := range names {
		parts = append(parts, n.GetString_().GetSval())
	}
	schema, name := "", parts[len(parts)-1]
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	e := p.st.s.e
	o := e.cat.lookup(schema, name)
	switch {
	case o == nil:
		return nil, repr.Errorf(repr.CodeUndefinedObject, "type \"%s\" does not exist", name)
	case o.Kind != relType:
		return nil, repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is %s", name, aKind(o.Kind)).
			WithHint("Use ALTER %s instead.", strings.ToUpper(kindName(o.Kind)))
	}
	return o, e.checkOwner(p.st.s, o.Owner, "type", o.Name)
}

// execRenameType executes ALTER TYPE name RENAME TO new and ALTER TYPE
// name RENAME ATTRIBUTE a TO b.
func (p *Portal) execRenameType(rs *pg.RenameStmt) error {
	p.tag = "ALTER TYPE"
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	names := rs.Object.GetList().GetItems()
	if rs.Relation != nil { // RENAME ATTRIBUTE names the type as a relation
		names = typeNameOf(rs.Relation)
	}
	o, err := p.lookupType(names)
	if err != nil {
		return err
	}
	nu := o.clone()
	if rs.RenameType == pg.ObjectType_OBJECT_ATTRIBUTE {
		i := columnIndex(nu.Columns, rs.Subname)
		if i < 0 {
			return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" does not exist", rs.Subname)
		}
		if columnIndex(nu.Columns, rs.Newname) >= 0 {
			return repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" of relation \"%s\" already exists", rs.Newname, o.Name)
		}
		nu.Columns[i].Name = rs.Newname
		rw, err := e.renameFieldInMatviews(o, rs.Subname, rs.Newname)
		if err != nil {
			return err
		}
		if _, err := e.typeInUse(o, nu, "ALTER TYPE ... RENAME ATTRIBUTE", []string{rs.Subname}, rw, false); err != nil {
			return err
		}
		var also [][2]*Object
		for _, x := range e.typeUsers(o) {
			if r := rw[x.ID]; r != nil {
				also = append(also, [2]*Object{x, r})
			}
		}
		return e.commitAltered(o, nu, nil, also...)
	}
	if e.cat.lookup(o.Schema, rs.Newname) != nil {
		return repr.Errorf(repr.CodeDuplicateTable, "relation \"%s\" already exists", rs.Newname)
	}
	views, err := e.cat.renameTypeInViews(o, rs.Newname)
	if err != nil {
		return err
	}
	nu.Name = rs.Newname
	return e.commitAltered(o, nu, nil, views...)
}

// execAlterType executes ALTER TYPE name ADD ATTRIBUTE / DROP ATTRIBUTE
// (several, in order). Columns of the type keep their values: each stored
// value gets NULL for an added field and loses a dropped one
// (commitTypeChange).
func (p *Portal) execAlterType(as *pg.AlterTableStmt) error {
	p.tag = "ALTER TYPE"
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	o, err := p.lookupType(typeNameOf(as.Relation))
	if err != nil {
		return err
	}
	nu := o.clone()
	srcs := make([]int, len(o.Columns)) // field of nu -> field of o (-1: added)
	for i := range srcs {
		srcs[i] = i
	}
	what := "ALTER TYPE ... ADD ATTRIBUTE"
	var dropped []string
	var cascadeDrop []*Object // views DROP ATTRIBUTE ... CASCADE drops
	var cascadeErrs []error
	for _, n := range as.Cmds {
		cmd := n.GetAlterTableCmd()
		switch cmd.Subtype {
		case pg.AlterTableType_AT_AddColumn:
			err = e.addAttribute(o, nu, cmd)
			srcs = append(srcs, -1)
		case pg.AlterTableType_AT_DropColumn:
			var i int
			if i, err = dropAttribute(o, nu, cmd); i >= 0 {
				srcs, what = append(srcs[:i:i], srcs[i+1:]...), "ALTER TYPE ... DROP ATTRIBUTE"
				dropped = append(dropped, cmd.Name)
				err = e.fieldDependents(o, cmd.Name)
				if err != nil && cmd.Behavior == pg.DropBehavior_DROP_CASCADE {
					cascadeDrop = append(cascadeDrop, e.fieldUsers(o, cmd.Name)...)
					cascadeErrs, err = append(cascadeErrs, err), nil
				}
			}
		case pg.AlterTableType_AT_AlterColumnType:
			err = e.alterAttributeType(o, nu, cmd)
			what = "ALTER TYPE ... ALTER ATTRIBUTE ... TYPE"
			dropped = append(dropped, cmd.Name)
		default:
			err = repr.Unsupported("ALTER TYPE %s", strings.TrimPrefix(cmd.Subtype.String(), "AT_"))
		}
		if err != nil {
			return err
		}
	}
	if len(cascadeDrop) == 0 {
		return e.commitTypeChange(p.st.s, o, nu, srcs, what, dropped)
	}
	err = e.atomically(func() error {
		for _, v := range cascadeDrop {
			if cur := e.cat.byID[v.ID]; cur != nil {
				if err := e.dropSteps(cur, true); err != nil {
					return err
				}
			}
		}
		return e.commitTypeChange(p.st.s, e.cat.byID[o.ID], nu, srcs, what, dropped)
	})
	p.st.s.noticeCascade(err, cascadeErrs...)
	return err
}

// addAttribute appends a field to nu (the altered copy of o).
func (e *Engine) addAttribute(o, nu *Object, cmd *pg.AlterTableCmd) error {
	cols, err := e.cat.fieldDefs([]*pg.Node{cmd.Def})
	if err != nil {
		return err
	}
	if columnIndex(nu.Columns, cols[0].Name) >= 0 {
		return repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cols[0].Name, o.Name)
	}
	if e.cat.typeContains(cols[0].Type, typeOID(o)) {
		return repr.Errorf("42P16", "composite type %s cannot be made a member of itself", o.Name)
	}
	nu.Columns = append(nu.Columns, cols[0])
	return nil
}

// alterAttributeType changes the type of a field of nu (the altered copy
// of o), as PostgreSQL only while no stored column holds values of o
// (0A000 naming the column, find_composite_type_dependencies' message):
// no value needs converting. A field of o's own type is 42P16.
func (e *Engine) alterAttributeType(o, nu *Object, cmd *pg.AlterTableCmd) error {
	i := columnIndex(nu.Columns, cmd.Name)
	if i < 0 {
		return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, o.Name)
	}
	if rel, col, ok := e.cat.storedUser(typeOID(o)); ok {
		return repr.Errorf(repr.CodeFeatureNotSupported, "cannot alter type \"%s\" because column \"%s.%s\" uses it", o.Name, rel, col)
	}
	cd := cmd.Def.GetColumnDef()
	if cd == nil || cd.TypeName == nil {
		return repr.Unsupported("ALTER TYPE ... ALTER ATTRIBUTE without a type")
	}
	t, err := e.cat.fieldType(cd.TypeName)
	if err != nil {
		return err
	}
	if e.cat.typeContains(t, typeOID(o)) {
		return repr.Errorf("42P16", "composite type %s cannot be made a member of itself", o.Name)
	}
	nu.Columns[i].Type = t
	return nil
}

// storedUser returns a column of a relation that stores values (not a
// view or a composite type) whose type holds values of the composite type
// oid, directly, in an array or in a field of another composite type.
func (c *Catalog) storedUser(oid uint32) (rel, col string, ok bool) {
	for _, u := range c.objects() {
		if u.Kind == planner.RelView || u.Kind == relType || u.Kind == relIndex || u.Kind == relSequence {
			continue
		}
		for _, cl := range u.Columns {
			if c.typeContains(cl.Type, oid) {
				return u.Name, cl.Name, true
			}
		}
	}
	return "", "", false
}

// typeContains reports whether values of type t hold values of the
// composite type oid: t is it, or a composite type with a field that
// contains it. It stops at a type it has already visited, so a catalog
// holding a cycle (a table with a column of its own row type, which ALTER
// TABLE once accepted) cannot send it into endless recursion.
func (c *Catalog) typeContains(t repr.T, oid uint32) bool {
	return c.typeContainsSeen(t, oid, map[uint32]bool{})
}

func (c *Catalog) typeContainsSeen(t repr.T, oid uint32, seen map[uint32]bool) bool {
	if t.Composite == 0 || seen[t.Composite] {
		return false
	}
	if t.Composite == oid {
		return true
	}
	seen[t.Composite] = true
	o := c.compositeByOID(t.Composite)
	if o == nil {
		return false
	}
	for _, col := range o.Columns {
		if c.typeContainsSeen(col.Type, oid, seen) {
			return true
		}
	}
	return false
}

// dropAttribute removes a field from nu (the altered copy of o),
// returning its index (-1: none, under IF EXISTS).
func dropAttribute(o, nu *Object, cmd *pg.AlterTableCmd) (int, error) {
	i := columnIndex(nu.Columns, cmd.Name)
	if i < 0 {
		if cmd.MissingOk {
			return -1, nil
		}
		return -1, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, o.Name)
	}
	nu.Columns = append(nu.Columns[:i:i], nu.Columns[i+1:]...)
	return i, nil
}

// fieldDependents refuses to drop the field name of the composite type
// o while a view or materialized view reads it by name ((v).name), as
// PostgreSQL does (2BP01 with its detail lines: each such view, then the
// objects over it). The views looked at use the type or read a table
// with a column of it.
func (e *Engine) fieldDependents(o *Object, name string) error {
	users := e.fieldUsers(o, name)
	if len(users) == 0 {
		return nil
	}
	var lines []string
	seen := map[uint64]bool{}
	for _, v := range users {
		seen[v.ID] = true
	}
	for _, v := range users {
		lines = append(lines, fmt.Sprintf("%s %s depends on column %s of composite type %s", kindName(v.Kind), v.Name, name, o.Name))
		lines = append(lines, e.dependencyLines(seen, v)...)
	}
	return repr.Errorf("2BP01", "cannot drop column %s of composite type %s because other objects depend on it", name, o.Name).
		WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// fieldUsers returns the views and materialized views that read the
// field name of the composite type o by name.
func (e *Engine) fieldUsers(o *Object, name string) []*Object {
	d := e.cat.typeDependents(o)
	views := append([]*Object(nil), d.views...)
	for _, t := range d.order {
		views = append(views, e.dropSet(t)[1:]...)
	}
	var out []*Object
	seen := map[*Object]bool{}
	for _, v := range views {
		isView := v.Kind == planner.RelView || v.Kind == planner.RelMaterializedView
		if isView && !seen[v] && viewNamesField(v, name) {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// viewNamesField reports whether the stored query of v selects a field
// called name from a composite value ((x).name; a.b.c names a column).
func viewNamesField(v *Object, name string) bool {
	if v.SQL == "" {
		return false
	}
	n, err := parseOne(v.SQL)
	if err != nil {
		return false
	}
	named := func(ns []*pg.Node) bool {
		for _, x := range ns {
			if x.GetString_().GetSval() == name {
				return true
			}
		}
		return false
	}
	found := false
	walkProto(n, func(m proto.Message) {
		switch m := m.(type) {
		case *pg.A_Indirection:
			found = found || named(m.Indirection)
		}
	})
	return found
}

// typeInUse refuses a change to the fields of the composite type o (nu:
// its changed copy) that Eddy cannot apply to what uses it (0A000 naming
// what and the user): a materialized view whose stored plan the change
// would invalidate (matviewKeepsPlan); a plain view that cannot be planned again unchanged
// (viewReplans); a relation other than a table or view with a column of
// the type. fields are the old names of the renamed or dropped fields;
// rw are materialized views whose stored query a rename rewrote (by id),
// checked in their rewritten form. It returns the tables with columns of
// the type.
func (e *Engine) typeInUse(o, nu *Object, what string, fields []string, rw map[uint64]*Object, rebuild bool) (typeDeps, error) {
	d := e.cat.typeDependents(o)
	refuse := func(user string) error {
		return repr.Unsupported("%s of type %s, which %s uses", what, o.Name, user)
	}
	owner := "composite type"
	if hasRowType(o) {
		owner = "table"
	}
	// dropUser is PostgreSQL's 2BP01 for a view selecting a dropped field
	// (its dependency on the column), or nil.
	dropUser := func(x *Object) error {
		if !strings.Contains(what, "DROP") || x.Kind != planner.RelView && x.Kind != planner.RelMaterializedView {
			return nil
		}
		for _, f := range fields {
			if viewMentionsField(x, f) {
				return repr.Errorf(repr.CodeDependentObjects, "cannot drop column %s of %s %s because other objects depend on it", f, owner, o.Name).
					WithDetail("%s %s depends on column %s of %s %s", kindName(x.Kind), x.Name, f, owner, o.Name).
					WithHint("Drop the dependent objects first.")
			}
		}
		return nil
	}
	shadow := e.cat.shadow(o, nu)
	// A materialized view that cannot keep its plan is recomputed after
	// the change when it plans to the same columns and names no dropped
	// field (ADD/DROP, not RENAME, of fields).
	rebuilds := func(x *Object) bool {
		if !rebuild || slices.ContainsFunc(fields, func(f string) bool { return viewMentionsField(x, f) }) || !e.replansSame(x, shadow) {
			return false
		}
		d.rebuild = append(d.rebuild, x)
		return true
	}
	keeps := func(x *Object) bool {
		if r := rw[x.ID]; r != nil {
			return e.matviewKeepsPlan(x, r, o, shadow)
		}
		return viewReplans(x, o, fields) || e.matviewKeepsPlan(x, x, o, shadow)
	}
	for _, v := range d.views {
		for _, x := range e.dropSet(v) {
			if keeps(x) {
				continue
			}
			if err := dropUser(x); err != nil {
				return d, err
			}
			if !rebuilds(x) {
				return d, refuse(kindName(x.Kind) + " " + x.Name)
			}
		}
	}
	for _, t := range d.order {
		if t.Kind != planner.RelTable {
			return d, refuse(depKind(t) + " " + t.Name)
		}
		for _, x := range e.dropSet(t)[1:] {
			if keeps(x) {
				continue
			}
			if err := dropUser(x); err != nil {
				return d, err
			}
			if !rebuilds(x) {
				return d, refuse(fmt.Sprintf("%s %s (reading table %s)", kindName(x.Kind), x.Name, t.Name))
			}
		}
	}
	return d, nil
}

// replansSame reports whether materialized view x plans under shadow to
// the same columns (names and types) as now: recomputed from its query
// after the change (rebuildView), it equals its query over the new
// fields, as PostgreSQL's REFRESH would make it.
func (e *Engine) replansSame(x *Object, shadow *Catalog) bool {
	if x.Kind != planner.RelMaterializedView {
		return false
	}
	defer func() { e.planRows = nil }()
	cols, _, err := e.planText(x, e.cat)
	if err != nil {
		return false
	}
	cols2, _, err := e.planText(x, shadow)
	return err == nil && cols == cols2
}

// viewReplans reports whether x is a plain view that reads the same after
// the fields of the composite type o change: PostgreSQL keeps such a
// view, reading the new fields (NULL for an added one), and Eddy plans a
// view's stored query at each read, so its query must not name the type
// (a cast to it would now convert to the new fields) nor any of fields by
// name ((v).f, t.v.f: a renamed or dropped field it could no longer
// find).
func viewReplans(x, o *Object, fields []string) bool {
	if x.Kind != planner.RelView || viewNamesType(x, o) {
		return false
	}
	for _, f := range fields {
		if viewMentionsField(x, f) {
			return false
		}
	}
	return true
}

// viewMentionsField reports whether the stored query of v may select a
// field called name: as (x).name (viewNamesField) or as a later part of
// a column reference (t.c.name, c.name), which PostgreSQL may read as a
// field selection. It errs on the side of true.
func viewMentionsField(v *Object, name string) bool {
	if viewNamesField(v, name) {
		return true
	}
	n, err := parseOne(v.SQL)
	if err != nil {
		return true
	}
	found := false
	walkProto(n, func(m proto.Message) {
		if cr, ok := m.(*pg.ColumnRef); ok {
			for _, f := range cr.Fields[min(1, len(cr.Fields)):] {
				found = found || f.GetString_().GetSval() == name
			}
		}
	})
	return found
}

// commitTypeChange commits nu, the altered copy of the composite type o,
// whose field i comes from o's field srcs[i] (-1: added). The stored
// values of each table column of the type (or of an array of it) are
// rewritten to the new fields, NULL for an added one, in the batch that
// commits the type when one table uses it (one batch per table after
// that); so are the session's pending writes to those tables.
func (e *Engine) commitTypeChange(s *Session, o, nu *Object, srcs []int, what string, dropped []string) error {
	d, err := e.typeInUse(o, nu, what, dropped, nil, true)
	if err != nil {
		return err
	}
	return e.rebuildAfter(what, o.Name, d.rebuild, func() error {
		if len(d.order) == 0 {
			return e.commitAltered(o, nu, nil)
		}
		return e.reshapeStored(s, o, nu, srcs, d.order, [][2]*Object{{o, nu}})
	})
}

// reshapeStored rewrites the stored values of the composite type (or
// relation row type) o, in the columns of the tables, to the fields of
// its changed copy nu, whose field i comes from o's field srcs[i] (-1:
// added, NULL), with the session's pending writes to them. also are
// committed in the first table's batch.
func (e *Engine) reshapeStored(s *Session, o, nu *Object, srcs []int, tables []*Object, also [][2]*Object) error {
	types := make([]repr.T, len(nu.Columns))
	for i, c := range nu.Columns {
		types[i] = c.Type
	}
	oid := typeOID(o)
	for _, t := range tables {
		conv := func(r repr.Row) (repr.Row, error) {
			out := append(repr.Row(nil), r...)
			for i, c := range t.Columns {
				if c.Type.Composite != oid {
					continue
				}
				var err error
				if out[i], err = reshapeRecord(r[i], c.Type, srcs, types); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		if err := s.reshapePending(t.ID, conv); err != nil {
			return err
		}
		if err := e.commitAltered(t, t.clone(), conv, also...); err != nil {
			return err
		}
		also = nil
	}
	return nil
}

// reshapeRecord maps a value of a composite type (or an array of one,
// per element) to the type's new fields: field i of the result is field
// srcs[i] of d, NULL where srcs[i] is -1.
func reshapeRecord(d repr.Datum, t repr.T, srcs []int, types []repr.T) (repr.Datum, error) {
	if d.IsNull() {
		return d, nil
	}
	if t.Family == repr.FamArray {
		elems := d.Array()
		out := make([]repr.Datum, len(elems))
		for i, el := range elems {
			var err error
			if out[i], err = reshapeRecord(el, repr.CompositeOf(t.Composite), srcs, types); err != nil {
				return repr.Null, err
			}
		}
		return repr.ArrayLike(d, out), nil
	}
	fields, _ := d.Record()
	out := make(repr.Row, len(srcs))
	for i, src := range srcs {
		if src >= 0 && src < len(fields) {
			out[i] = fields[src]
		}
	}
	return repr.NewRecord(out, types)
}

// renameTypeInViews rewrites the stored queries of the views and
// materialized views that name the composite type o (in a cast, as T or
// T[]) to name it newName, returning each view with its rewritten copy.
// A materialized view's stored plan knows the type by OID and does not
// change.
func (c *Catalog) renameTypeInViews(o *Object, newName string) ([][2]*Object, error) {
	var out [][2]*Object
	for _, v := range c.objects() {
		if v.SQL == "" {
			continue
		}
		n, err := parseOne(v.SQL)
		if err != nil {
			return nil, err
		}
		named := false
		eachTypeName(n, o, func(tn *pg.TypeName) {
			tn.Names[len(tn.Names)-1], named = pg.MakeStrNode(newName), true
		})
		if !named {
			continue
		}
		text, err := parse.Deparse(n)
		if err != nil {
			return nil, err
		}
		nu := v.clone()
		nu.SQL = text
		if nu.rel, err = nu.relation(); err != nil {
			return nil, err
		}
		out = append(out, [2]*Object{v, nu})
	}
	return out, nil
}

// eachTypeName calls fn on every type name in n that names the composite
// type o (qualified by its schema, or unqualified).
func eachTypeName(n *pg.Node, o *Object, fn func(*pg.TypeName)) {
	walkProto(n, func(m proto.Message) {
		tn, ok := m.(*pg.TypeName)
		if !ok || len(tn.Names) == 0 || tn.Names[len(tn.Names)-1].GetString_().GetSval() != o.Name {
			return
		}
		if len(tn.Names) >= 2 && tn.Names[len(tn.Names)-2].GetString_().GetSval() != o.Schema {
			return
		}
		fn(tn)
	})
}

// viewNamesType reports whether the stored query of v names the
// composite type o.
func viewNamesType(v, o *Object) bool {
	if v.SQL == "" {
		return false
	}
	n, err := parseOne(v.SQL)
	if err != nil {
		return false
	}
	named := false
	eachTypeName(n, o, func(*pg.TypeName) { named = true })
	return named
}

// typeNameOf is the (schema-qualified if rv is) name of a type that ALTER
// TYPE's grammar parsed as a relation.
func typeNameOf(rv *pg.RangeVar) []*pg.Node {
	if rv.Schemaname != "" {
		return []*pg.Node{pg.MakeStrNode(rv.Schemaname), pg.MakeStrNode(rv.Relname)}
	}
	return []*pg.Node{pg.MakeStrNode(rv.Relname)}
}
