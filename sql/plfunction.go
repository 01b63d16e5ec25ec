package sql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// LANGUAGE plpgsql functions: CREATE FUNCTION keeps the body (Src) and
// the parameters with their modes (IN, OUT, INOUT, TABLE); CREATE parses
// the body with PostgreSQL's PL/pgSQL grammar (a syntax error is 42601 at
// CREATE, as with check_function_bodies), and every call runs the
// interpreter (plpgsql.go) through plcall.go. OUT parameters make the
// result: the one OUT parameter's type, or a record of them (callable in
// FROM); RETURNS SETOF/TABLE collect RETURN NEXT and RETURN QUERY rows.

// oidPlpgsql is pg_language's OID of plpgsql in a PostgreSQL 15 cluster.
const oidPlpgsql = 13563

// plFunctionObject builds the catalog entry of CREATE FUNCTION ...
// LANGUAGE plpgsql.
func (e *Engine) plFunctionObject(s *Session, cs *pg.CreateFunctionStmt, schema, name string) (*Object, error) {
	f := &FuncDef{Volatility: 'v', Lang: "plpgsql"}
	if err := e.plParams(f, cs.Parameters); err != nil {
		return nil, err
	}
	if err := e.plResult(f, cs.ReturnType); err != nil {
		return nil, err
	}
	lang, err := readFunctionOptions(f, cs)
	if err != nil {
		return nil, err
	}
	if lang != "plpgsql" || f.Src == "" {
		return nil, repr.Errorf(codeInvalidFunctionDefinition, "no function body specified")
	}
	return &Object{Kind: relFunction, Schema: schema, Name: name, Function: f, Owner: s.newOwner()}, nil
}

// plParams reads a PL/pgSQL function's parameters: IN and INOUT ones are
// its arguments (with names and defaults), OUT and INOUT ones its
// OutArgs, TABLE ones its result columns.
func (e *Engine) plParams(f *FuncDef, params []*pg.Node) error {
	var in []*pg.Node
	dflt := false
	for _, n := range params {
		fp := n.GetFunctionParameter()
		dflt = dflt || fp.Defexpr != nil
		if f.Proc && dflt && fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_OUT {
			return repr.Errorf(codeInvalidFunctionDefinition, "procedure OUT parameters cannot appear after one with a default value")
		}
		t, err := e.cat.typeFromName(fp.ArgType)
		if err != nil {
			return err
		}
		switch fp.Mode {
		case pg.FunctionParameterMode_FUNC_PARAM_IN, pg.FunctionParameterMode_FUNC_PARAM_DEFAULT,
			pg.FunctionParameterMode_FUNC_PARAM_VARIADIC:
			f.Modes += "i" // VARIADIC: FuncDef.Variadic
			in = append(in, n)
		case pg.FunctionParameterMode_FUNC_PARAM_INOUT:
			f.Modes += "b"
			asIn := proto.Clone(fp).(*pg.FunctionParameter)
			asIn.Mode = pg.FunctionParameterMode_FUNC_PARAM_IN
			in = append(in, &pg.Node{Node: &pg.Node_FunctionParameter{FunctionParameter: asIn}})
			f.OutArgs = append(f.OutArgs, ColumnDef{Name: fp.Name, Type: t})
		case pg.FunctionParameterMode_FUNC_PARAM_OUT:
			f.Modes += "o"
			f.OutArgs = append(f.OutArgs, ColumnDef{Name: fp.Name, Type: t})
		case pg.FunctionParameterMode_FUNC_PARAM_TABLE:
			f.Modes += "t"
			f.RetCols = append(f.RetCols, ColumnDef{Name: fp.Name, Type: t})
		default:
			return repr.Unsupported("%s parameters of PL/pgSQL functions", strings.TrimPrefix(fp.Mode.String(), "FUNC_PARAM_"))
		}
	}
	return e.functionParams(f, in)
}

// plResult reads RETURNS of a PL/pgSQL function (absent with OUT
// parameters: their record).
func (e *Engine) plResult(f *FuncDef, rt *pg.TypeName) error {
	if f.Proc && len(f.OutArgs) == 0 {
		f.Void, f.Ret = true, repr.Text
		return nil
	}
	if rt == nil && len(f.OutArgs) == 0 {
		return repr.Errorf(codeInvalidFunctionDefinition, "function result type must be specified")
	}
	if rt == nil || len(f.RetCols) > 0 {
		if rt != nil {
			f.RetSet = rt.Setof
		}
		return f.outResult()
	}
	tn := stringList(rt.Names)
	switch tn[len(tn)-1] {
	case "trigger":
		return repr.Unsupported("trigger functions (RETURNS trigger)")
	case "void":
		if rt.Setof {
			return repr.Unsupported("PL/pgSQL functions returning SETOF void")
		}
		f.Void, f.Ret = true, repr.Text
		return nil
	case "record":
		if len(f.OutArgs) == 0 {
			return repr.Unsupported("PL/pgSQL functions returning record without OUT parameters")
		}
		f.RetSet = rt.Setof
		return f.outResult()
	}
	if len(f.OutArgs) > 0 {
		f.RetSet = rt.Setof
		return f.outResult()
	}
	return e.functionResult(f, rt, "")
}

