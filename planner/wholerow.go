package planner

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Whole-row references. As in PostgreSQL, a FROM item's name used as a
// value (SELECT t FROM t, t.*::text, f(t.*)) is its row as a record, and
// ROW(t.*) is ROW(t.a, t.b, ...). Eddy's record is the anonymous record
// type: the value is ROW(t.a, t.b, ...) with the field names kept beside
// it (ectx.records), so (t).a, (t).* and the names of to_json(t) resolve
// as PostgreSQL's, and it prints as PostgreSQL's record_out. The value's
// type is the relation's row type (Relation.RowType) when the FROM item
// is a relation that has one, named without a column alias list, so
// RowDescription carries the type's OID; else it is record (2249). A
// column of the same name wins over the whole row, as in PostgreSQL.

// wholeRow returns the row of the FROM item named table as a record, or
// ok false when no scope has such an item.
func (c *ectx) wholeRow(table string, loc int32) (e expr.Expr, ok bool, err error) {
	args, shape, ok, err := c.rowOf(table, loc)
	if !ok || err != nil {
		return nil, ok, err
	}
	rec, err := c.namedRecord(args, shape, loc)
	if err != nil {
		return nil, true, err
	}
	if rt := c.rowTypeOf(table); rt != 0 {
		rec = &expr.Cast{Arg: rec, To: repr.CompositeOf(rt)}
	}
	for cur := c.sc; cur != nil; cur = cur.parent {
		if cur.hasTable(table) {
			if rec, err = c.present(cur, table, rec, loc); err != nil {
				return nil, true, err
			}
			break
		}
	}
	c.records[rec] = shape
	return rec, true, nil
}

// rowTypeOf returns the row type of the FROM item named table in the
// nearest scope that has one: its columns' common rowType, 0 when they
// have none (a derived table, a function, an alias list).
func (c *ectx) rowTypeOf(table string) uint32 {
	for cur := c.sc; cur != nil; cur = cur.parent {
		if !cur.hasTable(table) {
			continue
		}
		idx, err := cur.starCols(table, -1)
		if err != nil || len(idx) == 0 {
			return 0
		}
		rt := cur.cols[idx[0]].rowType
		for _, j := range idx {
			if cur.cols[j].rowType != rt {
				return 0
			}
		}
		return rt
	}
	return 0
}

// namedRecord returns ROW(args...) with its fields named by shape.
func (c *ectx) namedRecord(args []expr.Expr, shape []expr.TableCol, loc int32) (expr.Expr, error) {
	rec, err := c.function("row", args, loc)
	if err != nil {
		return nil, err
	}
	if c.records == nil {
		c.records = map[expr.Expr][]expr.TableCol{}
	}
	c.records[rec] = shape
	return rec, nil
}

// rowOf returns the columns of the FROM item named table in the nearest
// scope that has one (ok false when none does).
func (c *ectx) rowOf(table string, loc int32) (args []expr.Expr, shape []expr.TableCol, ok bool, err error) {
	for cur := c.sc; cur != nil; cur = cur.parent {
		if cur.hasTable(table) {
			args, shape, err := c.rowFields(cur, table, loc)
			return args, shape, true, err
		}
	}
	return nil, nil, false, nil
}

// rowFields returns the columns table.* names in scope sc (c's scope or
// an enclosing one), resolved from c's scope, and their names and types.
func (c *ectx) rowFields(sc *scope, table string, loc int32) ([]expr.Expr, []expr.TableCol, error) {
	idx, err := sc.starCols(table, loc)
	if err != nil {
		return nil, nil, err
	}
	args := make([]expr.Expr, len(idx))
	shape := make([]expr.TableCol, len(idx))
	for i, j := range idx {
		col := sc.cols[j]
		if sc == c.sc {
			args[i] = &expr.Col{Idx: j, T: col.typ}
		} else if args[i], err = resolveColumn(c.sc, table, col.name, loc); err != nil {
			return nil, nil, err
		}
		shape[i] = expr.TableCol{Name: col.name, T: col.typ}
	}
	return args, shape, nil
}

// starRef returns the qualifier of a t.* column reference, or "".
func starRef(n *pg_query.Node) string {
	ref := n.GetColumnRef()
	if ref == nil || len(ref.Fields) < 2 || ref.Fields[len(ref.Fields)-1].GetAStar() == nil {
		return ""
	}
	// The qualifier parses as a column reference would: its last part is
	// the table, the ones before the schema.
	qual, name, err := refName(&pg_query.ColumnRef{Fields: ref.Fields[:len(ref.Fields)-1]})
	if err != nil || qual != "" && strings.Contains(qual, ".") {
		return ""
	}
	if qual != "" {
		return qual + "." + name
	}
	return name
}

