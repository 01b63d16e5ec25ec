package sql

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// SQL-language functions (CREATE [OR REPLACE] FUNCTION ... LANGUAGE sql,
// DROP FUNCTION). A function is a catalog object (Kind relFunction) kept
// by ID like the relations, so it is stored, restored, owned and
// depended on as they are, but it is not in the relations' name space:
// Catalog.Functions finds it by name for the planner, which inlines
// every call (planner/sqlfunc.go). A view that calls one depends on it
// (DROP FUNCTION ... RESTRICT is 2BP01, CASCADE drops the view); a
// function's own body records no dependency, as PostgreSQL's string
// bodies record none. Replacing a function checks the materialized views
// that inlined it as CREATE OR REPLACE VIEW checks them (view_replace.go).

// relFunction is the kind of a function's catalog entry.
const relFunction planner.RelKind = 103

// FuncDef defines a SQL function (Kind relFunction).
type FuncDef struct {
	Args     []repr.T
	ArgNames []string `json:",omitempty"`
	// Defaults are the parameters' DEFAULT expressions, SQL text ("":
	// none), one per parameter when any has one.
	Defaults []string `json:",omitempty"`
	Ret      repr.T
	RetSet   bool        `json:",omitempty"`
	RetCols  []ColumnDef `json:",omitempty"`
	// RetRel is the relation of RETURNS SETOF relation (0: none), whose
	// columns RetCols are: ALTER TABLE keeps them equal (alter.go's
	// followRowTypeFunctions), as the function returns the row type.
	RetRel uint64 `json:",omitempty"`
	// Body is the query the function computes (SELECT e for RETURN e);
	// Src is prosrc, the body as written ("" for a SQL-standard body).
	Body string
	Src  string `json:",omitempty"`
	// Standard marks a SQL-standard body (RETURN, BEGIN ATOMIC), whose
	// prosrc is empty.
	Standard bool `json:",omitempty"`
	// Volatility is provolatile: 'i', 's' or 'v'.
	Volatility byte
	Strict     bool `json:",omitempty"`
	// Lang is "plpgsql" for a PL/pgSQL function ("": sql), whose Src the
	// interpreter runs (plfunction.go); its Body is empty.
	Lang string `json:",omitempty"`
	// Modes are a PL/pgSQL function's parameters' modes in declaration
	// order, as proargmodes: i, o, b (INOUT), t (TABLE). OutArgs are its
	// OUT and INOUT parameters; Void marks RETURNS void.
	Modes   string      `json:",omitempty"`
	OutArgs []ColumnDef `json:",omitempty"`
	Void    bool        `json:",omitempty"`
	// Proc marks a procedure (prokind 'p', procedure.go); its Lang is
	// "sql" or "plpgsql", both run by the interpreter.
	Proc bool `json:",omitempty"`
	// Variadic marks the last input parameter VARIADIC (an array a call
	// may give as a list of its elements; proargmodes v).
	Variadic bool `json:",omitempty"`
	// Poly names each input parameter's polymorphic pseudo-type
	// (anyelement, ...; "" for none), nil when none has one; RetPoly is
	// the result's. Their Args and Ret entries are text placeholders
	// (function_poly.go).
	Poly    []string `json:",omitempty"`
	RetPoly string   `json:",omitempty"`
	// RetColPoly names each result column's (OUT, INOUT or TABLE
	// parameter's) polymorphic pseudo-type ("" for none), nil when none
	// has one.
	RetColPoly []string `json:",omitempty"`
}

