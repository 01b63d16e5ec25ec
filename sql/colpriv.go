package sql

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// Column privileges (GRANT SELECT (a, b), INSERT (cols), UPDATE (cols),
// REFERENCES (cols) ON t), PostgreSQL's attacl.
//
// A column's ACL (ColumnDef.ACL) adds to its relation's: a role lacking
// a privilege on the relation may still run a statement when it holds
// that privilege on every column the statement uses of it. Which columns
// a statement uses is read off its parse tree when names are bound
// (qualifier.columnUse): the column references that name the relation
// or its alias, and unqualified references that match one of its
// columns (in any query level: a name another relation in scope also
// has counts for both, which can refuse, never wrongly admit, a
// statement); * and whole-row references use every column. INSERT uses
// its target columns (without a list, as many leading columns as the
// first VALUES row or select list gives), UPDATE its SET columns. A read
// that names no column (count(*)) needs SELECT on some column, as in
// PostgreSQL. A failed check is PostgreSQL's "permission denied for
// table t".

// allColumnPrivs are the privileges a column can carry.
const allColumnPrivs = privSelect | privInsert | privUpdate | privReferences

// colUse is what a statement uses of one relation's columns.
type colUse struct {
	names []string // nil and not all: no column named
	all   bool
	// first, when positive, is the number of leading columns an INSERT
	// without a column list assigns.
	first int
}

// cols lists the columns u uses of o.
func (u colUse) cols(o *Object) []string {
	if !u.all && u.first <= 0 {
		return u.names
	}
	out := make([]string, len(o.Columns))
	for i, c := range o.Columns {
		out[i] = c.Name
	}
	if !u.all && u.first < len(out) {
		out = out[:u.first]
	}
	return out
}

// stmtColumnRefs collects the column references of a statement: each as its
// name parts, "*" for a star.
func stmtColumnRefs(n *pg.Node) [][]string {
	var out [][]string
	walkProtoPruned(n, func(m proto.Message) bool {
		switch m := m.(type) {
		case *pg.A_Const:
			return false // a literal refers to no column (VALUES lists of thousands)
		case *pg.ColumnRef:
			var parts []string
			for _, f := range m.Fields {
				if f.GetAStar() != nil {
					parts = append(parts, "*")
				} else {
					parts = append(parts, f.GetString_().GetSval())
				}
			}
			out = append(out, parts)
		case *pg.JoinExpr:
			if m.IsNatural {
				out = append(out, []string{"*"})
			}
			if m.Alias != nil && m.Alias.Aliasname != "" {
				out = append(out, []string{joinAliasMark, m.Alias.Aliasname})
			}
			for _, u := range m.UsingClause {
				out = append(out, []string{u.GetString_().GetSval()})
			}
		}
		return true
	})
	return out
}

// joinAliasMark starts the entry stmtColumnRefs adds for an aliased
// JOIN ({joinAliasMark, alias}).
const joinAliasMark = "\x00join"

// readUse is what the statement's column references use of relation o
// named by rv. A reference through a join's alias (j.*, j.y, j) is
// taken as one through any relation: j.* and j read every column, j.y
// any column named y; a column alias list (b(one, x, y)) names o's
// columns by position.
func readUse(refs [][]string, rv *pg.RangeVar, o *Object) colUse {
	alias := rv.Relname
	if rv.Alias != nil && rv.Alias.Aliasname != "" {
		alias = rv.Alias.Aliasname
	}
	colOf := func(name string) string { // the column a name means under rv's alias list
		if rv.Alias != nil {
			for i, c := range rv.Alias.Colnames {
				if c.GetString_().GetSval() == name && i < len(o.Columns) {
					return o.Columns[i].Name
				}
			}
			if len(rv.Alias.Colnames) > 0 {
				for i := range rv.Alias.Colnames {
					if i < len(o.Columns) && o.Columns[i].Name == name {
						return "" // renamed away
					}
				}
			}
		}
		return name
	}
	has := func(name string) bool {
		return name != "" && slices.ContainsFunc(o.Columns, func(c ColumnDef) bool { return c.Name == name })
	}
	joins := map[string]bool{}
	for _, r := range refs {
		if len(r) == 2 && r[0] == joinAliasMark {
			joins[r[1]] = true
		}
	}
	var u colUse
	for _, r := range refs {
		if r[0] == joinAliasMark {
			continue
		}
		last := r[len(r)-1]
		viaJoin := len(r) > 1 && joins[r[len(r)-2]]
		qualified := len(r) > 1 && r[len(r)-2] == alias || viaJoin
		switch {
		case len(r) == 1 && last == "*", qualified && last == "*":
			u.all = true
		case len(r) == 1 && (last == alias || joins[last]) && !has(colOf(last)): // whole-row reference
			u.all = true
		case (len(r) == 1 || qualified) && has(colOf(last)) && !slices.Contains(u.names, colOf(last)):
			u.names = append(u.names, colOf(last))
		}
	}
	return u
}

