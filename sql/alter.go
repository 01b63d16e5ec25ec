package sql

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/storage"
)

// ALTER TABLE, renames and COMMENT ON change a catalog entry in place.
// A change is built on a copy of the object and checked against every
// view that depends on it: each must plan to the same columns (plain
// views) or the same dataflow (materialized views, whose stored state
// belongs to their plan) under the changed catalog; otherwise the change
// is refused (0A000, or 2BP01 for DROP COLUMN) naming the views. A change
// of the rows' shape (ADD or DROP COLUMN) checkpoints first, so that no
// input-log record holds rows of the old shape, and rewrites the rows in
// the same batch as the new catalog entry.

// clone copies an object deeply enough to change its columns and
// constraints.
func (o *Object) clone() *Object {
	c := *o
	c.Columns = append([]ColumnDef(nil), o.Columns...)
	c.Constraints = append([]Constraint(nil), o.Constraints...)
	c.PrimaryKey = append([]int(nil), o.PrimaryKey...)
	if o.PrimaryKey == nil {
		c.PrimaryKey = nil
	}
	c.rel, c.checks, c.owned, c.ixKey, c.ownKey = nil, nil, nil, nil, nil
	return &c
}

// replace swaps an object's catalog entry for its changed copy.
func (c *Catalog) replace(old, nu *Object) error {
	c.remove(old)
	if err := c.add(nu); err != nil {
		_ = c.add(old)
		return err
	}
	return nil
}

// execComment executes COMMENT ON TABLE | VIEW | MATERIALIZED VIEW |
// SEQUENCE | COLUMN ... IS 'text' | NULL.
func (p *Portal) execComment(cs *pg.CommentStmt) error {
	p.tag = "COMMENT"
	var names []string
	if l := cs.Object.GetList(); l != nil {
		names = stringList(l.Items)
	}
	col := ""
	var kind planner.RelKind
	switch cs.Objtype {
	case pg.ObjectType_OBJECT_TABLE:
		kind = planner.RelTable
	case pg.ObjectType_OBJECT_VIEW:
		kind = planner.RelView
	case pg.ObjectType_OBJECT_MATVIEW:
		kind = planner.RelMaterializedView
	case pg.ObjectType_OBJECT_SEQUENCE:
		kind = relSequence
	case pg.ObjectType_OBJECT_COLUMN:
		if len(names) < 2 {
			return repr.Errorf(repr.CodeSyntax, "column name must be qualified")
		}
		kind, col, names = 255, names[len(names)-1], names[:len(names)-1]
	default:
		return repr.Unsupported("COMMENT ON %s", strings.TrimPrefix(cs.Objtype.String(), "OBJECT_"))
	}
	if len(names) == 0 {
		return repr.Errorf(repr.CodeSyntax, "COMMENT ON needs an object name")
	}
	schema, name := "", names[len(names)-1]
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	obj := e.cat.lookup(schema, name)
	if obj == nil {
		return repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	if kind != 255 && obj.Kind != kind {
		return repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not %s", name, aKind(kind))
	}
	if err := e.checkOwner(p.st.s, obj.Owner, kindName(obj.Kind), obj.Name); err != nil {
		return err
	}
	nu := obj.clone()
	if col == "" {
		nu.Comment = cs.Comment
	} else {
		i := columnIndex(nu.Columns, col)
		if i < 0 {
			return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, name)
		}
		nu.Columns[i].Comment = cs.Comment
	}
	return e.commitAltered(obj, nu, nil)
}

// commitAltered makes an object's changed copy durable and current. The
// caller holds e.mu. rows, when not nil, maps each stored row to its new
// shape (the collection is rewritten in the same batch).
// also are more changed objects (old, new) committed in the same batch
// (views whose query a rename rewrote).
func (e *Engine) commitAltered(old, nu *Object, rows func(repr.Row) (repr.Row, error), also ...[2]*Object) error {
	return e.commitAlteredWith(old, nu, rows, also, nil)
}

// commitAlteredWith is commitAltered that also creates and drops the
// sequences of an ALTER TABLE (seqs, may be nil) in the same batch.
func (e *Engine) commitAlteredWith(old, nu *Object, rows func(repr.Row) (repr.Row, error), also [][2]*Object, seqs *alteration) error {
	var c *storage.Collection
	var ixFixes [][2]*Object // indexes rebuilt under new column numbers
	var ixGone []*Object     // indexes on dropped columns
	b := e.db.NewBatch()
	defer b.Close()
	if seqs != nil && (len(seqs.created) > 0 || len(seqs.deleted) > 0) {
		if err := seqs.stageSequences(b); err != nil {
			return err
		}
		defer seqs.finishSequences()
	}
	if rows != nil {
		if err := e.checkpointLocked(); err != nil {
			return err
		}
		var err error
		if c, err = e.rewriteRows(old, nu, rows, b); err != nil {
			return err
		}
		if ixFixes, ixGone, err = e.reindexRewritten(old, nu, c, b); err != nil {
			c.Rollback()
			return err
		}
	}
	all := append(append([][2]*Object{{old, nu}}, also...), ixFixes...)
	for _, x := range all {
		if err := e.persistObject(x[1], b); err != nil {
			return err
		}
	}
	undo := func(n int) {
		for i := n - 1; i >= 0; i-- {
			_ = e.cat.replace(all[i][1], all[i][0])
		}
		if c != nil {
			c.Rollback()
		}
	}
	for i, x := range all {
		if err := e.cat.replace(x[0], x[1]); err != nil {
			undo(i)
			return err
		}
	}
	if err := e.commitDDL(b); err != nil {
		undo(len(all))
		return err
	}
	for _, x := range also {
		if mv := e.views[x[1].ID]; mv != nil {
			mv.obj = x[1]
		}
	}
	if c != nil {
		c.Commit()
		e.colls[nu.ID] = c
	}
	for _, ix := range ixGone {
		e.cat.remove(ix)
		c.DropIndex(ix.ID, nil)
	}
	e.dropIndexes(nu.ID)
	if mv := e.views[nu.ID]; mv != nil {
		mv.obj = nu
	}
	return nil
}

// rewriteRows builds the collection of nu's rows from old's, logging the
// deletion of the old rows and the new rows to b.
func (e *Engine) rewriteRows(old, nu *Object, conv func(repr.Row) (repr.Row, error), b *storage.Batch) (*storage.Collection, error) {
	src := e.colls[old.ID]
	var rows []repr.Row
	var counts []int64
	var err error
	if src != nil {
		src.Scan(func(r repr.Row, n int64) bool {
			var nr repr.Row
			if nr, err = conv(r); err != nil {
				return false
			}
			rows, counts = append(rows, nr), append(counts, n)
			return true
		})
	}
	if err != nil {
		return nil, err
	}
	b.DeletePrefix(storage.RowPrefix(old.ID))
	c := storage.NewCollection(nu.ID, nu.storeKey())
	c.Begin()
	for i, r := range rows {
		if err := c.Apply(r, counts[i], b); err != nil {
			c.Rollback()
			return nil, err
		}
	}
	return c, nil
}

// execAlterTable executes ALTER TABLE (and ALTER VIEW / MATERIALIZED
// VIEW forms the parser maps to it, which only support renames).
func (p *Portal) execAlterTable(as *pg.AlterTableStmt) error {
	p.tag = "ALTER TABLE"
	e := p.st.s.e
	ectx := p.st.s.evalCtx()
	e.mu.Lock()
	defer e.mu.Unlock()
	obj := e.cat.lookup(as.Relation.Schemaname, as.Relation.Relname)
	if obj == nil {
		if as.MissingOk {
			return nil
		}
		return repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", as.Relation.Relname)
	}
	if rs := ownerChange(as); rs != nil && relKindOK(obj.Kind) && !isSystemRelation(obj.ID) {
		p.tag = "ALTER " + strings.ToUpper(kindName(obj.Kind))
		return p.alterRelOwner(obj, rs)
	}
	if err := e.checkOwner(p.st.s, obj.Owner, kindName(obj.Kind), obj.Name); err != nil {
		return err
	}
	if obj.Kind != planner.RelTable {
		return repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a table", obj.Name)
	}
	if isSystemRelation(obj.ID) {
		return repr.Errorf("42501", "permission denied: \"%s\" is a system relation", obj.Name)
	}
	if err := e.checkNotBackfilling(obj); err != nil {
		return err
	}
	return e.alterTableLocked(p.st.s, obj, as.Cmds, ectx)
}