// outResult makes the OUT parameters the result: SETOF their record, or
// the one OUT parameter's type, or their record.
func (f *FuncDef) outResult() error {
	if len(f.RetCols) > 0 {
		f.RetSet = true
		if len(f.OutArgs) > 0 {
			return repr.Errorf(codeInvalidFunctionDefinition, "OUT parameters cannot be combined with RETURNS TABLE")
		}
		return nil
	}
	f.RetCols = append([]ColumnDef(nil), f.OutArgs...)
	f.Ret = repr.Record
	if len(f.OutArgs) == 1 && !f.RetSet {
		f.Ret = f.OutArgs[0].Type
	}
	return nil
}

// checkPLFunction parses obj's PL/pgSQL body (42601 on a syntax error).
func checkPLFunction(obj *Object) error {
	body, err := plBody(obj.Function)
	if err != nil {
		return err
	}
	_, err = parsePlpgsql(plHead(obj.Name, obj.Function), body)
	return err
}

// plHead is the CREATE FUNCTION text before the body that tells the
// PL/pgSQL parser a function's parameters and result.
func plHead(name string, f *FuncDef) string {
	var params, table []string
	in, out, tab := 0, 0, 0
	for _, m := range f.Modes {
		switch m {
		case 'i', 'b':
			p := map[rune]string{'i': "IN ", 'b': "INOUT "}[m] + plParamName(f.ArgNames, in) + f.Args[in].Name()
			params, in = append(params, p), in+1
			if m == 'b' {
				out++
			}
		case 'o':
			params = append(params, "OUT "+pgQuoteIdent(f.OutArgs[out].Name)+" "+f.OutArgs[out].Type.Name())
			out++
		case 't':
			table = append(table, pgQuoteIdent(f.RetCols[tab].Name)+" "+f.RetCols[tab].Type.Name())
			tab++
		}
	}
	ret := f.Ret.Name()
	switch {
	case len(table) > 0:
		ret = "TABLE (" + strings.Join(table, ", ") + ")"
	case f.Void:
		ret = "void"
	case f.RetSet && (len(f.RetCols) > 1 || len(f.OutArgs) > 0):
		ret = "SETOF record"
	case f.RetSet:
		ret = "SETOF " + f.RetCols[0].Type.Name()
	case len(f.OutArgs) > 1:
		ret = "record"
	}
	return "CREATE FUNCTION " + pgQuoteIdent(name) + "(" + strings.Join(params, ", ") + ") RETURNS " + ret + " LANGUAGE plpgsql AS "
}

// plParamName is the i-th input parameter's name followed by a space
// ("" when unnamed).
func plParamName(names []string, i int) string {
	if i < len(names) && names[i] != "" {
		return pgQuoteIdent(names[i]) + " "
	}
	return ""
}

// oidVoid is the pseudo-type void's OID.
const oidVoid = 2278

// plArgLists are a PL/pgSQL function's proargnames (nil: no names),
// proargmodes and proallargtypes (nil when every parameter is IN).
func plArgLists(f *FuncDef) (names, modes, all []repr.Datum) {
	named := false
	each := func(fn func(mode rune, name string, t repr.T)) {
		in, out, tab := 0, 0, 0
		for _, m := range f.Modes {
			switch m {
			case 'i', 'b':
				n := ""
				if in < len(f.ArgNames) {
					n = f.ArgNames[in]
				}
				fn(variadicMode(f, m, in), n, f.Args[in])
				in++
				if m == 'b' {
					out++
				}
			case 'o':
				fn(m, f.OutArgs[out].Name, f.OutArgs[out].Type)
				out++
			case 't':
				fn(m, f.RetCols[tab].Name, f.RetCols[tab].Type)
				tab++
			}
		}
	}
	each(func(m rune, n string, t repr.T) {
		names = append(names, repr.NewText(n))
		modes, all = append(modes, charD(byte(m))), append(all, oidD(argOID(t, false)))
		named = named || n != ""
	})
	if !named {
		names = nil
	}
	if strings.Trim(f.Modes, "i") == "" && !f.Variadic {
		modes, all = nil, nil
	}
	return names, modes, all
}

// variadicMode is proargmodes' letter of input parameter in, of mode m:
// v for a VARIADIC one.
func variadicMode(f *FuncDef, m rune, in int) rune {
	if f.Variadic && m == 'i' && in == len(f.Args)-1 {
		return 'v'
	}
	return m
}

// plArguments is pg_get_function_arguments of a PL/pgSQL function: with
// OUT and INOUT parameters, defaults unless identity.
func plArguments(f *FuncDef, identity bool) string {
	var parts []string
	in, out := 0, 0
	for _, m := range f.Modes {
		var p string
		switch m {
		case 'i', 'b':
			p = strings.TrimSpace(plParamName(f.ArgNames, in) + f.Args[in].Name())
			if variadicMode(f, m, in) == 'v' {
				p = "VARIADIC " + p
			}
			if m == 'b' {
				p, out = "INOUT "+p, out+1
			}
			if !identity && len(f.Defaults) > in && f.Defaults[in] != "" {
				p += " DEFAULT " + f.Defaults[in]
			}
			in++
		case 'o':
			p, out = "OUT "+plParamName([]string{f.OutArgs[out].Name}, 0)+f.OutArgs[out].Type.Name(), out+1
			if identity {
				continue
			}
		default:
			continue
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}