// planned returns the planner's view of o, a function.
func (o *Object) planned() (*planner.SQLFunction, error) {
	f := o.Function
	var n *pg.Node
	if f.Lang == "" {
		var err error
		if n, err = parseOne(f.Body); err != nil {
			return nil, err
		}
	}
	fn := &planner.SQLFunction{ID: o.ID, Name: o.Name, Args: f.Args, ArgNames: f.ArgNames, Defaults: f.Defaults,
		Ret: f.Ret, RetSet: f.RetSet, Body: n, Volatile: f.Volatility == 'v', Strict: f.Strict, Procedural: f.Lang != "", Procedure: f.Proc, Variadic: f.Variadic,
		Poly: f.Poly, RetPoly: f.RetPoly, RetColPoly: f.RetColPoly}
	if f.Lang != "" && !f.Void && !f.Proc {
		fn.PLSource = plSource(plHead(o.Name, f), f.Src)
	}
	if fn.ArgNames == nil {
		fn.ArgNames = make([]string, len(f.Args))
	}
	if fn.Defaults == nil {
		fn.Defaults = make([]string, len(f.Args))
	}
	for _, c := range f.RetCols {
		fn.RetCols = append(fn.RetCols, planner.Column{Name: c.Name, Type: c.Type})
	}
	return fn, nil
}

// Functions implements planner.FunctionCatalog: name is a function's
// name, or schema.name for a temporary function (function_temp.go),
// which an unqualified name never finds.
func (c *Catalog) Functions(name string) []*planner.SQLFunction {
	schema, fname := "", name
	if s, n, ok := strings.Cut(name, "."); ok && strings.HasPrefix(s, tempSchemaAlias) {
		schema, fname = s, n
	}
	var out []*planner.SQLFunction
	for _, o := range c.byID {
		if o.Kind != relFunction || o.Name != fname || o.fn == nil {
			continue
		}
		if schema == "" && !isTempSchema(o.Schema) || schema != "" && o.Schema == schema {
			out = append(out, o.fn)
		}
	}
	return out
}

// functionsNamed returns the functions schema.name ("" schema: any).
func (c *Catalog) functionsNamed(schema, name string) []*Object {
	var out []*Object
	for _, o := range c.objects() {
		if o.Kind == relFunction && o.Name == name && (schema == "" || o.Schema == schema) {
			out = append(out, o)
		}
	}
	return out
}

// UseFunction implements planner.FunctionUser: a view depends on the
// functions it calls.
func (r *recordingCatalog) UseFunction(id uint64) { r.deps[id] = true }

// execCreateFunction executes CREATE [OR REPLACE] FUNCTION.
func (p *Portal) execCreateFunction(cs *pg.CreateFunctionStmt) error {
	p.tag = "CREATE FUNCTION"
	if cs.IsProcedure {
		p.tag = "CREATE PROCEDURE"
	}
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	obj, err := e.functionObject(p.st.s, cs)
	if err != nil {
		return err
	}
	if err := e.checkFunction(obj); err != nil {
		return err
	}
	for _, old := range e.cat.functionsNamed(obj.Schema, obj.Name) {
		if sameArgs(old.Function.Args, obj.Function.Args) && slices.Equal(old.Function.Poly, obj.Function.Poly) {
			if !cs.Replace {
				return repr.Errorf(codeDuplicateFunction, "function \"%s\" already exists with same argument types", obj.Name)
			}
			return e.replaceFunction(p.st.s, old, obj)
		}
	}
	e.mu.Unlock()
	defer e.mu.Lock()
	return e.createObject(obj, false)
}

