package repr

import (
	"slices"
	"strings"
)

// Keys of bpchar values. bpchar's = and < ignore trailing blanks ('ab' =
// 'ab  '), and so do record_eq and array_eq over bpchar fields and
// elements, but a bpchar without a length keeps the blanks it was written
// with and Compare and AppendKey count them. Compare must: consolidation
// sums the diffs of identical rows, and an update of 'ab' to 'ab  ' is a
// change. So the operators keyed by such values (grouping, DISTINCT,
// joins, set operations, partitions) key them by TrimBpchar's value,
// which is equal under Compare exactly when the values are equal under =.

// HoldsBpchar reports whether a value of type t may hold a bpchar value
// (of any length) that Compare would compare with its blanks: t is
// bpchar, an array of bpchar, a record (whose fields' types only its
// values know) or an array of records.
func HoldsBpchar(t T) bool {
	switch t.Family {
	case FamText:
		return t.Kind == KindChar
	case FamRecord:
		return true
	case FamArray:
		return t.Elem == FamRecord || t.Elem == FamText && t.Kind == KindChar
	}
	return false
}

// TrimBpchar returns d, a value of type t, with the trailing blanks of
// every bpchar value in it removed: d itself, a bpchar's text without
// them, or an array or record of the same shape and types whose bpchar
// elements and fields (nested records and arrays included) lack them. It
// returns d unchanged when there is nothing to remove, so calling it on a
// record without bpchar fields costs a scan of its header.
func TrimBpchar(d Datum, t T) Datum {
	if d.IsNull() || !HoldsBpchar(t) {
		return d
	}
	switch t.Family {
	case FamText:
		return NewText(strings.TrimRight(d.s, " "))
	case FamArray:
		return trimArray(d, t.ElemType())
	}
	return trimRecord(d)
}

// trimArray is TrimBpchar of an array whose elements have type elem.
func trimArray(d Datum, elem T) Datum {
	elems := d.Array()
	changed := false
	for i, e := range elems {
		if trimmed := TrimBpchar(e, elem); trimmed.s != e.s {
			elems[i], changed = trimmed, true
		}
	}
	if !changed {
		return d
	}
	return ArrayLike(d, elems)
}

// trimRecord is TrimBpchar of a record.
func trimRecord(d Datum) Datum {
	types, _, ok := recordHeader(d.s)
	if !ok || !slices.ContainsFunc(types, HoldsBpchar) {
		return d
	}
	fields, types := d.Record()
	changed := false
	for i, f := range fields {
		if trimmed := TrimBpchar(f, types[i]); trimmed.s != f.s {
			fields[i], changed = trimmed, true
		}
	}
	if !changed {
		return d
	}
	r, err := NewRecord(fields, types)
	if err != nil {
		return d // the types are d's own, which NewRecord accepted
	}
	return r
}