// rowItems plans ROW(...)'s arguments, expanding each t.* into t's columns.
func (c *ectx) rowItems(items []*pg_query.Node) ([]expr.Expr, error) {
	var out []expr.Expr
	for _, n := range items {
		if table := starRef(n); table != "" {
			args, _, ok, err := c.rowOf(table, location(n))
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, repr.Errorf(repr.CodeUndefinedTable, "missing FROM-clause entry for table %q", table).WithPosition(location(n) + 1)
			}
			out = append(out, args...)
			continue
		}
		e, err := c.expr(n)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// recordNullTest is rec IS [NOT] NULL for a record whose fields are known:
// as PostgreSQL tests a composite value, true when every field is NULL
// (IS NULL) or none is (IS NOT NULL); a NULL record has NULL fields.
func (c *ectx) recordNullTest(rec expr.Expr, fields []expr.TableCol, negate bool) (expr.Expr, error) {
	terms := make([]expr.Expr, len(fields))
	for i, f := range fields {
		args := []expr.Expr{rec, &expr.Lit{D: repr.NewInt(int64(i)), T: repr.Int4}, &expr.Lit{D: repr.Null, T: f.T}}
		e, err := c.function("record_field", args, -1)
		if err != nil {
			return nil, err
		}
		terms[i] = &expr.IsNull{Arg: e, Negate: negate}
	}
	return and(terms...), nil
}

// recordJSONFuncs maps the functions that convert a record to JSON to the
// forms that take its field names (expr/funcs_recordjson.go).
var recordJSONFuncs = map[string]string{
	"to_json": "record_to_json", "row_to_json": "record_to_json", "to_jsonb": "record_to_jsonb",
}

// namedRecordJSON rewrites to_json(rec), row_to_json(rec) and
// to_jsonb(rec) of a record whose field names the planner knows into
// record_to_json[b](rec, 'name', ...), so the object's keys are the
// names (a whole-row reference's columns) rather than f1, f2, .... A
// field of a composite type converts the same way first (nestedJSON).
func (c *ectx) namedRecordJSON(name string, args []expr.Expr, loc int32) (string, []expr.Expr, bool, error) {
	to, ok := recordJSONFuncs[name]
	if !ok || len(args) != 1 {
		return "", nil, false, nil
	}
	if t := args[0].Type(); t.Family == repr.FamArray && name != "row_to_json" {
		out, ok, err := c.recordArrayJSONArgs(to, args[0], loc)
		return recordArrayJSON[to], out, ok, err
	}
	fields := c.recordFields(args[0])
	if fields == nil {
		return "", nil, false, nil
	}
	out, err := c.recordJSONArgs(to, args[0], fields, loc)
	return to, out, err == nil, err
}

// jsonBuilders are the functions that convert their arguments to JSON
// values inside the one they build (the value's conversion: to_json or
// to_jsonb) and whether every argument is a value (else only the odd
// ones, an object's values after its keys).
var jsonBuilders = map[string]struct {
	convert string
	all     bool
}{
	"json_build_object":  {convert: "to_json"},
	"jsonb_build_object": {convert: "to_jsonb"},
	"json_build_array":   {convert: "to_json", all: true},
	"jsonb_build_array":  {convert: "to_jsonb", all: true},
}

// namedRecordJSONArgs converts the record values among the arguments of
// json_build_object and its kin whose field names the planner knows (a
// whole-row reference, a composite-typed value) to JSON first, as
// namedRecordJSON converts to_json's, so the inner objects are keyed by
// the names rather than f1, f2, ...: PostgreSQL's json_build_object('r',
// t) is {"r" : {"k":1,"b":10}}. It returns nil when no argument changes.
func (c *ectx) namedRecordJSONArgs(name string, args []expr.Expr, loc int32) ([]expr.Expr, error) {
	jb, ok := jsonBuilders[name]
	if !ok {
		return nil, nil
	}
	var out []expr.Expr
	for i, a := range args {
		if !jb.all && i%2 == 0 {
			continue
		}
		to, rargs, ok, err := c.namedRecordJSON(jb.convert, []expr.Expr{a}, loc)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, err := c.function(to, rargs, loc)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i] = v
	}
	return out, nil
}

// recordArrayJSON maps record_to_json[b] to its form over an array of
// records (expr's record_array_to_json[b]).
var recordArrayJSON = map[string]string{"record_to_json": "record_array_to_json", "record_to_jsonb": "record_array_to_jsonb"}