// alterTableLocked applies ALTER TABLE's commands to the table obj under
// the engine's lock, for the session s.
func (e *Engine) alterTableLocked(s *Session, obj *Object, cmds []*pg.Node, ectx *expr.Ctx) error {
	a := &alteration{e: e, old: obj, nu: obj.clone(), ctx: e.lockedCtx(ectx, s)}
	for _, n := range cmds {
		if err := a.apply(n.GetAlterTableCmd()); err != nil {
			return err
		}
	}
	// Rows that keep their columns (constraints or a primary key added)
	// are checked before the views over the table, so a violation is
	// PostgreSQL's 23505 or 23514 whatever the views; other changes check
	// the views first, as PostgreSQL refuses a type change under a view
	// before converting a row.
	checks := []func() error{a.checkDependents, a.validateRows}
	if !a.reshape || a.newKey {
		checks[0], checks[1] = checks[1], checks[0]
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	if a.reshape {
		if err := s.reshapePending(obj.ID, a.convert); err != nil {
			return err
		}
	}
	var conv func(repr.Row) (repr.Row, error)
	if a.reshape {
		i := 0
		conv = func(repr.Row) (repr.Row, error) { i++; return a.rows[i-1], nil }
	}
	also := append([][2]*Object(nil), a.seqFixes...)
	for old, nu := range a.rewritten {
		also = append(also, [2]*Object{old, nu})
	}
	commit := func() error { return e.commitAlteration(s, a, conv, also) }
	if len(a.cascadeDrop) > 0 {
		commit = func() error {
			return e.atomically(func() error {
				for _, u := range a.cascadeDrop {
					if cur := e.cat.byID[u.ID]; cur != nil {
						if err := e.dropSteps(cur, true); err != nil {
							return err
						}
					}
				}
				return e.commitAlteration(s, a, conv, also)
			})
		}
	}
	if err := commit(); err != nil {
		return err
	}
	e.redefineSequences(a.seqFixes)
	s.noticeCascade(nil, a.cascadeErrs...)
	return nil
}

// alteration is an ALTER TABLE in progress: the changed copy, how old
// rows map to new ones (source column per new column, -1 for a new
// column computed from its default), and what the existing rows must
// satisfy.
type alteration struct {
	e       *Engine
	old, nu *Object
	ctx     *expr.Ctx
	// srcCol maps each column of nu to its column in old (-1: added);
	// exprs, where set, compute a column from the old row instead (ALTER
	// COLUMN TYPE).
	srcCol  []int
	exprs   []expr.Expr
	reshape bool
	// dropped names the dropped columns (for the dependency error).
	dropped []string
	// notNull and checks must hold for the existing rows.
	validate bool
	// created and deleted are the sequences the change creates (serial
	// and identity columns) and drops (with their column or identity);
	// seqFill gives an added serial column's values for the existing rows,
	// by column name.
	created, deleted []*Object
	seqFill          map[string]*seqState
	staged           []*Object
	// newKey says the primary key is new: the existing rows must be
	// unique by it.
	newKey bool
	// rewritten are dependent views whose stored query a rename changed
	// (old and new versions).
	rewritten map[*Object]*Object
	// cascade is DROP COLUMN ... CASCADE: the views reading a dropped
	// column (cascadeDrop, with everything over them) are dropped in the
	// change's atomic step instead of refusing it (2BP01); cascadeErrs
	// are the 2BP01s a CASCADE overrode, whose lines the NOTICE lists.
	cascade     bool
	cascadeDrop []*Object
	cascadeErrs []error
	// rows and counts are the existing rows in the new shape (converted
	// once: a volatile default is evaluated once per row).
	rows   []repr.Row
	counts []int64
	// indexFixes are indexes whose stored expressions a column rename
	// rewrote (old and new versions).
	indexFixes [][2]*Object
	// seqFixes are existing sequences whose definition the change alters
	// (an identity column's sequence takes the column's new type).
	seqFixes [][2]*Object
	// rowTypeShape says columns are added or dropped: values of the
	// table's row type stored elsewhere change shape (rowtype_alter.go).
	rowTypeShape bool
	// rebuild are the materialized views over the table whose dataflow
	// the added or dropped columns change while their columns stay (a
	// whole-row reference): recomputed after the change (rowtype_alter.go).
	rebuild []*Object
}

func (a *alteration) cols() []int {
	if a.srcCol == nil && !a.reshape {
		for i := range a.old.Columns {
			a.srcCol = append(a.srcCol, i)
		}
		a.exprs = make([]expr.Expr, len(a.srcCol))
	}
	return a.srcCol
}

// apply applies one ALTER TABLE command to the copy.
func (a *alteration) apply(cmd *pg.AlterTableCmd) error {
	nu := a.nu
	a.cols()
	switch cmd.Subtype {
	case pg.AlterTableType_AT_AlterColumnType:
		// PostgreSQL refuses a self-containing type before it looks for
		// users of the row type
		if t, err := a.e.cat.typeFromName(cmd.Def.GetColumnDef().GetTypeName()); err == nil {
			if err := a.notSelfMember(t); err != nil {
				return err
			}
		}
		if err := a.e.cat.checkRowTypeAlter(a.old); err != nil {
			return err
		}
	case pg.AlterTableType_AT_AddColumn, pg.AlterTableType_AT_DropColumn:
		a.rowTypeShape = true
	}
	switch cmd.Subtype {
	case pg.AlterTableType_AT_AddColumn:
		cd := cmd.Def.GetColumnDef()
		if columnIndex(nu.Columns, cd.Colname) >= 0 {
			if cmd.MissingOk {
				return nil
			}
			return repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cd.Colname, nu.Name)
		}
		col, pk, seq, err := columnDef(cd, a.e.cat.typeFromName)
		if err != nil {
			return err
		}
		if pk {
			return repr.Unsupported("ADD COLUMN ... PRIMARY KEY")
		}
		if err := a.notSelfMember(col.Type); err != nil {
			return err
		}
		if err := a.e.cat.checkRowTypeDefault(a.old, col, seq); err != nil {
			return err
		}
		nu.Columns = append(nu.Columns, col)
		if seq != nil {
			a.createOwnedSeq(seq, len(nu.Columns)-1, "")
		}
		a.srcCol, a.exprs = append(a.srcCol, -1), append(a.exprs, nil)
		a.reshape, a.validate = true, true
		for _, cn := range cd.Constraints {
			if c := cn.GetConstraint(); isTableConstraint(c.Contype) {
				if err := nu.addConstraint(c, col.Name); err != nil {
					return err
				}
			}
		}
		return a.e.resolveForeignKeys(nu)
	case pg.AlterTableType_AT_DropColumn:
		a.cascade = a.cascade || cmd.Behavior == pg.DropBehavior_DROP_CASCADE
		return a.dropColumn(cmd)
	case pg.AlterTableType_AT_AddIdentity:
		return a.addIdentity(cmd)
	case pg.AlterTableType_AT_DropIdentity:
		i, err := a.column(cmd.Name)
		if err != nil {
			return err
		}
		col := &nu.Columns[i]
		if col.Identity == 0 {
			if cmd.MissingOk {
				return nil
			}
			return repr.Errorf("55000", "column \"%s\" of relation \"%s\" is not an identity column", cmd.Name, nu.Name)
		}
		a.dropOwnedSeq(col.Seq)
		col.Identity, col.Seq, col.Default = 0, 0, ""
		return nil
	case pg.AlterTableType_AT_AlterColumnType:
		return a.alterType(cmd)
	case pg.AlterTableType_AT_ColumnDefault:
		i, err := a.column(cmd.Name)
		if err != nil {
			return err
		}
		nu.Columns[i].Default, nu.Columns[i].Seq = "", 0
		if cmd.Def != nil {
			if nu.Columns[i].Identity != 0 {
				return repr.Errorf(repr.CodeSyntax, "column \"%s\" of relation \"%s\" is an identity column", cmd.Name, nu.Name).
					WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
			}
			text, err := deparseDefault(cmd.Def)
			if err != nil {
				return err
			}
			nu.Columns[i].Default = text
		}
		return nil
	case pg.AlterTableType_AT_SetNotNull:
		i, err := a.column(cmd.Name)
		if err != nil {
			return err
		}
		nu.Columns[i].NotNull, a.validate = true, true
		return nil
	case pg.AlterTableType_AT_DropNotNull:
		i, err := a.column(cmd.Name)
		if err != nil {
			return err
		}
		if inKey(nu.PrimaryKey, i) {
			return repr.Errorf("42P16", "column \"%s\" is in a primary key", cmd.Name)
		}
		if nu.Columns[i].Identity != 0 {
			return repr.Errorf("42P16", "column \"%s\" of relation \"%s\" is an identity column", cmd.Name, nu.Name)
		}
		nu.Columns[i].NotNull = false
		return nil
	case pg.AlterTableType_AT_AddConstraint:
		c := cmd.Def.GetConstraint()
		if c.Contype == pg.ConstrType_CONSTR_PRIMARY {
			return a.addPrimaryKey(c)
		}
		if !isTableConstraint(c.Contype) {
			return repr.Unsupported("ALTER TABLE ADD %s", strings.TrimPrefix(c.Contype.String(), "CONSTR_"))
		}
		if err := nu.addConstraint(c, ""); err != nil {
			return err
		}
		a.validate = true
		return a.e.resolveForeignKeys(nu)
	case pg.AlterTableType_AT_DropConstraint:
		cascade := cmd.Behavior == pg.DropBehavior_DROP_CASCADE
		if nu.PrimaryKey != nil && cmd.Name == nu.pkeyName() {
			if err := a.dropReferencing(cmd.Name, a.e.referencingKey(nu.ID, nu.PrimaryKey), cascade); err != nil {
				return err
			}
			nu.PrimaryKey, nu.PKeyName, a.reshape = nil, "", true
			return nil
		}
		for _, k := range nu.Constraints {
			if k.Name == cmd.Name {
				if k.Kind == "unique" {
					if err := a.dropReferencing(k.Name, a.e.referencingKey(nu.ID, k.Cols), cascade); err != nil {
						return err
					}
				}
				j := slices.IndexFunc(nu.Constraints, func(x Constraint) bool { return x.Name == cmd.Name })
				nu.Constraints = append(nu.Constraints[:j:j], nu.Constraints[j+1:]...)
				return nil
			}
		}
		if cmd.MissingOk {
			return nil
		}
		return repr.Errorf(repr.CodeUndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", cmd.Name, nu.Name)
	}
	return repr.Unsupported("ALTER TABLE %s", strings.TrimPrefix(cmd.Subtype.String(), "AT_"))
}

// dropReferencing handles the foreign keys refs that reference the key
// constraint name being dropped: PostgreSQL's 2BP01 without CASCADE (each
// depends on the key's index), with it each is dropped from its table
// (the table's new version joins the change) and the 2BP01 kept for the
// NOTICE.
func (a *alteration) dropReferencing(name string, refs []fkRef, cascade bool) error {
	if len(refs) == 0 {
		return nil
	}
	lines := make([]string, len(refs))
	for i, r := range refs {
		lines[i] = fmt.Sprintf("constraint %s on table %s depends on index %s", r.k.Name, r.child.Name, name)
	}
	err := repr.Errorf(repr.CodeDependentObjects, "cannot drop constraint %s on table %s because other objects depend on it", name, a.nu.Name).
		WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	if !cascade {
		return err
	}
	a.cascadeErrs = append(a.cascadeErrs, err)
	for _, r := range refs {
		c := a.nu
		if r.child.ID != a.nu.ID {
			if a.rewritten == nil {
				a.rewritten = map[*Object]*Object{}
			}
			if c = a.rewritten[r.child]; c == nil {
				c = r.child.clone()
				a.rewritten[r.child] = c
			}
		}
		c.Constraints = slices.DeleteFunc(c.Constraints, func(x Constraint) bool { return x.Name == r.k.Name })
	}
	return nil
}

// deparseDefault renders a DEFAULT expression as SQL text.
func deparseDefault(n *pg.Node) (string, error) {
	if err := checkDefaultExpr(n); err != nil {
		return "", err
	}
	return defaultText(n)
}

// column finds a column of the copy: 42703 when missing.
func (a *alteration) column(name string) (int, error) {
	i := columnIndex(a.nu.Columns, name)
	if i < 0 {
		return -1, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, a.nu.Name)
	}
	return i, nil
}

