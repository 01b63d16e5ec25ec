package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Named composite types (CREATE TYPE name AS (...)). A composite type is
// repr.CompositeOf its pg_type OID; the catalog (TypeCatalog) knows its
// fields, so the planner selects them by name ((c).f, (c).*, to_json)
// like the fields of a whole-row reference. A value is coerced to a
// composite type field by field: a ROW(...) constructor's fields are cast
// to the fields' types (explicitly for a cast, with assignment semantics
// for INSERT and UPDATE, as PostgreSQL's coerce_record_to_complex), a
// string literal is read as record_in reads it, and a computed text is
// record_in at run time (record_in(text, NULL::t1, ...)). Other record
// values do not convert (42846).

// typeCatalog returns the catalog's composite types, or nil.
func (b *builder) typeCatalog() TypeCatalog {
	tc, _ := b.cat.(TypeCatalog)
	return tc
}

// compositeFields returns the fields of the composite type t (nil when t
// is no composite type the catalog knows).
func (b *builder) compositeFields(t repr.T) []expr.TableCol {
	tc := b.typeCatalog()
	if tc == nil || !t.IsComposite() {
		return nil
	}
	_, fields, _ := tc.CompositeFields(t.Composite)
	return fields
}

// resolveType resolves a type name: a built-in type, else a composite
// type of the catalog (or an array of one).
func (b *builder) resolveType(tn *pg_query.TypeName) (repr.T, error) {
	if t, ok := b.typeByOID(tn.TypeOid); ok {
		return t, nil
	}
	t, err := resolveType(tn)
	tc := b.typeCatalog()
	if err == nil || tc == nil || len(tn.Names) == 0 || len(tn.Names) > 2 {
		return t, err
	}
	schema, name := "", tn.Names[len(tn.Names)-1].GetString_().GetSval()
	if len(tn.Names) == 2 {
		schema = tn.Names[0].GetString_().GetSval()
	}
	ct, ok := tc.CompositeType(schema, name)
	switch {
	case !ok:
		return t, err
	case len(tn.Typmods) > 0:
		return repr.Unknown, repr.Errorf(repr.CodeSyntax, "type modifier is not allowed for type \"%s\"", name).WithPosition(tn.Location + 1)
	case len(tn.ArrayBounds) > 0:
		return repr.ArrayOf(ct), nil
	}
	return ct, nil
}

// typeByOID resolves the OID of a composite, row or enum type of the
// catalog, or of an array of one (typeNameOf's names); ok false for
// other OIDs (0 included).
func (b *builder) typeByOID(oid uint32) (repr.T, bool) {
	tc := b.typeCatalog()
	if tc == nil || oid == 0 {
		return repr.Unknown, false
	}
	elem := func(oid uint32) (repr.T, bool) {
		if _, _, ok := tc.CompositeFields(oid); ok {
			return repr.CompositeOf(oid), true
		}
		if _, _, ok := tc.EnumLabels(oid); ok {
			return repr.EnumOf(oid), true
		}
		return repr.Unknown, false
	}
	if t, ok := elem(oid); ok {
		return t, true
	}
	if t, ok := elem(oid - 1); ok && repr.ArrayOf(t).OID() == oid {
		return repr.ArrayOf(t), true
	}
	return repr.Unknown, false
}

// isComposite reports whether a coercion from from to to is between
// records, or arrays of records, of which one is a named composite type.
func isComposite(from, to repr.T) bool {
	record := func(t repr.T) bool {
		return t.Family == repr.FamRecord || t.Family == repr.FamArray && t.Elem == repr.FamRecord
	}
	return record(to) && (to.Composite != 0 || from.Composite != 0 && record(from))
}

