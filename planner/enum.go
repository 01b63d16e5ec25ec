package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Enum types (CREATE TYPE name AS ENUM (...)). An enum type is
// repr.EnumOf its pg_type OID; the catalog (TypeCatalog.EnumLabels) knows
// its labels and their sort orders. Text converts to an enum type with
// enum_in(text, labels, name), the labels being a constant array of all
// the type's values in sort order: a literal folds at plan time (22P02
// for a label the type lacks, as in PostgreSQL's parse analysis), and a
// computed text converts when run. enum_first, enum_last and the one
// argument enum_range depend only on the type, so they fold to
// constants; enum_range(a, b) receives the labels too. A plan holding
// labels keeps the labels it was planned with: a label added later is
// not among them (ALTER TYPE ... ADD VALUE refuses nothing for that; see
// ARCHITECTURE.md).

// enumLabels returns the values of the enum type t (or of the element
// of the array type t) in sort order and the type's name as format_type
// prints it; ok false when the catalog does not know it.
func (b *builder) enumLabels(t repr.T) ([]repr.Datum, string, bool) {
	tc := b.typeCatalog()
	if tc == nil || t.Enum == 0 {
		return nil, "", false
	}
	name, labels, ok := tc.EnumLabels(t.Enum)
	if !ok {
		return nil, "", false
	}
	vals := make([]repr.Datum, len(labels))
	for i, l := range labels {
		vals[i] = repr.NewEnum(l)
	}
	return vals, name, true
}

// isEnumInput reports whether converting from from to to reads enum
// labels from text: to is an enum type (or an array of one) and from an
// unknown literal or a string type.
func isEnumInput(from, to repr.T) bool {
	if to.Enum == 0 || to.Family != repr.FamEnum && to.Family != repr.FamArray {
		return false
	}
	if to.Family == repr.FamArray && from.Family == repr.FamArray {
		return from.Elem == repr.FamUnknown || from.Elem == repr.FamText
	}
	return from.Family == repr.FamUnknown || from.Family == repr.FamText
}

// enumIn converts the text (or unknown literal) e to the enum type t, or
// to the array of enums t (the text read as text[], each element then
// as a label), folding literals.
func (b *builder) enumIn(e expr.Expr, t repr.T) (expr.Expr, error) {
	if lit, ok := e.(*expr.Lit); ok && lit.D.IsNull() {
		return &expr.Lit{D: repr.Null, T: t}, nil
	}
	vals, name, ok := b.enumLabels(t)
	if !ok {
		return nil, repr.Errorf(repr.CodeInternal, "enum type %d is not in the catalog", t.Enum)
	}
	if t.Family == repr.FamArray {
		return b.enumArrayIn(e, t, vals, name)
	}
	if e.Type().Family == repr.FamUnknown {
		e = expr.NewCast(e, repr.Text)
	}
	labels := &expr.Lit{D: repr.NewArray(vals), T: repr.ArrayOf(t)}
	fn, want, err := expr.ResolveFunc("enum_in", []repr.T{e.Type(), labels.T, repr.Text})
	if err != nil {
		return nil, err
	}
	call, err := b.call(fn, []expr.Expr{e, labels, &expr.Lit{D: repr.NewText(name), T: repr.Text}}, want)
	if err != nil {
		return nil, err
	}
	return foldEnum(call)
}

// enumArrayIn reads a literal array of labels ('{a,b}'::mood[]) or
// converts each element of ARRAY[...] (as PostgreSQL passes an array
// cast's element type down into ARRAY[...]); other arrays of text are
// 0A000.
func (b *builder) enumArrayIn(e expr.Expr, t repr.T, vals []repr.Datum, name string) (expr.Expr, error) {
	if call, ok := e.(*expr.Call); ok && call.Fn.Name == "array" {
		args := make([]expr.Expr, len(call.Args))
		ts := make([]repr.T, len(call.Args))
		for i, a := range call.Args {
			var err error
			if args[i], err = b.enumIn(a, t.ElemType()); err != nil {
				return nil, err
			}
			ts[i] = args[i].Type()
		}
		fn, want, err := expr.ResolveFunc("array", ts)
		if err != nil {
			return nil, err
		}
		return b.call(fn, args, want)
	}
	lit, ok := e.(*expr.Lit)
	if !ok {
		return nil, repr.Unsupported("converting computed text to %s[]", name)
	}
	arr, err := repr.Cast(lit.D, lit.T, repr.ArrayOf(repr.Text), nil, true)
	if err != nil {
		return nil, err
	}
	var out []repr.Datum
	for _, s := range arr.Array() {
		if s.IsNull() {
			out = append(out, repr.Null)
			continue
		}
		v, err := expr.EnumFromText(s.Text(), vals, name)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(arr.Array()) == 0 {
		out = []repr.Datum{}
	}
	return &expr.Lit{D: repr.NewArray(out), T: t}, nil
}

// foldEnum evaluates enum_in of a literal now, so that a bad label is
// 22P02 when planned, as in PostgreSQL.
func foldEnum(call expr.Expr) (expr.Expr, error) {
	c := call.(*expr.Call)
	for _, a := range c.Args {
		if _, ok := a.(*expr.Lit); !ok {
			return call, nil
		}
	}
	d, err := c.Eval(&expr.Ctx{}, nil)
	if err != nil {
		return nil, err
	}
	return &expr.Lit{D: d, T: c.Type()}, nil
}

// enumFunction applies enum_first, enum_last and enum_range to an enum
// argument; ok false for other calls.
func (c *ectx) enumFunction(name string, args []expr.Expr) (expr.Expr, bool, error) {
	var t repr.T
	for _, a := range args {
		if a.Type().Family == repr.FamEnum {
			t = a.Type()
		}
	}
	switch {
	case t.Enum == 0 || len(args) == 0 || len(args) > 2 || name != "enum_range" && len(args) != 1 ||
		name != "enum_first" && name != "enum_last" && name != "enum_range":
		return nil, false, nil
	}
	vals, _, ok := c.b.enumLabels(t)
	if !ok {
		return nil, true, repr.Errorf(repr.CodeInternal, "enum type %d is not in the catalog", t.Enum)
	}
	labels := &expr.Lit{D: repr.NewArray(vals), T: repr.ArrayOf(t)}
	switch {
	case name == "enum_first" && len(vals) > 0:
		return &expr.Lit{D: vals[0], T: t}, true, nil
	case name == "enum_last" && len(vals) > 0:
		return &expr.Lit{D: vals[len(vals)-1], T: t}, true, nil
	case name == "enum_range" && len(args) == 1:
		return labels, true, nil
	case name == "enum_range":
		fn, want, err := expr.ResolveFunc(name, []repr.T{args[0].Type(), args[1].Type(), labels.T})
		if err != nil {
			return nil, true, err
		}
		e, err := c.b.call(fn, []expr.Expr{args[0], args[1], labels}, want)
		return e, true, err
	}
	return &expr.Lit{D: repr.Null, T: t}, true, nil // no labels
}
