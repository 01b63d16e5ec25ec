package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// populateFuncs maps json[b]_populate_record[set] to the record function
// with a column definition list that computes the same rows.
var populateFuncs = map[string]string{
	"json_populate_record": "json_to_record", "json_populate_recordset": "json_to_recordset",
	"jsonb_populate_record": "jsonb_to_record", "jsonb_populate_recordset": "jsonb_to_recordset",
}

// populateCall rewrites json[b]_populate_record[set](NULL::rel, doc) in
// FROM into json[b]_to_record[set](doc) with rel's columns as its column
// definition list: PostgreSQL fills the row type's fields from the
// document's keys with populate_record_field's conversions, and a NULL base
// leaves the missing ones NULL, which is what the _to_ forms do. A base
// that is a whole row (json_populate_record(t, doc) beside FROM t) is
// populateOver's; a NULL base of a composite type (CREATE TYPE ... AS)
// takes its fields; other bases are 0A000. It returns ok false for other
// calls.
func (c *ectx) populateCall(fc *pg_query.FuncCall) (name string, args []*pg_query.Node, cols []expr.TableCol, ok bool, err error) {
	name = funcName(fc)
	to, found := populateFuncs[name]
	if !found || len(fc.Args) == 0 {
		return "", nil, nil, false, nil
	}
	if len(fc.Args) != 2 {
		return "", nil, nil, false, repr.Unsupported("%s with %d arguments", name, len(fc.Args)).WithPosition(fc.Location + 1)
	}
	tc := fc.Args[0].GetTypeCast()
	if tc == nil || !tc.Arg.GetAConst().GetIsnull() {
		return c.populateOver(fc, name)
	}
	if cols, err = c.rowTypeColumns(tc.TypeName, name); err != nil {
		return "", nil, nil, false, err
	}
	return to, fc.Args[1:], cols, true, nil
}

// rowTypeColumns is the fields of the row type a NULL base record is cast
// to: a table's or view's columns, or a composite type's fields (CREATE
// TYPE ... AS). Other types are rowTypeRelation's errors.
func (c *ectx) rowTypeColumns(tn *pg_query.TypeName, fn string) ([]expr.TableCol, error) {
	rel, err := c.rowTypeRelation(tn, fn)
	if err != nil {
		if t, terr := c.b.resolveType(tn); terr == nil && t.IsComposite() {
			if fields := c.b.compositeFields(t); fields != nil {
				return fields, nil
			}
		}
		return nil, err
	}
	cols := make([]expr.TableCol, len(rel.Columns))
	for i, col := range rel.Columns {
		cols[i] = expr.TableCol{Name: col.Name, T: col.Type}
	}
	return cols, nil
}

// rowTypeRelation resolves the row type a NULL base record is cast to:
// a table's or view's name (a base type is 0A000: Eddy's populate
// functions fill only row types).
func (c *ectx) rowTypeRelation(tn *pg_query.TypeName, fn string) (*Relation, error) {
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(tn.ArrayBounds) > 0 || len(tn.Typmods) > 0 || len(parts) == 0 || len(parts) > 2 {
		return nil, repr.Unsupported("%s over type %s", fn, strings.Join(parts, ".")).WithPosition(tn.Location + 1)
	}
	schema, name := "", parts[len(parts)-1]
	if len(parts) == 2 {
		schema = parts[0]
	}
	rel, err := c.b.cat.Relation(schema, name)
	if err != nil {
		if _, terr := resolveType(tn); terr == nil {
			return nil, repr.Unsupported("%s over the non-composite type %s", fn, name).WithPosition(tn.Location + 1)
		}
		return nil, repr.Errorf(repr.CodeUndefinedObject, "type %q does not exist", name).WithPosition(tn.Location + 1)
	}
	return rel, nil
}

// populateOver plans json[b]_populate_record(base, doc) over a non-NULL
// base record whose field names the planner knows (a whole-row
// reference): json[b]_populate_record_over(doc, base) with the base's
// fields as its columns, which keeps the base's value of every field the
// document does not name.
func (c *ectx) populateOver(fc *pg_query.FuncCall, name string) (string, []*pg_query.Node, []expr.TableCol, bool, error) {
	unsupported := repr.Unsupported("%s with a base record other than NULL::table or a FROM item's whole row", name).WithPosition(fc.Location + 1)
	if !strings.HasSuffix(name, "_record") || fc.Args[0].GetColumnRef() == nil && fc.Args[0].GetTypeCast().GetArg().GetRowExpr() == nil {
		return "", nil, nil, false, unsupported
	}
	base, err := c.expr(fc.Args[0])
	if err != nil {
		return "", nil, nil, false, err
	}
	fields := c.recordFields(base)
	if fields == nil {
		return "", nil, nil, false, unsupported
	}
	return name + "_over", []*pg_query.Node{fc.Args[1], fc.Args[0]}, fields, true, nil
}

// populateValue is the value of a select-list json[b]_populate_record[set]
// call, planned as a set-returning call of the row type's columns (srf.go):
// the record of those columns. json[b]_populate_record(NULL::rel, NULL) is
// a NULL record in PostgreSQL, not one of NULL fields.
func (c *ectx) populateValue(fc *pg_query.FuncCall, name string, rec expr.Expr) (expr.Expr, error) {
	base := fc.Args[0].GetTypeCast()
	if !strings.HasSuffix(name, "_record") || base == nil || !base.Arg.GetAConst().GetIsnull() {
		return rec, nil
	}
	doc, err := c.expr(fc.Args[1])
	if err != nil {
		return nil, err
	}
	return nullWhenAbsent(doc, rec), nil
}
