package sql

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// Statement is a parsed statement, analyzed lazily: describe fills in the
// parameter types and result columns.
type Statement struct {
	s          *Session
	src        string
	stmt       parse.Stmt
	paramTypes []repr.T
	described  bool
	cols       []resultCol
	// catVersion is the catalog version cols were described under.
	catVersion uint64
	// needsVersion is the catalog version a SELECT's EXECUTE needs were
	// derived under (refreshCallNeeds).
	needsVersion uint64
	// plan is the cached generic plan of a SELECT (see plancache.go).
	plan *cachedPlan
	// dml is the plan describe made of a parameterless write, under
	// catVersion and the time zone dmlZone: the first execution under
	// the same takes it instead of planning again (a refresh batch's
	// INSERT of thousands of rows costs as much to plan as to apply).
	dml     *dmlPlan
	dmlZone string
	// insPlan is the kept plan of a prepared INSERT with parameters
	// (insert_template.go).
	insPlan *insertPlan
	// bound marks a statement whose names are bound to schemas
	// (qualifyNames), which happens once, before it is first described;
	// needs are the privileges it then needs on relations, checked
	// before every execution.
	bound bool
	needs []privNeed
	// boundVersion is the catalog version needs were bound under
	// (refreshNeeds).
	boundVersion uint64
	// part and parts place the statement in its Query string: the
	// statements of a multi-statement simple Query (parts > 1) run as one
	// implicit transaction (implicit.go).
	part, parts int
	// writeTag is set when the statement is a write whose RETURNING has
	// subqueries, run in its data-modifying WITH form (returningAsWith):
	// the command tag's prefix (INSERT 0, UPDATE, DELETE), before the row
	// count.
	writeTag string
}

// resultCol is a result column with its SQL type.
type resultCol struct {
	Name       string
	Type       repr.T
	TableOID   uint32
	ColumnAttr int16
}

// ParamOIDs returns the parameter types (after inference).
func (st *Statement) ParamOIDs() []uint32 {
	out := make([]uint32, len(st.paramTypes))
	for i, t := range st.paramTypes {
		if t.Family == repr.FamUnknown {
			t = repr.Text
		}
		out[i] = t.OID()
	}
	return out
}

// Columns describes the result rows (nil when the statement returns none).
func (st *Statement) Columns() []Column {
	if !st.described {
		_ = st.describe()
	}
	return wireColumns(st.cols, nil)
}

// NumParams is len(ParamOIDs()), without building it.
func (st *Statement) NumParams() int { return len(st.paramTypes) }

// NumColumns is len(Columns()), without building it.
func (st *Statement) NumColumns() int { return len(st.resultCols()) }

// resultCols is the statement's result columns with their SQL types,
// described first if need be.
func (st *Statement) resultCols() []resultCol {
	if !st.described {
		_ = st.describe()
	}
	return st.cols
}

// checkPrivileges checks, before the statement runs, the privileges it
// needs under the current catalog (refreshNeeds, then refreshCallNeeds)
// for the session's current role.
func (st *Statement) checkPrivileges() error {
	if err := st.refreshNeeds(); err != nil {
		return err
	}
	st.refreshCallNeeds()
	return st.s.checkPrivileges(st.needs)
}

// refreshNeeds binds the relation names of a bound statement again when
// the catalog changed since they were bound: a relation dropped and
// created again under its name is another object, with its own grants
// and columns, and PostgreSQL re-plans (and re-checks) a prepared
// statement whose relations changed. The names were qualified at the
// first binding, so binding a copy of the AST resolves the same names
// (search_path is not consulted again) to the objects they now name.
func (st *Statement) refreshNeeds() error {
	v := st.s.e.catalogVersion()
	if !st.bound || st.stmt.AST == nil || v == st.boundVersion {
		return nil
	}
	ast := proto.Clone(st.stmt.AST).(*pg.Node)
	needs, err := st.s.qualifyNames(&parse.Stmt{AST: ast, SQL: st.stmt.SQL, Offset: st.stmt.Offset})
	if err != nil {
		return err
	}
	st.needs, st.boundVersion, st.needsVersion = needs, v, 0
	return nil
}

