package sql

import (
	"cmp"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// The catalog rows of SQL functions (function.go): pg_proc, and the
// pg_get_function* functions over their OIDs (16384 + ID, as every user
// object's).

// oidRecord is the pseudo-type record's OID.
const oidRecord = 2249

// sqlFunctionRows lists the SQL functions in pg_proc.
func sqlFunctionRows(s *sysSnap, r *sysRel) []repr.Row {
	var out []repr.Row
	for _, o := range s.cat.objects() {
		if o.Kind != relFunction {
			continue
		}
		out = append(out, r.row(procRowOf(s, o)))
	}
	return out
}

// procRowOf is the pg_proc row of function o.
func procRowOf(s *sysSnap, o *Object) map[string]repr.Datum {
	f := o.Function
	args := make([]repr.Datum, len(f.Args))
	for i, a := range f.Args {
		args[i] = oidD(argOID(a, false))
	}
	row := map[string]repr.Datum{
		"oid": oidD(relOID(o.ID)), "proname": nameD(o.Name), "pronamespace": oidD(s.cat.namespaceOID(o.Schema)),
		"proowner": oidD(ownerOID(o.Owner)), "prolang": oidD(14), "procost": repr.NewFloat(100), "prorows": repr.NewFloat(0),
		"provariadic": oidD(0), "prokind": charD('f'), "prosecdef": boolD(false), "proleakproof": boolD(false),
		"proisstrict": boolD(f.Strict), "proretset": boolD(f.RetSet), "provolatile": charD(f.Volatility),
		"proparallel": charD('u'), "pronargs": intD(len(f.Args)), "pronargdefaults": intD(nDefaults(f)),
		"prorettype": oidD(retOID(f)), "proargtypes": repr.NewArray(args), "prosrc": repr.NewText(f.Src),
		"proacl": s.aclDatum(o.ACL),
	}
	if f.RetSet {
		row["prorows"] = repr.NewFloat(1000)
	}
	if f.Standard {
		row["prosrc"] = repr.NewText("")
	}
	if o.ACL == nil {
		row["proacl"] = repr.Null
	}
	if f.Lang == "plpgsql" {
		row["prolang"] = oidD(oidPlpgsql)
	}
	if f.Proc {
		row["prokind"] = charD('p')
	}
	if f.Variadic {
		row["provariadic"] = oidD(argOID(f.Args[len(f.Args)-1].ElemType(), false))
	}
	names, modes, all := procArgLists(f)
	if names != nil {
		row["proargnames"] = repr.NewArray(names)
	}
	if modes != nil {
		row["proargmodes"], row["proallargtypes"] = repr.NewArray(modes), repr.NewArray(all)
	}
	return row
}

// nDefaults counts the parameters with a default.
func nDefaults(f *FuncDef) int {
	n := 0
	for _, d := range f.Defaults {
		if d != "" {
			n++
		}
	}
	return n
}

// retOID is prorettype: record for RETURNS TABLE and row results.
func retOID(f *FuncDef) uint32 {
	if f.Void {
		return oidVoid
	}
	if f.Proc || f.Ret.Family == repr.FamRecord {
		return oidRecord
	}
	if f.RetSet && (len(f.RetCols) != 1 || f.RetCols[0].Name != "") {
		return oidRecord
	}
	return argOID(f.Ret, false)
}

// procArgLists are proargnames (nil: no names), and for RETURNS TABLE
// proargmodes and proallargtypes (nil otherwise).
func procArgLists(f *FuncDef) (names, modes, all []repr.Datum) {
	if f.Modes != "" {
		return plArgLists(f)
	}
	table := f.RetSet && f.RetCols[0].Name != "" && f.Ret.Family == 0
	named := len(f.ArgNames) > 0 || table
	for i, t := range f.Args {
		if named {
			n := ""
			if len(f.ArgNames) > 0 {
				n = f.ArgNames[i]
			}
			names = append(names, repr.NewText(n))
		}
		modes, all = append(modes, charD(byte(variadicMode(f, 'i', i)))), append(all, oidD(argOID(t, false)))
	}
	if !table && !f.Variadic {
		return names, nil, nil
	}
	for _, c := range f.RetCols {
		names = append(names, repr.NewText(c.Name))
		modes, all = append(modes, charD('t')), append(all, oidD(argOID(c.Type, false)))
	}
	return names, modes, all
}

// userFunction returns the SQL function whose OID is a[0], or nil.
func userFunction(s *sysSnap, a []repr.Datum) *Object {
	if a[0].IsNull() || a[0].Int() < int64(firstUserOID) {
		return nil
	}
	if o := s.cat.byID[uint64(a[0].Int()-int64(firstUserOID))]; o != nil && o.Kind == relFunction {
		return o
	}
	return nil
}

// functionArguments is pg_get_function_arguments: with defaults
// (identity false) or without (pg_get_function_identity_arguments).
func functionArguments(f *FuncDef, identity bool) string {
	if f.Modes != "" {
		return plArguments(f, identity)
	}
	parts := make([]string, len(f.Args))
	for i, t := range f.Args {
		p := t.Name()
		if len(f.ArgNames) > 0 && f.ArgNames[i] != "" {
			p = pgQuoteIdent(f.ArgNames[i]) + " " + p
		}
		if variadicMode(f, 'i', i) == 'v' {
			p = "VARIADIC " + p
		}
		if !identity && len(f.Defaults) > 0 && f.Defaults[i] != "" {
			p += " DEFAULT " + f.Defaults[i]
		}
		parts[i] = p
	}
	return strings.Join(parts, ", ")
}

// functionResult is pg_get_function_result.
func functionResultText(f *FuncDef) string {
	switch {
	case f.Void:
		return "void"
	case f.Ret.Family == repr.FamRecord && f.RetSet:
		return "SETOF record"
	case f.Ret.Family == repr.FamRecord:
		return "record"
	}
	if f.RetSet && f.RetCols[0].Name != "" {
		cols := make([]string, len(f.RetCols))
		for i, c := range f.RetCols {
			cols[i] = pgQuoteIdent(c.Name) + " " + c.Type.Name()
		}
		return "TABLE(" + strings.Join(cols, ", ") + ")"
	}
	if f.RetSet {
		return "SETOF " + f.Ret.Name()
	}
	return f.Ret.Name()
}

// functionDef is pg_get_functiondef, in PostgreSQL's layout.
func functionDef(o *Object) string {
	f := o.Function
	var b strings.Builder
	b.WriteString("CREATE OR REPLACE FUNCTION " + pgQuoteIdent(o.Schema) + "." + pgQuoteIdent(o.Name) +
		"(" + functionArguments(f, false) + ")\n RETURNS " + functionResultText(f) + "\n LANGUAGE " + cmp.Or(f.Lang, "sql") + "\n")
	var opts []string
	switch f.Volatility {
	case 'i':
		opts = append(opts, "IMMUTABLE")
	case 's':
		opts = append(opts, "STABLE")
	}
	if f.Strict {
		opts = append(opts, "STRICT")
	}
	if len(opts) > 0 {
		b.WriteString(" " + strings.Join(opts, " ") + "\n")
	}
	if f.Standard {
		b.WriteString("BEGIN ATOMIC\n " + f.Body + ";\nEND\n")
	} else {
		b.WriteString("AS $function$" + f.Src + "$function$\n")
	}
	return b.String()
}

// addFunctionDefFuncs answers the pg_get_function* functions for SQL
// functions, passing built-in OIDs on to prev's answers.
func addFunctionDefFuncs() {
	wrap := func(name string, fn func(*Object) string) {
		prev := catalogFuncs[name]
		catalogFuncs[name] = func(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
			if o := userFunction(s, a); o != nil {
				return repr.NewText(fn(o)), nil
			}
			if prev == nil {
				return repr.Null, nil
			}
			return prev(c, s, a)
		}
	}
	wrap("pg_get_functiondef", functionDef)
	wrap("pg_get_function_arguments", func(o *Object) string { return functionArguments(o.Function, false) })
	wrap("pg_get_function_identity_arguments", func(o *Object) string { return functionArguments(o.Function, true) })
	wrap("pg_get_function_result", func(o *Object) string { return functionResultText(o.Function) })
}

// sqlFunctionOf returns the SQL function obj names (regprocedure text)
// or identifies (OID), nil for none.
func (c sessionCatalog) sqlFunctionOf(s *sysSnap, obj repr.Datum) *Object {
	if obj.Family() != repr.FamText {
		return userFunction(s, []repr.Datum{obj})
	}
	name, args, _ := strings.Cut(strings.TrimSpace(obj.Text()), "(")
	args = strings.TrimSuffix(strings.TrimSpace(args), ")")
	for _, o := range s.cat.functionsNamed("", strings.TrimSpace(name)) {
		ts, err := parseTypeList(args)
		if err == nil && sameArgs(ts, o.Function.Args) {
			return o
		}
	}
	return nil
}

// parseTypeList parses "int, text" into types.
func parseTypeList(s string) ([]repr.T, error) {
	var out []repr.T
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, p := range splitTypeList(s) {
		t, err := repr.TypeByName(strings.TrimSpace(p), nil)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