// insertUse is the columns an INSERT assigns.
func insertUse(st *pg.InsertStmt) colUse {
	if len(st.Cols) > 0 {
		var u colUse
		for _, c := range st.Cols {
			u.names = append(u.names, c.GetResTarget().Name)
		}
		return u
	}
	sel := st.SelectStmt.GetSelectStmt()
	switch {
	case sel == nil:
	case len(sel.ValuesLists) > 0:
		return colUse{first: len(sel.ValuesLists[0].GetList().GetItems())}
	case sel.Op == pg.SetOperation_SETOP_NONE && len(sel.TargetList) > 0 && !slices.ContainsFunc(sel.TargetList, isStarTarget):
		return colUse{first: len(sel.TargetList)}
	}
	return colUse{all: true}
}

// conflictSets is the columns ON CONFLICT DO UPDATE assigns.
func conflictSets(oc *pg.OnConflictClause) colUse {
	var u colUse
	for _, t := range oc.TargetList {
		if name := t.GetResTarget().Name; !slices.Contains(u.names, name) {
			u.names = append(u.names, name)
		}
	}
	return u
}

// isStarTarget reports whether a select-list entry is * or t.*.
func isStarTarget(n *pg.Node) bool {
	fs := n.GetResTarget().GetVal().GetColumnRef().GetFields()
	return len(fs) > 0 && fs[len(fs)-1].GetAStar() != nil
}

// updateUse is the columns an UPDATE sets.
func updateUse(st *pg.UpdateStmt) colUse {
	var u colUse
	for _, t := range st.TargetList {
		if name := t.GetResTarget().Name; !slices.Contains(u.names, name) {
			u.names = append(u.names, name)
		}
	}
	return u
}

// hasColumnPrivs reports whether role holds, for each privilege of n it
// lacks on relation o, that privilege on every column n uses (SELECT
// with no column named, and UPDATE assigning none, as a SELECT ... FOR
// UPDATE needs: on some column).
func (e *Engine) hasColumnPrivs(role string, o *Object, n privNeed) bool {
	held, _ := e.rolePrivs(role, relACL(o), o.Owner, relAllPrivs(o))
	missing := n.priv &^ held
	if missing&^allColumnPrivs != 0 || o.Kind == relSequence {
		return false
	}
	for b := aclMode(1); b <= missing; b <<= 1 {
		if missing&b == 0 {
			continue
		}
		var cols []string
		switch b {
		case privSelect, privReferences:
			cols = n.reads.cols(o)
		case privInsert:
			cols = n.writes.cols(o)
		case privUpdate:
			cols = n.sets.cols(o)
		}
		if (b == privSelect || b == privUpdate) && len(cols) == 0 {
			if !e.anyColumnPriv(role, o, b) {
				return false
			}
			continue
		}
		for _, c := range cols {
			if !e.columnPriv(role, o, c, b) {
				return false
			}
		}
	}
	return true
}

// columnPriv reports whether role holds priv on column name of o through
// the column's own ACL.
func (e *Engine) columnPriv(role string, o *Object, name string, priv aclMode) bool {
	i := slices.IndexFunc(o.Columns, func(c ColumnDef) bool { return c.Name == name })
	if i < 0 {
		return true // the statement reports the missing column
	}
	p, _ := e.rolePrivs(role, o.Columns[i].ACL, o.Owner, allColumnPrivs)
	return p&priv != 0
}

// anyColumnPriv reports whether role holds priv on some column of o.
func (e *Engine) anyColumnPriv(role string, o *Object, priv aclMode) bool {
	for _, c := range o.Columns {
		if p, _ := e.rolePrivs(role, c.ACL, o.Owner, allColumnPrivs); p&priv != 0 {
			return true
		}
	}
	return false
}

// colGrant is a column-level GRANT or REVOKE item: privileges on named
// columns.
type colGrant struct {
	privs aclMode
	cols  []string
}

// columnGrants reads the column items of a privilege list (0LP01 for a
// privilege columns do not carry).
func columnGrants(list []*pg.Node) ([]colGrant, error) {
	var out []colGrant
	for _, n := range list {
		ap := n.GetAccessPriv()
		if len(ap.Cols) == 0 {
			continue
		}
		g := colGrant{privs: allColumnPrivs}
		if ap.PrivName != "" {
			b, ok := privByName(ap.PrivName)
			if !ok || b&allColumnPrivs == 0 {
				return nil, repr.Errorf(codeInvalidPrivType, "invalid privilege type %s for column", strings.ToUpper(ap.PrivName))
			}
			g.privs = b
		}
		for _, c := range ap.Cols {
			g.cols = append(g.cols, c.GetString_().GetSval())
		}
		out = append(out, g)
	}
	return out, nil
}

