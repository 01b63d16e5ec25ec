package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// builder holds the state of planning one statement.
type builder struct {
	// insertTypes are the target column types of an INSERT's select-list
	// entries: an untyped literal there takes its column's type, as
	// PostgreSQL resolves INSERT ... SELECT '2020-01-01' (targetExpr).
	insertTypes map[*pg_query.Node]repr.T

	cat  Catalog
	opts Options
	// natural holds the FROM items (functions, derived tables) whose
	// natural order their block keeps (natural.go).
	natural map[any]bool
	// naturalPrev is the range of FROM columns of the item before the
	// set-returning function being planned in a FROM list (natural.go).
	naturalPrev [2]int
	// routines notes that the plan calls a PL/pgSQL function
	// (Query.Routines).
	routines bool
	// paramTypes are the parameter types known or inferred so far.
	paramTypes []repr.T
	// placeholders maps the stand-in literal of an untyped, unbound
	// parameter to its 0-based number, so coercion can infer its type.
	placeholders map[*expr.Lit]int
	// stringConsts maps the literal of a string constant to its parse
	// node, kept only while Options.IntervalTexts is set.
	stringConsts map[*expr.Lit]*pg_query.A_Const
	// views guards against recursive view definitions.
	views int
	// inlining are the SQL functions whose calls are being inlined
	// (sqlfunc.go), by ID: a call of one of them is recursion.
	inlining map[uint64]bool
	// argSeq numbers the markers of arguments bound as values
	// (sqlfunc_value.go).
	argSeq int
	// fnItems plans the LATERAL derived table a FROM call of a SQL
	// function stands for (sqlfunc_bind.go), in place of lateral's
	// correlate.
	fnItems map[*pg_query.RangeSubselect]func(*ectx) (*planned, []int, error)
	// rankLimits holds, for a derived table whose row_number() the
	// enclosing query bounds, the TopK it plans as (see rownumber.go).
	rankLimits map[*pg_query.SelectStmt]rankLimit
	// nowCalls are the now() calls planned for a materialized view, true
	// once a temporal filter consumed them (temporal.go).
	nowCalls map[*expr.Call]bool
	// sessions tracks SESSION windows until GROUP BY keys them (session.go).
	sessions sessionState
	// ctes are the common table expressions in scope, outermost first
	// (cte.go).
	ctes []*cte
	// loopIDs numbers the recursive CTEs planned (ir.LoopVar IDs).
	loopIDs int
	// tagging counts the recursive terms being planned whose rows carry
	// an iteration tag (recursive_tag.go): in them, a column named iterCol
	// is the tag, which no * expands.
	tagging int
	// tagDomains are, for the tagged recursive terms being planned
	// (innermost last), the iterations whose working table PostgreSQL
	// runs the term on (fillTags).
	tagDomains []ir.Rel
	// readsOuter marks the parts of JOIN trees (*pg_query.JoinExpr, its
	// Quals node, *pg_query.RangeSubselect) that decorrelation's first
	// pass saw read the enclosing queries' columns (joinouter.go).
	readsOuter map[any]bool
	// wholeRefs are the names the statement may use as whole-row
	// references, and wholeScanned the query blocks noteWholeRefs read
	// (presence.go).
	wholeRefs    map[string]bool
	wholeScanned map[*pg_query.SelectStmt]bool
	// inlined holds the derived table standing for each reference to an
	// inlined CTE, and cteFrames each inlined CTE query's frame (cte.go).
	inlined   map[*pg_query.RangeVar]*pg_query.Node
	cteFrames map[*pg_query.SelectStmt]int
	// recInline maps the UNION of each inlined recursive CTE (one that
	// reads the enclosing queries' columns) to the CTE: planQuery plans
	// it as the recursion over the outer values (recursive.go).
	recInline map[*pg_query.SelectStmt]*pg_query.CommonTableExpr
	// lockSlots numbers the query blocks with a locking clause below the
	// top level in the order planning meets them (Options.Locked).
	lockSlots map[*pg_query.SelectStmt]int
	// domainBases maps a relation decorrelation derived (a join back, a
	// semi-join) to the relation it derived it from (subquery.go,
	// domainBase).
	domainBases map[ir.Rel]ir.Rel
	// sharedSeq numbers the ir.Shared nodes of the plan (volatile.go).
	sharedSeq int
	// slots are the bare parameters of the VALUES rows constRows
	// evaluated (insert_template.go); paramExprs counts the parameters
	// planned as expressions anywhere else.
	slots      []paramSlot
	paramExprs int
	// outerAggs maps each outer-level aggregate call to the query block
	// that aggregates it, and scopeOwner the FROM and aggregated scopes
	// of the blocks to their block (agglevel.go). outerAggs is nil
	// outside planOuterAggs (the calls stay 0A000).
	outerAggs  map[any]*pg_query.SelectStmt
	scopeOwner map[*scope]*pg_query.SelectStmt
}

