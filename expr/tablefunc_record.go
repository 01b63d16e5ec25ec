package expr

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/repr"
)

// Record-returning functions: json[b]_to_record(doc) and
// json[b]_to_recordset(doc) return PostgreSQL's anonymous record, whose
// columns a call names and types with a column definition list
// (`jsonb_to_recordset(d) AS x(a int, b text)`). The registered overload
// has no columns (TableFunc.Record, NeedsColumns); the planner
// instantiates it per call with WithColumns, and the call prints its list
// (`jsonb_to_record(#0) AS ('a' int4, 'b' text)`) so a plan parses back to
// the same columns.
//
// Each column takes the value of the object's member of the same name
// (case-sensitive; a json object's last duplicate wins; absent or JSON
// null: NULL), converted as PostgreSQL's populate_record_field does: json
// and jsonb columns take the value itself, array columns a JSON array
// element-wise (or a string through array_in), other types the string's
// contents or the value's text through the type's input function.
func init() {
	for prefix, in := range map[string]repr.T{"json": repr.JSON, "jsonb": repr.JSONB} {
		one := recordFn(prefix+"_to_record", populateRecord, in)
		one.NullArgs, one.OneRow = true, true
		recordFn(prefix+"_to_recordset", populateRecordset(prefix+"_to_recordset"), in)
		over := recordFn(prefix+"_populate_record_over", populateRecordOver, in, repr.Record)
		over.NullArgs, over.OneRow = true, true
	}
}

// recordFn registers a record-returning overload of name over args whose
// generator, given the column definition list, is gen(cols).
func recordFn(name string, gen func(cols []TableCol) TableGen, args ...repr.T) *TableFunc {
	f := &TableFunc{Name: name, Args: args, Record: true}
	f.record = func(cols []TableCol) *TableFunc {
		inst := *f
		inst.Cols, inst.Gen, inst.record = cols, gen(cols), nil
		inst.contextual = zoned(cols)
		return &inst
	}
	tableFuncs[name] = append(tableFuncs[name], f)
	return f
}

// zoned reports whether any column's input depends on the session time
// zone (timestamptz, or an array of it).
func zoned(cols []TableCol) bool {
	for _, c := range cols {
		if c.T.Family == repr.FamTimestampTZ || c.T.ElemType().Family == repr.FamTimestampTZ {
			return true
		}
	}
	return false
}

// ReturnsRecord reports whether name (lower case) is a record-returning
// function, whose calls need a column definition list.
func ReturnsRecord(name string) bool {
	fs := tableFuncs[name]
	return len(fs) > 0 && fs[0].record != nil
}

// NeedsColumns reports whether t returns record and a call must supply a
// column definition list (WithColumns) before it has columns.
func (t *TableFunc) NeedsColumns() bool { return t.record != nil }

// WithColumns instantiates a record-returning overload (NeedsColumns) for
// a call's column definition list; nil for any other function.
func (t *TableFunc) WithColumns(cols []TableCol) *TableFunc {
	if t.record == nil {
		return nil
	}
	return t.record(cols)
}

