package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cockroachdb/apd/v3"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Window functions (the OVER clause) are computed after FROM, WHERE,
// GROUP BY and HAVING and before the select list, DISTINCT, ORDER BY and
// LIMIT, as in PostgreSQL, so
//
//	SELECT g, sum(x), rank() OVER (ORDER BY sum(x) DESC) FROM t GROUP BY g
//
// plans as
//
//	Project (Window key=[] order=[#1 desc] funcs=[rank()]
//	          (Reduce key=[#0] aggs=[sum(#1)] (Get t)))
//
// The calls of the select list and ORDER BY are planned together
// (planWindows): named windows are resolved (PostgreSQL's rules on what
// OVER (w ...) may add), the arguments, PARTITION BY and ORDER BY
// expressions become columns of one Map over the block's relation, and each
// distinct window (its partitioning and ordering) becomes one ir.Window
// computing all its functions, several windows a chain. The select list
// and ORDER BY then read each call's column (ectx.wins). A row_number()
// that the enclosing query bounds keeps its TopK plan (rownumber.go).
//
// Frames follow PostgreSQL: ROWS and GROUPS offsets are bigint constants,
// RANGE offsets constants of the type PostgreSQL's in_range support
// functions take for the single ORDER BY column (rangeOffsetType), and
// EXCLUDE applies in every mode. ntile's bucket count, lag and lead's
// offset and nth_value's position may be any integer expression: a
// constant is folded into the function, anything else becomes a column
// the Window reads per row.
//
// What the Window operator cannot compute fails with 0A000 naming it:
// DISTINCT or ORDER BY inside a window aggregate (as in PostgreSQL) and
// aggregates a Window cannot compute (expr.IsWindowAgg).

// codeWindowing is SQLSTATE 42P20, PostgreSQL's windowing_error.
const codeWindowing = "42P20"

// The bits of WindowDef.FrameOptions (PostgreSQL's FRAMEOPTION_*).
const (
	frameNonDefault  = 0x00001
	frameRange       = 0x00002
	frameRows        = 0x00004
	frameGroups      = 0x00008
	frameStartUnbPre = 0x00020
	frameEndUnbFol   = 0x00100
	frameStartCur    = 0x00200
	frameEndCur      = 0x00400
	frameStartOffPre = 0x00800
	frameEndOffPre   = 0x01000
	frameStartOffFol = 0x02000
	frameEndOffFol   = 0x04000
	frameExclCurrent = 0x08000
	frameExclGroup   = 0x10000
	frameExclTies    = 0x20000
	frameOffsets     = frameStartOffPre | frameEndOffPre | frameStartOffFol | frameEndOffFol
)

// maxFrameOffset bounds ROWS offsets (and lag/lead/nth_value positions
// never exceed int4): no partition holds 2^40 rows, so a larger offset
// means the same frame, and the operator's position arithmetic cannot
// overflow.
const maxFrameOffset = int64(1) << 40

// blockWindowCalls returns the window function calls a query block
// computes: those of its select list, ORDER BY and DISTINCT ON, not those
// of subqueries (their own) nor the calls nested in another call's
// arguments (an error found when the outer call is planned).
func blockWindowCalls(sel *pg_query.SelectStmt) []*pg_query.FuncCall {
	nodes := append(slices.Clone(sel.TargetList), sel.SortClause...)
	if isDistinctOn(sel) {
		nodes = append(nodes, sel.DistinctClause...)
	}
	var out []*pg_query.FuncCall
	for _, n := range nodes {
		collectWindowCalls(n, &out)
	}
	return out
}

// collectWindowCalls appends the window function calls of n, not
// descending into subqueries (the tested expression of x IN (SELECT ...)
// is n's) nor into the calls' arguments.
func collectWindowCalls(n *pg_query.Node, out *[]*pg_query.FuncCall) {
	walk(n, func(x *pg_query.Node) bool {
		if sl := x.GetSubLink(); sl != nil {
			collectWindowCalls(sl.Testexpr, out)
			return false
		}
		if fc := x.GetFuncCall(); fc != nil && fc.Over != nil {
			*out = append(*out, fc)
			return false
		}
		return true
	})
}

// windowClauseNodes returns the PARTITION BY and ORDER BY expressions of
// the WINDOW clause (where aggregates make the block grouped, as in
// PostgreSQL).
func windowClauseNodes(sel *pg_query.SelectStmt) []*pg_query.Node {
	var out []*pg_query.Node
	for _, n := range sel.WindowClause {
		wd := n.GetWindowDef()
		out = append(append(out, wd.PartitionClause...), wd.OrderClause...)
	}
	return out
}

