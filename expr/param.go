package expr

import (
	"fmt"

	"github.com/eddydb/eddy/repr"
)

// Param is the bound value of parameter $(Idx+1), read from Ctx.Params at
// evaluation time, so that a prepared statement is planned once and run
// with new values (a generic plan in PostgreSQL's terms). The value must
// already be of type T (the statement layer decodes it as T). Param is
// never folded: its value is not known at plan time.
type Param struct {
	Idx int
	T   repr.T
}

// Type is the parameter's type.
func (p *Param) Type() repr.T { return p.T }

// Eval returns the bound value; a missing one is an error, not NULL.
func (p *Param) Eval(ctx *Ctx, _ repr.Row) (repr.Datum, error) {
	if ctx == nil || p.Idx >= len(ctx.Params) {
		return repr.Null, repr.Errorf(repr.CodeUndefinedParameter, "no value supplied for parameter $%d", p.Idx+1)
	}
	return ctx.Params[p.Idx], nil
}

// String prints $n (1-based, as in SQL).
func (p *Param) String() string { return fmt.Sprintf("$%d", p.Idx+1) }