// refreshCallNeeds re-derives the EXECUTE needs of a described statement
// that runs a query (callQuery) or is a write from a planning of it, when
// the catalog changed since they were (a view it reads may have been
// replaced) or they were never derived; a planning that fails leaves
// them (by name and arity), for the execution to report its error.
func (st *Statement) refreshCallNeeds() {
	n := st.stmt.AST
	q, write := callQuery(n), isWrite(n)
	if n == nil {
		q = extCallQuery(st.stmt.Ext)
	}
	if !st.described || q == nil && !write {
		return
	}
	v := st.s.e.catalogVersion()
	if v == st.needsVersion {
		return
	}
	var calls []planner.Call
	opts := planner.Options{ParamTypes: st.paramTypes, TimeZone: st.s.settings.timeZone, Calls: &calls}
	var err error
	if write {
		opts.ModifyingCTEs = planner.DescribeModifyingCTEs(n)
		_, err = st.s.e.planDML(n, opts)
	} else {
		opts.ModifyingCTEs = planner.DescribeModifyingCTEs(q)
		var pq *planner.Query
		if pq, err = st.s.e.planQuery(q, opts); err == nil {
			calls = planner.LiveCalls(pq.Rel, calls)
		}
	}
	if err == nil {
		st.needs, st.needsVersion = callNeeds(st.needs, calls), v
	}
}

// isWrite reports whether n is an INSERT, UPDATE or DELETE.
func isWrite(n *pg.Node) bool {
	return n.GetInsertStmt() != nil || n.GetUpdateStmt() != nil || n.GetDeleteStmt() != nil
}

// callQuery is the query statement n runs whose calls PostgreSQL checks
// as executed (nil: none, or n's calls are checked by name and arity): a
// SELECT, and the query of CREATE TABLE AS, CREATE MATERIALIZED VIEW,
// DECLARE CURSOR, COPY (query) TO and EXPLAIN. CREATE VIEW is not among
// them: it checks no function (qualifier.stmt).
func callQuery(n *pg.Node) *pg.Node {
	var q *pg.Node
	switch {
	case n.GetSelectStmt() != nil:
		q = n
	case n.GetCreateTableAsStmt() != nil:
		q = n.GetCreateTableAsStmt().Query
	case n.GetDeclareCursorStmt() != nil:
		q = n.GetDeclareCursorStmt().Query
	case n.GetCopyStmt() != nil:
		q = n.GetCopyStmt().Query
	case n.GetExplainStmt() != nil:
		q = n.GetExplainStmt().Query
	}
	if q.GetSelectStmt() == nil {
		return nil
	}
	return q
}

// extCallQuery is the query of SUBSCRIBE and CREATE SINK, whose calls
// are checked as a SELECT's: SELECT * FROM the relation they name (a
// view's calls), or their query (nil: another statement).
func extCallQuery(x parse.Ext) *pg.Node {
	var rel *pg.RangeVar
	var q *pg.Node
	switch x := x.(type) {
	case *parse.Subscribe:
		rel, q = x.Relation, x.Query
	case *parse.CreateSink:
		rel, q = x.From, x.Query
	}
	if rel != nil {
		star := &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{{Node: &pg.Node_AStar{AStar: &pg.A_Star{}}}}}}}
		return &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
			TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: star}}}},
			FromClause: []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: rel}}},
			Op:         pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}}}
	}
	if q.GetSelectStmt() == nil {
		return nil
	}
	return q
}

