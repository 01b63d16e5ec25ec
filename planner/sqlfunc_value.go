package planner

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// A SQL function whose body is one expression is inlined with its
// arguments bound as values: the arguments are planned at the call site
// (sqlfunc_bind.go's paramValues), and each parameter reference of the
// body becomes a marker column (a name no SQL text can write) that reads
// its argument's planned expression (ectx.args). So an argument may be
// any expression, a call of the same function included (f(f(x))), and
// the body cannot capture its column names.

// argMarker is the column name prefix of a bound argument's marker.
const argMarker = "\x00eddy_arg_"

// bindArgs registers args under fresh marker names and returns the
// marker column references.
func (c *ectx) bindArgs(args []expr.Expr) []*pg_query.Node {
	if c.args == nil {
		c.args = map[string]expr.Expr{}
	}
	marks := make([]*pg_query.Node, len(args))
	for i, a := range args {
		c.b.argSeq++
		name := argMarker + strconv.Itoa(c.b.argSeq)
		c.args[name] = a
		marks[i] = &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{
			Fields: []*pg_query.Node{pg_query.MakeStrNode(name)}, Location: -1}}}
	}
	return marks
}

// replaceParams replaces, in body (a copy fn's), each parameter
// reference by its marker cast to the parameter's type.
func replaceParams(fn *SQLFunction, body *pg_query.Node, marks []*pg_query.Node) error {
	var nodes []*pg_query.Node
	root := &pg_query.List{Items: []*pg_query.Node{body}} // body itself may be a parameter
	walkMessages(root.ProtoReflect(), func(m proto.Message) {
		if n, ok := m.(*pg_query.Node); ok {
			nodes = append(nodes, n)
		}
	})
	for _, n := range nodes {
		switch i := paramIndex(fn, n); {
		case i == -2:
			return repr.Errorf(repr.CodeUndefinedParameter, "there is no parameter $%d", n.GetParamRef().Number)
		case i >= 0:
			n.Node = castTo(proto.Clone(marks[i]).(*pg_query.Node), fn.Args[i]).Node
		}
	}
	return nil
}

// boundArg is the argument a marker column reference reads (ok false:
// ref is no marker).
func (c *ectx) boundArg(ref *pg_query.ColumnRef) (expr.Expr, bool) {
	if len(c.args) == 0 || len(ref.Fields) != 1 || ref.Fields[0].GetString_() == nil {
		return nil, false
	}
	e, ok := c.args[ref.Fields[0].GetString_().Sval]
	return e, ok
}

// paramIndex returns which parameter n refers to, -1 for none, -2 for a
// $n past the parameters: $n, a one-name column reference naming a
// parameter, or fn.param (an expression body has no FROM whose columns
// could win over a parameter's name).
func paramIndex(fn *SQLFunction, n *pg_query.Node) int {
	if p := n.GetParamRef(); p != nil {
		if int(p.Number) > len(fn.Args) || p.Number < 1 {
			return -2
		}
		return int(p.Number) - 1
	}
	ref := n.GetColumnRef()
	if ref == nil {
		return -1
	}
	var names []string
	for _, f := range ref.Fields {
		if f.GetString_() == nil {
			return -1
		}
		names = append(names, f.GetString_().Sval)
	}
	if len(names) == 2 && names[0] == fn.Name {
		names = names[1:]
	}
	if len(names) != 1 {
		return -1
	}
	for i, a := range fn.ArgNames {
		if a != "" && a == names[0] {
			return i
		}
	}
	return -1
}
