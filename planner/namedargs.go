package planner

import (
	"strings"

	"github.com/eddydb/eddy/repr"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// namedParams lists the parameter names and defaults of the built-in
// functions that people call with named notation (name => value). A
// default is SQL text parsed like an argument.
var namedParams = map[string][]struct{ name, def string }{
	"make_interval": {{"years", "0"}, {"months", "0"}, {"weeks", "0"}, {"days", "0"},
		{"hours", "0"}, {"mins", "0"}, {"secs", "0.0"}},
}

// positionalCall rewrites a call with named arguments (f(a => 1)) into
// positional form, filling omitted parameters with their defaults, as
// PostgreSQL's expand_function_arguments does. Calls without named
// arguments come back unchanged.
func positionalCall(fc *pg_query.FuncCall) (*pg_query.FuncCall, error) {
	named := false
	for _, a := range fc.Args {
		named = named || a.GetNamedArgExpr() != nil
	}
	if !named {
		return fc, nil
	}
	name := funcName(fc)
	params, ok := namedParams[name]
	if !ok {
		return nil, repr.Unsupported("named arguments of %s()", name).WithPosition(fc.Location + 1)
	}
	args := make([]*pg_query.Node, len(params))
	for i, a := range fc.Args {
		na := a.GetNamedArgExpr()
		if na == nil {
			if i >= len(params) {
				return nil, undefinedNamed(fc)
			}
			args[i] = a
			continue
		}
		j := -1
		for k, p := range params {
			if strings.EqualFold(p.name, na.Name) {
				j = k
			}
		}
		if j < 0 {
			return nil, undefinedNamed(fc)
		}
		if j < i { // already given by position
			return nil, undefinedNamed(fc)
		}
		if args[j] != nil {
			return nil, repr.Errorf(repr.CodeSyntax, "argument name %q used more than once", na.Name).WithPosition(na.Location + 1)
		}
		args[j] = na.Arg
	}
	for i, a := range args {
		if a == nil {
			d, err := defaultArg(params[i].def)
			if err != nil {
				return nil, err
			}
			args[i] = d
		}
	}
	return &pg_query.FuncCall{
		Funcname: fc.Funcname, Args: args, AggOrder: fc.AggOrder, AggFilter: fc.AggFilter, Over: fc.Over,
		AggWithinGroup: fc.AggWithinGroup, AggStar: fc.AggStar, AggDistinct: fc.AggDistinct,
		FuncVariadic: fc.FuncVariadic, Funcformat: fc.Funcformat, Location: fc.Location,
	}, nil
}

func undefinedNamed(fc *pg_query.FuncCall) error {
	return repr.Errorf(repr.CodeUndefinedFunction, "function %s with the given argument names does not exist", funcName(fc)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").
		WithPosition(fc.Location + 1)
}

// defaultArg parses a default's SQL text into an expression node.
func defaultArg(sql string) (*pg_query.Node, error) {
	tree, err := pg_query.Parse("SELECT " + sql)
	if err != nil {
		return nil, err
	}
	return tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val, nil
}