// windowRef returns the value of a planned window function call; a call
// where none was planned is misplaced.
func (c *ectx) windowRef(fc *pg_query.FuncCall) (expr.Expr, error) {
	if e, ok := c.wins[fc]; ok {
		return e, nil
	}
	var err *repr.Error
	switch c.clause {
	case "aggregate":
		err = repr.Errorf(repr.CodeGrouping, "aggregate function calls cannot contain window function calls")
	case "window function":
		err = repr.Errorf(codeWindowing, "window function calls cannot be nested")
	case "window definition":
		err = repr.Errorf(codeWindowing, "window functions are not allowed in window definitions")
	case "JOIN/ON", "JOIN/USING":
		err = repr.Errorf(codeWindowing, "window functions are not allowed in JOIN conditions")
	case "SELECT", "ORDER BY":
		err = repr.Unsupported("a window function call in this position")
	default:
		err = repr.Errorf(codeWindowing, "window functions are not allowed in %s", c.clause)
	}
	return nil, err.WithPosition(fc.Location + 1)
}

// winDef is a window definition with named windows resolved: the
// PARTITION BY and ORDER BY to use, and the definition whose frame
// applies.
type winDef struct {
	partition []*pg_query.Node
	order     []*pg_query.Node
	frame     *pg_query.WindowDef
}

// namedWindows resolves the WINDOW clause, in order: a definition may
// copy an earlier one (see copyWindow); names are unique (42P20).
func namedWindows(clause []*pg_query.Node) (map[string]winDef, error) {
	named := map[string]winDef{}
	for _, n := range clause {
		wd := n.GetWindowDef()
		if _, dup := named[wd.Name]; dup {
			return nil, repr.Errorf(codeWindowing, "window %q is already defined", wd.Name).WithPosition(wd.Location + 1)
		}
		d, err := copyWindow(wd, named, false)
		if err != nil {
			return nil, err
		}
		named[wd.Name] = d
	}
	return named, nil
}

// overWindow resolves an OVER clause: OVER w is the named window w
// itself, frame included; OVER (...) is a definition of its own.
func overWindow(wd *pg_query.WindowDef, named map[string]winDef) (winDef, error) {
	if wd.Name == "" {
		return copyWindow(wd, named, true)
	}
	d, ok := named[wd.Name]
	if !ok {
		return winDef{}, repr.Errorf(repr.CodeUndefinedObject, "window %q does not exist", wd.Name).WithPosition(wd.Location + 1)
	}
	return d, nil
}

// copyWindow resolves a definition (w ...) that copies the earlier
// window w, with PostgreSQL's rules (transformWindowDefinitions): it takes
// w's PARTITION BY and may not add one, takes w's ORDER BY or adds one if
// w has none, and has its own frame, so w must not have one. over marks an
// OVER clause (for the hint).
func copyWindow(wd *pg_query.WindowDef, named map[string]winDef, over bool) (winDef, error) {
	d := winDef{partition: wd.PartitionClause, order: wd.OrderClause, frame: wd}
	if wd.Refname == "" {
		return d, nil
	}
	ref, ok := named[wd.Refname]
	pos := wd.Location + 1
	switch {
	case !ok:
		return winDef{}, repr.Errorf(repr.CodeUndefinedObject, "window %q does not exist", wd.Refname).WithPosition(pos)
	case len(wd.PartitionClause) > 0:
		return winDef{}, repr.Errorf(codeWindowing, "cannot override PARTITION BY clause of window %q", wd.Refname).WithPosition(pos)
	case len(wd.OrderClause) > 0 && len(ref.order) > 0:
		return winDef{}, repr.Errorf(codeWindowing, "cannot override ORDER BY clause of window %q", wd.Refname).WithPosition(pos)
	case ref.frame.FrameOptions != frameDefault:
		err := repr.Errorf(codeWindowing, "cannot copy window %q because it has a frame clause", wd.Refname).WithPosition(pos)
		if over && len(wd.OrderClause) == 0 && wd.FrameOptions == frameDefault {
			err = err.WithHint("Omit the parentheses in this OVER clause.")
		}
		return winDef{}, err
	}
	d.partition = ref.partition
	if len(ref.order) > 0 {
		d.order = ref.order
	}
	return d, nil
}

// winSpec is a window's partitioning and ordering as expressions over the
// block's relation; dirs are the ORDER BY directions (Col unset).
type winSpec struct {
	part  []expr.Expr
	order []expr.Expr
	dirs  []expr.SortCol
}

// key identifies the window: calls with equal keys share one Window.
func (s winSpec) key() string {
	var b strings.Builder
	for _, e := range s.part {
		fmt.Fprintf(&b, "%s, ", e)
	}
	b.WriteString("|")
	for i, e := range s.order {
		fmt.Fprintf(&b, "%s %v %v, ", e, s.dirs[i].Desc, s.dirs[i].NullsFirst)
	}
	return b.String()
}

// winCall is one planned window function call: fn reads args (fn.Col and
// fn.Default index args until windowChain places them); null marks a call
// whose result is NULL on every row (a NULL offset, bucket count or
// position), of type t.
type winCall struct {
	fc   *pg_query.FuncCall
	spec winSpec
	fn   expr.WinFunc
	args []expr.Expr
	null bool
	t    repr.T
}