func newBuilder(cat Catalog, opts Options) *builder {
	b := &builder{cat: cat, opts: opts, placeholders: map[*expr.Lit]int{},
		rankLimits: map[*pg_query.SelectStmt]rankLimit{}, readsOuter: map[any]bool{},
		inlined: map[*pg_query.RangeVar]*pg_query.Node{}, cteFrames: map[*pg_query.SelectStmt]int{},
		recInline:   map[*pg_query.SelectStmt]*pg_query.CommonTableExpr{},
		lockSlots:   map[*pg_query.SelectStmt]int{},
		domainBases: map[ir.Rel]ir.Rel{}, scopeOwner: map[*scope]*pg_query.SelectStmt{}}
	b.paramTypes = append([]repr.T(nil), opts.ParamTypes...)
	return b
}

// finalParamTypes returns the parameter types, text where nothing said.
func (b *builder) finalParamTypes() []repr.T {
	out := append([]repr.T(nil), b.paramTypes...)
	for i, t := range out {
		if t.Family == repr.FamUnknown {
			out[i] = repr.Text
		}
	}
	return out
}

// unitRel is the relation with one row and no columns (FROM-less SELECT).
func unitRel() ir.Rel { return &ir.Values{Rows: [][]expr.Expr{{}}} }

// ectx is the context of building scalar expressions over a relation.
type ectx struct {
	b  *builder
	sc *scope
	// args are the bound arguments of the SQL functions being inlined by
	// value, by their marker names (sqlfunc_value.go).
	args map[string]expr.Expr
	// rel is the relation sc describes; decorrelated subqueries extend it
	// with result columns (existing columns keep their positions).
	rel ir.Rel
	// clause names the clause for error messages ("WHERE", "JOIN/ON", ...).
	clause string
	// grp is set when building over an aggregated relation.
	grp *grouping
	// noSubquery rejects subqueries (aggregate arguments, VALUES, DML).
	noSubquery bool
	// onSubs holds the values of a join condition's scalar subqueries,
	// planned beforehand (onsubquery.go); nil elsewhere.
	onSubs map[*pg_query.SubLink]expr.Expr
	// wins holds the values of the window function calls planned below
	// the select list and ORDER BY (winfunc.go); nil elsewhere.
	wins map[*pg_query.FuncCall]expr.Expr
	// srfs holds the values of the select list's set-returning function
	// calls, columns of the FlatMap below it (srf.go); nil elsewhere.
	srfs map[*pg_query.FuncCall]expr.Expr
	// twinKeys maps GROUP BY items that are select-list entries equal to
	// an earlier entry to their own key (twinTargetNode); nil elsewhere.
	twinKeys map[*pg_query.Node]int
	// srfBase is the relation the select list's set-returning calls
	// expand (ec.rel before their FlatMaps, srf.go): DISTINCT ON moves
	// the FlatMaps over it above its TopK (deferLate). nil elsewhere.
	srfBase ir.Rel
	// srfCalls, when set, holds the GROUP BY's set-returning calls by
	// their planned form (srfgroup.go), whose values equal calls read;
	// nil elsewhere.
	srfCalls map[string]*pg_query.FuncCall
	// srfFields holds, for a select-list set-returning call with several
	// result columns (whose value is a record), each column's value and
	// name, so (f(...)).name selects it (fieldselect.go).
	srfFields map[*pg_query.FuncCall][]namedExpr
	// records names the fields of the record values built here: a
	// select-list item with an entry passes the names on to its result
	// column.
	records map[expr.Expr][]expr.TableCol
	// guard, when set, is the condition (over rel's columns) under which
	// a row reaches the expression being built (a CASE branch): the
	// subqueries planned now take their domains from such rows (guard.go).
	guard expr.Expr
	// groupCols are the FROM columns the block groups by, when its GROUP
	// BY is plain: a hypothetical-set aggregate's arguments may read them
	// (hypothetical.go).
	groupCols []int
	// groupKeys are the printed GROUP BY key expressions of a plain GROUP
	// BY: a direct argument may read them (groupConstant).
	groupKeys []string
	// naturalWindows says the block's window functions over an empty
	// window see its FROM rows in their natural order (natural.go).
	naturalWindows bool
	// keepNatural says the block's rows are ordered by natural, their
	// natural keys so far (natural.go); select-list set-returning calls
	// add their ordinals.
	keepNatural bool
	natural     []expr.Expr
	naturalDirs []expr.SortCol
}

