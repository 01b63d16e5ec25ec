package expr

import (
	"github.com/eddydb/eddy/repr"
)

// Composite field selection. Eddy's records (repr.Record) carry their
// fields' types but not their names, so a field is selected by position:
// the planner, which knows the names of a record it built (a select-list
// call of a set-returning function with several result columns), plans
// (r).name as record_field(r, i, NULL::t), t being field i's type (the
// typed NULL makes the call's result type part of its printed form, so a
// plan parses back to itself). The one such function the catalog
// clients call is information_schema._pg_expandarray(anyarray), which
// pgjdbc's getPrimaryKeys and getIndexInfo select (x, n) from.

func init() {
	tableFuncs["_pg_expandarray"] = append(tableFuncs["_pg_expandarray"], &TableFunc{
		Name: "_pg_expandarray", Args: []repr.T{anyT},
		Cols: []TableCol{{Name: "x", T: anyT}, {Name: "n", T: repr.Int4}}, Present: 2,
		poly: func(args []repr.T) *TableFunc {
			e, ok := elemOf(args[0])
			if !ok {
				return nil
			}
			return &TableFunc{Name: "_pg_expandarray", Args: args[:1],
				Cols: []TableCol{{Name: "x", T: e}, {Name: "n", T: repr.Int4}}, Gen: expandArrayGen, Present: 2}
		},
	})
	internalFuncs["record_field"] = true
	variadics["record_field"] = recordFieldFunc
}

// expandArrayGen emits each element of its array with its 1-based
// position, as information_schema._pg_expandarray does (for an int2vector,
// whose subscripts start at 0, too).
func expandArrayGen(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	row := make([]repr.Datum, 2)
	for i, e := range a[0].Array() {
		row[0], row[1] = e, repr.NewInt(int64(i+1))
		if err := emit(row); err != nil {
			return err
		}
	}
	return nil
}

// recordFieldFunc instantiates record_field(record, int4, t) -> t: field
// i (0-based) of a record, NULL for a NULL record. The third argument
// only carries the result type.
func recordFieldFunc(args []repr.T) (*Func, error) {
	if len(args) != 3 || args[0].Family != repr.FamRecord || args[1] != repr.Int4 {
		return nil, repr.Errorf(repr.CodeUndefinedFunction, "function record_field must be called as record_field(record, int4, type)")
	}
	ret := args[2]
	return newFunc("record_field", ret, false, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].IsNull() {
			return repr.Null, nil
		}
		fields, _ := a[0].Record()
		i := int(a[1].Int())
		if i < 0 || i >= len(fields) {
			return repr.Null, repr.Errorf(repr.CodeInternal, "record has no field %d", i+1)
		}
		return fields[i], nil
	}, args...), nil
}
