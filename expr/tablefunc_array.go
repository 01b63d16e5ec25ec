package expr

import "github.com/eddydb/eddy/repr"

// unnest(anyarray): one row per element, in order, NULL elements included
// (an empty or NULL array gives no rows). Its column is named after the
// function (or the FROM item's alias), as in PostgreSQL.
func init() {
	tableFuncs["unnest"] = append(tableFuncs["unnest"], &TableFunc{
		Name: "unnest", Args: []repr.T{anyT}, Cols: col1(anyT),
		poly: func(args []repr.T) *TableFunc {
			e, ok := elemOf(args[0])
			if !ok {
				return nil
			}
			return &TableFunc{Name: "unnest", Args: args[:1], Cols: col1(e), Gen: unnestGen}
		},
	})
}

// unnestGen emits the elements of its array argument.
func unnestGen(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	row := make([]repr.Datum, 1)
	for _, e := range a[0].Array() {
		row[0] = e
		if err := emit(row); err != nil {
			return err
		}
	}
	return nil
}