// dropColumn removes a column from the copy, with the constraints that
// use it (the primary key too, as in PostgreSQL); a column another
// table's foreign key references is refused.
func (a *alteration) dropColumn(cmd *pg.AlterTableCmd) error {
	nu := a.nu
	i := columnIndex(nu.Columns, cmd.Name)
	if i < 0 {
		if cmd.MissingOk {
			return nil
		}
		return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, nu.Name)
	}
	if len(nu.Columns) == 1 {
		return repr.Unsupported("dropping the last column of a table")
	}
	for _, ref := range a.e.referencing(nu.ID) {
		if ref.child.ID != nu.ID && inKey(ref.k.RefCols, i) {
			return repr.Errorf(repr.CodeDependentObjects, "cannot drop column %s of table %s because other objects depend on it", cmd.Name, nu.Name).
				WithDetail("constraint %s on table %s depends on column %s of table %s", ref.k.Name, ref.child.Name, cmd.Name, nu.Name)
		}
	}
	if nu.Columns[i].Seq != 0 {
		a.dropOwnedSeq(nu.Columns[i].Seq)
	}
	nu.Columns = append(nu.Columns[:i:i], nu.Columns[i+1:]...)
	a.srcCol = append(a.srcCol[:i:i], a.srcCol[i+1:]...)
	a.exprs = append(a.exprs[:i:i], a.exprs[i+1:]...)
	shift := func(cols []int) ([]int, bool) {
		var out []int
		for _, c := range cols {
			switch {
			case c == i:
				return nil, false
			case c > i:
				out = append(out, c-1)
			default:
				out = append(out, c)
			}
		}
		return out, true
	}
	if nu.PrimaryKey, _ = shift(nu.PrimaryKey); nu.PrimaryKey == nil {
		nu.PKeyName = "" // PostgreSQL drops the key with its column
	}
	var kept []Constraint
	for _, k := range nu.Constraints {
		ok := true
		if k.Kind == "check" {
			n, err := parseExpr(k.Check)
			ok = err == nil
			for _, r := range columnRefs(n) {
				ok = ok && r != cmd.Name
			}
		} else {
			k.Cols, ok = shift(k.Cols)
		}
		if k.RefTable == nu.ID && ok {
			k.RefCols, ok = shift(k.RefCols)
		}
		if ok {
			kept = append(kept, k)
		}
	}
	nu.Constraints = kept
	a.reshape = true
	a.dropped = append(a.dropped, cmd.Name)
	return a.dropColumnInViews(cmd.Name)
}

// dropOwnedSeq notes an owned sequence to drop with its column or its
// identity.
func (a *alteration) dropOwnedSeq(id uint64) {
	for i, o := range a.created {
		if o.ID == id {
			a.created = append(a.created[:i:i], a.created[i+1:]...)
			return
		}
	}
	if o := a.e.cat.byID[id]; o != nil && o.Kind == relSequence {
		a.deleted = append(a.deleted, o)
	}
}

// createOwnedSeq adds the sequence of a new serial or identity column i
// (named name, or table_column_seq made free), setting the column's
// default. Existing rows get its values in order (seqFill).
func (a *alteration) createOwnedSeq(seq *Object, i int, name string) {
	nu, e := a.nu, a.e
	col := &nu.Columns[i]
	if name == "" {
		base := nu.Name + "_" + col.Name + "_seq"
		name = base
		for n := 1; e.cat.lookup(nu.Schema, name) != nil || a.createdNamed(name); n++ {
			name = base + itoa(n)
		}
	}
	seq.ID, e.nextID = e.nextID, e.nextID+1
	seq.Schema, seq.Name = nu.Schema, name
	seq.Sequence.OwnedBy, seq.Sequence.OwnedCol = nu.ID, col.Name
	col.Seq, col.Default = seq.ID, "nextval("+quoteLiteral(name)+")"
	a.created = append(a.created, seq)
	if a.seqFill == nil {
		a.seqFill = map[string]*seqState{}
	}
	a.seqFill[col.Name] = &seqState{id: seq.ID, def: seq.Sequence, last: seq.Sequence.firstValue()}
}