// planWindows plans the window function calls of a block over ec's
// relation (FROM after WHERE, or the aggregated relation after HAVING),
// extending ec.rel with their columns and recording them in ec.wins.
// The WINDOW clause is checked even where no call uses it.
func (b *builder) planWindows(sel *pg_query.SelectStmt, calls []*pg_query.FuncCall, ec *ectx, nOuter int) error {
	named, err := namedWindows(sel.WindowClause)
	if err != nil {
		return err
	}
	if err := ec.planWindowSRFs(sel, calls, named); err != nil {
		return err
	}
	for _, n := range sel.WindowClause {
		if _, _, err := ec.winWindow(named[n.GetWindowDef().Name]); err != nil {
			return err
		}
	}
	planned := make([]winCall, len(calls))
	for i, fc := range calls {
		if planned[i], err = ec.winCall(fc, named); err != nil {
			return err
		}
	}
	ec.rel, ec.wins, err = windowChain(ec.rel, nOuter, planned)
	return err
}

// planWindowSRFs plans the set-returning calls of the window definitions
// (PARTITION BY and ORDER BY of the WINDOW clause and of every call's
// OVER) as FlatMaps over ec.rel, below the windows: PostgreSQL 15 makes
// them entries of the windows' input, so they expand the rows the
// windows see (in lockstep with each other, nested calls by levels, equal
// calls one call), even in a window no function uses, and the select
// list's calls run after the windows as always. The definitions then
// read their columns (srfRef). Over an aggregated relation they are
// still refused (0A000) unless equal to a GROUP BY key (srfgroup.go).
func (ec *ectx) planWindowSRFs(sel *pg_query.SelectStmt, calls []*pg_query.FuncCall, named map[string]winDef) error {
	if ec.grp != nil {
		return nil
	}
	var defs []winDef
	for _, n := range sel.WindowClause {
		defs = append(defs, named[n.GetWindowDef().Name])
	}
	for _, fc := range calls {
		d, err := overWindow(fc.Over, named)
		if err != nil {
			return err
		}
		defs = append(defs, d)
	}
	levels := map[*pg_query.FuncCall]int{}
	var srfs []*pg_query.FuncCall
	for _, d := range defs {
		nodes := slices.Clone(d.partition)
		for _, o := range d.order {
			nodes = append(nodes, o.GetSortBy().Node)
		}
		for _, n := range nodes {
			if _, err := collectSRFs(n, "", nil, ec.b.sqlSetFunc, &srfs, levels); err != nil {
				return err
			}
		}
	}
	if len(srfs) == 0 {
		return nil
	}
	if err := windowSRFShared(sel, srfs, ec.b.sqlSetFunc); err != nil {
		return err
	}
	ec.srfs, ec.srfCalls = map[*pg_query.FuncCall]expr.Expr{}, map[string]*pg_query.FuncCall{}
	defer func() { ec.srfCalls = nil }()
	for level := 1; len(ec.srfs) < len(srfs); level++ {
		if err := ec.srfLevel(srfs, levels, level); err != nil {
			return err
		}
	}
	return nil
}

// windowSRFShared refuses a window definition's set-returning call that
// the select list or ORDER BY holds too: PostgreSQL matches such an
// expression to the select list's entry and evaluates it once, below the
// windows, where Eddy's select list calls run above them.
func windowSRFShared(sel *pg_query.SelectStmt, srfs []*pg_query.FuncCall, sqlSRF func(string) bool) error {
	var other []*pg_query.FuncCall
	levels := map[*pg_query.FuncCall]int{}
	for _, t := range slices.Concat(sel.TargetList, sel.SortClause) {
		if _, err := collectSRFs(t, "", nil, sqlSRF, &other, levels); err != nil {
			return nil // the select list reports it
		}
	}
	for _, fc := range srfs {
		for _, o := range other {
			if sameParse(&pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: fc}}, &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: o}}) {
				return repr.Unsupported("a set-returning function in a window definition that the select list or ORDER BY also calls").WithPosition(fc.Location + 1)
			}
		}
	}
	return nil
}

// winCall plans one call: its window, frame and function.
func (c *ectx) winCall(fc *pg_query.FuncCall, named map[string]winDef) (winCall, error) {
	def, err := overWindow(fc.Over, named)
	if err != nil {
		return winCall{}, err
	}
	spec, frame, err := c.winWindow(def)
	if err != nil {
		return winCall{}, err
	}
	fctx := *c
	fctx.clause = "window function"
	wc, err := fctx.winFunc(fc)
	if err != nil {
		return winCall{}, err
	}
	c.rel = fctx.rel // its arguments' subqueries' columns
	wc.spec = spec
	if wc.fn.Kind.UsesFrame() {
		wc.fn.Frame = frame
	}
	if c.naturalWindows {
		c.naturalWindow(&wc, frame)
	}
	argTypes := make([]repr.T, len(wc.args))
	for i, a := range wc.args {
		argTypes[i] = a.Type()
	}
	wc.t, err = wc.fn.Type(argTypes)
	return wc, err
}

