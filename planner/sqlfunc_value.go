package planner

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// A SQL function whose body is one expression calling no other SQL
// function is inlined with its arguments bound as values: the arguments
// are planned at the call site, and each parameter reference of the body
// becomes a marker column (a name no SQL text can write) that reads its
// argument's planned expression (ectx.args). So an argument may be any
// expression, a call of the same function included (f(f(x))), and the
// body cannot capture its column names. Query bodies, and bodies calling
// SQL functions (whose own inlining could move a marker into a
// subquery), are substituted as syntax (sqlfunc.go).

// argMarker is the column name prefix of a bound argument's marker.
const argMarker = "\x00eddy_arg_"

// inlineByValue plans a call of fn over args (then defs, the defaults of
// the parameters not written) with the arguments bound as values; ok
// false when fn's body is not such an expression.
func (c *ectx) inlineByValue(fn *SQLFunction, args []expr.Expr, defs []*pg_query.Node) (expr.Expr, bool, error) {
	if fn.Body == nil || bodyExpr(fn.Body.GetSelectStmt()) == nil {
		return nil, false, nil
	}
	body := bodyExpr(proto.Clone(fn.Body).(*pg_query.Node).GetSelectStmt())
	if c.b.exprCallsFunction(body) {
		return nil, false, nil
	}
	more, err := c.exprs(defs)
	if err != nil {
		return nil, true, err
	}
	all := append(append([]expr.Expr(nil), args...), more...)
	if err := c.b.enterFunction(fn); err != nil {
		return nil, true, err
	}
	defer c.b.leaveFunction(fn)
	marks := c.bindArgs(all)
	defer func() {
		for _, m := range marks {
			delete(c.args, m.GetColumnRef().Fields[0].GetString_().Sval)
		}
	}()
	if err := replaceParams(fn, body, marks); err != nil {
		return nil, true, err
	}
	val := castTo(body, fn.Ret)
	if fn.Strict && len(all) > 0 {
		val = strictGuard(val, marks)
	}
	e, err := c.expr(val)
	return e, true, err
}

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

// exprCallsFunction reports whether e calls a function of the catalog.
func (b *builder) exprCallsFunction(e *pg_query.Node) bool {
	found := false
	walkMessages(e.ProtoReflect(), func(m proto.Message) {
		if fc, ok := m.(*pg_query.FuncCall); ok && len(b.sqlFunctions(funcName(fc))) > 0 {
			found = true
		}
	})
	return found
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