// describe analyzes the statement for its parameter types and result
// columns without executing it.
func (st *Statement) describe() error {
	st.described = true
	if !st.bound {
		st.bound, st.boundVersion = true, st.s.e.catalogVersion()
		needs, err := st.s.qualifyNames(&st.stmt)
		if err != nil {
			return withPosition(err, st.src, -1)
		}
		st.needs = needs
	}
	st.catVersion = st.s.e.catalogVersion()
	n := st.stmt.AST
	opts := planner.Options{ParamTypes: st.paramTypes, TimeZone: st.s.settings.timeZone,
		ModifyingCTEs: planner.DescribeModifyingCTEs(n), Locked: planner.DescribeLockedSubqueries()}
	var err error
	switch {
	case n.GetSelectStmt() != nil:
		var q *planner.Query
		var calls []planner.Call
		opts.Calls = &calls
		q, err = st.s.e.planQuery(n, opts)
		if err == nil {
			st.cols, st.paramTypes = queryColumns(q.Columns), q.ParamTypes
			st.needs, st.needsVersion = callNeeds(st.needs, planner.LiveCalls(q.Rel, calls)), st.catVersion
		}
	case n.GetInsertStmt() != nil && len(n.GetInsertStmt().ReturningList) > 0,
		n.GetUpdateStmt() != nil && len(n.GetUpdateStmt().ReturningList) > 0,
		n.GetDeleteStmt() != nil && len(n.GetDeleteStmt().ReturningList) > 0:
		var dml *dmlPlan
		var calls []planner.Call
		opts.Calls = &calls
		dml, err = st.s.e.planDML(n, opts)
		if err == nil {
			st.needs, st.needsVersion = callNeeds(st.needs, calls), st.catVersion
			st.cols, st.paramTypes = queryColumns(dml.returningCols), dml.paramTypes
			if opts.ModifyingCTEs == nil && !opts.Locked.Met() { // such a plan has no rows for them
				st.keepDML(dml)
			}
		}
	case n.GetInsertStmt() != nil || n.GetUpdateStmt() != nil || n.GetDeleteStmt() != nil:
		var dml *dmlPlan
		var calls []planner.Call
		opts.Calls = &calls
		dml, err = st.s.e.planDML(n, opts)
		if err == nil {
			st.needs, st.needsVersion = callNeeds(st.needs, calls), st.catVersion
			st.paramTypes = dml.paramTypes
			if opts.ModifyingCTEs == nil && !opts.Locked.Met() { // such a plan has no rows for them
				st.keepDML(dml)
			}
		}
	case n.GetCallStmt() != nil:
		err = st.describeCall(n.GetCallStmt(), opts)
	case st.stmt.Ext != nil:
		st.cols, err = st.s.describeExt(st.stmt.Ext)
	case n.GetFetchStmt() != nil:
		if c := st.s.cursors[n.GetFetchStmt().Portalname]; c != nil && !n.GetFetchStmt().Ismove {
			st.cols = c.cols
		} else if q, ok := st.s.protocolPortal(n.GetFetchStmt().Portalname); ok && !n.GetFetchStmt().Ismove {
			st.cols = q.st.cols
		}
	case n.GetDeclareCursorStmt() != nil && n.GetDeclareCursorStmt().Query.GetSelectStmt() != nil:
		// DECLARE returns no rows, but its query's parameters are the
		// statement's (psycopg 3's server-side cursors bind them).
		var q *planner.Query
		if err = refuseModifyingWith(n.GetDeclareCursorStmt().Query, "DECLARE CURSOR must not contain"); err != nil {
			break
		}
		q, err = st.s.e.planQuery(n.GetDeclareCursorStmt().Query, opts)
		if err == nil {
			st.paramTypes = q.ParamTypes
		}
	case n.GetExecuteStmt() != nil:
		if ps := st.s.prepared[n.GetExecuteStmt().Name]; ps != nil && ps.st != nil {
			st.cols = ps.st.resultCols()
		}
	case n.GetVariableShowStmt() != nil:
		name := n.GetVariableShowStmt().Name
		if strings.EqualFold(name, "all") {
			st.cols = []resultCol{{Name: "name", Type: repr.Text}, {Name: "setting", Type: repr.Text}, {Name: "description", Type: repr.Text}}
		} else {
			st.cols = []resultCol{{Name: showColumnName(name), Type: repr.Text}}
		}
	case n.GetExplainStmt() != nil:
		st.cols = []resultCol{{Name: "QUERY PLAN", Type: repr.Text}}
		if f, _ := explainFormat(n.GetExplainStmt()); f == explainJSON {
			st.cols[0].Type = repr.JSON
		}
	}
	return withPosition(err, st.src, -1)
}