// sameArgs reports whether two parameter lists have the same types.
func sameArgs(a, b []repr.T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// functionObject builds the catalog entry CREATE FUNCTION describes.
func (e *Engine) functionObject(s *Session, cs *pg.CreateFunctionStmt) (*Object, error) {
	names := stringList(cs.Funcname)
	schema, name := nsPublic, names[len(names)-1]
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	if schema == tempSchemaAlias || isTempSchema(schema) && schema == s.ownTempSchema(e.cat) {
		schema = s.tempSchema() // a temporary function (function_temp.go)
		e.ensureTempSchema(schema)
	} else if isTempSchema(schema) {
		return nil, errOtherTemp
	}
	if e.cat.schemas[schema] == nil {
		return nil, repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", schema)
	}
	if cs.IsProcedure {
		return e.procObject(s, cs, schema, name)
	}
	switch lang := functionLanguage(cs); lang {
	case "plpgsql":
		return e.plFunctionObject(s, cs, schema, name)
	case "sql":
	default:
		return nil, repr.Unsupported("LANGUAGE %s", lang)
	}
	f := &FuncDef{Volatility: 'v'}
	if err := e.functionParams(f, cs.Parameters); err != nil {
		return nil, err
	}
	if err := e.functionResult(f, cs.ReturnType, name); err != nil {
		return nil, err
	}
	if err := functionOptions(f, cs); err != nil {
		return nil, err
	}
	return &Object{Kind: relFunction, Schema: schema, Name: name, Function: f, Owner: s.newOwner()}, nil
}

// functionParams reads the parameter list: IN parameters (types, names,
// defaults) and RETURNS TABLE's columns.
func (e *Engine) functionParams(f *FuncDef, params []*pg.Node) error {
	hasDefault, named, modes := false, false, ""
	for _, n := range params {
		fp := n.GetFunctionParameter()
		poly := polyTypeName(fp.ArgType)
		t, err := repr.Text, error(nil)
		if poly == "" {
			t, err = e.cat.typeFromName(fp.ArgType)
		} else if f.Lang != "" || fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_VARIADIC {
			err = repr.Unsupported("a %s parameter of this kind", poly)
		}
		if err != nil {
			return err
		}
		if fp.Defexpr != nil && (fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_OUT || fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_TABLE) {
			return repr.Errorf(codeInvalidFunctionDefinition, "only input parameters can have default values")
		}
		switch fp.Mode {
		case pg.FunctionParameterMode_FUNC_PARAM_TABLE:
			f.RetCols, modes = append(f.RetCols, ColumnDef{Name: fp.Name, Type: t}), modes+"t"
			f.RetColPoly = append(f.RetColPoly, poly)
			continue
		case pg.FunctionParameterMode_FUNC_PARAM_OUT:
			f.OutArgs, modes = append(f.OutArgs, ColumnDef{Name: fp.Name, Type: t}), modes+"o"
			f.RetColPoly = append(f.RetColPoly, poly)
			continue
		case pg.FunctionParameterMode_FUNC_PARAM_INOUT:
			f.OutArgs, modes = append(f.OutArgs, ColumnDef{Name: fp.Name, Type: t}), modes+"b"
			f.RetColPoly = append(f.RetColPoly, poly)
		case pg.FunctionParameterMode_FUNC_PARAM_IN, pg.FunctionParameterMode_FUNC_PARAM_DEFAULT:
			modes += "i"
		case pg.FunctionParameterMode_FUNC_PARAM_VARIADIC:
			if t.Family != repr.FamArray {
				return repr.Errorf(codeInvalidFunctionDefinition, "VARIADIC parameter must be an array")
			}
			modes += "i"
			f.Variadic = true
		default:
			return repr.Unsupported("%s parameters of SQL functions", strings.TrimPrefix(fp.Mode.String(), "FUNC_PARAM_"))
		}
		if f.Variadic && fp.Mode != pg.FunctionParameterMode_FUNC_PARAM_VARIADIC {
			return repr.Errorf(codeInvalidFunctionDefinition, "VARIADIC parameter must be the last input parameter")
		}
		def := ""
		if fp.Defexpr != nil {
			if def, err = defaultText(fp.Defexpr); err != nil {
				return err
			}
			hasDefault = true
		} else if hasDefault {
			return repr.Errorf(codeInvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		}
		f.Args, f.ArgNames, f.Defaults = append(f.Args, t), append(f.ArgNames, fp.Name), append(f.Defaults, def)
		f.Poly = append(f.Poly, poly)
		named = named || fp.Name != ""
	}
	if !hasDefault {
		f.Defaults = nil
	}
	if !named {
		f.ArgNames = nil
	}
	if !slices.ContainsFunc(f.Poly, func(p string) bool { return p != "" }) {
		f.Poly = nil
	}
	if !slices.ContainsFunc(f.RetColPoly, func(p string) bool { return p != "" }) {
		f.RetColPoly = nil
	}
	if f.Lang == "" && strings.ContainsAny(modes, "ob") {
		f.Modes = modes // PL/pgSQL functions' modes are plParams's
	}
	return nil
}

// codeStackDepth is PostgreSQL's 54001, stack_depth_limit_exceeded: a
// recursive SQL function, which the planner cannot inline.
const codeStackDepth = "54001"

// codeInvalidFunctionDefinition is PostgreSQL's 42P13,
// codeDuplicateFunction its 42723.
const (
	codeInvalidFunctionDefinition = "42P13"
	codeDuplicateFunction         = "42723"
)

// functionResult reads RETURNS: a type, SETOF a type or a table's row,
// or TABLE (...) (whose columns functionParams read).
func (e *Engine) functionResult(f *FuncDef, rt *pg.TypeName, name string) error {
	if len(f.OutArgs) > 0 {
		if rt != nil {
			f.RetSet = rt.Setof
		}
		if err := f.outResult(); err != nil {
			return err
		}
		return f.polyColumns()
	}
	if rt == nil {
		return repr.Errorf(codeInvalidFunctionDefinition, "function result type must be specified")
	}
	f.RetSet = rt.Setof
	tn := stringList(rt.Names)
	if len(f.RetCols) > 0 {
		return f.polyColumns() // RETURNS TABLE
	}
	if last := tn[len(tn)-1]; last == "record" || last == "void" || last == "trigger" {
		return repr.Unsupported("SQL functions returning %s", last)
	}
	if f.RetSet {
		if rel := e.cat.lookup(schemaOfNames(tn), tn[len(tn)-1]); rel != nil && rel.Kind != relSequence && rel.Kind != relIndex && len(rt.ArrayBounds) == 0 {
			f.RetCols, f.RetRel = rowColumns(rel), rel.ID
			return nil
		}
	}
	if poly := polyTypeName(rt); poly != "" {
		return f.polyResult(poly)
	}
	t, err := e.cat.typeFromName(rt)
	if err != nil {
		return err
	}
	if t.Composite != 0 {
		return repr.Unsupported("SQL functions returning the composite type %s", tn[len(tn)-1])
	}
	f.Ret = t
	if f.RetSet {
		f.RetCols = []ColumnDef{{Type: t}}
	}
	return nil
}

// rowColumns are the columns of rel's row type, as a function returning
// SETOF rel declares them.
func rowColumns(rel *Object) []ColumnDef {
	out := make([]ColumnDef, len(rel.Columns))
	for i, c := range rel.Columns {
		out[i] = ColumnDef{Name: c.Name, Type: c.Type}
	}
	return out
}

// schemaOfNames is the schema of a qualified name list ("" if none).
func schemaOfNames(names []string) string {
	if len(names) > 1 {
		return names[len(names)-2]
	}
	return ""
}

// functionOptions reads LANGUAGE, the body and the volatility and
// strictness options.
func functionOptions(f *FuncDef, cs *pg.CreateFunctionStmt) error {
	lang, err := readFunctionOptions(f, cs)
	if err != nil {
		return err
	}
	if lang != "sql" {
		return repr.Unsupported("LANGUAGE %s", lang)
	}
	body, err := functionBody(f.Src, cs.SqlBody)
	if err != nil {
		return err
	}
	f.Body, f.Standard = body, cs.SqlBody != nil
	return nil
}

// readFunctionOptions reads CREATE FUNCTION's options into f and returns
// its LANGUAGE.
func readFunctionOptions(f *FuncDef, cs *pg.CreateFunctionStmt) (string, error) {
	lang := "sql"
	for _, n := range cs.Options {
		d := n.GetDefElem()
		switch d.Defname {
		case "language":
			lang = strings.ToLower(d.Arg.GetString_().Sval)
		case "as":
			items := d.Arg.GetList().GetItems()
			if len(items) != 1 {
				return "", repr.Unsupported("AS 'obj_file', 'link_symbol'")
			}
			f.Src = items[0].GetString_().Sval
		case "volatility":
			f.Volatility = d.Arg.GetString_().Sval[0]
		case "strict":
			f.Strict = d.Arg.GetBoolean().Boolval
		case "parallel", "leakproof", "cost", "rows", "security":
			// Planner hints and security: no effect on an inlined body.
			if d.Defname == "security" && d.Arg.GetBoolean().Boolval {
				return "", repr.Unsupported("SECURITY DEFINER")
			}
		default:
			return "", repr.Unsupported("CREATE FUNCTION option %s", strings.ToUpper(d.Defname))
		}
	}
	return lang, nil
}

// functionBody returns the query a body computes: a string body's one
// SELECT, RETURN e as SELECT e, BEGIN ATOMIC's one SELECT or RETURN.
func functionBody(src string, sqlBody *pg.Node) (string, error) {
	var stmt *pg.Node
	switch {
	case sqlBody != nil:
		stmt = sqlBody
		if l := sqlBody.GetList(); l != nil {
			items := l.Items
			if len(items) == 1 && items[0].GetList() != nil {
				items = items[0].GetList().Items
			}
			if len(items) != 1 {
				return "", repr.Unsupported("a SQL function body of %d statements", len(items))
			}
			stmt = items[0]
		}
	case src == "":
		return "", repr.Errorf(codeInvalidFunctionDefinition, "no function body specified")
	default:
		stmts, err := parseStmts(src)
		if err != nil {
			return "", err
		}
		if len(stmts) != 1 {
			return "", repr.Unsupported("a SQL function body of %d statements", len(stmts))
		}
		stmt = stmts[0]
	}
	if r := stmt.GetReturnStmt(); r != nil {
		text, err := defaultText(r.Returnval)
		if err != nil {
			return "", err
		}
		return "SELECT " + text, nil
	}
	if stmt.GetSelectStmt() == nil {
		return "", repr.Unsupported("a SQL function body other than one SELECT or RETURN")
	}
	return parse.Deparse(stmt)
}

// checkFunction plans a call of obj's function with NULL arguments, as
// PostgreSQL validates a body at CREATE (check_function_bodies), and
// checks that the body returns what the function declares. The caller
// holds e.mu.
func (e *Engine) checkFunction(obj *Object) error {
	if obj.Function.Lang != "" {
		return checkPLFunction(obj)
	}
	if obj.Function.Poly != nil || obj.Function.RetPoly != "" {
		return nil // checked at each call, for its instance (function_poly.go)
	}
	fn, err := obj.planned()
	if err != nil {
		return err
	}
	fn.ID = ^uint64(0) // not yet numbered
	cat := &fnCatalog{Catalog: e.cat, extra: fn}
	args := make([]string, len(fn.Args))
	for i, t := range fn.Args {
		args[i] = "NULL::" + e.cat.sqlTypeName(t)
	}
	if obj.Function.Variadic {
		args[len(args)-1] = "VARIADIC " + args[len(args)-1]
	}
	call := quoteIdent(obj.Name) + "(" + strings.Join(args, ", ") + ")"
	q := "SELECT " + call
	if fn.RetSet || len(fn.RetCols) > 1 {
		q = "SELECT * FROM " + call
	}
	cols, err := planner.PlanFunctionBody(cat, fn)
	if repr.ErrorCode(err) == codeStackDepth {
		return nil // recursive: PostgreSQL creates it; a call is 54001
	}
	if err != nil {
		return err
	}
	if err := checkReturn(obj.Function, cols); err != nil {
		return err
	}
	_, err = planner.PlanQuery(cat, mustParse(q), planner.Options{})
	return err
}

// checkReturn is PostgreSQL's "return type mismatch" (42P13): the body's
// columns must be as many as the declared ones (one for a scalar
// function), each of a type the declared one can be cast from.
func checkReturn(f *FuncDef, cols []planner.ResultColumn) error {
	want := len(f.RetCols)
	if !f.RetSet && len(f.OutArgs) == 0 {
		want = 1
	}
	if len(cols) != want {
		return repr.Errorf(codeInvalidFunctionDefinition, "return type mismatch in function declared to return %s", returnName(f)).
			WithDetail("Final statement must return exactly one column.")
	}
	return nil
}

// returnName names a function's result type as PostgreSQL's errors do.
func returnName(f *FuncDef) string {
	if len(f.RetCols) > 1 || f.RetSet && f.RetCols[0].Name != "" {
		return "record"
	}
	return f.Ret.Name()
}

// mustParse parses SQL the engine wrote itself.
func mustParse(sql string) *pg.Node {
	n, err := parseOne(sql)
	if err != nil {
		panic(err)
	}
	return n
}

// fnCatalog is the catalog with one more function, being created.
type fnCatalog struct {
	*Catalog
	extra *planner.SQLFunction
}

// Functions implements planner.FunctionCatalog.
func (c *fnCatalog) Functions(name string) []*planner.SQLFunction {
	out := c.Catalog.Functions(name)
	if c.extra.Name == name {
		out = append(out, c.extra)
	}
	return out
}

// replaceFunction is CREATE OR REPLACE FUNCTION of an existing function
// old: PostgreSQL's rules for its result and parameter names, then the
// views that inlined it are checked as for a replaced view.
func (e *Engine) replaceFunction(s *Session, old, obj *Object) error {
	if err := e.checkOwner(s, old.Owner, "function", old.Name); err != nil {
		return err
	}
	of, nf := old.Function, obj.Function
	if of.RetSet != nf.RetSet || of.Ret != nf.Ret || !sameColumnDefs(of.RetCols, nf.RetCols) {
		return repr.Errorf(codeInvalidFunctionDefinition, "cannot change return type of existing function").
			WithHint("Use DROP FUNCTION %s first.", old.Name+"("+typeNames(of.Args)+")")
	}
	for i, n := range of.ArgNames {
		if n != "" && (i >= len(nf.ArgNames) || nf.ArgNames[i] != n) {
			return repr.Errorf(codeInvalidFunctionDefinition, "cannot change name of input parameter \"%s\"", n).
				WithHint("Use DROP FUNCTION %s first.", old.Name+"("+typeNames(of.Args)+")")
		}
	}
	repl := old.clone()
	repl.Function = nf
	return e.commitReplanned(old, repl)
}

// sameColumnDefs reports whether two column lists have the same names and types.
func sameColumnDefs(a, b []ColumnDef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Type != b[i].Type {
			return false
		}
	}
	return true
}

// typeNames lists types as regprocedure does.
func typeNames(ts []repr.T) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.Name()
	}
	return strings.Join(s, ", ")
}

