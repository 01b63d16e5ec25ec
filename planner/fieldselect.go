package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Composite field selection, (x).name. Eddy's record values do not carry
// their fields' names, so the planner selects fields of the records whose
// shape it knows: the value of a select-list call of a set-returning
// function with several result columns (SELECT _pg_expandarray(a) AS k),
// and a column of a subquery, CTE or LATERAL item that is such a value
// (ResultColumn.Fields carries the names out of the subquery). (f(...)).name
// on such a call is the function's column itself; (sub.k).name is
// record_field(sub.k, i, NULL::t) (expr/funcs_fieldselect.go). pgjdbc's
// getPrimaryKeys and getIndexInfo need both forms. Other records (ROW(...),
// a table's whole row) are 0A000.

// namedExpr is one field of a record the planner built.
type namedExpr struct {
	name string
	e    expr.Expr
}

// recordSRF plans the value of a select-list set-returning call fc with
// several result columns cols, columns col.. of the FlatMap below the
// select list: the record of them, whose fields (fc).name selects.
func (ec *ectx) recordSRF(fc *pg_query.FuncCall, cols []expr.TableCol, col int) error {
	fields := make([]namedExpr, len(cols))
	args := make([]expr.Expr, len(cols))
	shape := make([]expr.TableCol, len(cols))
	for i, tc := range cols {
		args[i] = ec.colExpr(col + i)
		fields[i] = namedExpr{tc.Name, args[i]}
		shape[i] = expr.TableCol{Name: tc.Name, T: args[i].Type()}
	}
	rec, err := ec.function("row", args, fc.Location)
	if err != nil {
		return err
	}
	if ec.srfFields == nil {
		ec.srfFields = map[*pg_query.FuncCall][]namedExpr{}
	}
	if ec.records == nil {
		ec.records = map[expr.Expr][]expr.TableCol{}
	}
	ec.srfs[fc], ec.srfFields[fc], ec.records[rec] = rec, fields, shape
	return nil
}

// recordFields returns the fields of a record-valued expression whose
// shape the planner knows (see above), or nil.
func (c *ectx) recordFields(e expr.Expr) []expr.TableCol {
	if f, ok := c.records[e]; ok {
		return f
	}
	if col, ok := e.(*expr.Col); ok && c.sc != nil && col.Idx < len(c.sc.cols) && c.sc.cols[col.Idx].fields != nil {
		return c.sc.cols[col.Idx].fields
	}
	return c.b.compositeFields(e.Type())
}

// fieldSelect plans (arg).name.
func (c *ectx) fieldSelect(ind *pg_query.A_Indirection) (expr.Expr, error) {
	name := ind.Indirection[0].GetString_().GetSval()
	loc := location(ind.Arg)
	if len(ind.Indirection) > 1 {
		return c.fieldThenSubscripts(ind, loc)
	}
	if fc := ind.Arg.GetFuncCall(); fc != nil {
		if fields, ok := c.srfFields[c.sameSRF(fc)]; ok {
			for _, f := range fields {
				if f.name == name {
					return f.e, nil
				}
			}
			return nil, errNoField(name, loc)
		}
	}
	arg, err := c.expr(ind.Arg)
	if err != nil {
		return nil, err
	}
	return c.selectField(arg, name, loc)
}

// selectField plans (arg).name for a planned arg.
func (c *ectx) selectField(arg expr.Expr, name string, loc int32) (expr.Expr, error) {
	fields := c.recordFields(arg)
	switch t := arg.Type(); {
	case fields == nil && t.Family == repr.FamRecord:
		return nil, repr.Unsupported("field selection from a record whose field names are not known").WithPosition(loc + 1)
	case fields == nil:
		return nil, repr.Errorf(repr.CodeWrongObjectType, "column notation .%s applied to type %s, which is not a composite type", name, c.b.typeName(t)).WithPosition(loc + 1)
	}
	for i, f := range fields {
		if f.Name == name {
			args := []expr.Expr{arg, &expr.Lit{D: repr.NewInt(int64(i)), T: repr.Int4}, &expr.Lit{D: repr.Null, T: f.T}}
			return c.function("record_field", args, loc)
		}
	}
	return nil, errNoField(name, loc)
}