// changeColumnACLs applies column grants (and, for a relation-level
// REVOKE, the same privileges on every column, as PostgreSQL does) to a
// copy of o's columns; an emptied column ACL becomes nil.
func changeColumnACLs(o *Object, grants []colGrant, tablePrivs aclMode, grantor uint32, grantees []uint32, gs *pg.GrantStmt) ([]ColumnDef, error) {
	cols := slices.Clone(o.Columns)
	apply := func(i int, privs aclMode) {
		acl := slices.Clone(cols[i].ACL)
		for _, g := range grantees {
			acl = applyACL(acl, g, grantor, privs, gs.IsGrant, gs.GrantOption)
		}
		if len(acl) == 0 {
			acl = nil
		}
		cols[i].ACL = acl
	}
	for _, g := range grants {
		for _, name := range g.cols {
			i := slices.IndexFunc(cols, func(c ColumnDef) bool { return c.Name == name })
			if i < 0 {
				return nil, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, o.Name)
			}
			apply(i, g.privs)
		}
	}
	if !gs.IsGrant && tablePrivs&allColumnPrivs != 0 {
		for i := range cols {
			if cols[i].ACL != nil {
				apply(i, tablePrivs&allColumnPrivs)
			}
		}
	}
	return cols, nil
}

// newOwnerColumnACLs rewrites the column ACLs of o's columns for an
// owner change (newOwnerACL).
func newOwnerColumnACLs(cols []ColumnDef, old, nu uint32) {
	for i := range cols {
		cols[i].ACL = newOwnerACL(cols[i].ACL, old, nu)
	}
}

// copyUse is the columns COPY names (all without a list).
func copyUse(st *pg.CopyStmt) colUse {
	if len(st.Attlist) == 0 {
		return colUse{all: true}
	}
	var u colUse
	for _, a := range st.Attlist {
		u.names = append(u.names, a.GetString_().GetSval())
	}
	return u
}

// refs turns u into unqualified column references (readUse's input).
func (u colUse) refs() [][]string {
	if u.all {
		return [][]string{{"*"}}
	}
	out := make([][]string, len(u.names))
	for i, n := range u.names {
		out[i] = []string{n}
	}
	return out
}

// hasColumnPrivilege is has_column_privilege([role,] table, column,
// privileges): whether the role holds any of the privileges on the
// column, through the table's ACL or the column's; the column by name
// (42703 if missing) or attnum (NULL if none).
func hasColumnPrivilege(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	if len(a) < 3 || a[len(a)-1].IsNull() || a[len(a)-2].IsNull() || a[len(a)-3].IsNull() {
		return repr.Null, nil
	}
	role, err := c.privRole(a, 4)
	if err != nil {
		return repr.Null, err
	}
	want, opt, err := privSpec(a[len(a)-1].Text(), allColumnPrivs)
	if err != nil {
		return repr.Null, err
	}
	o, sys, err := c.privRelation(s, a[len(a)-3])
	if err != nil || o == nil {
		return repr.Null, err
	}
	if sys {
		return repr.NewBool(want&privSelect != 0 && !opt), nil
	}
	col := a[len(a)-2]
	i := -1
	if col.Family() == repr.FamText {
		if i = slices.IndexFunc(o.Columns, func(cd ColumnDef) bool { return cd.Name == col.Text() }); i < 0 {
			return repr.Null, repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col.Text(), o.Name)
		}
	} else if n := int(col.Int()); n >= 1 && n <= len(o.Columns) {
		i = n - 1
	}
	if i < 0 {
		return repr.Null, nil
	}
	held, grantable := c.s.e.rolePrivs(role, relACL(o), o.Owner, relAllPrivs(o))
	ch, cg := c.s.e.rolePrivs(role, o.Columns[i].ACL, o.Owner, allColumnPrivs)
	held, grantable = held|ch, grantable|cg
	if opt {
		held = grantable
	}
	return repr.NewBool(held&want != 0), nil
}

// hasAnyColumnPrivilege is has_any_column_privilege([role,] table,
// privileges): the table's privileges or those of any of its columns.
func hasAnyColumnPrivilege(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	if len(a) < 2 || a[len(a)-1].IsNull() || a[len(a)-2].IsNull() {
		return repr.Null, nil
	}
	role, err := c.privRole(a, 3)
	if err != nil {
		return repr.Null, err
	}
	want, opt, err := privSpec(a[len(a)-1].Text(), allColumnPrivs)
	if err != nil {
		return repr.Null, err
	}
	o, sys, err := c.privRelation(s, a[len(a)-2])
	if err != nil || o == nil {
		return repr.Null, err
	}
	if sys {
		return repr.NewBool(want&privSelect != 0 && !opt), nil
	}
	held, grantable := c.s.e.rolePrivs(role, relACL(o), o.Owner, relAllPrivs(o))
	for _, cd := range o.Columns {
		h, g := c.s.e.rolePrivs(role, cd.ACL, o.Owner, allColumnPrivs)
		held, grantable = held|h, grantable|g
	}
	if opt {
		held = grantable
	}
	return repr.NewBool(held&want != 0), nil
}

// setReads reports whether an UPDATE's SET expressions read columns (as
// in SET a = a + 1), which needs SELECT on them.
func setReads(st *pg.UpdateStmt) bool {
	for _, t := range st.TargetList {
		if len(stmtColumnRefs(t.GetResTarget().GetVal())) > 0 {
			return true
		}
	}
	return false
}