// execDropFunction executes DROP FUNCTION [IF EXISTS] name[(types)], ...
// [CASCADE | RESTRICT].
func (p *Portal) execDropFunction(ds *pg.DropStmt) error {
	kind := routineKinds[ds.RemoveType]
	p.tag = "DROP " + strings.ToUpper(kind)
	e := p.st.s.e
	cascade := ds.Behavior == pg.DropBehavior_DROP_CASCADE
	return e.dropList(p.st.s, len(ds.Objects), nil, func(i int) error {
		return e.dropFunction(p.st.s, ds.Objects[i].GetObjectWithArgs(), kind, ds.MissingOk, cascade)
	})
}

// routineKinds names the objects DROP FUNCTION, PROCEDURE and ROUTINE
// drop.
var routineKinds = map[pg.ObjectType]string{pg.ObjectType_OBJECT_FUNCTION: "function",
	pg.ObjectType_OBJECT_PROCEDURE: "procedure", pg.ObjectType_OBJECT_ROUTINE: "routine"}

// dropFunction drops the function, procedure or either (kind "routine")
// ow names; DROP FUNCTION does not find a procedure, nor DROP PROCEDURE
// a function. The caller holds e.mu.
func (e *Engine) dropFunction(s *Session, ow *pg.ObjectWithArgs, kind string, missingOK, cascade bool) (err error) {
	obj, err := e.functionNamed(s.tempRoutine(e.cat, ow))
	if err != nil {
		return err
	}
	if obj != nil && kind != "routine" && obj.Function.Proc != (kind == "procedure") {
		if ow.ArgsUnspecified {
			return repr.Errorf(repr.CodeUndefinedFunction, "could not find a %s named \"%s\"", kind, obj.Name)
		}
		return repr.Errorf(repr.CodeWrongObjectType, "%s(%s) is not a %s", obj.Name, typeNames(obj.Function.Args), kind)
	}
	if obj == nil {
		msg := kind + " " + strings.Join(stringList(ow.Objname), ".")
		if !ow.ArgsUnspecified {
			ts, _ := e.argTypes(ow)
			msg += "(" + typeNames(ts) + ")"
		}
		if missingOK {
			return skipped(repr.Errorf("00000", "%s does not exist, skipping", msg))
		}
		return repr.Errorf(repr.CodeUndefinedFunction, "%s does not exist", msg)
	}
	if err := e.checkOwner(s, obj.Owner, "function", obj.Name); err != nil {
		return err
	}
	if cascade {
		check := e.dropDependents(obj)
		defer func() { s.noticeCascade(err, check) }()
	}
	return e.dropLocked(obj, cascade)
}