// formatColumnDefs prints a column definition list as parseColumnDefs
// reads it: ('a' int4, 'B c' text[]).
func formatColumnDefs(cols []TableCol) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = quoteLiteral(c.Name) + " " + TypeName(c.T)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// parseColumnDefs reads formatColumnDefs's output.
func parseColumnDefs(s string) ([]TableCol, error) {
	p := &parser{}
	if err := p.lex(s); err != nil {
		return nil, err
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var cols []TableCol
	for {
		name := p.next()
		if name.kind != tStr {
			return nil, p.errorf("expected a quoted column name, found %q", name.text)
		}
		t, err := p.typeName()
		if err != nil {
			return nil, err
		}
		cols = append(cols, TableCol{Name: name.text, T: t})
		if d := p.next(); d.text == ")" {
			break
		} else if d.text != "," {
			return nil, p.errorf("bad column definition list %q", s)
		}
	}
	if p.peek().kind != tEOF {
		return nil, p.errorf("unexpected %q", p.peek().text)
	}
	return cols, nil
}

// populateRecord is json[b]_to_record's generator: one row from an object
// (a NULL document: one row of NULLs, as PostgreSQL's non-strict function
// returns a NULL record); 22023 for an array or a scalar.
func populateRecord(cols []TableCol) TableGen {
	return func(ctx *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
		row := make([]repr.Datum, len(cols))
		if a[0].IsNull() {
			return emit(row)
		}
		doc := docValue(a[0])
		obj, ok := doc.object()
		if !ok {
			return repr.Errorf(repr.CodeInvalidParameter, "cannot call populate_composite on %s", doc.what())
		}
		if err := fillRow(row, obj, cols, ctx.Location()); err != nil {
			return err
		}
		return emit(row)
	}
}

// populateRecordOver is json[b]_populate_record_over(doc, base), the
// planner's form of json[b]_populate_record with a non-NULL base record
// whose fields are the columns: each column takes the document's member
// of its name when there is one (JSON null: NULL), else the base's field;
// a NULL document gives the base row.
func populateRecordOver(cols []TableCol) TableGen {
	return func(ctx *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
		row := make([]repr.Datum, len(cols))
		if !a[1].IsNull() {
			base, _ := a[1].Record()
			copy(row, base)
		}
		if a[0].IsNull() {
			return emit(row)
		}
		doc := docValue(a[0])
		obj, ok := doc.object()
		if !ok {
			return repr.Errorf(repr.CodeInvalidParameter, "cannot call populate_composite on %s", doc.what())
		}
		for i, c := range cols {
			if v, ok := obj[c.Name]; ok {
				d, err := populateField(v, c.T, c.Name, ctx.Location())
				if err != nil {
					return err
				}
				row[i] = d
			}
		}
		return emit(row)
	}
}

// populateRecordset is json[b]_to_recordset's generator: one row per
// element of an array of objects, with PostgreSQL's 22023 errors naming
// name for other documents and other elements.
func populateRecordset(name string) func(cols []TableCol) TableGen {
	return func(cols []TableCol) TableGen {
		return func(ctx *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
			doc := docValue(a[0])
			elems, ok := doc.elems()
			if !ok {
				what := "a non-array"
				if doc.json {
					what = doc.what()
				}
				return repr.Errorf(repr.CodeInvalidParameter, "cannot call %s on %s", name, what)
			}
			row := make([]repr.Datum, len(cols))
			for _, e := range elems {
				obj, ok := e.object()
				if !ok {
					return repr.Errorf(repr.CodeInvalidParameter, "argument of %s must be an array of objects", name)
				}
				if err := fillRow(row, obj, cols, ctx.Location()); err != nil {
					return err
				}
				if err := emit(row); err != nil {
					return err
				}
			}
			return nil
		}
	}
}

// fillRow sets row[i] to the value of obj's member named cols[i].Name.
func fillRow(row []repr.Datum, obj map[string]jsonVal, cols []TableCol, loc *time.Location) error {
	for i, c := range cols {
		v, ok := obj[c.Name]
		if !ok {
			row[i] = repr.Null
			continue
		}
		d, err := populateField(v, c.T, c.Name, loc)
		if err != nil {
			return err
		}
		row[i] = d
	}
	return nil
}

// populateField converts JSON value v to type t as populate_record_field
// does; key names the member for errors.
func populateField(v jsonVal, t repr.T, key string, loc *time.Location) (repr.Datum, error) {
	if v.isNull() {
		return repr.Null, nil
	}
	switch t.Family {
	case repr.FamJSON:
		return repr.NewJSON(v.text()), nil
	case repr.FamJSONB:
		if v.json {
			return repr.ParseJSONB(v.span)
		}
		return jsonDatum(v.v), nil
	case repr.FamArray:
		return populateArray(v, t, key, loc)
	}
	s, ok := v.str()
	if !ok {
		s = v.text()
	}
	return repr.ParseText(s, t, loc)
}

// populateArray converts v to array type t: a JSON string through the
// array's text input, a JSON array element by element, nested JSON arrays
// as a multidimensional array (arrayShape); anything else is 22P02.
func populateArray(v jsonVal, t repr.T, key string, loc *time.Location) (repr.Datum, error) {
	if s, ok := v.str(); ok {
		return repr.ParseText(s, t, loc)
	}
	elems, ok := v.elems()
	if !ok {
		return repr.Null, repr.Errorf(repr.CodeInvalidText, "expected JSON array").
			WithHint("See the value of key \"%s\".", key)
	}
	sh := &arrayShape{key: key}
	if err := sh.walk(elems, 1, ""); err != nil {
		return repr.Null, err
	}
	out := make([]repr.Datum, len(sh.elems))
	for i, e := range sh.elems {
		d, err := populateField(e, t.ElemType(), key, loc)
		if err != nil {
			return repr.Null, err
		}
		out[i] = d
	}
	if slices.Contains(sh.dims, 0) {
		return repr.NewArray(nil), nil
	}
	return repr.NewArrayDims(out, sh.dims), nil
}

// arrayShape collects the elements and dimensions of nested JSON arrays
// as PostgreSQL's populate_array does: the first non-array value fixes the
// number of dimensions (an array found at that depth is an element); every
// sub-array of a level must have the same length.
type arrayShape struct {
	key   string
	ndims int
	dims  []int
	elems []jsonVal
}

// walk visits the elements of an array at depth (1: the outermost); path
// locates it for errors ("[1][0]").
func (sh *arrayShape) walk(vals []jsonVal, depth int, path string) error {
	if depth > repr.MaxArrayDims {
		return repr.Errorf(repr.CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", depth, repr.MaxArrayDims)
	}
	for i, e := range vals {
		sub, isArray := e.elems()
		at := path + "[" + strconv.Itoa(i) + "]"
		switch {
		case isArray && (sh.ndims == 0 || depth < sh.ndims):
			if err := sh.walk(sub, depth+1, at); err != nil {
				return err
			}
			continue
		case sh.ndims == 0:
			sh.ndims = depth
		case depth < sh.ndims:
			return repr.Errorf(repr.CodeInvalidText, "expected JSON array").
				WithHint("See the array element %s of key \"%s\".", at, sh.key)
		}
		sh.elems = append(sh.elems, e)
	}
	return sh.checkDim(depth, len(vals))
}

// checkDim records that an array at depth has n elements, failing if an
// earlier one at that depth had another length.
func (sh *arrayShape) checkDim(depth, n int) error {
	if sh.ndims == 0 {
		sh.ndims = depth
	}
	for len(sh.dims) < depth {
		sh.dims = append(sh.dims, -1)
	}
	switch sh.dims[depth-1] {
	case -1:
		sh.dims[depth-1] = n
	case n:
	default:
		return repr.Errorf(repr.CodeInvalidText, "malformed JSON array").
			WithDetail("Multidimensional arrays must have sub-arrays with matching dimensions.")
	}
	return nil
}

// jsonVal is one JSON value the populate functions read: a decoded jsonb
// value (v), or for json input the value's exact input text (span), so
// json results and text conversions see the input as PostgreSQL's json
// functions do.
type jsonVal struct {
	v    any
	span string
	json bool
}

// docValue returns the value of a json or jsonb datum.
func docValue(d repr.Datum) jsonVal {
	if d.Family() == repr.FamJSON {
		return jsonVal{span: strings.TrimSpace(d.Text()), json: true}
	}
	return jsonVal{v: decodeJSON(d.Text())}
}

func (j jsonVal) isNull() bool {
	if j.json {
		return j.span == "null"
	}
	return j.v == nil
}

// str returns the contents of a JSON string.
func (j jsonVal) str() (string, bool) {
	if !j.json {
		s, ok := j.v.(string)
		return s, ok
	}
	var s string
	ok := strings.HasPrefix(j.span, `"`) && json.Unmarshal([]byte(j.span), &s) == nil
	return s, ok
}

// text returns the value's JSON text (a json span verbatim, jsonb's
// canonical text).
func (j jsonVal) text() string {
	if j.json {
		return j.span
	}
	return string(encodeJSON(nil, j.v))
}

// elems returns the elements of a JSON array.
func (j jsonVal) elems() ([]jsonVal, bool) {
	if !j.json {
		arr, ok := j.v.([]any)
		out := make([]jsonVal, len(arr))
		for i, e := range arr {
			out[i] = jsonVal{v: e}
		}
		return out, ok
	}
	var raw []json.RawMessage
	if !strings.HasPrefix(j.span, "[") || json.Unmarshal([]byte(j.span), &raw) != nil {
		return nil, false
	}
	out := make([]jsonVal, len(raw))
	for i, e := range raw {
		out[i] = jsonVal{span: string(e), json: true}
	}
	return out, true
}

// object returns the members of a JSON object by name (a json object's
// last duplicate wins, as in PostgreSQL's hash of the members).
func (j jsonVal) object() (map[string]jsonVal, bool) {
	if !j.json {
		m, ok := j.v.(map[string]any)
		out := make(map[string]jsonVal, len(m))
		for k, e := range m {
			out[k] = jsonVal{v: e}
		}
		return out, ok
	}
	if !strings.HasPrefix(j.span, "{") {
		return nil, false
	}
	members, err := jsonMembers("", j.span)
	if err != nil {
		return nil, false
	}
	out := make(map[string]jsonVal, len(members))
	for _, m := range members {
		out[m[0]] = jsonVal{span: m[1], json: true}
	}
	return out, true
}

// what names a non-object value for errors: "an array" or "a scalar".
func (j jsonVal) what() string {
	if _, ok := j.elems(); ok {
		return "an array"
	}
	return "a scalar"
}