// winWindow builds a window's PARTITION BY and ORDER BY expressions and
// its frame. Their subqueries decorrelate as the select list's, extending
// c.rel (PostgreSQL allows them; a frame offset must be a constant).
func (c *ectx) winWindow(def winDef) (winSpec, expr.Frame, error) {
	dctx := *c
	dctx.clause = "window definition"
	defer func() { c.rel = dctx.rel }()
	var spec winSpec
	for _, p := range def.partition {
		e, err := dctx.typedExpr(p)
		if err != nil {
			return winSpec{}, expr.Frame{}, err
		}
		if err := noEquality(c.b, []repr.T{e.Type()}, leftmostLocation(p)); err != nil {
			return winSpec{}, expr.Frame{}, err
		}
		spec.part = append(spec.part, e)
	}
	var written []expr.Expr
	for _, o := range def.order {
		sb := o.GetSortBy()
		e, err := dctx.typedExpr(sb.Node)
		if err != nil {
			return winSpec{}, expr.Frame{}, err
		}
		if sb.SortbyDir != pg_query.SortByDir_SORTBY_USING {
			if err := noOrdering(c.b, e.Type(), leftmostLocation(sb.Node)); err != nil {
				return winSpec{}, expr.Frame{}, err
			}
		}
		dir, err := sortDirFor(sb, e.Type())
		if err != nil {
			return winSpec{}, expr.Frame{}, err
		}
		written = append(written, e)
		spec.order = append(spec.order, expr.QCharKey(e)) // "char" sorts by its byte
		spec.dirs = append(spec.dirs, dir)
	}
	fr := dctx
	fr.noSubquery = true
	frame, err := fr.winFrame(def.frame, written) // a RANGE offset reads the written type
	return spec, frame, err
}

// typedExpr builds an expression, typing unknown literals as text.
func (c *ectx) typedExpr(n *pg_query.Node) (expr.Expr, error) {
	e, err := c.expr(n)
	if err != nil || e.Type().Family != repr.FamUnknown {
		return e, err
	}
	return c.b.coerce(e, repr.Text)
}

