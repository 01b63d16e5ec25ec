package sql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// ALTER TYPE of a composite type: RENAME TO, and ADD / DROP / RENAME
// ATTRIBUTE while no column uses the type (PostgreSQL rewrites the values
// stored under a changed type; Eddy refuses with 0A000 naming the
// columns). A rename keeps the OID, so columns of the type follow it, and
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
	var names []*pg.Node
	if rs.Relation != nil { // RENAME ATTRIBUTE names the type as a relation
		if rs.Relation.Schemaname != "" {
			names = append(names, pg.MakeStrNode(rs.Relation.Schemaname))
		}
		names = append(names, pg.MakeStrNode(rs.Relation.Relname))
	} else {
		names = rs.Object.GetList().GetItems()
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
		if err := e.cat.typeInUse(o, "ALTER TYPE ... RENAME ATTRIBUTE"); err != nil {
			return err
		}
		nu.Columns[i].Name = rs.Newname
		return e.commitAltered(o, nu, nil)
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
// (several, in order) on a composite type no column uses.
func (p *Portal) execAlterType(as *pg.AlterTableStmt) error {
	p.tag = "ALTER TYPE"
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	var names []*pg.Node
	if as.Relation.Schemaname != "" {
		names = append(names, pg.MakeStrNode(as.Relation.Schemaname))
	}
	o, err := p.lookupType(append(names, pg.MakeStrNode(as.Relation.Relname)))
	if err != nil {
		return err
	}
	nu := o.clone()
	for _, n := range as.Cmds {
		cmd := n.GetAlterTableCmd()
		switch cmd.Subtype {
		case pg.AlterTableType_AT_AddColumn:
			err = e.addAttribute(o, nu, cmd)
		case pg.AlterTableType_AT_DropColumn:
			err = e.dropAttribute(o, nu, cmd)
		default:
			err = repr.Unsupported("ALTER TYPE %s", strings.TrimPrefix(cmd.Subtype.String(), "AT_"))
		}
		if err != nil {
			return err
		}
	}
	return e.commitAltered(o, nu, nil)
}

// addAttribute appends a field to nu (the altered copy of o).
func (e *Engine) addAttribute(o, nu *Object, cmd *pg.AlterTableCmd) error {
	if err := e.cat.typeInUse(o, "ALTER TYPE ... ADD ATTRIBUTE"); err != nil {
		return err
	}
	cols, err := e.cat.fieldDefs([]*pg.Node{cmd.Def})
	if err != nil {
		return err
	}
	if columnIndex(nu.Columns, cols[0].Name) >= 0 {
		return repr.Errorf(repr.CodeDuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cols[0].Name, o.Name)
	}
	nu.Columns = append(nu.Columns, cols[0])
	return nil
}

// dropAttribute removes a field from nu (the altered copy of o).
func (e *Engine) dropAttribute(o, nu *Object, cmd *pg.AlterTableCmd) error {
	i := columnIndex(nu.Columns, cmd.Name)
	if i < 0 {
		if cmd.MissingOk {
			return nil
		}
		return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, o.Name)
	}
	if err := e.cat.typeInUse(o, "ALTER TYPE ... DROP ATTRIBUTE"); err != nil {
		return err
	}
	nu.Columns = append(nu.Columns[:i:i], nu.Columns[i+1:]...)
	return nil
}

// typeInUse refuses a change to the fields of the composite type o while
// a column uses it (0A000 naming what and the columns).
func (c *Catalog) typeInUse(o *Object, what string) error {
	lines := c.typeUsers(o)
	if len(lines) == 0 {
		return nil
	}
	return repr.Unsupported("%s of type %s, which %s", what, o.Name, strings.Join(lines, "; "))
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
		walkProto(n, func(m proto.Message) {
			tn, ok := m.(*pg.TypeName)
			if !ok || len(tn.Names) == 0 || tn.Names[len(tn.Names)-1].GetString_().GetSval() != o.Name {
				return
			}
			if len(tn.Names) >= 2 && tn.Names[len(tn.Names)-2].GetString_().GetSval() != o.Schema {
				return
			}
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