// keepDML keeps describe's plan of a write for its first execution, if
// the statement has no parameters (the plan then depends only on the
// catalog and the time zone).
func (st *Statement) keepDML(d *dmlPlan) {
	st.dml = nil
	if len(d.paramTypes) == 0 {
		st.dml, st.dmlZone = d, st.s.settings.timeZone
	}
}

// takeDML returns, once, the plan describe kept of a parameterless write
// if the catalog and the time zone are still those it was planned under;
// nil otherwise.
func (st *Statement) takeDML() *dmlPlan {
	d := st.dml
	st.dml = nil
	if d == nil || st.dmlZone != st.s.settings.timeZone || st.s.e.catalogVersion() != st.catVersion {
		return nil
	}
	return d
}

func queryColumns(cs []planner.ResultColumn) []resultCol {
	out := make([]resultCol, len(cs))
	for i, c := range cs {
		out[i] = resultCol{Name: c.Name, Type: c.Type, TableOID: tableOID(c.TableID), ColumnAttr: c.ColumnAttr}
	}
	return out
}

// wireColumns converts result columns to wire descriptions with formats.
func wireColumns(cs []resultCol, formats []int16) []Column {
	if cs == nil {
		return nil
	}
	out := make([]Column, len(cs))
	for i, c := range cs {
		out[i] = Column{Name: c.Name, TableOID: c.TableOID, ColumnAttr: c.ColumnAttr,
			TypeOID: c.Type.OID(), TypeSize: c.Type.Size(), TypeMod: c.Type.TypeMod(), Format: formatAt(formats, i)}
	}
	return out
}

// formatAt applies the protocol's format-code rules: none means text, one
// applies to all, otherwise one per column.
func formatAt(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return 0
	case 1:
		return formats[0]
	}
	if i < len(formats) {
		return formats[i]
	}
	return 0
}

// Bind decodes the parameters and returns a portal ready to execute.
func (st *Statement) Bind(ctx context.Context, params [][]byte, paramFormats []int16, resultFormats []int16) (*Portal, error) {
	if st.s.tx == txFailed && !isTxEnd(st.stmt.AST) {
		return nil, errInFailedTx
	}
	ctx, stop := st.s.statementContext(ctx) // as a Parse
	defer stop()
	if err := st.s.enterGateToDescribe(ctx, &st.stmt); err != nil {
		return nil, err
	}
	defer st.s.leaveGate()
	p, err := st.bind(params, paramFormats, resultFormats)
	if err != nil {
		st.s.Failed()
	}
	return p, err
}

