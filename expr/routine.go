package expr

import (
	"slices"

	"github.com/eddydb/eddy/repr"
)

// Routines are functions the catalog defines in a procedural language
// (LANGUAGE plpgsql): the planner cannot inline them, so a call is a
// Func (or, in FROM, a TableFunc) whose Impl hands the arguments to the
// session's interpreter through Ctx.Session.Routines. Such a call runs
// statements of its own, so it is volatile: never folded, never in a
// materialized view (no session maintains one: there the planner
// translates the function into an expression instead).

// Routines is the session's access to routines.
type Routines interface {
	// CallRoutine runs routine id over args and returns its rows: one
	// row for a function that is not set-returning.
	CallRoutine(id uint64, args []repr.Datum) ([]repr.Row, error)
}

// routines returns the session's routines, or 0A000 outside a session.
func routines(c *Ctx, name string) (Routines, error) {
	if c.Session == nil || c.Session.Routines == nil {
		return nil, repr.Unsupported("calling the PL/pgSQL function %s outside a session", name)
	}
	return c.Session.Routines, nil
}

// RoutineFunc is the scalar function calling routine id, named name,
// over args, returning ret (the first column of its one row).
func RoutineFunc(id uint64, name string, args []repr.T, ret repr.T, strict bool) *Func {
	return &Func{Name: name, Args: args, Ret: ret, Strict: strict, Volatile: true,
		Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			r, err := routines(c, name)
			if err != nil {
				return repr.Null, err
			}
			rows, err := r.CallRoutine(id, slices.Clone(a))
			if err != nil || len(rows) == 0 || len(rows[0]) == 0 {
				return repr.Null, err
			}
			return rows[0][0], nil
		}}
}

// RoutineTableFunc is the table function calling routine id in FROM: its
// rows, with columns cols. A strict routine yields no rows for a NULL
// argument.
func RoutineTableFunc(id uint64, name string, args []repr.T, cols []TableCol, strict bool) *TableFunc {
	return &TableFunc{Name: name, Args: args, Cols: cols, NullArgs: !strict, contextual: true,
		Gen: func(c *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
			r, err := routines(c, name)
			if err != nil {
				return err
			}
			rows, err := r.CallRoutine(id, slices.Clone(a))
			if err != nil {
				return err
			}
			for _, row := range rows {
				if err := emit(row); err != nil {
					return err
				}
			}
			return nil
		}}
}