// functionNamed finds the function ow names (nil: none); a name without
// arguments must be unique (42725).
func (e *Engine) functionNamed(ow *pg.ObjectWithArgs) (*Object, error) {
	names := stringList(ow.Objname)
	fns := e.cat.functionsNamed(schemaOfNames(names), names[len(names)-1])
	if len(fns) == 0 {
		return nil, nil // a built-in's argument types may be pseudo-types (anynonarray)
	}
	if ow.ArgsUnspecified {
		if len(fns) > 1 {
			return nil, repr.Errorf("42725", "function name \"%s\" is not unique", names[len(names)-1]).
				WithHint("Specify the argument list to select the function unambiguously.")
		}
		if len(fns) == 1 {
			return fns[0], nil
		}
		return nil, nil
	}
	ts, poly, err := e.argSignature(ow)
	if err != nil {
		return nil, err
	}
	for _, f := range fns {
		if sameArgs(f.Function.Args, ts) && slices.Equal(f.Function.Poly, poly) {
			return f, nil
		}
	}
	return nil, nil
}

// argTypes resolves the argument types of ow.
func (e *Engine) argTypes(ow *pg.ObjectWithArgs) ([]repr.T, error) {
	ts, _, err := e.argSignature(ow)
	return ts, err
}

// argSignature resolves the argument types of ow, with the polymorphic
// pseudo-types as FuncDef keeps them (a text placeholder in ts, the
// name in poly; poly nil when there is none).
func (e *Engine) argSignature(ow *pg.ObjectWithArgs) ([]repr.T, []string, error) {
	var ts []repr.T
	var poly []string
	has := false
	for _, a := range ow.Objargs {
		if p := polyTypeName(a.GetTypeName()); p != "" {
			ts, poly, has = append(ts, repr.Text), append(poly, p), true
			continue
		}
		t, err := e.cat.typeFromName(a.GetTypeName())
		if err != nil {
			return nil, nil, err
		}
		ts, poly = append(ts, t), append(poly, "")
	}
	if !has {
		poly = nil
	}
	return ts, poly, nil
}

