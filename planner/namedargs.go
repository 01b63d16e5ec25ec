package planner

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// namedParam is one parameter of a built-in function: its name and its
// default, SQL text parsed like an argument ("" when it has none).
type namedParam struct{ name, def string }

// namedParams lists, for the built-in functions people call with named
// notation (name => value), the parameters of each overload, in the
// order PostgreSQL 15 declares them (pg_proc.proargnames).
var namedParams = map[string][][]namedParam{
	"make_interval": {{{"years", "0"}, {"months", "0"}, {"weeks", "0"}, {"days", "0"},
		{"hours", "0"}, {"mins", "0"}, {"secs", "0.0"}}},
	"make_date":        {{{"year", ""}, {"month", ""}, {"day", ""}}},
	"make_time":        {{{"hour", ""}, {"min", ""}, {"sec", ""}}},
	"make_timestamp":   {timestampParams},
	"make_timestamptz": {timestampParams, append(timestampParams[:6:6], namedParam{"timezone", ""})},
	"jsonb_set":        {{{"jsonb_in", ""}, {"path", ""}, {"replacement", ""}, {"create_if_missing", "true"}}},
	"parse_ident":      {{{"str", ""}, {"strict", "true"}}},
}

// pathParams are the parameters of the jsonb_path_* functions.
var pathParams = [][]namedParam{{{"target", ""}, {"path", ""}, {"vars", "'{}'"}, {"silent", "false"}}}

func init() {
	for _, f := range []string{"exists", "match", "query", "query_array", "query_first"} {
		namedParams["jsonb_path_"+f] = pathParams
		namedParams["jsonb_path_"+f+"_tz"] = pathParams
	}
}

// namedSRF reports whether fc calls a built-in set-returning function
// with named arguments: the select list plans it by its node, so it must
// not be rewritten before it is looked up.
func namedSRF(fc *pg_query.FuncCall) bool {
	name := funcName(fc)
	if _, ok := namedParams[name]; !ok || !expr.IsTableFunc(name) || fc.Over != nil || isAggregate(fc) {
		return false
	}
	return slices.ContainsFunc(fc.Args, func(a *pg_query.Node) bool { return a.GetNamedArgExpr() != nil })
}

// timestampParams are make_timestamp's parameters.
var timestampParams = []namedParam{{"year", ""}, {"month", ""}, {"mday", ""}, {"hour", ""}, {"min", ""}, {"sec", ""}}

// positionalCall rewrites a call with named arguments (f(a => 1)) into
// positional form, filling omitted parameters with their defaults, as
// PostgreSQL's expand_function_arguments does: the first overload whose
// parameters take every name, with a value for each parameter without a
// default. Calls without named arguments come back unchanged.
func (c *ectx) positionalCall(fc *pg_query.FuncCall) (*pg_query.FuncCall, error) {
	named := false
	for _, a := range fc.Args {
		if named && a.GetNamedArgExpr() == nil {
			return nil, repr.Errorf(repr.CodeSyntax, "positional argument cannot follow named argument").WithPosition(location(a) + 1)
		}
		named = named || a.GetNamedArgExpr() != nil
	}
	if !named {
		return fc, nil
	}
	name := funcName(fc)
	overloads, ok := namedParams[name]
	if fns := c.b.sqlFunctions(name); len(fns) > 0 && !ok {
		overloads, ok = sqlNamedParams(fns), true
	}
	if !ok && otherNamed[name] {
		return nil, repr.Unsupported("named arguments of %s()", name).WithPosition(fc.Location + 1)
	}
	if err := duplicateNames(fc); err != nil {
		return nil, err
	}
	for _, params := range overloads {
		if args, ok := bindNamed(fc, params); ok {
			return &pg_query.FuncCall{
				Funcname: fc.Funcname, Args: args, AggOrder: fc.AggOrder, AggFilter: fc.AggFilter, Over: fc.Over,
				AggWithinGroup: fc.AggWithinGroup, AggStar: fc.AggStar, AggDistinct: fc.AggDistinct,
				FuncVariadic: fc.FuncVariadic, Funcformat: fc.Funcformat, Location: fc.Location,
			}, nil
		}
	}
	return nil, c.undefinedNamed(fc)
}