// coerceComposite converts e to the composite type t (explicit for a
// cast, else with assignment semantics; col names the assigned column
// for errors, "" for a cast).
func (b *builder) coerceComposite(e expr.Expr, t repr.T, explicit bool, loc int32) (expr.Expr, error) {
	from := e.Type()
	switch {
	case from == t:
		return e, nil
	case t.Composite == 0: // a composite value as an anonymous record
		return &expr.Cast{Arg: e, To: t, Explicit: explicit}, nil
	}
	if lit, ok := e.(*expr.Lit); ok && lit.D.IsNull() {
		if _, param := b.placeholders[lit]; param {
			return b.coerce(e, t) // $n takes the type
		}
		return &expr.Lit{D: repr.Null, T: t}, nil
	}
	fields := b.compositeFields(repr.CompositeOf(t.Composite))
	if fields == nil {
		return nil, repr.Errorf(repr.CodeInternal, "composite type %d is not in the catalog", t.Composite)
	}
	if from.Family == repr.FamUnknown || from.Family == repr.FamText {
		return b.recordIn(e, t, fields, loc)
	}
	if t.Family == repr.FamArray {
		return b.coerceCompositeArray(e, t, explicit, loc)
	}
	call, ok := e.(*expr.Call)
	if !ok || call.Fn.Name != "row" {
		return nil, repr.Errorf("42846", "cannot cast type %s to %s", from.Name(), b.typeName(t)).WithPosition(loc + 1)
	}
	if len(call.Args) != len(fields) {
		detail := "Input has too few columns."
		if len(call.Args) > len(fields) {
			detail = "Input has too many columns."
		}
		return nil, repr.Errorf("42846", "cannot cast type record to %s", b.typeName(t)).WithDetail("%s", detail).WithPosition(loc + 1)
	}
	args := make([]expr.Expr, len(fields))
	for i, f := range fields {
		var err error
		if args[i], err = b.castField(call.Args[i], f.T, explicit, loc); err != nil {
			return nil, err
		}
	}
	return b.typedRow(args, t, loc)
}

// coerceCompositeArray converts ARRAY[e1, ...] to the array type t of a
// composite type by converting each element, as PostgreSQL passes an
// array cast's element type down into ARRAY[...] (ARRAY[ROW(1, 'x')]::t[]);
// any other array value is 42846.
func (b *builder) coerceCompositeArray(e expr.Expr, t repr.T, explicit bool, loc int32) (expr.Expr, error) {
	call, ok := e.(*expr.Call)
	if !ok || call.Fn.Name != "array" || e.Type().Family != repr.FamArray || e.Type().Elem != repr.FamRecord {
		return nil, repr.Errorf("42846", "cannot cast type %s to %s", b.typeName(e.Type()), b.typeName(t)).WithPosition(loc + 1)
	}
	elem := t.ElemType()
	args := make([]expr.Expr, len(call.Args))
	ts := make([]repr.T, len(call.Args))
	for i, a := range call.Args {
		if c, ok := a.(*expr.Cast); ok && c.To.Family == repr.FamRecord && c.To.Composite == 0 {
			a = c.Arg // the common anonymous record type ARRAY[...] chose
		}
		var err error
		if args[i], err = b.coerceComposite(a, elem, explicit, loc); err != nil {
			return nil, err
		}
		ts[i] = args[i].Type()
	}
	fn, want, err := expr.ResolveFunc("array", ts)
	if err != nil {
		return nil, withPos(err, loc)
	}
	return b.call(fn, args, want)
}

// castField casts one field of a ROW(...) to the field type ft. A
// literal field was an untyped literal in the statement (the row
// constructor typed it text), so it converts as one.
func (b *builder) castField(a expr.Expr, ft repr.T, explicit bool, loc int32) (expr.Expr, error) {
	if lit, ok := a.(*expr.Lit); ok && lit.T.Family == repr.FamText {
		a = &expr.Lit{D: lit.D, T: repr.Unknown}
	}
	if explicit {
		return b.explicitCast(a, ft, loc)
	}
	if isComposite(a.Type(), ft) { // a nested composite field
		return b.coerceComposite(a, ft, false, loc)
	}
	if from := a.Type(); from.Family != repr.FamUnknown && repr.CastContextOf(from, ft) < repr.CastAssignment {
		return nil, repr.Errorf("42846", "cannot cast type %s to %s", from.Name(), ft.Name()).WithPosition(loc + 1)
	}
	return b.coerce(a, ft)
}

