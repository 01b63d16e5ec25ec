package expr

import "github.com/eddydb/eddy/repr"

// Enum types (repr.FamEnum). Values of one enum type compare by their
// labels' sort orders (repr compares them without the catalog); values
// of distinct enum types do not compare (no instance). Reading a label
// from text needs the type's labels, which only the catalog holds: the
// planner passes them as a constant array of every label of the type
// (enum_in(text, labels, type name), enum_range(a, b, labels)), so plans
// run without the catalog.

func init() {
	preds := cmpPredicates()
	for op, pred := range preds {
		polyFunc(binaryOps, op, 2, func(args []repr.T) *Func {
			t, ok := sameEnum(args[0], args[1])
			if !ok {
				return nil
			}
			return newFunc(op, repr.Bool, true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
				return repr.NewBool(pred(repr.Compare(a[0], a[1]))), nil
			}, t, t)
		})
	}
	polyFunc(functions, "enum_in", 3, enumIn)
	polyFunc(functions, "enum_range", 3, enumRangeBounded)
}

// sameEnum returns the enum type of a comparison's operands: both of one
// enum type, or one of them an unknown literal.
func sameEnum(a, b repr.T) (repr.T, bool) {
	switch {
	case a.Family == repr.FamEnum && (b.Family == repr.FamUnknown || b == a):
		return a, true
	case b.Family == repr.FamEnum && a.Family == repr.FamUnknown:
		return b, true
	}
	return repr.Unknown, false
}

// labelsOf returns the enum type whose labels array arg t is.
func labelsOf(t repr.T) (repr.T, bool) {
	return t.ElemType(), t.Family == repr.FamArray && t.Elem == repr.FamEnum
}

// enumIn instantiates enum_in(text, labels, name): the label of the type
// that the text names, else 22P02 naming the type as name does.
func enumIn(args []repr.T) *Func {
	t, ok := labelsOf(args[1])
	if !ok || !textOrUnknown(args[0]) || !textOrUnknown(args[2]) {
		return nil
	}
	in := args[0]
	if in.Family == repr.FamUnknown {
		in = repr.Text
	}
	return newFunc("enum_in", t, true, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return EnumFromText(a[0].Text(), a[1].Array(), a[2].Text())
	}, in, args[1], repr.Text)
}

// textOrUnknown reports whether t is a string type or an unknown literal
// (plan text reads a text constant back as one).
func textOrUnknown(t repr.T) bool {
	return t.Family == repr.FamText || t.Family == repr.FamUnknown
}

// EnumFromText returns the value among labels (enum values of one type)
// whose label is s, else 22P02 naming the type typeName.
func EnumFromText(s string, labels []repr.Datum, typeName string) (repr.Datum, error) {
	for _, l := range labels {
		if l.EnumLabel().Label == s {
			return l, nil
		}
	}
	return repr.Null, repr.Errorf(repr.CodeInvalidText, "invalid input value for enum %s: \"%s\"", typeName, s)
}

// enumRangeBounded instantiates enum_range(lo, hi, labels): the labels
// from lo to hi inclusive in sort order (a NULL bound is open), as
// PostgreSQL's enum_range(anyenum, anyenum).
func enumRangeBounded(args []repr.T) *Func {
	t, ok := labelsOf(args[2])
	if !ok {
		return nil
	}
	for _, a := range args[:2] {
		if a.Family != repr.FamUnknown && a != t {
			return nil
		}
	}
	return newFunc("enum_range", repr.ArrayOf(t), false, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[2].IsNull() {
			return repr.Null, nil
		}
		out := []repr.Datum{}
		for _, l := range a[2].Array() {
			if (a[0].IsNull() || repr.Compare(l, a[0]) >= 0) && (a[1].IsNull() || repr.Compare(l, a[1]) <= 0) {
				out = append(out, l)
			}
		}
		return repr.NewArray(out), nil
	}, t, t, args[2])
}