// predicate builds a boolean condition (WHERE, ON, HAVING).
func (c *ectx) predicate(n *pg_query.Node) (expr.Expr, error) {
	e, err := c.expr(n)
	if err != nil {
		return nil, err
	}
	return c.b.toBool(e, c.clause, n)
}

// toBool coerces e to boolean, or fails with 42804 naming the clause.
func (b *builder) toBool(e expr.Expr, clause string, n *pg_query.Node) (expr.Expr, error) {
	t := e.Type()
	if t.Family == repr.FamBool {
		return e, nil
	}
	if t.Family == repr.FamUnknown {
		return b.coerce(e, repr.Bool)
	}
	return nil, repr.Errorf(repr.CodeDatatypeMismatch, "argument of %s must be type boolean, not type %s", clause, t.Name()).WithPosition(location(n) + 1)
}

// coerce converts e to type t with an implicit cast (the caller checked it
// is allowed). Untyped parameters take the type t.
func (b *builder) coerce(e expr.Expr, t repr.T) (expr.Expr, error) {
	out, err := b.convert(e, t)
	b.noteCast(e, t, out)
	return out, err
}

// convert is coerce without recording the cast: a call's argument casts
// are recorded with the call.
func (b *builder) convert(e expr.Expr, t repr.T) (expr.Expr, error) {
	if lit, ok := e.(*expr.Lit); ok {
		if n, ok := b.placeholders[lit]; ok {
			if t.Family != repr.FamUnknown {
				b.paramTypes[n] = t
			}
			return &expr.Lit{D: repr.Null, T: t}, nil
		}
	}
	if e.Type() == t {
		return e, nil
	}
	if isEnumInput(e.Type(), t) {
		return b.enumIn(e, t)
	}
	return b.foldLiteral(expr.NewCast(e, t))
}

// assign converts e to a column type t with assignment semantics (INSERT,
// UPDATE, DEFAULT): 42804 when no assignment cast exists.
func (b *builder) assign(e expr.Expr, t repr.T, col string) (expr.Expr, error) {
	from := e.Type()
	if isComposite(from, t) {
		return b.coerceComposite(e, t, false, -1)
	}
	if from.Family != repr.FamUnknown && repr.CastContextOf(from, t) < repr.CastAssignment {
		return nil, repr.Errorf(repr.CodeDatatypeMismatch, "column %q is of type %s but expression is of type %s", col, b.typeName(t), b.typeName(from)).
			WithHint("You will need to rewrite or cast the expression.")
	}
	return b.coerce(e, t)
}

// explicitCast is CAST(e AS t) / e::t.
func (b *builder) explicitCast(e expr.Expr, t repr.T, loc int32) (expr.Expr, error) {
	return b.castAs(e, t, loc, true)
}