// typedRow builds row(args...) typed as the composite type t.
func (b *builder) typedRow(args []expr.Expr, t repr.T, loc int32) (expr.Expr, error) {
	ts := make([]repr.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	fn, want, err := expr.ResolveFunc("row", ts)
	if err != nil {
		return nil, withPos(err, loc)
	}
	rec, err := b.call(fn, args, want)
	if err != nil {
		return nil, err
	}
	return &expr.Cast{Arg: rec, To: t}, nil
}

// recordIn reads text e as a value of the composite type t, or of an
// array of it: record_in (record_array_in) at run time over the fields'
// types (typed NULLs carry them), a string literal folded now.
func (b *builder) recordIn(e expr.Expr, t repr.T, fields []expr.TableCol, loc int32) (expr.Expr, error) {
	if t.Family != repr.FamArray && enumFields(fields) {
		return b.recordInNested(e, t, fields, loc)
	}
	if nestedFields(fields) {
		if t.Family == repr.FamArray {
			return b.nestedArrayLiteral(e, fields, t, loc)
		}
		return b.recordInNested(e, t, fields, loc)
	}
	rec, err := b.recordInCall(e, t, fields, loc)
	if err != nil {
		return nil, err
	}
	return b.foldLiteral(&expr.Cast{Arg: rec, To: t})
}

// nestedArrayLiteral reads a string literal as an array of the composite
// type t whose fields (fields) include composites: parsed now, each
// nested field by its type's fields from the catalog. Text known only at
// run time is 0A000.
func (b *builder) nestedArrayLiteral(e expr.Expr, fields []expr.TableCol, t repr.T, loc int32) (expr.Expr, error) {
	lit, ok := e.(*expr.Lit)
	if !ok {
		return nil, repr.Unsupported("text input of arrays of composite types with composite fields other than literals").WithPosition(loc + 1)
	}
	if lit.D.IsNull() {
		return &expr.Lit{D: repr.Null, T: t}, nil
	}
	types := make([]repr.T, len(fields))
	for i, f := range fields {
		types[i] = f.T
	}
	fieldsOf := func(oid uint32) ([]repr.T, bool) {
		fs := b.compositeFields(repr.CompositeOf(oid))
		ts := make([]repr.T, len(fs))
		for i, f := range fs {
			ts[i] = f.T
		}
		return ts, fs != nil
	}
	ctx := &expr.Ctx{TimeZone: b.opts.TimeZone}
	d, err := repr.ParseCompositeArrayWith(lit.D.Text(), types, fieldsOf, ctx.Location())
	if err != nil {
		return nil, withPos(err, loc)
	}
	return &expr.Lit{D: d, T: t}, nil
}

// nestedFields reports whether a composite type's fields include one of a
// composite type or an array of one.
func nestedFields(fields []expr.TableCol) bool {
	for _, f := range fields {
		if holdsRecords(f.T) {
			return true
		}
	}
	return false
}

// enumFields reports whether a composite type's fields include one of an
// enum type or an array of one: repr cannot read their text without the
// labels, so record_in reads them as text and the planner converts them
// (recordInNested).
func enumFields(fields []expr.TableCol) bool {
	for _, f := range fields {
		if holdsEnums(f.T) {
			return true
		}
	}
	return false
}

// holdsEnums reports whether t is an enum type or an array of one.
func holdsEnums(t repr.T) bool { return t.Enum != 0 }

// holdsRecords reports whether t is a record type or an array of one.
func holdsRecords(t repr.T) bool {
	return t.Family == repr.FamRecord || t.Family == repr.FamArray && t.Elem == repr.FamRecord
}

// recordInNested is recordIn for a composite type with composite or enum
// fields (or arrays of them): record_in reads those fields as text, each is
// read in turn by its own type's recordIn, and the row is rebuilt (NULL
// for NULL text).
func (b *builder) recordInNested(e expr.Expr, t repr.T, fields []expr.TableCol, loc int32) (expr.Expr, error) {
	if e.Type().Family == repr.FamUnknown {
		e = &expr.Cast{Arg: e, To: repr.Text}
	}
	flat := append([]expr.TableCol(nil), fields...)
	for i, f := range flat {
		if holdsRecords(f.T) || holdsEnums(f.T) {
			flat[i].T = repr.Text
		}
	}
	rec, err := b.recordInCall(e, repr.Record, flat, loc)
	if err != nil {
		return nil, err
	}
	args := make([]expr.Expr, len(fields))
	for i, f := range fields {
		if args[i], err = b.recordField(rec, i, flat[i].T, loc); err != nil {
			return nil, err
		}
		if holdsRecords(f.T) {
			if args[i], err = b.recordIn(args[i], f.T, b.compositeFields(repr.CompositeOf(f.T.Composite)), loc); err != nil {
				return nil, err
			}
		}
		if holdsEnums(f.T) { // enum_in over the type's labels (enum.go)
			if args[i], err = b.explicitCast(args[i], f.T, loc); err != nil {
				return nil, err
			}
		}
	}
	row, err := b.typedRow(args, t, loc)
	if err != nil {
		return nil, err
	}
	return b.foldLiteral(nullWhenAbsent(e, row))
}

// recordField is record_field(rec, i, NULL::ft): field i of rec.
func (b *builder) recordField(rec expr.Expr, i int, ft repr.T, loc int32) (expr.Expr, error) {
	args := []expr.Expr{rec, &expr.Lit{D: repr.NewInt(int64(i)), T: repr.Int4}, &expr.Lit{D: repr.Null, T: ft}}
	fn, want, err := expr.ResolveFunc("record_field", []repr.T{rec.Type(), repr.Int4, ft})
	if err != nil {
		return nil, withPos(err, loc)
	}
	return b.call(fn, args, want)
}

// recordInCall is record_in(e, NULL::f1, ...) (record_array_in for an
// array type t) over the fields' types.
func (b *builder) recordInCall(e expr.Expr, t repr.T, fields []expr.TableCol, loc int32) (expr.Expr, error) {
	args := []expr.Expr{e}
	if e.Type().Family == repr.FamUnknown {
		args[0] = &expr.Cast{Arg: e, To: repr.Text}
	}
	for _, f := range fields {
		args = append(args, &expr.Lit{D: repr.Null, T: f.T})
	}
	ts := make([]repr.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	name := "record_in"
	if t.Family == repr.FamArray {
		name = "record_array_in"
	}
	fn, want, err := expr.ResolveFunc(name, ts)
	if err != nil {
		return nil, withPos(err, loc)
	}
	return b.call(fn, args, want)
}

// typeName is a type's name for messages: a composite type's from the
// catalog (repr knows only its OID).
func (b *builder) typeName(t repr.T) string {
	if _, name, ok := b.enumLabels(t); ok {
		if t.Family == repr.FamArray {
			return name + "[]"
		}
		return name
	}
	if tc := b.typeCatalog(); tc != nil && t.Composite != 0 {
		if name, _, ok := tc.CompositeFields(t.Composite); ok {
			if t.Family == repr.FamArray {
				return name + "[]"
			}
			return name
		}
	}
	return t.Name()
}

// rowToComposite is ROW(...)::t for a composite type t: each field cast
// explicitly to its field's type (42846 with PostgreSQL's detail when
// the counts differ).
func (c *ectx) rowToComposite(row *pg_query.RowExpr, t repr.T, loc int32) (expr.Expr, error) {
	args, err := c.rowItems(row.Args)
	if err != nil {
		return nil, err
	}
	fields := c.b.compositeFields(t)
	if len(args) != len(fields) {
		detail := "Input has too few columns."
		if len(args) > len(fields) {
			detail = "Input has too many columns."
		}
		return nil, repr.Errorf("42846", "cannot cast type record to %s", c.b.typeName(t)).WithDetail("%s", detail).WithPosition(loc + 1)
	}
	for i, f := range fields {
		// t.* items expand to several args: locate each by its item.
		if args[i], err = c.b.explicitCast(args[i], f.T, location(row.Args[min(i, len(row.Args)-1)])); err != nil {
			return nil, err
		}
	}
	return c.b.typedRow(args, t, loc)
}

// assignField builds col.f = v (UPDATE ... SET, INSERT INTO t (col.f))
// for base, col's value so far, of the composite type t: the record of
// base's fields with f, path's first step, replaced by v assigned to f's
// type. A NULL base gives a record whose other fields are NULL, as in
// PostgreSQL. A longer path (col.f.g, col.f[i]) replaces f by f's value
// so far with v assigned through the rest (assignPath), as PostgreSQL's
// FieldStore chain. column names the column, then the field being
// descended, in messages.
func (c *ectx) assignField(base expr.Expr, t repr.T, column string, path []*pg_query.Node, rt *pg_query.ResTarget, v expr.Expr) (expr.Expr, error) {
	name := path[0].GetString_().GetSval()
	fields := c.b.compositeFields(t)
	target := -1
	for i, f := range fields {
		if f.Name == name {
			target = i
		}
	}
	if target < 0 {
		return nil, repr.Errorf(repr.CodeUndefinedColumn, "cannot assign to field \"%s\" of column \"%s\" because there is no such column in data type %s",
			name, column, c.b.typeName(t)).WithPosition(rt.Location + 1)
	}
	args := make([]expr.Expr, len(fields))
	for i, f := range fields {
		idx := &expr.Lit{D: repr.NewInt(int64(i)), T: repr.Int4}
		cur, err := c.function("record_field", []expr.Expr{base, idx, &expr.Lit{D: repr.Null, T: f.T}}, rt.Location)
		switch {
		case err != nil:
		case i != target:
			args[i] = cur
		case len(path) == 1:
			args[i], err = c.b.assign(v, f.T, rt.Name)
		default:
			args[i], err = c.assignPath(cur, f.T, f.Name, path[1:], rt, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return c.b.typedRow(args, t, rt.Location)
}