// regInFunction is regproc/regprocedure input of a SQL function's name
// (ok false: no SQL function has it). The caller holds e.mu (read).
func (e *Engine) regInFunction(s string) (uint32, bool, error) {
	name, args, hasArgs := strings.Cut(strings.TrimSpace(s), "(")
	schema, name := splitQualifiedName(name)
	fns := e.cat.functionsNamed(schema, strings.ToLower(strings.Trim(name, `"`)))
	if len(fns) == 0 {
		return 0, false, nil
	}
	if !hasArgs {
		if len(fns) > 1 {
			return 0, true, repr.Errorf("42725", "more than one function named \"%s\"", s)
		}
		return relOID(fns[0].ID), true, nil
	}
	ts, err := parseTypeList(strings.TrimSuffix(strings.TrimSpace(args), ")"))
	if err != nil {
		return 0, false, nil
	}
	for _, f := range fns {
		if sameArgs(f.Function.Args, ts) {
			return relOID(f.ID), true, nil
		}
	}
	return 0, false, nil
}

// functionDefaultACL is PostgreSQL's acldefault('f', owner): EXECUTE for
// PUBLIC and the owner.
func functionDefaultACL(owner uint32) []ACLItem {
	o := ownerOID(owner)
	return []ACLItem{{Grantor: o, Privs: privExecute}, {Grantee: o, Grantor: o, Privs: privExecute}}
}