// internalCast is an explicit cast that stands for no cast of
// PostgreSQL's (CURRENT_DATE's of now(), an aggregate's key), not
// recorded for EXECUTE checks.
func (b *builder) internalCast(e expr.Expr, t repr.T, loc int32) (expr.Expr, error) {
	return b.castAs(e, t, loc, false)
}

// castAs is an explicit cast of e to t, recorded (Options.Calls) when note.
func (b *builder) castAs(e expr.Expr, t repr.T, loc int32, note bool) (expr.Expr, error) {
	from := e.Type()
	if lit, ok := e.(*expr.Lit); ok {
		if _, ok := b.placeholders[lit]; ok {
			return b.coerce(e, t)
		}
	}
	if isComposite(from, t) {
		return b.coerceComposite(e, t, true, loc)
	}
	if from.Family != repr.FamUnknown && repr.CastContextOf(from, t) < repr.CastExplicit {
		return nil, repr.Errorf("42846", "cannot cast type %s to %s", b.typeName(from), b.typeName(t)).WithPosition(loc + 1)
	}
	if from == t {
		return e, nil
	}
	if isEnumInput(from, t) {
		out, err := b.enumIn(e, t)
		return out, withPos(err, loc)
	}
	out, err := b.foldLiteral(&expr.Cast{Arg: e, To: t, Explicit: true})
	if note {
		b.noteCast(e, t, out)
	}
	return out, err
}

// foldLiteral evaluates a cast of a literal now, so typed literals print
// and compare as constants; data errors (22P02 ...) surface at plan time as
// in PostgreSQL, which also converts literals during parse analysis (in the
// session's time zone).
func (b *builder) foldLiteral(e expr.Expr) (expr.Expr, error) {
	c, ok := e.(*expr.Cast)
	if !ok {
		return e, nil
	}
	lit, ok := c.Arg.(*expr.Lit)
	if ok && expr.StyledInput(lit.D, lit.Type(), c.To) {
		if a := b.stringConsts[lit]; a != nil {
			return b.styleFreeCast(c, a)
		}
		// IntervalStyle sql_standard reads this text differently: the
		// session's style decides at run time, which a view cannot follow
		return e, b.styledIntervalInView(lit.D.Text())
	}
	if !ok || expr.IsVolatile(c) || expr.StyledCast(lit.Type(), c.To) {
		// a reg* cast of a name reads the catalog when run; floats print
		// as text by the session's extra_float_digits
		return e, nil
	}
	if out, ok, err := b.nowInput(lit, c); ok {
		return out, err
	}
	d, err := c.Eval(&expr.Ctx{TimeZone: b.opts.TimeZone}, nil)
	if err != nil {
		return nil, err
	}
	return &expr.Lit{D: d, T: c.To}, nil
}

// location returns the byte offset of n's Location field (0 when none).
func location(n *pg_query.Node) int32 {
	switch {
	case n == nil:
		return 0
	case n.GetColumnRef() != nil:
		return n.GetColumnRef().Location
	case n.GetAConst() != nil:
		return n.GetAConst().Location
	case n.GetAExpr() != nil:
		return n.GetAExpr().Location
	case n.GetFuncCall() != nil:
		return n.GetFuncCall().Location
	case n.GetTypeCast() != nil:
		return n.GetTypeCast().Location
	case n.GetBoolExpr() != nil:
		return n.GetBoolExpr().Location
	case n.GetSubLink() != nil:
		return n.GetSubLink().Location
	case n.GetCaseExpr() != nil:
		return n.GetCaseExpr().Location
	case n.GetParamRef() != nil:
		return n.GetParamRef().Location
	case n.GetNullTest() != nil:
		return n.GetNullTest().Location
	case n.GetResTarget() != nil:
		return n.GetResTarget().Location
	}
	return 0
}

// withPos attaches a 1-based position to a user error that has none.
func withPos(err error, loc int32) error {
	if e, ok := err.(*repr.Error); ok && e.Position == 0 && loc >= 0 {
		return e.WithPosition(loc + 1)
	}
	return err
}