func (a *alteration) createdNamed(name string) bool {
	for _, o := range a.created {
		if o.Name == name {
			return true
		}
	}
	return false
}

// addIdentity makes an existing NOT NULL integer column an identity
// column with a new sequence (pg_dump's form: ALTER COLUMN ... ADD
// GENERATED ... AS IDENTITY (SEQUENCE NAME ...)). Existing values stay.
func (a *alteration) addIdentity(cmd *pg.AlterTableCmd) error {
	i, err := a.column(cmd.Name)
	if err != nil {
		return err
	}
	col := &a.nu.Columns[i]
	switch col.Type.OID() {
	case repr.Int2.OID(), repr.Int4.OID(), repr.Int8.OID():
	default:
		return repr.Errorf(repr.CodeInvalidParameter, "identity column type must be smallint, integer, or bigint")
	}
	if col.Identity != 0 {
		return repr.Errorf("55000", "column \"%s\" of relation \"%s\" is already an identity column", cmd.Name, a.nu.Name)
	}
	if !col.NotNull {
		return repr.Errorf("55000", "column \"%s\" of relation \"%s\" must be declared NOT NULL before identity can be added", cmd.Name, a.nu.Name)
	}
	if col.Default != "" {
		return repr.Errorf("55000", "column \"%s\" of relation \"%s\" already has a default value", cmd.Name, a.nu.Name)
	}
	c := cmd.Def.GetConstraint()
	seq, err := identitySequence(col, c)
	if err != nil {
		return err
	}
	name := ""
	for _, n := range c.Options {
		if de := n.GetDefElem(); de != nil && de.Defname == "sequence_name" {
			names := stringList(de.Arg.GetList().GetItems())
			name = names[len(names)-1]
			if a.e.cat.lookup(a.nu.Schema, name) != nil {
				return repr.Errorf(repr.CodeDuplicateTable, "relation \"%s\" already exists", name)
			}
		}
	}
	a.createOwnedSeq(seq, i, name)
	delete(a.seqFill, col.Name) // existing rows keep their values
	return nil
}

// referencingKey returns the foreign keys of other tables referencing
// exactly cols of table id. The caller holds e.mu.
func (e *Engine) referencingKey(id uint64, cols []int) []fkRef {
	var out []fkRef
	for _, r := range e.referencing(id) {
		if sameSet(r.k.RefCols, cols) {
			out = append(out, r)
		}
	}
	return out
}