// sqlFunctionTargets splits GRANT ON FUNCTION's objects into the SQL
// functions they name (as targets) and the rest (built-in functions).
func (e *Engine) sqlFunctionTargets(objs []*pg.Node, kind pg.ObjectType) (out []aclTarget, rest []*pg.Node, err error) {
	for _, n := range objs {
		ow := n.GetObjectWithArgs()
		if ow == nil {
			rest = append(rest, n)
			continue
		}
		o, err := e.functionNamed(ow)
		if err != nil {
			return nil, nil, err
		}
		if o == nil {
			rest = append(rest, n)
			continue
		}
		if err := routineKindMatches(o, kind); err != nil {
			return nil, nil, err
		}
		out = append(out, aclTarget{obj: o})
	}
	return out, rest, nil
}

// routineKindMatches is PostgreSQL's 42809 for a statement ON FUNCTION
// naming a procedure or ON PROCEDURE naming a function (ON ROUTINE takes
// either).
func routineKindMatches(o *Object, kind pg.ObjectType) error {
	switch {
	case kind == pg.ObjectType_OBJECT_FUNCTION && o.Function.Proc:
		return repr.Errorf(repr.CodeWrongObjectType, "%s(%s) is not a function", o.Name, typeNames(o.Function.Args))
	case kind == pg.ObjectType_OBJECT_PROCEDURE && !o.Function.Proc:
		return repr.Errorf(repr.CodeWrongObjectType, "%s(%s) is not a procedure", o.Name, typeNames(o.Function.Args))
	}
	return nil
}

// sqlFunctionTargetsIn are the SQL functions of ALL FUNCTIONS IN SCHEMA.
func (e *Engine) sqlFunctionTargetsIn(gs *pg.GrantStmt) []aclTarget {
	var out []aclTarget
	for _, n := range gs.Objects {
		for _, o := range e.cat.functionsNamedIn(n.GetString_().GetSval()) {
			out = append(out, aclTarget{obj: o})
		}
	}
	return out
}

// functionsNamedIn returns the functions of schema.
func (c *Catalog) functionsNamedIn(schema string) []*Object {
	var out []*Object
	for _, o := range c.objects() {
		if o.Kind == relFunction && o.Schema == schema {
			out = append(out, o)
		}
	}
	return out
}

// functionLanguage is CREATE FUNCTION's LANGUAGE (sql when absent, as
// for a SQL-standard body).
func functionLanguage(cs *pg.CreateFunctionStmt) string {
	for _, n := range cs.Options {
		if d := n.GetDefElem(); d.Defname == "language" {
			return strings.ToLower(d.Arg.GetString_().Sval)
		}
	}
	return "sql"
}