// fieldThenSubscripts plans (x).f.g[i].h...: the steps of the
// indirection in turn, each over the value so far (indirectionSteps).
func (c *ectx) fieldThenSubscripts(ind *pg_query.A_Indirection, loc int32) (expr.Expr, error) {
	f, err := c.fieldSelect(&pg_query.A_Indirection{Arg: ind.Arg, Indirection: ind.Indirection[:1]})
	if err != nil {
		return nil, err
	}
	return c.indirectionSteps(f, ind.Indirection[1:], loc)
}

// indirectionSteps applies the rest of an indirection to base, as
// PostgreSQL's transformIndirection: a field name selects the field of
// the record so far ((x).f, arr[1].f), a run of subscripts subscripts the
// array so far as one (multi-dimensional) subscript (arr[1][2], slices
// too). A field after a slice selects from an array: 42809.
func (c *ectx) indirectionSteps(base expr.Expr, rest []*pg_query.Node, loc int32) (expr.Expr, error) {
	var err error
	for len(rest) > 0 {
		if rest[0].GetString_() != nil {
			if base, err = c.selectField(base, rest[0].GetString_().GetSval(), loc); err != nil {
				return nil, err
			}
			rest = rest[1:]
			continue
		}
		n := 0
		for n < len(rest) && rest[n].GetAIndices() != nil {
			n++
		}
		if n == 0 {
			return nil, repr.Unsupported("(x).* inside an indirection").WithPosition(loc + 1)
		}
		if base.Type().Family != repr.FamArray {
			return nil, repr.Errorf(repr.CodeDatatypeMismatch, "cannot subscript type %s because it does not support subscripting", c.b.typeName(base.Type())).WithPosition(loc + 1)
		}
		if base, err = c.arraySubscript(base, &pg_query.A_Indirection{Indirection: rest[:n]}); err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	return base, nil
}

// errNoField is PostgreSQL's error for a field a record does not have.
func errNoField(name string, loc int32) error {
	return repr.Errorf(repr.CodeUndefinedColumn, "could not identify column %q in record data type", name).WithPosition(loc + 1)
}

// expandRecordStars expands the select-list entries (x).* whose record
// shape the planner knows into one entry per field, (x).name: x a
// select-list call of a set-returning function with several result
// columns (planned once: every entry names the same call) or a record
// column of a subquery. Other entries stay.
func (ec *ectx) expandRecordStars(targets []target) ([]target, error) {
	var out []target
	for _, t := range targets {
		ind := t.node.GetAIndirection()
		if ind == nil || len(ind.Indirection) != 1 || ind.Indirection[0].GetAStar() == nil {
			out = append(out, t)
			continue
		}
		names, err := ec.recordStarNames(ind)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			sel := &pg_query.A_Indirection{Arg: ind.Arg, Indirection: []*pg_query.Node{pg_query.MakeStrNode(name)}}
			out = append(out, target{node: &pg_query.Node{Node: &pg_query.Node_AIndirection{AIndirection: sel}}, name: name, loc: t.loc})
		}
	}
	return out, nil
}

// recordStarNames returns the field names (x).* expands to: 42809 for a
// one-column set-returning call (not a record), 0A000 for a record of
// unknown shape.
func (ec *ectx) recordStarNames(ind *pg_query.A_Indirection) ([]string, error) {
	var names []string
	if fc := ind.Arg.GetFuncCall(); fc != nil {
		fc = ec.sameSRF(fc)
		if fields, ok := ec.srfFields[fc]; ok {
			for _, f := range fields {
				names = append(names, f.name)
			}
			return names, nil
		}
		if e, ok := ec.srfs[fc]; ok {
			return nil, repr.Errorf(repr.CodeWrongObjectType, "type %s is not composite", e.Type().Name()).WithPosition(location(ind.Arg) + 1)
		}
	}
	arg, err := ec.expr(ind.Arg)
	if err != nil {
		return nil, err
	}
	fields := ec.recordFields(arg)
	if fields == nil {
		return nil, repr.Unsupported("(x).* over a value of type %s whose fields are not known", arg.Type().Name()).WithPosition(location(ind.Arg) + 1)
	}
	for _, f := range fields {
		names = append(names, f.Name)
	}
	return names, nil
}
