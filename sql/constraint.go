package sql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// Constraint is a named table constraint other than the primary key:
// UNIQUE, CHECK or FOREIGN KEY. They are checked at the end of each
// statement against the rows the transaction sees (constraint_check.go).
type Constraint struct {
	Name string
	// Kind is "unique", "check" or "foreign".
	Kind string
	// Cols are the constrained columns (unique, foreign).
	Cols []int `json:",omitempty"`
	// Check is the SQL text of a CHECK expression.
	Check string `json:",omitempty"`
	// RefTable and RefCols are the referenced table and its columns (a
	// primary key or unique constraint) of a foreign key; OnDelete and
	// OnUpdate its actions: 'a' NO ACTION, 'r' RESTRICT, 'c' CASCADE, 'n'
	// SET NULL, 'd' SET DEFAULT.
	RefTable uint64 `json:",omitempty"`
	RefCols  []int  `json:",omitempty"`
	OnDelete byte   `json:",omitempty"`
	OnUpdate byte   `json:",omitempty"`
	// Deferred marks a DEFERRABLE INITIALLY DEFERRED constraint, checked
	// only at commit (referential actions still run at once).
	Deferred bool `json:",omitempty"`
	// NullsNotDistinct makes NULLs equal for a UNIQUE constraint (PG 15).
	NullsNotDistinct bool `json:",omitempty"`

	// ref and refCols name the referenced table and columns until
	// resolveForeignKeys resolves them.
	ref     *pg.RangeVar
	refCols []string
}

// addConstraint adds a UNIQUE, CHECK or FOREIGN KEY constraint to a table
// being defined; col is the column it is declared on ("" for a table
// constraint).
func (o *Object) addConstraint(c *pg.Constraint, col string) error {
	k := Constraint{Name: c.Conname, Deferred: c.Initdeferred}
	var names []string
	switch c.Contype {
	case pg.ConstrType_CONSTR_UNIQUE:
		k.Kind, names = "unique", stringList(c.Keys)
		k.NullsNotDistinct = c.NullsNotDistinct
	case pg.ConstrType_CONSTR_CHECK:
		k.Kind = "check"
		text, err := parse.DeparseExpr(c.RawExpr)
		if err != nil {
			return err
		}
		k.Check = text
	case pg.ConstrType_CONSTR_FOREIGN:
		k.Kind, names = "foreign", stringList(c.FkAttrs)
		k.ref, k.refCols = c.Pktable, stringList(c.PkAttrs)
		k.OnDelete, k.OnUpdate = fkAction(c.FkDelAction), fkAction(c.FkUpdAction)
		if c.FkMatchtype == "f" {
			return repr.Unsupported("MATCH FULL")
		}
		if k.OnUpdate == 'd' || k.OnDelete == 'd' {
			return repr.Unsupported("SET DEFAULT foreign key actions")
		}
	}
	if len(names) == 0 && col != "" && k.Kind != "check" {
		names = []string{col}
	}
	for _, n := range names {
		i := columnIndex(o.Columns, n)
		if i < 0 {
			return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" named in key does not exist", n)
		}
		k.Cols = append(k.Cols, i)
	}
	if k.Kind == "foreign" && len(k.refCols) > 0 && len(k.refCols) != len(k.Cols) {
		return repr.Errorf("42830", "number of referencing and referenced columns for foreign key disagree")
	}
	if k.Name == "" {
		k.Name = o.chooseConstraintName(k, c)
	}
	for _, x := range o.Constraints {
		if x.Name == k.Name {
			return repr.Errorf(repr.CodeDuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", k.Name, o.Name)
		}
	}
	o.Constraints = append(o.Constraints, k)
	return nil
}

func fkAction(a string) byte {
	if a == "" {
		return 'a'
	}
	return a[0]
}

func stringList(ns []*pg.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.GetString_().GetSval()) // "" for a non-name (a domain's TypeName)
	}
	return out
}

// chooseConstraintName names a constraint as PostgreSQL does: table,
// columns and a suffix (key, fkey, check), a CHECK naming its one column
// or none, with a number appended until the name is free.
func (o *Object) chooseConstraintName(k Constraint, c *pg.Constraint) string {
	var cols []string
	suffix := map[string]string{"unique": "key", "foreign": "fkey", "check": "check"}[k.Kind]
	if k.Kind == "check" {
		refs := columnRefs(c.RawExpr)
		if len(refs) == 1 {
			cols = refs
		}
	} else {
		for _, i := range k.Cols {
			cols = append(cols, o.Columns[i].Name)
		}
	}
	base := o.Name
	if len(cols) > 0 {
		base += "_" + strings.Join(cols, "_")
	}
	name := base + "_" + suffix
	for n := 1; o.constraintNamed(name) || (k.Kind == "unique" && name == o.pkeyName()); n++ {
		name = base + "_" + suffix + itoa(n)
	}
	return name
}

func (o *Object) constraintNamed(name string) bool {
	for _, x := range o.Constraints {
		if x.Name == name {
			return true
		}
	}
	return false
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// columnRefs returns the distinct column names an expression references,
// in order of appearance.
func columnRefs(n *pg.Node) []string {
	var out []string
	seen := map[string]bool{}
	walkProto(n, func(m proto.Message) {
		cr, ok := m.(*pg.ColumnRef)
		if !ok {
			return
		}
		if f := cr.Fields; len(f) > 0 && f[len(f)-1].GetString_() != nil {
			name := f[len(f)-1].GetString_().Sval
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	})
	return out
}

// walkProto calls fn on every message of a parse tree, parents first.
func walkProto(n *pg.Node, fn func(proto.Message)) {
	walkProtoPruned(n, func(m proto.Message) bool {
		fn(m)
		return true
	})
}

// walkProtoPruned calls fn on the messages of a parse tree, parents
// first, skipping the messages inside one for which fn returns false.
func walkProtoPruned(n *pg.Node, fn func(proto.Message) bool) {
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		msg := m.Interface()
		if !fn(msg) {
			return
		}
		if n, ok := msg.(*pg.Node); ok && n.GetAConst() != nil {
			// A literal's Node holds only the A_Const: skip reflecting
			// over the wrapper (VALUES lists hold thousands of them).
			walk(n.GetAConst().ProtoReflect())
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
				walk(v.Message())
			}
			return true
		})
	}
	if n != nil {
		walk(n.ProtoReflect())
	}
}