// recordArrayJSONArgs returns the arguments of record_array_to_json[b]
// for arr, an array of a composite type whose fields the catalog knows
// (ok false for another array). Elements with composite fields are 0A000:
// their inner objects would not have their names.
func (c *ectx) recordArrayJSONArgs(to string, arr expr.Expr, loc int32) ([]expr.Expr, bool, error) {
	t := arr.Type()
	if t.Elem != repr.FamRecord || t.Composite == 0 {
		return nil, false, nil
	}
	fields := c.b.compositeFields(repr.CompositeOf(t.Composite))
	if fields == nil {
		return nil, false, nil
	}
	if nestedFields(fields) {
		return nil, false, repr.Unsupported("JSON of an array of composite type %s, which has composite fields", c.b.typeName(t.ElemType())).WithPosition(loc + 1)
	}
	out := []expr.Expr{arr}
	for _, f := range fields {
		out = append(out, &expr.Lit{D: repr.NewText(f.Name), T: repr.Text})
	}
	return out, true, nil
}

// recordJSONArgs returns the arguments of record_to_json[b] (to) for rec,
// whose fields are fields.
func (c *ectx) recordJSONArgs(to string, rec expr.Expr, fields []expr.TableCol, loc int32) ([]expr.Expr, error) {
	if nestedFields(fields) {
		var err error
		if rec, err = c.nestedJSON(to, rec, fields, loc); err != nil {
			return nil, err
		}
	}
	out := []expr.Expr{rec}
	for _, f := range fields {
		out = append(out, &expr.Lit{D: repr.NewText(f.Name), T: repr.Text})
	}
	return out, nil
}

// nestedJSON rebuilds rec with each field of a composite type replaced by
// its JSON (to: record_to_json or record_to_jsonb, with its type's field
// names), so the object nests objects keyed by the inner names; a NULL
// rec stays NULL.
func (c *ectx) nestedJSON(to string, rec expr.Expr, fields []expr.TableCol, loc int32) (expr.Expr, error) {
	args := make([]expr.Expr, len(fields))
	for i, f := range fields {
		v, err := c.b.recordField(rec, i, f.T, loc)
		if err != nil {
			return nil, err
		}
		if f.T.Family == repr.FamArray {
			jargs, ok, err := c.recordArrayJSONArgs(to, v, loc)
			if err != nil {
				return nil, err
			}
			if ok {
				if v, err = c.function(recordArrayJSON[to], jargs, loc); err != nil {
					return nil, err
				}
			}
		}
		if inner := c.b.compositeFields(f.T); inner != nil && f.T.Family == repr.FamRecord {
			jargs, err := c.recordJSONArgs(to, v, inner, loc)
			if err != nil {
				return nil, err
			}
			if v, err = c.function(to, jargs, loc); err != nil {
				return nil, err
			}
		}
		args[i] = v
	}
	row, err := c.function("row", args, loc)
	if err != nil {
		return nil, err
	}
	return nullWhenAbsent(rec, row), nil
}

// rowCast is ROW(...)::rel (or '(...)'::rel: literalRowCast), a row constructor cast to a table's or view's
// row type: each field cast explicitly to the column's type (42846 with
// PostgreSQL's detail when the counts differ), the result a record whose
// field names are the columns. ok is false when tc is no such cast.
func (c *ectx) rowCast(tc *pg_query.TypeCast) (expr.Expr, bool, error) {
	row := tc.Arg.GetRowExpr()
	if row == nil && tc.Arg.GetAConst() == nil {
		return nil, false, nil
	}
	rel, err := c.rowTypeRelation(tc.TypeName, "cast")
	if err != nil {
		return nil, false, nil
	}
	if row == nil {
		e, err := c.literalRowCast(tc, rel)
		return e, true, err
	}
	args, err := c.rowItems(row.Args)
	if err != nil {
		return nil, true, err
	}
	if len(args) != len(rel.Columns) {
		detail := "Input has too few columns."
		if len(args) > len(rel.Columns) {
			detail = "Input has too many columns."
		}
		return nil, true, repr.Errorf("42846", "cannot cast type record to %s", rel.Name).WithDetail("%s", detail).WithPosition(tc.Location + 1)
	}
	shape := make([]expr.TableCol, len(args))
	for i, col := range rel.Columns {
		if args[i], err = c.b.explicitCast(args[i], col.Type, location(row.Args[min(i, len(row.Args)-1)])); err != nil {
			return nil, true, err
		}
		shape[i] = expr.TableCol{Name: col.Name, T: col.Type}
	}
	rec, err := c.namedRecord(args, shape, tc.Location)
	return rec, true, err
}