// convert maps an old row to the new shape, computing added columns from
// their defaults.
func (a *alteration) convert(r repr.Row) (repr.Row, error) {
	out := make(repr.Row, len(a.nu.Columns))
	for i, src := range a.srcCol {
		if x := a.exprs[i]; x != nil {
			v, err := x.Eval(a.ctx, r)
			if err != nil {
				return nil, err
			}
			out[i] = v
			continue
		}
		if src >= 0 {
			out[i] = r[src]
			continue
		}
		if st := a.seqFill[a.nu.Columns[i].Name]; st != nil {
			v := st.last
			if st.called {
				var ok bool
				if v, ok = st.def.step(st.last); !ok {
					return nil, repr.Errorf("2200H", "nextval: reached maximum value of sequence")
				}
			}
			st.last, st.called = v, true
			out[i] = repr.NewInt(v)
			continue
		}
		v, err := a.defaultOf(i)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// defaultOf evaluates the default of new column i (per row: a volatile
// default gives each row its own value, as in PostgreSQL).
func (a *alteration) defaultOf(i int) (repr.Datum, error) {
	if a.nu.rel == nil {
		rel, err := a.nu.relation()
		if err != nil {
			return repr.Null, err
		}
		a.nu.rel = rel
	}
	col := a.nu.rel.Columns[i]
	if col.Default == nil {
		return repr.Null, nil
	}
	x, err := planner.PlanScalar(a.e.cat, col.Default, col.Type)
	if err != nil {
		return repr.Null, err
	}
	return evalClosed(x, a.ctx)
}

// validateRows checks the existing rows against the changed table's NOT
// NULL, CHECK, UNIQUE and FOREIGN KEY constraints (after conversion).
func (a *alteration) validateRows() error {
	if !a.validate && !a.reshape {
		return nil
	}
	if src := a.e.colls[a.old.ID]; src != nil {
		var err error
		src.Scan(func(r repr.Row, n int64) bool {
			var nr repr.Row
			if nr, err = a.convert(r); err != nil {
				return false
			}
			a.rows, a.counts = append(a.rows, nr), append(a.counts, n)
			return true
		})
		if err != nil {
			return err
		}
	}
	if !a.validate {
		return nil
	}
	if a.nu.rel == nil {
		rel, err := a.nu.relation()
		if err != nil {
			return err
		}
		a.nu.rel = rel
		if err := a.nu.planChecks(a.e.cat); err != nil {
			return err
		}
	}
	if err := a.e.validateExisting(a.nu, a.rows, a.counts, a.ctx); err != nil {
		return err
	}
	if a.newKey {
		k := Constraint{Name: a.nu.pkeyName(), Kind: "unique", Cols: a.nu.PrimaryKey}
		return a.e.validateExisting(&Object{Name: a.nu.Name, Columns: a.nu.Columns, Constraints: []Constraint{k}}, a.rows, a.counts, a.ctx)
	}
	return nil
}

// checkDependents refuses the change when a dependent view would plan
// differently under the changed catalog.
func (a *alteration) checkDependents() error {
	e := a.e
	if err := a.followRowTypeFunctions(); err != nil {
		return err
	}
	deps := e.dropSet(a.old)[1:]
	deps = append(deps, e.rowTypeFunctionViews(a.old, deps)...)
	if len(deps) == 0 {
		return nil
	}
	rel, err := a.nu.relation()
	if err != nil {
		return err
	}
	a.nu.rel = rel
	if err := a.nu.planChecks(e.cat); err != nil {
		return err
	}
	shadow := e.cat.shadow(a.old, a.nu)
	shadow.keyOrders = map[uint64][]int{a.nu.ID: a.nu.storeKey()}
	for old, nu := range a.rewritten {
		shadow.byID[nu.ID] = nu
		delete(shadow.byName, qualified(old.Schema, old.Name))
		shadow.byName[qualified(nu.Schema, nu.Name)] = nu
	}
	defer func() { e.planRows = nil }()
	var users []*Object // views reading a dropped column
	for _, d := range deps {
		cols, flow, err := e.storedPlanText(d)
		if err != nil {
			return err
		}
		d2 := d
		for old, nu := range a.rewritten {
			if old == d {
				d2 = nu
			}
		}
		cols2, flow2, err := e.planText(d2, shadow)
		if a.old.Name != a.nu.Name {
			flow = strings.ReplaceAll(flow, " name="+a.old.Name+" ", " name="+a.nu.Name+" ")
		}
		sameNatural := err != nil || naturalText(e.cat, d) == naturalText(shadow, d2)
		if err == nil && cols == cols2 && (flow == flow2 || widenedOnly(flow, flow2)) && sameNatural {
			continue
		}
		uses := err != nil || cols != cols2 || !sameNatural
		if uses && a.rowTypeShape && len(a.dropped) == 0 && a.keepsStars(d2, shadow, cols, flow) {
			continue
		}
		if !uses && a.rowTypeShape && d.Kind == planner.RelMaterializedView {
			a.rebuild = append(a.rebuild, d)
			continue
		}
		if len(a.dropped) > 0 && uses {
			users = append(users, d)
			continue
		}
		if a.cascade && slices.ContainsFunc(users, func(u *Object) bool {
			return slices.ContainsFunc(e.dropSet(u), func(x *Object) bool { return x.ID == d.ID })
		}) {
			continue // dropped with a view reading a dropped column
		}
		if len(users) > 0 && !a.cascade {
			break
		}
		detail := fmt.Sprintf("The change would alter the definition of %s %s.", kindName(d.Kind), d.Name)
		if !uses {
			detail = fmt.Sprintf("The dataflow of %s %s reads the table's rows as they are stored.", kindName(d.Kind), d.Name)
		}
		return repr.Errorf(repr.CodeFeatureNotSupported, "cannot alter table %s because %s %s depends on it", a.nu.Name, kindName(d.Kind), d.Name).
			WithDetail("%s", detail).WithHint("Drop the dependent views first, then recreate them.")
	}
	if len(users) > 0 {
		err := e.droppedColumnUsers(a, users)
		if !a.cascade {
			return err
		}
		a.cascadeDrop, a.cascadeErrs = users, append(a.cascadeErrs, err)
	}
	return nil
}

// followRowTypeFunctions has the functions returning SETOF the altered
// relation return its new columns (PostgreSQL's function returns the
// relation's row type, whatever its columns are now): each changed copy
// joins the change (a.rewritten), so the views over them are checked
// under the changed catalog and committed with it.
func (a *alteration) followRowTypeFunctions() error {
	cols := rowColumns(a.nu)
	for _, f := range a.e.cat.objects() {
		if f.Kind != relFunction || f.Function == nil || f.Function.RetRel != a.old.ID || sameRowColumns(f.Function.RetCols, cols) {
			continue
		}
		nu := f.clone()
		fd := *f.Function
		fd.RetCols = cols
		nu.Function = &fd
		fn, err := nu.planned()
		if err != nil {
			return err
		}
		nu.fn = fn
		if a.rewritten == nil {
			a.rewritten = map[*Object]*Object{}
		}
		a.rewritten[f] = nu
	}
	return nil
}

// sameRowColumns reports whether a and b have the same names and types.
func sameRowColumns(a, b []ColumnDef) bool {
	return slices.EqualFunc(a, b, func(x, y ColumnDef) bool { return x.Name == y.Name && x.Type == y.Type })
}

// rowTypeFunctionViews are the views and materialized views (not among
// deps) over a function that takes or returns o's row type: a view over
// SELECT t.* FROM f() t, f returning SETOF o, reads o's columns through
// the type, and PostgreSQL records its dependency on them (a DROP COLUMN
// is 2BP01, a type change 0A000). They are checked as views over o.
func (e *Engine) rowTypeFunctionViews(o *Object, deps []*Object) []*Object {
	if !hasRowType(o) {
		return nil
	}
	oid := rowTypeOID(o.ID)
	seen := map[uint64]bool{o.ID: true}
	for _, d := range deps {
		seen[d.ID] = true
	}
	var out []*Object
	for _, f := range e.cat.objects() {
		if f.Kind != relFunction || f.Function.RetRel != o.ID && !e.cat.functionUses(f, oid) {
			continue
		}
		for _, d := range e.dropSet(f)[1:] {
			if !seen[d.ID] && (d.Kind == planner.RelView || d.Kind == planner.RelMaterializedView) {
				seen[d.ID] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// droppedColumnUsers is PostgreSQL's 2BP01 for a DROP COLUMN that views
// read: a DETAIL line for each view reading the column and, under it,
// one for each object over that view, as PostgreSQL lists the objects a
// CASCADE would drop.
func (e *Engine) droppedColumnUsers(a *alteration, users []*Object) error {
	var lines []string
	seen := map[uint64]bool{}
	var over func(o *Object)
	over = func(o *Object) {
		for _, x := range e.cat.dependents(o.ID) {
			if !seen[x.ID] {
				seen[x.ID] = true
				lines = append(lines, fmt.Sprintf("%s %s depends on %s %s", kindName(x.Kind), x.Name, kindName(o.Kind), o.Name))
				over(x)
			}
		}
	}
	for _, u := range users {
		if seen[u.ID] {
			continue
		}
		seen[u.ID] = true
		lines = append(lines, fmt.Sprintf("%s %s depends on column %s of table %s", kindName(u.Kind), u.Name, a.dropped[0], a.nu.Name))
		over(u)
	}
	return repr.Errorf(repr.CodeDependentObjects, "cannot drop column %s of table %s because other objects depend on it", a.dropped[0], a.nu.Name).
		WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// shadow returns a copy of the catalog with old replaced by nu (sharing
// every other object).
func (c *Catalog) shadow(old, nu *Object) *Catalog {
	s := newCatalog()
	s.size = c.size
	for id, o := range c.byID {
		s.byID[id] = o
	}
	for name, o := range c.byName {
		s.byName[name] = o
	}
	s.byID[nu.ID] = nu
	if nu.Kind != relFunction {
		delete(s.byName, qualified(old.Schema, old.Name))
		s.byName[qualified(nu.Schema, nu.Name)] = nu
	}
	return s
}

// planText prints what d's definition plans to under cat: its columns,
// and for a materialized view its dataflow (whose stored state belongs to
// that plan).
// storedPlanText returns d's columns and the dataflow it runs now (its
// stored plan when it has one), planned over the current catalog with the
// sizes its stored plan saw (collectionSize), which it leaves in
// e.planRows for planning d again over a changed catalog; the caller
// clears e.planRows afterwards.
func (e *Engine) storedPlanText(d *Object) (cols, flow string, err error) {
	e.planRows = d.PlanRows
	if e.planRows == nil {
		e.planRows = map[uint64]int64{}
	}
	cols, flow, err = e.planText(d, e.cat)
	if err != nil {
		return "", "", err
	}
	if d.Plan != "" {
		flow = d.Plan // what the view runs
	}
	return cols, flow, nil
}

func (e *Engine) planText(d *Object, cat *Catalog) (cols, flow string, err error) {
	n, err := parseOne(d.SQL)
	if err != nil {
		return "", "", err
	}
	q, err := planner.PlanQuery(cat, n, planner.Options{MaterializedView: d.Kind == planner.RelMaterializedView, TimeZone: d.TimeZone})
	if err != nil {
		return "", "", err
	}
	var sb strings.Builder
	for _, c := range q.Columns {
		fmt.Fprintf(&sb, "%s %s\n", c.Name, c.Type)
	}
	if d.Kind == planner.RelMaterializedView {
		rel := viewRel(q)
		if d.EmitOnWindowClose {
			if rel, err = emitOnClose(rel); err != nil {
				return "", "", err
			}
		}
		plan, _, err := compile(rel)
		if err != nil {
			return "", "", err
		}
		plan = isolateSources(plan, cat.isTable)
		// Only the arrangements the stored plan reads: an index created
		// after the view, or a kind of sharing newer than the view, does
		// not change its plan.
		used := storedShared(d.Plan)
		allowed := func(id uint64) bool { return slices.Contains(used, id) }
		if hasDeltaJoin(d.Plan) {
			plan, _, _ = e.deltaJoins(cat, plan, allowed)
		}
		plan, _ = e.shareArrangements(cat, plan, allowed)
		if storedSharedReduce(d.Plan) {
			plan, _ = e.shareReduces(cat, plan, allowed)
		}
		if hasBorrow(d.Plan) {
			plan = borrowArrangements(plan)
		}
		flow = plan.String()
	}
	return sb.String(), flow, nil
}

// execRename executes ALTER TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE
// ... RENAME TO, RENAME COLUMN and RENAME CONSTRAINT.
func (p *Portal) execRename(rs *pg.RenameStmt) error {
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	switch rs.RenameType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW, pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_INDEX:
		p.tag = map[pg.ObjectType]string{pg.ObjectType_OBJECT_TABLE: "ALTER TABLE", pg.ObjectType_OBJECT_VIEW: "ALTER VIEW",
			pg.ObjectType_OBJECT_MATVIEW: "ALTER MATERIALIZED VIEW", pg.ObjectType_OBJECT_SEQUENCE: "ALTER SEQUENCE",
			pg.ObjectType_OBJECT_INDEX: "ALTER INDEX"}[rs.RenameType]
	case pg.ObjectType_OBJECT_COLUMN, pg.ObjectType_OBJECT_TABCONSTRAINT:
		p.tag = renameColumnTag(rs.RelationType)
	default:
		return repr.Unsupported("ALTER %s RENAME", strings.TrimPrefix(rs.RenameType.String(), "OBJECT_"))
	}
	obj := e.cat.lookup(rs.Relation.Schemaname, rs.Relation.Relname)
	pkIndex := false // ALTER INDEX t_pkey RENAME: the primary key's index
	if obj == nil && (rs.RenameType == pg.ObjectType_OBJECT_INDEX || rs.RenameType == pg.ObjectType_OBJECT_TABLE) {
		obj = e.cat.pkeyOwner(rs.Relation.Schemaname, rs.Relation.Relname)
		pkIndex = obj != nil
	}
	if obj == nil {
		if rs.MissingOk {
			return nil
		}
		return repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", rs.Relation.Relname)
	}
	if isSystemRelation(obj.ID) {
		return repr.Errorf("42501", "permission denied: \"%s\" is a system relation", obj.Name)
	}
	if err := e.checkOwner(p.st.s, obj.Owner, kindName(obj.Kind), obj.Name); err != nil {
		return err
	}
	if err := e.checkNotBackfilling(obj); err != nil {
		return err
	}
	nu := obj.clone()
	a := &alteration{e: e, old: obj, nu: nu}
	if pkIndex {
		if e.cat.relationNamed(nu.Schema, rs.Newname) {
			return repr.Errorf(repr.CodeDuplicateTable, "relation \"%s\" already exists", rs.Newname)
		}
		return e.commitAltered(obj, nu.renamePkey(rs.Newname), nil)
	}
	switch rs.RenameType {
	case pg.ObjectType_OBJECT_COLUMN:
		if obj.Kind != planner.RelTable && obj.Kind != planner.RelView && obj.Kind != planner.RelMaterializedView {
			return repr.Unsupported("renaming a column of a %s", kindName(obj.Kind))
		}
		i := columnIndex(nu.Columns, rs.Subname)
		if i < 0 {
			return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" does not exist", rs.Subname)
		}
		if columnIndex(nu.Columns, rs.Newname) >= 0 {
			return repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" of relation \"%s\" already exists", rs.Newname, nu.Name)
		}
		nu.Columns[i].Name = rs.Newname
		if obj.Kind != planner.RelTable {
			if err := renameViewColumn(nu); err != nil {
				return err
			}
		}
		if err := renameInChecks(nu, rs.Subname, rs.Newname); err != nil {
			return err
		}
		fixes, err := e.renameInIndexes(obj, rs.Subname, rs.Newname)
		if err != nil {
			return err
		}
		a.indexFixes = fixes
		if err := a.renameColumnInViews(rs.Subname, rs.Newname); err != nil {
			return err
		}
	case pg.ObjectType_OBJECT_TABCONSTRAINT:
		found := nu.PrimaryKey != nil && nu.pkeyName() == rs.Subname
		if found && e.cat.relationNamed(nu.Schema, rs.Newname) {
			// the key's index is renamed first, as in PostgreSQL
			return repr.Errorf(repr.CodeDuplicateTable, "relation \"%s\" already exists", rs.Newname)
		}
		if nu.constraintNamed(rs.Newname) || nu.PrimaryKey != nil && nu.pkeyName() == rs.Newname {
			return repr.Errorf(repr.CodeDuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", rs.Newname, nu.Name)
		}
		if found {
			nu.renamePkey(rs.Newname)
		}
		for i := range nu.Constraints {
			if nu.Constraints[i].Name == rs.Subname {
				nu.Constraints[i].Name, found = rs.Newname, true
			}
		}
		if !found {
			return repr.Errorf(repr.CodeUndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", rs.Subname, nu.Name)
		}
	default:
		if e.cat.lookup(nu.Schema, rs.Newname) != nil {
			return repr.Errorf(repr.CodeDuplicateTable, "relation \"%s\" already exists", rs.Newname)
		}
		if want := renameKind(rs.RenameType); want != obj.Kind && want != planner.RelTable {
			return repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not %s", obj.Name, aKind(want))
		}
		nu.Name = rs.Newname
		if obj.Kind == relSequence {
			a.indexFixes = a.e.renameSequenceUsers(obj, nu)
			break
		}
		if err := requalifyChecks(nu, obj.Name); err != nil {
			return err
		}
		if nu.PrimaryKey != nil && nu.Kind == planner.RelTable {
			nu.PKeyName = pkeyNameOf(nu.Name, obj.pkeyName()) // PostgreSQL keeps it
		}
		if err := a.renameInViews(); err != nil {
			return err
		}
	}
	if err := a.checkDependents(); err != nil {
		return err
	}
	also := a.indexFixes
	for old, nu := range a.rewritten {
		also = append(also, [2]*Object{old, nu})
	}
	if err := e.commitAltered(obj, nu, nil, also...); err != nil {
		return err
	}
	e.afterMove(obj, nu)
	return nil
}

// renamePkey names o's primary key (constraint and index) name, and
// returns o.
func (o *Object) renamePkey(name string) *Object {
	o.PKeyName = pkeyNameOf(o.Name, name)
	return o
}

// pkeyOwner returns the table whose primary key's index is schema.name
// (PostgreSQL's pk index is a relation; Eddy's is part of its table).
func (c *Catalog) pkeyOwner(schema, name string) *Object {
	if schema == "" {
		schema = nsPublic
	}
	for _, o := range c.byID {
		if o.PrimaryKey != nil && o.pkeyName() == name && o.Schema == schema && o.Kind == planner.RelTable {
			return o
		}
	}
	return nil
}

// relationNamed reports whether schema.name names a relation, a primary
// key's index included.
func (c *Catalog) relationNamed(schema, name string) bool {
	return c.lookup(schema, name) != nil || c.pkeyOwner(schema, name) != nil
}

// renameInViews rewrites the stored queries of the views that depend on
// a renamed relation to name it by its new name (checkDependents then
// proves that each plans as before).
func (a *alteration) renameInViews() error {
	for _, d := range a.e.dropSet(a.old)[1:] {
		n, err := parseOne(d.SQL)
		if err != nil {
			return err
		}
		walkProto(n, func(m proto.Message) {
			switch m := m.(type) {
			case *pg.RangeVar:
				if m.Relname == a.old.Name && (m.Schemaname == "" || m.Schemaname == a.old.Schema) {
					m.Relname = a.nu.Name
				}
			case *pg.RangeSubselect:
				// the derived table renamedRef made is named after the table
				if m.Alias != nil && m.Alias.Aliasname == a.old.Name && a.wrapper(&pg.Node{Node: &pg.Node_RangeSubselect{RangeSubselect: m}}) != nil {
					m.Alias.Aliasname = a.nu.Name
				}
			case *pg.ColumnRef:
				a.renameQualifier(m)
			}
		})
		text, err := parse.Deparse(n)
		if err != nil {
			return err
		}
		if a.rewritten == nil {
			a.rewritten = map[*Object]*Object{}
		}
		nu := d.clone()
		nu.SQL = text
		if nu.rel, err = nu.relation(); err != nil {
			return err
		}
		a.rewritten[d] = nu
	}
	return nil
}

// renameQualifier renames the table qualifier of a column reference
// (t.c or s.t.c) that names the renamed table, so that a view that
// qualified its columns by the table's name reads them under the new
// one, as PostgreSQL's views (which hold the table's OID) do.
func (a *alteration) renameQualifier(ref *pg.ColumnRef) {
	f := ref.Fields
	if len(f) < 2 || f[len(f)-2].GetString_().GetSval() != a.old.Name {
		return
	}
	if len(f) >= 3 && f[len(f)-3].GetString_().GetSval() != a.old.Schema {
		return
	}
	f[len(f)-2] = pg.MakeStrNode(a.nu.Name)
}

// renameColumnInViews rewrites the stored queries of the views that read
// the table whose column from becomes to: each reference to the table
// becomes a derived table with the same name and columns that reads the
// column by its new name under its old one, (SELECT k, to AS from FROM
// ONLY t) AS t, so every name in the query keeps resolving as before
// (PostgreSQL's views hold column numbers, so a rename reaches them the
// same way) and the view's columns keep their names; a later rename
// changes that derived table in place. checkDependents then proves that
// each view plans as before.
func (a *alteration) renameColumnInViews(from, to string) error {
	return a.editViews(func(n *pg.Node) bool {
		if w := a.wrapper(n); w != nil {
			for _, t := range w.TargetList {
				rt := t.GetResTarget()
				if f := rt.GetVal().GetColumnRef().GetFields(); len(f) == 1 && f[0].GetString_().GetSval() == from {
					f[0] = pg.MakeStrNode(to)
					if rt.Name == "" {
						rt.Name = from
					}
				}
			}
			return true
		}
		if rv := n.GetRangeVar(); rv != nil && a.readsOld(rv) {
			n.Node = &pg.Node_RangeSubselect{RangeSubselect: a.renamedRef(rv, from, to)}
			return true
		}
		return false
	})
}

// dropColumnInViews takes a dropped column out of the derived tables
// renameColumnInViews made, so a view that does not read it plans as
// before and one that does fails to plan (2BP01).
func (a *alteration) dropColumnInViews(col string) error {
	return a.editViews(func(n *pg.Node) bool {
		w := a.wrapper(n)
		if w == nil {
			return false
		}
		kept := w.TargetList[:0]
		for _, t := range w.TargetList {
			if f := t.GetResTarget().GetVal().GetColumnRef().GetFields(); len(f) != 1 || f[0].GetString_().GetSval() != col {
				kept = append(kept, t)
			}
		}
		w.TargetList = kept
		return true
	})
}

// editViews applies edit to every node of the stored queries of the views
// depending on the altered table (the current rewrite of each, if any)
// and records those it changed. edit reports a change; it is applied to
// the nodes found by one walk, so what it builds is not walked again.
func (a *alteration) editViews(edit func(*pg.Node) bool) error {
	for _, d := range a.e.dropSet(a.old)[1:] {
		text := d.SQL
		if nu, ok := a.rewritten[d]; ok {
			text = nu.SQL
		}
		n, err := parseOne(text)
		if err != nil {
			return err
		}
		var nodes []*pg.Node
		shadowed := false
		walkProto(n, func(m proto.Message) {
			switch m := m.(type) {
			case *pg.Node:
				nodes = append(nodes, m)
			case *pg.CommonTableExpr:
				shadowed = shadowed || m.Ctename == a.old.Name
			}
		})
		changed := false
		for _, m := range nodes {
			changed = edit(m) || changed
		}
		if !changed {
			continue
		}
		if shadowed {
			return repr.Unsupported("altering a column of %s, which view %s reads next to a WITH query of the same name", a.old.Name, d.Name)
		}
		if err := a.rewriteView(d, n); err != nil {
			return err
		}
	}
	return nil
}

// readsOld reports whether rv names the altered table (not as ONLY,
// which marks the derived tables of renamedRef).
func (a *alteration) readsOld(rv *pg.RangeVar) bool {
	return rv.Relname == a.old.Name && (rv.Schemaname == "" || rv.Schemaname == a.old.Schema) && rv.Inh
}

// wrapper returns the query of n when n is a derived table renamedRef
// made over the altered table: one FROM item, ONLY the table, and plain
// column references.
func (a *alteration) wrapper(n *pg.Node) *pg.SelectStmt {
	sel := n.GetRangeSubselect().GetSubquery().GetSelectStmt()
	if sel == nil || len(sel.FromClause) != 1 || sel.WhereClause != nil || len(sel.GroupClause) > 0 || len(sel.DistinctClause) > 0 {
		return nil
	}
	rv := sel.FromClause[0].GetRangeVar()
	if rv == nil || rv.Inh || rv.Relname != a.old.Name || rv.Schemaname != "" && rv.Schemaname != a.old.Schema {
		return nil
	}
	for _, t := range sel.TargetList {
		if f := t.GetResTarget().GetVal().GetColumnRef().GetFields(); len(f) != 1 || f[0].GetString_() == nil {
			return nil
		}
	}
	return sel
}

// renamedRef is (SELECT c1, ..., to AS from, ... FROM ONLY t) AS alias:
// the table under its old column names.
func (a *alteration) renamedRef(rv *pg.RangeVar, from, to string) *pg.RangeSubselect {
	inner := &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Relpersistence: rv.Relpersistence}
	sel := &pg.SelectStmt{FromClause: []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: inner}}}}
	for _, c := range a.nu.Columns {
		name := ""
		if c.Name == to {
			name = from
		}
		ref := pg.MakeColumnRefNode([]*pg.Node{pg.MakeStrNode(c.Name)}, -1)
		sel.TargetList = append(sel.TargetList, pg.MakeResTargetNodeWithNameAndVal(name, ref, -1))
	}
	alias := &pg.Alias{Aliasname: rv.Relname}
	if rv.Alias != nil {
		alias = rv.Alias
	}
	return &pg.RangeSubselect{Subquery: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, Alias: alias}
}

// rewriteView records d with the query n as its new stored text.
func (a *alteration) rewriteView(d *Object, n *pg.Node) error {
	text, err := parse.Deparse(n)
	if err != nil {
		return err
	}
	if a.rewritten == nil {
		a.rewritten = map[*Object]*Object{}
	}
	nu, ok := a.rewritten[d]
	if !ok {
		nu = d.clone()
	}
	nu.SQL = text
	if nu.rel, err = nu.relation(); err != nil {
		return err
	}
	a.rewritten[d] = nu
	return nil
}

func renameKind(t pg.ObjectType) planner.RelKind {
	switch t {
	case pg.ObjectType_OBJECT_VIEW:
		return planner.RelView
	case pg.ObjectType_OBJECT_MATVIEW:
		return planner.RelMaterializedView
	case pg.ObjectType_OBJECT_SEQUENCE:
		return relSequence
	case pg.ObjectType_OBJECT_INDEX:
		return relIndex
	}
	return planner.RelTable
}

// renameInChecks rewrites the stored text of the CHECK constraints that
// read a renamed column to name it by its new name (PostgreSQL's stored
// checks refer to columns by number, so a rename carries over). The
// compiled checks are rebuilt from the text with the changed object.
func renameInChecks(o *Object, from, to string) error {
	return rewriteChecks(o, func(f []*pg.Node) bool {
		at := 0
		if len(f) > 1 && f[0].GetString_() != nil && f[0].GetString_().Sval == o.Name {
			at = 1 // table.c
		}
		// c, table.c, or the composite column of a field selection c.f
		// (only the table's columns are in scope in a CHECK)
		if s := f[at].GetString_(); s != nil && s.Sval == from {
			s.Sval = to
			return true
		}
		return false
	})
}

// requalifyChecks rewrites the CHECK constraints of a table renamed from
// old to o.Name that qualify columns by the old name (old.c).
func requalifyChecks(o *Object, old string) error {
	return rewriteChecks(o, func(f []*pg.Node) bool {
		if s := f[0].GetString_(); len(f) > 1 && s != nil && s.Sval == old {
			s.Sval = o.Name
			return true
		}
		return false
	})
}

// rewriteChecks applies fix to the fields of every column reference of
// o's CHECK constraints, storing again the text of those where it
// reports a change.
func rewriteChecks(o *Object, fix func(fields []*pg.Node) bool) error {
	for i, k := range o.Constraints {
		if k.Kind != "check" {
			continue
		}
		n, err := parseExpr(k.Check)
		if err != nil {
			return err
		}
		hit := false
		walkProto(n, func(m proto.Message) {
			if cr, ok := m.(*pg.ColumnRef); ok && len(cr.Fields) > 0 && fix(cr.Fields) {
				hit = true
			}
		})
		if hit {
			if o.Constraints[i].Check, err = parse.DeparseExpr(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropSide finds what dropping victims (obj and its dependent views)
// implies beyond them: the sequences the dropped tables own (dropped
// too), and the dependencies that CASCADE removes from surviving objects
// (foreign keys referencing a dropped table, column defaults calling a
// dropped sequence), as changed copies (fixes: old, new) with the lines
// that RESTRICT's error lists. The caller holds e.mu.
func (e *Engine) dropSide(obj *Object, victims []*Object) (fixes [][2]*Object, owned []*Object, lines []string) {
	dropped := map[uint64]bool{}
	for _, v := range victims {
		dropped[v.ID] = true
	}
	copies := map[uint64]*Object{}
	copyOf := func(o *Object) *Object {
		if c := copies[o.ID]; c != nil {
			return c
		}
		c := o.clone()
		copies[o.ID] = c
		fixes = append(fixes, [2]*Object{o, c})
		return c
	}
	for _, o := range e.cat.objects() {
		if dropped[o.ID] {
			continue
		}
		if o.Kind == relSequence && dropped[o.Sequence.OwnedBy] || o.Kind == relIndex && dropped[o.Index.Table] {
			owned = append(owned, o)
			continue
		}
		for _, k := range o.Constraints {
			if k.Kind == "foreign" && dropped[k.RefTable] && k.RefTable != o.ID {
				if !e.dropListed[o.ID] { // else o goes in the same DROP (dropList)
					lines = append(lines, fmt.Sprintf("constraint %s on table %s depends on table %s", k.Name, o.Name, e.cat.byID[k.RefTable].Name))
				}
				c := copyOf(o)
				for i, x := range c.Constraints {
					if x.Name == k.Name {
						c.Constraints = append(c.Constraints[:i:i], c.Constraints[i+1:]...)
						break
					}
				}
			}
		}
		if obj.Kind != relSequence {
			continue
		}
		for i, col := range o.Columns {
			if col.Seq == obj.ID || strings.Contains(col.Default, "nextval("+quoteLiteral(obj.Name)+")") {
				lines = append(lines, fmt.Sprintf("default value for column %s of table %s depends on sequence %s", col.Name, o.Name, obj.Name))
				c := copyOf(o)
				c.Columns[i].Default, c.Columns[i].Seq, c.Columns[i].Identity = "", 0, 0
			}
		}
	}
	return fixes, owned, lines
}

// widenedOnly reports whether two printed dataflows differ only in the
// column types of their Sources (of the altered table, or of one an
// earlier ALTER changed the same way: the stored plan keeps the types it
// was made with), each read only by MFPs and
// Reduces (which read their input's columns by position and keep no whole
// input rows) that read none of the columns whose type changed: columns
// appended or dropped at the end (ADD COLUMN, DROP COLUMN of the last
// one) or changed in type where no node reads them. The running dataflow
// then handles the new rows, and a restart's plan has the same nodes.
func widenedOnly(before, after string) bool {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	if len(a) != len(b) {
		return false
	}
	src := " = Source coll="
	changed := map[string][]int{} // node -> changed column positions
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		if !strings.Contains(a[i], src) || !strings.Contains(b[i], src) {
			return false
		}
		changed[strings.Fields(a[i])[0]] = changedTypes(a[i], b[i])
	}
	for _, line := range a {
		_, rest, ok := strings.Cut(line, "<- ")
		if !ok {
			continue
		}
		ins, _, _ := strings.Cut(rest, " ::")
		for _, in := range strings.Split(ins, ", ") {
			cols, ok := changed[in]
			if !ok {
				continue
			}
			f := strings.Fields(line)
			if len(f) < 3 || (f[2] != "MFP" && f[2] != "Reduce") {
				return false
			}
			for _, c := range cols {
				if readsColumn(line, c) {
					return false
				}
			}
		}
	}
	return true
}

// changedTypes returns the positions where two printed nodes' column
// types (after "::") differ, within the shorter list.
func changedTypes(x, y string) []int {
	_, tx, _ := strings.Cut(x, " :: ")
	_, ty, _ := strings.Cut(y, " :: ")
	a, b := strings.Split(tx, ", "), strings.Split(ty, ", ")
	var out []int
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			out = append(out, i)
		}
	}
	return out
}

// readsColumn reports whether a printed node mentions input column c
// (#c not followed by a digit): conservatively, any mention.
func readsColumn(line string, c int) bool {
	ref := "#" + strconv.Itoa(c)
	for i := strings.Index(line, ref); i >= 0; {
		end := i + len(ref)
		if end >= len(line) || line[end] < '0' || line[end] > '9' {
			return true
		}
		j := strings.Index(line[end:], ref)
		if j < 0 {
			break
		}
		i = end + j
	}
	return false
}

// addPrimaryKey gives a table without one a primary key: its columns
// become NOT NULL and its rows are stored again, keyed (the existing rows
// must be unique: 23505).
func (a *alteration) addPrimaryKey(c *pg.Constraint) error {
	nu := a.nu
	if nu.PrimaryKey != nil {
		return repr.Errorf("42P16", "multiple primary keys for table \"%s\" are not allowed", nu.Name)
	}
	if c.Conname != "" && nu.constraintNamed(c.Conname) {
		return repr.Errorf(repr.CodeDuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", c.Conname, nu.Name)
	}
	nu.PKeyName = pkeyNameOf(nu.Name, c.Conname)
	var key []int
	for _, n := range stringList(c.Keys) {
		i := columnIndex(nu.Columns, n)
		if i < 0 {
			return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", n, nu.Name)
		}
		key = append(key, i)
		nu.Columns[i].NotNull = true
	}
	nu.PrimaryKey, a.reshape, a.validate, a.newKey = key, true, true, true
	return nil
}

// notSelfMember refuses a column of type t when t holds values of the
// table's own row type (directly, in an array or in a field of another
// composite type), as PostgreSQL's CheckAttributeType does: a row cannot
// contain itself.
func (a *alteration) notSelfMember(t repr.T) error {
	if hasRowType(a.old) && a.e.cat.typeContains(t, typeOID(a.old)) {
		return repr.Errorf("42P16", "composite type %s cannot be made a member of itself", a.old.Name)
	}
	return nil
}

// alterType changes a column's type: each stored value is assigned to
// the new type (PostgreSQL's assignment casts), or computed by USING over
// the old row. The column keeps its default, NOT NULL and constraints,
// which are checked again against the converted rows.
func (a *alteration) alterType(cmd *pg.AlterTableCmd) error {
	i, err := a.column(cmd.Name)
	if err != nil {
		return err
	}
	cd := cmd.Def.GetColumnDef()
	t, err := a.e.cat.typeFromName(cd.TypeName)
	if err != nil {
		return err
	}
	if err := a.notSelfMember(t); err != nil {
		return err
	}
	src := a.srcCol[i]
	if src < 0 {
		return repr.Unsupported("changing the type of a column added in the same ALTER TABLE")
	}
	if a.nu.Columns[i].Identity != 0 {
		if err := a.retypeIdentity(a.nu.Columns[i].Seq, t); err != nil {
			return err
		}
	}
	ex := cd.RawDefault
	if ex == nil {
		ex = &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{
			Fields: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: a.old.Columns[src].Name}}}}}}}
	}
	x, err := planner.PlanRowValue(a.e.cat, a.old.rel, ex, t, cmd.Name)
	if err != nil {
		if cd.RawDefault == nil && repr.ErrorFrom(err).Code == repr.CodeDatatypeMismatch {
			return repr.Errorf(repr.CodeDatatypeMismatch, "column \"%s\" cannot be cast automatically to type %s", cmd.Name, t).
				WithHint("You might need to specify \"USING %s::%s\".", cmd.Name, t)
		}
		return err
	}
	a.nu.Columns[i].Type, a.exprs[i] = t, x
	a.reshape, a.validate = true, true
	return nil
}

