package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/eddydb/eddy/repr"
)

// The two-variable statistics aggregates (corr, covar_pop, covar_samp,
// regr_*) are rewritten before planning into count and sum calls over the
// pairs where both arguments are non-NULL, carrying the call's FILTER and
// OVER, combined by a scalar expression: as plain aggregates, over
// window frames and in views they are then maintained exactly as count
// and sum are (retractable, sliding over frames). The pairs are summed as
// numerics (the float8 arguments converted as PostgreSQL's float8 to
// numeric cast does), so the centered sums
//
//	Dxx = n·Σx² − (Σx)², Dyy = n·Σy² − (Σy)², Dxy = n·Σxy − Σx·Σy
//
// are exact and each result is one final division, converted to float8.
// PostgreSQL's float8 Youngs-Cramer accumulation may differ in the last
// digits. The column name stays the function's.

// regrTemplates maps each aggregate to its formula over n, Σx, Σy and the
// D sums (placeholders expanded by regrExpand).
var regrTemplates = map[string]string{
	"regr_count":     `{N}`,
	"regr_avgx":      `CASE WHEN {N} > 0 THEN ({SX} / {N})::float8 END`,
	"regr_avgy":      `CASE WHEN {N} > 0 THEN ({SY} / {N})::float8 END`,
	"regr_sxx":       `CASE WHEN {N} > 0 THEN ({DXX} / {N})::float8 END`,
	"regr_syy":       `CASE WHEN {N} > 0 THEN ({DYY} / {N})::float8 END`,
	"regr_sxy":       `CASE WHEN {N} > 0 THEN ({DXY} / {N})::float8 END`,
	"covar_pop":      `CASE WHEN {N} > 0 THEN ({DXY} / ({N} * {N}))::float8 END`,
	"covar_samp":     `CASE WHEN {N} > 1 THEN ({DXY} / ({N} * ({N} - 1)))::float8 END`,
	"regr_slope":     `CASE WHEN {N} > 0 AND {DXX} <> 0 THEN ({DXY} / {DXX})::float8 END`,
	"regr_intercept": `CASE WHEN {N} > 0 AND {DXX} <> 0 THEN (({SY} * {DXX} - {SX} * {DXY}) / ({N} * {DXX}))::float8 END`,
	"regr_r2": `CASE WHEN {N} > 0 AND {DXX} <> 0 THEN CASE WHEN {DYY} = 0 THEN 1::float8
		ELSE (({DXY} * {DXY}) / ({DXX} * {DYY}))::float8 END END`,
	"corr": `CASE WHEN {N} > 0 AND {DXX} <> 0 AND {DYY} <> 0 THEN {DXY}::float8 / sqrt({DXX}::float8 * {DYY}::float8) END`,
}

// regrExpand expands the placeholders into aggregate calls of the paired
// values __x and __y.
func regrExpand(tmpl string) string {
	r := strings.NewReplacer(
		"{DXX}", "(count(__x) * sum(__x * __x) - sum(__x) * sum(__x))",
		"{DYY}", "(count(__x) * sum(__y * __y) - sum(__y) * sum(__y))",
		"{DXY}", "(count(__x) * sum(__x * __y) - sum(__x) * sum(__y))",
		"{SX}", "sum(__x)", "{SY}", "sum(__y)", "{N}", "count(__x)")
	return r.Replace(tmpl)
}

// regrPair is the numeric value of a when b is not NULL (NULL
// otherwise), __a and __b standing for the arguments.
const regrPair = `CASE WHEN __b IS NOT NULL THEN (__a + 0::float8)::numeric END`

// rewriteRegr returns sel with every call of a statistics aggregate in it
// (nested query blocks included) rewritten, or sel itself when it has none.
//
// With a trace, it records each call's arguments in sel to a copy of them
// in the rewritten query (Trace.RegrArgs), whose planning the trace
// records, so that the deparser can print the call as written.
func rewriteRegr(sel *pg_query.SelectStmt, tr *Trace) (*pg_query.SelectStmt, error) {
	if !hasRegrCall(sel) {
		return sel, nil
	}
	out := proto.Clone(sel).(*pg_query.SelectStmt)
	var orig []*pg_query.Node
	walkMessages(sel.ProtoReflect(), func(m proto.Message) {
		if n, ok := m.(*pg_query.Node); ok && regrTemplates[regrName(n.GetFuncCall())] != "" {
			orig = append(orig, n)
		}
	})
	var err error
	var nodes []*pg_query.Node
	var targets []*pg_query.ResTarget
	walkMessages(out.ProtoReflect(), func(m proto.Message) {
		switch m := m.(type) {
		case *pg_query.Node:
			if regrTemplates[regrName(m.GetFuncCall())] != "" {
				nodes = append(nodes, m)
			}
		case *pg_query.ResTarget:
			targets = append(targets, m)
		}
	})
	for _, t := range targets { // keep the function's name as the column's
		if name := regrName(t.GetVal().GetFuncCall()); t.Name == "" && regrTemplates[name] != "" {
			t.Name = name
		}
	}
	// Innermost calls first: an argument may itself hold a call.
	for i := len(nodes) - 1; i >= 0 && err == nil; i-- {
		args := nodes[i].GetFuncCall().Args
		if err = rewriteRegrCall(nodes[i]); err == nil && tr != nil && len(orig) == len(nodes) {
			traceRegrArgs(tr, orig[i].GetFuncCall().Args, args, nodes[i])
		}
	}
	return out, err
}