// bind is Bind in a block that has not failed.
func (st *Statement) bind(params [][]byte, paramFormats []int16, resultFormats []int16) (*Portal, error) {
	if !st.described {
		if err := st.describe(); err != nil {
			return nil, err
		}
	}
	if len(params) != len(st.paramTypes) {
		return nil, repr.Errorf(repr.CodeProtocolViolation,
			"bind message supplies %d parameters, but prepared statement requires %d", len(params), len(st.paramTypes))
	}
	vals := make([]repr.Datum, len(params))
	for i, p := range params {
		v, err := st.decodeParam(p, formatAt(paramFormats, i), st.paramTypes[i])
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	p := &Portal{st: st, params: vals, formats: st.s.fetchFormats(st.stmt.AST, resultFormats)}
	if cs := st.stmt.AST.GetCopyStmt(); cs != nil {
		if err := st.s.checkWritable(st.stmt.AST); err != nil {
			return nil, err
		}
		if err := st.checkPrivileges(); err != nil {
			return nil, err
		}
		if err := p.prepareCopy(cs); err != nil {
			return nil, err
		}
	}
	if x, ok := st.stmt.Ext.(*parse.Subscribe); ok {
		if err := st.s.checkSubscribeInBlock(); err != nil {
			return nil, err
		}
		if err := p.bindSubscribe(x); err != nil {
			return nil, err
		}
		p.copyOut = x.ViaCopy
	}
	return p, nil
}

var errInFailedTx = repr.Errorf(repr.CodeInFailedTransaction,
	"current transaction is aborted, commands ignored until end of transaction block")

// decodeParam decodes one parameter value in text or binary format. The
// text form of a reg* type may name an object ('int4' as a regtype,
// psycopg's TypeInfo.fetch), which takes the session's catalog.
func (st *Statement) decodeParam(b []byte, format int16, t repr.T) (repr.Datum, error) {
	if b == nil {
		return repr.Null, nil
	}
	if t.Family == repr.FamUnknown {
		t = repr.Text
	}
	if t.Composite != 0 {
		return st.s.e.compositeParam(b, format, t, st.s.location())
	}
	if t.Enum != 0 {
		return st.s.e.enumParam(b, format, t)
	}
	if format == 1 {
		return repr.ParseBinary(b, t)
	}
	if t.Family == repr.FamInt && !t.IsReg() {
		if i, ok := plainInt(b, t.Width); ok {
			return repr.NewInt(i), nil
		}
	}
	if t.IsReg() {
		return regParam(st.s, string(b), t)
	}
	return repr.ParseText(string(b), t, st.s.location())
}

// plainInt parses a text integer parameter that is only an optional minus
// sign and at most 18 digits, within width bits (16, 32, else 64), without
// the string conversion ParseText needs (an allocation per parameter of a
// driver's batched INSERT); ok is false for anything else (spaces, a plus
// sign, more digits, out of range), which ParseText then parses or refuses.
// COPY's text fields take the same path.
func plainInt[B string | []byte](b B, width int32) (i int64, ok bool) {
	digits := b
	if len(b) > 0 && b[0] == '-' {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	for j := range len(digits) {
		c := digits[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int64(c-'0')
	}
	if len(digits) < len(b) {
		i = -i
	}
	switch width {
	case 16:
		ok = i >= math.MinInt16 && i <= math.MaxInt16
	case 32:
		ok = i >= math.MinInt32 && i <= math.MaxInt32
	default:
		ok = true
	}
	return i, ok
}

// regParam parses a reg* parameter's text: an OID as is, "-" as 0,
// otherwise the name of an object the catalog looks up.
func regParam(s *Session, text string, t repr.T) (repr.Datum, error) {
	trimmed := strings.TrimSpace(text)
	if n, err := strconv.ParseUint(trimmed, 10, 32); err == nil {
		return repr.NewInt(int64(n)), nil
	}
	if trimmed == "-" {
		return repr.NewInt(0), nil
	}
	oid, err := catalogSession(s).RegIn(t, trimmed)
	return repr.NewInt(int64(oid)), err
}

// isTxEnd reports whether n ends a transaction block (allowed when failed).
func isTxEnd(n *pg.Node) bool {
	ts := n.GetTransactionStmt()
	if ts == nil {
		return false
	}
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK,
		pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return true
	}
	return false
}

// stmtKind names a statement for error messages, e.g. "CREATE INDEX".
func stmtKind(n *pg.Node) string {
	name := fmt.Sprintf("%T", n.Node)
	name = strings.TrimPrefix(name, "*pg_query.Node_")
	return name
}

// tableOID is RowDescription's table OID of a result column: the
// relation's pg_class OID, 0 for a computed column.
func tableOID(id repr.CollectionID) uint32 {
	if id == 0 {
		return 0
	}
	return relOID(uint64(id))
}