// resolveForeignKeys resolves the referenced tables and columns of obj's
// new foreign keys against the catalog (obj itself for a self-reference).
// The caller holds e.mu.
func (e *Engine) resolveForeignKeys(obj *Object) error {
	for i := range obj.Constraints {
		k := &obj.Constraints[i]
		if k.Kind != "foreign" || k.ref == nil {
			continue
		}
		ref := e.cat.lookup(k.ref.Schemaname, k.ref.Relname)
		if k.ref.Relname == obj.Name && (k.ref.Schemaname == "" || k.ref.Schemaname == obj.Schema) {
			ref = obj
		}
		if ref == nil {
			return repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", k.ref.Relname)
		}
		if ref.Kind != planner.RelTable {
			return repr.Errorf(repr.CodeWrongObjectType, "referenced relation \"%s\" is not a table", ref.Name)
		}
		if err := checkKeyPersistence(obj, ref); err != nil {
			return err
		}
		if len(k.refCols) == 0 {
			if ref.PrimaryKey == nil {
				return repr.Errorf(repr.CodeUndefinedObject, "there is no primary key for referenced table \"%s\"", ref.Name)
			}
			k.RefCols = append([]int(nil), ref.PrimaryKey...)
		} else {
			for _, n := range k.refCols {
				j := columnIndex(ref.Columns, n)
				if j < 0 {
					return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", n)
				}
				k.RefCols = append(k.RefCols, j)
			}
			if !ref.hasKey(k.RefCols) {
				return repr.Errorf("42830", "there is no unique constraint matching given keys for referenced table \"%s\"", ref.Name)
			}
		}
		if len(k.RefCols) != len(k.Cols) {
			return repr.Errorf("42830", "number of referencing and referenced columns for foreign key disagree")
		}
		if err := checkForeignKeyTypes(obj, ref, k); err != nil {
			return err
		}
		k.RefTable, k.ref = ref.ID, nil
	}
	return nil
}

// checkForeignKeyTypes is PostgreSQL's 42804 for a foreign key whose
// column cannot be compared with the key it references by the key's
// equality: its type must be coercible to the key's implicitly, or be of
// the key's btree operator family, whose cross-type operators compare
// integers of any width, floats of either and dates with timestamps
// (int8 references int4, varchar does not reference real).
func checkForeignKeyTypes(obj, ref *Object, k *Constraint) error {
	for i, c := range k.Cols {
		fk, pk := obj.Columns[c].Type, ref.Columns[k.RefCols[i]].Type
		if foreignKeyComparable(fk, pk) {
			if !sameKeyEncoding(fk, pk) {
				// The checks compare the columns' key encodings, which
				// differ (int4 1 and real 1): PostgreSQL compares them
				// with a cross-type operator, which Eddy does not yet.
				return repr.Unsupported("a foreign key from a %s column to a %s key", fk.Name(), pk.Name())
			}
			continue
		}
		return repr.Errorf(repr.CodeDatatypeMismatch, "foreign key constraint \"%s\" cannot be implemented", k.Name).
			WithDetail("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.",
				obj.Columns[c].Name, ref.Columns[k.RefCols[i]].Name, fk.Name(), pk.Name())
	}
	return nil
}

// sameKeyEncoding reports whether equal values of types a and b have
// the same key encoding, so that a foreign key check may compare them as
// bytes: one type (modifiers aside), integers of any width (not oid),
// float4 with float8 (PostgreSQL's float48eq widens the float4 as the
// datum holds it), text with varchar.
func sameKeyEncoding(a, b repr.T) bool {
	switch {
	case a.Family != b.Family:
		return false
	case a.Family == repr.FamInt:
		return a.OIDKind == b.OIDKind
	case a.Family == repr.FamFloat:
		return true
	case a.Family == repr.FamText:
		return a.Kind == b.Kind || a.Kind != repr.KindChar && b.Kind != repr.KindChar
	}
	return a.Equivalent(b)
}

// foreignKeyComparable reports whether a referencing column of type fk
// can reference a key column of type pk (checkForeignKeyTypes).
func foreignKeyComparable(fk, pk repr.T) bool {
	if expr.CanCoerce(fk, pk, repr.CastImplicit) {
		return true
	}
	family := func(t repr.T) int {
		switch {
		case t.Family == repr.FamInt && t.OIDKind == repr.NotOID:
			return 1
		case t.Family == repr.FamFloat:
			return 2
		case t.Family == repr.FamDate || t.Family == repr.FamTimestamp || t.Family == repr.FamTimestampTZ:
			return 3
		}
		return 0
	}
	return family(fk) != 0 && family(fk) == family(pk)
}

// hasKey reports whether cols are, as a set, the primary key or the
// columns of a unique constraint.
func (o *Object) hasKey(cols []int) bool {
	if sameSet(cols, o.PrimaryKey) {
		return true
	}
	for _, k := range o.Constraints {
		if k.Kind == "unique" && sameSet(cols, k.Cols) {
			return true
		}
	}
	return false
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for _, x := range a {
		if !inKey(b, x) {
			return false
		}
	}
	return true
}