// traceRegrArgs records, for each argument of a call as written (orig),
// a copy of the same argument (args, the rewritten copy's) inside the
// call's formula e, if there is one.
func traceRegrArgs(tr *Trace, orig, args []*pg_query.Node, e *pg_query.Node) {
	for k, a := range args {
		if k >= len(orig) {
			return
		}
		walkMessages(e.ProtoReflect(), func(m proto.Message) {
			if n, ok := m.(*pg_query.Node); ok && tr.RegrArgs[orig[k]] == nil && proto.Equal(n, a) {
				tr.RegrArgs[orig[k]] = n
			}
		})
	}
}

// regrName returns the name of a statistics aggregate call ("" for other
// nodes).
func regrName(fc *pg_query.FuncCall) string {
	if fc == nil || len(fc.Funcname) == 0 || len(fc.Funcname) > 2 {
		return ""
	}
	if len(fc.Funcname) == 2 && fc.Funcname[0].GetString_().GetSval() != "pg_catalog" {
		return ""
	}
	name := strings.ToLower(fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval())
	if regrTemplates[name] == "" {
		return ""
	}
	return name
}

// hasRegrCall reports whether sel calls a statistics aggregate.
func hasRegrCall(sel *pg_query.SelectStmt) bool {
	found := false
	walkMessages(sel.ProtoReflect(), func(m proto.Message) {
		if fc, ok := m.(*pg_query.FuncCall); ok && regrName(fc) != "" {
			found = true
		}
	})
	return found
}

// rewriteRegrCall replaces the call in n by its formula.
func rewriteRegrCall(n *pg_query.Node) error {
	fc := n.GetFuncCall()
	name := regrName(fc)
	switch {
	case len(fc.Args) != 2 || fc.AggStar:
		return repr.Errorf(repr.CodeUndefinedFunction, "function %s(%s) does not exist", name, strings.Repeat("unknown, ", len(fc.Args))).WithPosition(fc.Location + 1)
	case fc.AggDistinct:
		return repr.Unsupported("%s(DISTINCT ...)", name).WithPosition(fc.Location + 1)
	case fc.AggWithinGroup:
		return repr.Errorf(repr.CodeWrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name).WithPosition(fc.Location + 1)
	}
	// PostgreSQL's argument order is (y, x).
	y, x := fc.Args[0], fc.Args[1]
	px, err := regrParse(regrPair, map[string]*pg_query.Node{"__a": x, "__b": y}, nil)
	if err != nil {
		return err
	}
	py, err := regrParse(regrPair, map[string]*pg_query.Node{"__a": y, "__b": x}, nil)
	if err != nil {
		return err
	}
	e, err := regrParse(regrExpand(regrTemplates[name]), map[string]*pg_query.Node{"__x": px, "__y": py}, fc)
	if err != nil {
		return err
	}
	n.Node = e.Node
	return nil
}

// regrParse parses an expression template, gives its own function calls
// the FILTER and OVER of call (when set), then replaces its placeholder
// columns by copies of subst's nodes.
func regrParse(tmpl string, subst map[string]*pg_query.Node, call *pg_query.FuncCall) (*pg_query.Node, error) {
	tree, err := pg_query.Parse("SELECT " + tmpl)
	if err != nil {
		return nil, err
	}
	e := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	var refs []*pg_query.Node
	walkMessages(e.ProtoReflect(), func(m proto.Message) {
		switch m := m.(type) {
		case *pg_query.FuncCall:
			if call != nil && (m.Funcname[len(m.Funcname)-1].GetString_().GetSval() == "count" ||
				m.Funcname[len(m.Funcname)-1].GetString_().GetSval() == "sum") {
				m.AggFilter, m.Over, m.Location = call.AggFilter, call.Over, call.Location
			}
		case *pg_query.Node:
			if f := m.GetColumnRef().GetFields(); len(f) == 1 && subst[f[0].GetString_().GetSval()] != nil {
				refs = append(refs, m)
			}
		}
	})
	for _, r := range refs {
		r.Node = proto.Clone(subst[r.GetColumnRef().GetFields()[0].GetString_().GetSval()]).(*pg_query.Node).Node
	}
	return e, nil
}

// walkMessages calls fn for m and every message below it.
func walkMessages(m protoreflect.Message, fn func(proto.Message)) {
	fn(m.Interface())
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkMessages(l.Get(i).Message(), fn)
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			walkMessages(v.Message(), fn)
		}
		return true
	})
}