// winFrame decodes a definition's frame (over the window's ORDER BY
// expressions). GROUPS frames without an offset equal the RANGE frames
// with the same bounds (both extend CURRENT ROW to its peers), so they
// become those.
func (c *ectx) winFrame(wd *pg_query.WindowDef, order []expr.Expr) (expr.Frame, error) {
	opts := wd.FrameOptions
	if opts&frameNonDefault == 0 {
		return expr.DefaultFrame, nil
	}
	pos := wd.Location + 1
	switch offsets := opts&frameOffsets != 0; {
	case opts&frameGroups != 0 && len(order) == 0:
		return expr.Frame{}, repr.Errorf(codeWindowing, "GROUPS mode requires an ORDER BY clause").WithPosition(pos)
	case opts&frameRange != 0 && offsets && len(order) != 1:
		return expr.Frame{}, repr.Errorf(codeWindowing, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column").WithPosition(pos)
	}
	f := expr.Frame{Exclude: exclusionOf(opts)}
	switch {
	case opts&frameRows != 0:
		f.Mode = expr.RowsMode
	case opts&frameGroups != 0:
		f.Mode = expr.GroupsMode
	}
	var orderT repr.T
	if len(order) == 1 {
		orderT = order[0].Type()
	}
	var err error
	if f.Start, err = c.frameBound(f.Mode, opts, wd.StartOffset, false, orderT); err != nil {
		return expr.Frame{}, err
	}
	if f.End, err = c.frameBound(f.Mode, opts, wd.EndOffset, true, orderT); err != nil {
		return expr.Frame{}, err
	}
	if why := f.Valid(); why != "" {
		return expr.Frame{}, repr.Errorf(codeWindowing, "%s", why).WithPosition(pos)
	}
	if f.Mode == expr.GroupsMode && !f.Start.HasOffset() && !f.End.HasOffset() {
		f.Mode = expr.RangeMode
	}
	return f, nil
}

// exclusionOf decodes a frame's EXCLUDE clause.
func exclusionOf(opts int32) expr.Exclusion {
	switch {
	case opts&frameExclCurrent != 0:
		return expr.ExcludeCurrentRow
	case opts&frameExclGroup != 0:
		return expr.ExcludeGroup
	case opts&frameExclTies != 0:
		return expr.ExcludeTies
	}
	return expr.ExcludeNoOthers
}

// frameBound decodes the start (or end) bound of a frame in mode m over
// an ORDER BY column of type orderT (for RANGE offsets).
func (c *ectx) frameBound(m expr.FrameMode, opts int32, offset *pg_query.Node, end bool, orderT repr.T) (expr.FrameBound, error) {
	unb, cur, pre, fol := int32(frameStartUnbPre), int32(frameStartCur), int32(frameStartOffPre), int32(frameStartOffFol)
	kind := expr.UnboundedPreceding
	if end {
		unb, cur, pre, fol = frameEndUnbFol, frameEndCur, frameEndOffPre, frameEndOffFol
		kind = expr.UnboundedFollowing
	}
	switch {
	case opts&unb != 0:
		return expr.FrameBound{Kind: kind}, nil
	case opts&cur != 0:
		return expr.FrameBound{Kind: expr.CurrentRow}, nil
	case opts&pre != 0:
		kind = expr.Preceding
	case opts&fol != 0:
		kind = expr.Following
	default:
		return expr.FrameBound{}, repr.Errorf(codeWindowing, "bad frame bound")
	}
	b := expr.FrameBound{Kind: kind}
	var err error
	if m == expr.RangeMode {
		b.Value, b.T, err = c.rangeOffset(offset, end, orderT)
	} else {
		b.Offset, err = c.frameOffset(offset, end, m.String())
	}
	return b, err
}

// frameOffset evaluates a ROWS or GROUPS offset: a bigint constant,
// neither NULL (22004) nor negative (22013), as PostgreSQL checks when
// the query starts; offsets past maxFrameOffset are clamped to it.
func (c *ectx) frameOffset(n *pg_query.Node, end bool, mode string) (int64, error) {
	e, err := c.expr(n)
	if err != nil {
		return 0, err
	}
	if t := e.Type(); t.Family != repr.FamUnknown && repr.CastContextOf(t, repr.Int8) < repr.CastAssignment {
		return 0, repr.Errorf(repr.CodeDatatypeMismatch, "argument of %s must be type bigint, not type %s", mode, e.Type().Name()).WithPosition(location(n) + 1)
	}
	if len(expr.Columns(e)) > 0 {
		return 0, repr.Errorf("42P10", "argument of %s must not contain variables", mode).WithPosition(location(n) + 1)
	}
	if e, err = c.b.coerce(e, repr.Int8); err != nil {
		return 0, err
	}
	d, err := c.offsetValue(e, n, end)
	if err == nil && d.Int() < 0 {
		err = repr.Errorf("22013", "frame %s offset must not be negative", startEnd(end))
	}
	if err != nil {
		return 0, err
	}
	return min(d.Int(), maxFrameOffset), nil
}

func startEnd(end bool) string {
	if end {
		return "ending"
	}
	return "starting"
}

// offsetValue evaluates a frame offset, which must not be NULL (22004).
// Planned without bound values (to describe a prepared statement), a
// parameter stands for an offset of zero.
func (c *ectx) offsetValue(e expr.Expr, n *pg_query.Node, end bool) (repr.Datum, error) {
	if c.b.opts.Params == nil && !c.b.opts.GenericParams && hasParamRef(n) {
		return zeroOffset(e.Type()), nil
	}
	d, err := constValue(e, "a frame offset", n)
	if err == nil && d.IsNull() {
		err = repr.Errorf("22004", "frame %s offset must not be null", startEnd(end))
	}
	return d, err
}

// hasParamRef reports whether n refers to a parameter ($n).
func hasParamRef(n *pg_query.Node) bool {
	found := false
	walk(n, func(x *pg_query.Node) bool {
		found = found || x.GetParamRef() != nil
		return !found
	})
	return found
}

// zeroOffset is an offset of zero of type t.
func zeroOffset(t repr.T) repr.Datum {
	switch t.Family {
	case repr.FamFloat:
		return repr.NewFloat(0)
	case repr.FamNumeric:
		return repr.NewNumeric(apd.New(0, 0))
	case repr.FamInterval:
		return repr.NewInterval(repr.Interval{})
	}
	return repr.NewInt(0)
}

// rangeOffset evaluates a RANGE offset over an ORDER BY column of type
// orderT: a constant coerced to the offset type in_range takes. A
// negative one is an error only when a frame is computed with it, as in
// PostgreSQL (exec's in_range).
func (c *ectx) rangeOffset(n *pg_query.Node, end bool, orderT repr.T) (repr.Datum, repr.T, error) {
	e, err := c.expr(n)
	if err != nil {
		return repr.Null, repr.T{}, err
	}
	t, err := rangeOffsetType(orderT, e.Type(), location(n)+1)
	if err != nil {
		return repr.Null, repr.T{}, err
	}
	if e, err = c.b.coerce(e, t); err != nil {
		return repr.Null, repr.T{}, err
	}
	if len(expr.Columns(e)) > 0 {
		return repr.Null, repr.T{}, repr.Errorf("42P10", "argument of RANGE must not contain variables").WithPosition(location(n) + 1)
	}
	d, err := c.offsetValue(e, n, end)
	return d, t, err
}

// rangeOffsetType chooses the offset type of a RANGE frame over an ORDER
// BY column of type col for an offset of type off, as PostgreSQL's
// transformFrameOffset chooses among the in_range support functions of
// col's type: the one taking off's type (col's if off is unknown), else
// the only one off implicitly converts to (pos is the offset's position).
func rangeOffsetType(col, off repr.T, pos int32) (repr.T, error) {
	var cands []repr.T
	switch col.Family {
	case repr.FamInt:
		cands = []repr.T{repr.Int8, repr.Int4, repr.Int2}
		if col.Width == 64 {
			cands = cands[:1]
		}
	case repr.FamFloat:
		cands = []repr.T{repr.Float8}
	case repr.FamNumeric:
		cands = []repr.T{repr.Numeric}
	case repr.FamDate, repr.FamTime, repr.FamTimestamp, repr.FamTimestampTZ, repr.FamInterval:
		cands = []repr.T{repr.IntervalT}
	default:
		return repr.T{}, repr.Errorf(repr.CodeFeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", col.Name()).WithPosition(pos)
	}
	preferred := off
	if off.Family == repr.FamUnknown {
		preferred = col
	}
	var matches []repr.T
	for _, t := range cands {
		if t == preferred && expr.CanCoerce(off, t, repr.CastImplicit) {
			return t, nil
		}
		if expr.CanCoerce(off, t, repr.CastImplicit) {
			matches = append(matches, t)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return repr.T{}, repr.Errorf(repr.CodeFeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", col.Name(), off.Name()).
			WithHint("Cast the offset value to an appropriate type.").WithPosition(pos)
	}
	return repr.T{}, repr.Errorf(repr.CodeFeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING has multiple interpretations for column type %s and offset type %s", col.Name(), off.Name()).
		WithHint("Cast the offset value to the exact intended type.").WithPosition(pos)
}

// constValue evaluates a constant expression (no columns, parameters of
// a generic plan or volatile calls; 0A000 naming what otherwise).
func constValue(e expr.Expr, what string, n *pg_query.Node) (repr.Datum, error) {
	if lit, ok := expr.Fold(e).(*expr.Lit); ok {
		return lit.D, nil
	}
	if len(expr.Columns(e)) > 0 || expr.IsVolatile(e) || hasParam(e) {
		return repr.Null, repr.Unsupported("%s that is not a constant", what).WithPosition(location(n) + 1)
	}
	return e.Eval(&expr.Ctx{}, nil)
}

// hasParam reports whether e reads a parameter of a generic plan.
func hasParam(e expr.Expr) bool {
	if _, ok := e.(*expr.Param); ok {
		return true
	}
	return slices.ContainsFunc(expr.Children(e), hasParam)
}

// winFunc plans the function of a window call (not its window).
func (c *ectx) winFunc(fc *pg_query.FuncCall) (winCall, error) {
	name := funcName(fc)
	pos := fc.Location + 1
	switch {
	case fc.AggDistinct:
		return winCall{}, repr.Errorf(repr.CodeFeatureNotSupported, "DISTINCT is not implemented for window functions").WithPosition(pos)
	case fc.AggWithinGroup:
		return winCall{}, repr.Errorf(repr.CodeFeatureNotSupported, "OVER is not supported for ordered-set aggregate %s", name).WithPosition(pos)
	case len(fc.AggOrder) > 0:
		return winCall{}, repr.Errorf(repr.CodeFeatureNotSupported, "aggregate ORDER BY is not implemented for window functions").WithPosition(pos)
	}
	// VARIADIC arr passes arr as the last argument: no window function or
	// aggregate has a VARIADIC parameter (variadic.go).
	if kind, ok := expr.LookupWinKind(name); ok {
		switch {
		case fc.AggFilter != nil:
			return winCall{}, repr.Errorf(repr.CodeFeatureNotSupported, "FILTER is not implemented for non-aggregate window functions").WithPosition(pos)
		case fc.AggStar:
			return winCall{}, repr.Errorf(repr.CodeWrongObjectType, "%s(*) specified, but %s is not an aggregate function", name, name).WithPosition(pos)
		}
		return c.winBuiltin(fc, kind)
	}
	k, ok := expr.LookupAgg(name)
	switch {
	case ok && expr.IsWindowAgg(k):
		return c.winAgg(fc, k)
	case ok && k.Def().Shape == expr.AggOrderedSet:
		return winCall{}, c.withinGroupRequired(fc, k)
	}
	if ok || otherAggs[name] {
		return winCall{}, repr.Unsupported("aggregate %s() as a window function", name).WithPosition(pos)
	}
	return winCall{}, repr.Errorf(repr.CodeWrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name).WithPosition(pos)
}

// winArity is the least and most arguments of each window function.
var winArity = map[expr.WinKind][2]int{
	expr.WinNtile: {1, 1}, expr.WinLag: {1, 3}, expr.WinLead: {1, 3},
	expr.WinFirstValue: {1, 1}, expr.WinLastValue: {1, 1}, expr.WinNthValue: {2, 2},
}

// winBuiltin plans row_number ... nth_value. lag and lead take the
// common type of their value and default (PostgreSQL's anycompatible);
// the bucket count, offset and position must be integer constants.
func (c *ectx) winBuiltin(fc *pg_query.FuncCall, kind expr.WinKind) (winCall, error) {
	wc := winCall{fc: fc, fn: expr.WinFunc{Kind: kind, Col: -1, NCol: -1, Default: -1, Frame: expr.DefaultFrame}}
	args, err := c.exprs(fc.Args)
	if err != nil {
		return winCall{}, err
	}
	if kind <= expr.WinCumeDist && kind != expr.WinRowNumber && len(args) > 0 {
		// rank(args) is PostgreSQL's hypothetical-set aggregate.
		return winCall{}, repr.Errorf(repr.CodeWrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", funcName(fc)).WithPosition(fc.Location + 1)
	}
	if ar := winArity[kind]; len(args) < ar[0] || len(args) > ar[1] {
		return winCall{}, noSuchFunction(funcName(fc), args, fc.Location)
	}
	switch kind {
	case expr.WinNtile:
		err = c.b.winIntArg(&wc, args[0], fc, fc.Args[0])
		return wc, err
	case expr.WinLag, expr.WinLead:
		vals := []expr.Expr{args[0]}
		if len(args) == 3 {
			vals = append(vals, args[2])
			wc.fn.Default = 1
		}
		wc.fn.N = 1
		if wc.args, err = c.b.unify(vals, kind.String(), fc.Location); err == nil && len(args) >= 2 {
			err = c.b.winIntArg(&wc, args[1], fc, fc.Args[1])
		}
	case expr.WinNthValue:
		if wc.args, err = c.b.unify(args[:1], kind.String(), fc.Location); err == nil {
			err = c.b.winIntArg(&wc, args[1], fc, fc.Args[1])
		}
	case expr.WinFirstValue, expr.WinLastValue:
		wc.args, err = c.b.unify(args, kind.String(), fc.Location)
	}
	if len(wc.args) > 0 {
		wc.fn.Col = 0
	}
	return wc, err
}

// noSuchFunction is 42883 for a call with the wrong arguments.
func noSuchFunction(name string, args []expr.Expr, loc int32) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.Type().Name()
	}
	return repr.Errorf(repr.CodeUndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").
		WithPosition(loc + 1)
}

// winIntArg plans an integer argument of fc (expression e, node n): a
// constant becomes wc.fn.N (NULL makes the call NULL on every row),
// anything else an argument column read per row (wc.fn.NCol).
func (b *builder) winIntArg(wc *winCall, e expr.Expr, fc *pg_query.FuncCall, n *pg_query.Node) error {
	if t := e.Type(); t != repr.Int4 && t != repr.Int2 && t.Family != repr.FamUnknown {
		return repr.Errorf(repr.CodeUndefinedFunction, "function %s with a %s argument does not exist", funcName(fc), t.Name()).WithPosition(fc.Location + 1)
	}
	e, err := b.coerce(e, repr.Int4)
	if err != nil {
		return err
	}
	if len(expr.Columns(e)) > 0 || expr.IsVolatile(e) || hasParam(e) {
		wc.fn.NCol = len(wc.args)
		wc.args = append(wc.args, e)
		return nil
	}
	d, err := constValue(e, fmt.Sprintf("an argument of %s()", funcName(fc)), n)
	if err != nil || d.IsNull() {
		wc.null = err == nil
		return err
	}
	wc.fn.N = d.Int()
	return nil
}

// winAgg plans an aggregate over a window frame; FILTER (WHERE p)
// aggregates CASE WHEN p THEN x END (see aggFilter; count(*) counts a
// non-NULL constant).
func (c *ectx) winAgg(fc *pg_query.FuncCall, kind expr.AggKind) (winCall, error) {
	wc := winCall{fc: fc, fn: expr.WinFunc{Kind: expr.WinAgg, Agg: kind, Col: -1, NCol: -1, Default: -1, Frame: expr.DefaultFrame}}
	if fc.AggStar && fc.AggFilter == nil {
		wc.fn.Agg = expr.AggCountStar
		return wc, nil
	}
	args := []expr.Expr{boolLit(true)}
	if fc.AggStar {
		wc.fn.Agg = expr.AggCount
	} else {
		var err error
		if args, err = c.exprs(fc.Args); err != nil {
			return winCall{}, err
		}
		if args, err = c.winAggArgs(fc, kind, args); err != nil {
			return winCall{}, err
		}
	}
	var err error
	wc.args, err = c.b.aggFilter(fc, c, args)
	wc.fn.Col = 0
	if len(args) == 2 {
		wc.fn.Default = 1
	}
	return wc, err
}

// winAggArgs checks and converts the arguments of a window aggregate as
// for GROUP BY (planAgg): a second argument for string_agg, untyped
// literals typed, values converted (to_json) and boxed (array_agg's
// ARRAY[x], so NULLs are kept).
func (c *ectx) winAggArgs(fc *pg_query.FuncCall, kind expr.AggKind, args []expr.Expr) ([]expr.Expr, error) {
	def, name := kind.Def(), funcName(fc)
	want := 1
	if def.Shape == expr.AggBinary {
		want = 2
	}
	if len(args) != want {
		return nil, noSuchFunction(name, args, fc.Location)
	}
	if err := c.b.aggArgTypes(def, args, fc.Location); err != nil {
		return nil, err
	}
	argT := args[0].Type()
	if def.Boxed {
		if argT.Family == repr.FamArray {
			return nil, repr.Unsupported("%s over %s values", name, argT.Name()).WithPosition(fc.Location + 1)
		}
		argT = repr.ArrayOf(argT)
	}
	if _, err := expr.AggType(kind, argT); err != nil {
		return nil, noSuchFunction(name, args, fc.Location)
	}
	var err error
	if def.Convert != "" {
		last := len(args) - 1
		if args[last], err = c.function(def.Convert, args[last:], fc.Location); err != nil {
			return nil, err
		}
		if kind == expr.AggJSONAgg && argT.Elem == repr.FamRecord {
			// PostgreSQL separates composite elements by ",\n ".
			if args[last], err = c.function("json_agg_structured", args[last:], fc.Location); err != nil {
				return nil, err
			}
		}
	}
	if def.Boxed {
		args[0], err = c.function("array", args[:1], fc.Location)
	}
	return args, err
}

// windowChain computes the calls over rel: their arguments, partition
// and order expressions become columns of one Map over rel (plain columns
// are read in place, equal expressions computed once), then each distinct
// window is one Window over the previous one, computing each distinct
// function once. It returns the result and each call's value over it.
func windowChain(rel ir.Rel, nOuter int, calls []winCall) (ir.Rel, map[*pg_query.FuncCall]expr.Expr, error) {
	pl := &placer{n: ir.Arity(rel)}
	var wins []*ir.Window
	byKey := map[string]int{}
	type slot struct{ win, fn int }
	slots := make([]slot, len(calls))
	for i, wc := range calls {
		if wc.null {
			continue
		}
		k := wc.spec.key()
		wi, ok := byKey[k]
		if !ok {
			wi, byKey[k] = len(wins), len(wins)
			wins = append(wins, pl.window(nOuter, wc.spec))
		}
		f := wc.fn.Remap(func(a int) int { return pl.col(wc.args[a]) })
		w := wins[wi]
		fi := slices.IndexFunc(w.Funcs, func(g expr.WinFunc) bool { return g.String() == f.String() })
		if fi < 0 {
			fi, w.Funcs = len(w.Funcs), append(w.Funcs, f)
		}
		slots[i] = slot{wi, fi}
	}
	in := ir.NewMap(rel, pl.maps...)
	ts := in.ColTypes()
	out, base := in, make([]int, len(wins))
	for i, w := range wins {
		for fi := range w.Funcs {
			var err error
			if w.Funcs[fi].T, err = w.Funcs[fi].Type(ts); err != nil {
				return nil, nil, err
			}
		}
		w.Input, base[i] = out, ir.Arity(out)
		out = w
	}
	vals := map[*pg_query.FuncCall]expr.Expr{}
	outTypes := out.ColTypes()
	for i, wc := range calls {
		if wc.null {
			vals[wc.fc] = &expr.Lit{D: repr.Null, T: wc.t}
			continue
		}
		col := base[slots[i].win] + slots[i].fn
		vals[wc.fc] = &expr.Col{Idx: col, T: outTypes[col]}
	}
	return out, vals, nil
}

// placer assigns expressions to columns: plain columns of the input (of
// n columns) in place, others to columns of a Map (maps), equal
// non-volatile ones to one.
type placer struct {
	n    int
	maps []expr.Expr
}

func (p *placer) col(e expr.Expr) int {
	if c, ok := e.(*expr.Col); ok {
		return c.Idx
	}
	if !expr.IsVolatile(e) {
		if i := matchExpr(e, p.maps); i >= 0 {
			return p.n + i
		}
	}
	p.maps = append(p.maps, e)
	return p.n + len(p.maps) - 1
}

// window returns a Window (without input or functions) for spec, keyed
// by the block's outer values and the partition columns.
func (p *placer) window(nOuter int, spec winSpec) *ir.Window {
	w := &ir.Window{Key: identityCols(nOuter)}
	for _, e := range spec.part {
		w.Key = append(w.Key, p.col(e))
	}
	for i, e := range spec.order {
		d := spec.dirs[i]
		d.Col = p.col(e)
		w.Order = append(w.Order, d)
	}
	return w
}