// stageSequences writes the created sequences (catalog entries, states,
// the ID counter) and the deletion of the dropped ones to b, and changes
// the catalog (undone by finishSequences if the commit does not happen).
func (a *alteration) stageSequences(b *storage.Batch) error {
	e := a.e
	b.Set(metaNextID, binary.BigEndian.AppendUint64(nil, e.nextID))
	for _, o := range a.created {
		st := a.seqFill[o.Sequence.OwnedCol]
		last, called := o.Sequence.firstValue(), false
		if st != nil {
			last, called = st.last, st.called
		}
		if err := e.persistObject(o, b); err != nil {
			return err
		}
		b.Set(seqKey(o.ID), encodeSeqValue(last, called))
		if err := e.cat.add(o); err != nil {
			return err
		}
		a.staged = append(a.staged, o)
	}
	for _, o := range a.deleted {
		b.Delete(storage.CatalogKey(o.ID))
		b.Delete(seqKey(o.ID))
	}
	return nil
}

// finishSequences registers the created sequences and forgets the
// dropped ones once the batch is durable (e.cat holds the new table), or
// undoes stageSequences.
func (a *alteration) finishSequences() {
	e := a.e
	if e.cat.byID[a.nu.ID] != a.nu {
		for _, o := range a.staged {
			e.cat.remove(o)
		}
		return
	}
	for _, o := range a.created {
		// at the state stageSequences staged (the batch may not be
		// durable yet: an atomic change with rebuilt views)
		last, called := o.Sequence.firstValue(), false
		if st := a.seqFill[o.Sequence.OwnedCol]; st != nil {
			last, called = st.last, st.called
		}
		e.registerSequenceAt(o, last, called)
	}
	for _, o := range a.deleted {
		e.cat.remove(o)
		e.forgetSequence(o)
	}
}
