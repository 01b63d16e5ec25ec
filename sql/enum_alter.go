package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// enumTarget qualifies the type a CREATE TYPE ... AS ENUM creates: an
// unqualified name goes to the creation schema of the search path.
func (q *qualifier) enumTarget(cs *pg.CreateEnumStmt) error {
	names := listStrings(&pg.Node{Node: &pg.Node_List{List: &pg.List{Items: cs.TypeName}}})
	rv := &pg.RangeVar{Relname: names[len(names)-1]}
	if len(names) > 1 {
		rv.Schemaname = names[len(names)-2]
	}
	if err := q.target(rv); err != nil {
		return err
	}
	cs.TypeName = []*pg.Node{pg.MakeStrNode(rv.Schemaname), pg.MakeStrNode(rv.Relname)}
	return nil
}

// execAlterEnum executes ALTER TYPE name ADD VALUE [IF NOT EXISTS] label
// [BEFORE | AFTER neighbour] and ALTER TYPE name RENAME VALUE a TO b.
func (p *Portal) execAlterEnum(as *pg.AlterEnumStmt) error {
	p.tag = "ALTER TYPE"
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	o, err := p.lookupType(as.TypeName)
	if err != nil {
		return err
	}
	if o.Enum == nil {
		return repr.Errorf(repr.CodeWrongObjectType, "%s is not an enum", o.Name)
	}
	nu := o.clone()
	nu.Enum = o.Enum.clone()
	if as.OldVal != "" {
		i, err := renameEnumValue(nu.Enum, as.OldVal, as.NewVal)
		if err != nil {
			return err
		}
		return e.commitEnumRename(p.st.s, o, nu, as.OldVal, as.NewVal, nu.Enum.Values[i].Order)
	}
	if err := addEnumValue(nu.Enum, as); err != nil {
		return p.st.s.noticeSkipped(err)
	}
	return e.commitAltered(o, nu, nil)
}

// addEnumValue adds as.NewVal to d with PostgreSQL's sort order: one past
// the last label, one before the first, or midway between the neighbour
// and the label beside it. IF NOT EXISTS turns a duplicate into a
// skipped notice.
func addEnumValue(d *EnumDef, as *pg.AlterEnumStmt) error {
	if d.index(as.NewVal) >= 0 && as.SkipIfNewValExists {
		return skipped(repr.Errorf(repr.CodeDuplicateObject, "enum label \"%s\" already exists, skipping", as.NewVal))
	}
	if d.index(as.NewVal) >= 0 {
		return repr.Errorf(repr.CodeDuplicateObject, "enum label \"%s\" already exists", as.NewVal)
	}
	if err := checkEnumLabel(as.NewVal); err != nil {
		return err
	}
	if d.NextSeq >= maxEnumSeq {
		return repr.Unsupported("an enum type of more than %d labels", maxEnumSeq)
	}
	at, order, err := newEnumOrder(d, as)
	if err != nil {
		return err
	}
	v := EnumValue{Label: as.NewVal, Order: order, Seq: d.NextSeq}
	d.NextSeq++
	d.Values = append(d.Values[:at:at], append([]EnumValue{v}, d.Values[at:]...)...)
	return nil
}

// newEnumOrder returns where a label added by as goes in d.Values and
// its sort order.
func newEnumOrder(d *EnumDef, as *pg.AlterEnumStmt) (int, float64, error) {
	n := len(d.Values)
	if as.NewValNeighbor == "" {
		if n == 0 {
			return 0, 1, nil
		}
		return n, float4Order(d.Values[n-1].Order + 1), nil
	}
	i := d.index(as.NewValNeighbor)
	if i < 0 {
		return 0, 0, repr.Errorf(repr.CodeInvalidParameter, "\"%s\" is not an existing enum label", as.NewValNeighbor)
	}
	at := i // BEFORE: between i-1 and i
	if as.NewValIsAfter {
		at = i + 1
	}
	switch {
	case at == 0:
		return 0, float4Order(d.Values[0].Order - 1), nil
	case at == n:
		return n, float4Order(d.Values[n-1].Order + 1), nil
	}
	m, ok := midOrder(d.Values[at-1].Order, d.Values[at].Order)
	if !ok {
		return 0, 0, repr.Unsupported("ALTER TYPE ... ADD VALUE between labels whose sort orders have no float4 between them (PostgreSQL renumbers the labels)")
	}
	return at, m, nil
}

// renameEnumValue renames the label from to to in d (the altered copy of
// an enum type), returning its index. As PostgreSQL, renaming a label
// to itself is 42710.
// What holds values of the type is rewritten by commitEnumRename.
func renameEnumValue(d *EnumDef, from, to string) (int, error) {
	i := d.index(from)
	switch {
	case i < 0:
		return -1, repr.Errorf(repr.CodeInvalidParameter, "\"%s\" is not an existing enum label", from)
	case d.index(to) >= 0:
		return -1, repr.Errorf(repr.CodeDuplicateObject, "enum label \"%s\" already exists", to)
	}
	if err := checkEnumLabel(to); err != nil {
		return -1, err
	}
	d.Values[i].Label = to
	return i, nil
}

// alterTypeOwner executes ALTER TYPE name OWNER TO role, of a composite
// or an enum type.
func (p *Portal) alterTypeOwner(st *pg.AlterOwnerStmt) error {
	p.tag = "ALTER TYPE"
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	o, err := p.lookupType(st.Object.GetList().GetItems())
	if err != nil {
		return err
	}
	return p.alterRelOwner(o, st.Newowner)
}

// setTypeSchema executes ALTER TYPE name SET SCHEMA s, of a composite or
// an enum type. Columns hold the type by OID and follow it; a view whose
// stored query names the type would not, so the move is 0A000 while one
// does.
func (p *Portal) setTypeSchema(st *pg.AlterObjectSchemaStmt) error {
	p.tag = "ALTER TYPE"
	e, s := p.st.s.e, p.st.s
	e.mu.Lock()
	defer e.mu.Unlock()
	o, err := p.lookupType(st.Object.GetList().GetItems())
	if err != nil {
		return err
	}
	if e.cat.schemas[st.Newschema] == nil {
		return repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", st.Newschema)
	}
	if err := s.checkCreateIn(e.cat, st.Newschema, o.Name); err != nil {
		return err
	}
	if st.Newschema == o.Schema {
		return nil
	}
	if e.cat.lookup(st.Newschema, o.Name) != nil {
		return repr.Errorf(repr.CodeDuplicateObject, "type \"%s\" already exists in schema \"%s\"", o.Name, st.Newschema)
	}
	if d := e.cat.typeDependents(o); len(d.views) > 0 {
		return repr.Unsupported("ALTER TYPE ... SET SCHEMA of a type that view \"%s\" uses", d.views[0].Name)
	}
	return e.moveObjects(nil, st.Newschema, func(x *Object) bool { return x.ID == o.ID })
}