// duplicateNames is PostgreSQL's 42601 for a name given twice.
func duplicateNames(fc *pg_query.FuncCall) error {
	seen := map[string]bool{}
	for _, a := range fc.Args {
		if na := a.GetNamedArgExpr(); na != nil {
			if seen[na.Name] {
				return repr.Errorf(repr.CodeSyntax, "argument name %q used more than once", na.Name).WithPosition(na.Location + 1)
			}
			seen[na.Name] = true
		}
	}
	return nil
}

// bindNamed places fc's arguments in the positions of params: positional
// ones first, then the named ones by name, then the defaults; ok is false
// when a name is not a parameter or names one given by position, or a
// parameter without a default has no value.
func bindNamed(fc *pg_query.FuncCall, params []namedParam) ([]*pg_query.Node, bool) {
	args := make([]*pg_query.Node, len(params))
	for i, a := range fc.Args {
		na := a.GetNamedArgExpr()
		if na == nil {
			if i >= len(params) {
				return nil, false
			}
			args[i] = a
			continue
		}
		j := slices.IndexFunc(params, func(p namedParam) bool { return p.name == na.Name })
		if j < 0 || args[j] != nil {
			return nil, false
		}
		args[j] = na.Arg
	}
	for i, a := range args {
		if a != nil {
			continue
		}
		if params[i].def == "" {
			return nil, false
		}
		d, err := defaultArg(params[i].def)
		if err != nil {
			return nil, false
		}
		args[i] = d
	}
	return args, true
}

// undefinedNamed is PostgreSQL's 42883 for a call whose names no
// overload takes, naming the arguments and their types.
func (c *ectx) undefinedNamed(fc *pg_query.FuncCall) error {
	names := make([]string, len(fc.Args))
	types := make([]repr.T, len(fc.Args))
	for i, a := range fc.Args {
		if na := a.GetNamedArgExpr(); na != nil {
			names[i], a = na.Name, na.Arg
		}
		e, err := c.expr(a)
		if err != nil {
			return err
		}
		types[i] = e.Type()
	}
	return withPos(expr.NamedFuncError(funcName(fc), names, types), fc.Location)
}

// otherNamed are the functions with named parameters in PostgreSQL that
// Eddy has but does not take named arguments for (0A000 rather than
// 42883).
var otherNamed = map[string]bool{
	"json_each": true, "json_each_text": true, "jsonb_each": true, "jsonb_each_text": true,
	"json_array_elements": true, "json_array_elements_text": true, "jsonb_array_elements": true,
	"jsonb_array_elements_text": true, "json_populate_record": true, "json_populate_recordset": true,
	"jsonb_extract_path": true, "jsonb_extract_path_text": true, "jsonb_insert": true, "jsonb_delete": true,
	"jsonb_set_lax": true, "jsonb_path_exists": true, "jsonb_path_match": true, "jsonb_path_query": true,
	"jsonb_path_query_array": true, "jsonb_path_query_first": true, "unnest": true, "pg_terminate_backend": true,
}

// defaultArg parses a default's SQL text into an expression node.
func defaultArg(sql string) (*pg_query.Node, error) {
	tree, err := pg_query.Parse("SELECT " + sql)
	if err != nil {
		return nil, err
	}
	return tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val, nil
}

// sqlNamedParams lists the parameters of SQL functions fns for named
// notation.
func sqlNamedParams(fns []*SQLFunction) [][]namedParam {
	var out [][]namedParam
	for _, f := range fns {
		ps := make([]namedParam, len(f.Args))
		for i := range f.Args {
			ps[i] = namedParam{f.ArgNames[i], f.Defaults[i]}
		}
		out = append(out, ps)
	}
	return out
}
