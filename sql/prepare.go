package sql

import (
	"context"
	"sort"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
)

// Named prepared statements: the protocol's (Parse with a name) and SQL's
// (PREPARE) share one namespace per session, as in PostgreSQL, so that
// EXECUTE runs a statement a driver prepared, DEALLOCATE ALL (pgx, pgjdbc)
// and DISCARD ALL (PgBouncer) drop the driver's statements too, and
// pg_prepared_statements lists them all. The unnamed statement stays in
// the protocol layer.

// prepared is a named prepared statement; st is nil for an empty query.
type prepared struct {
	st      *Statement
	sql     string
	fromSQL bool
	at      time.Time
}

var (
	errDuplicatePrepared = repr.ErrorKind{Code: "42P05", Format: "prepared statement \"%s\" already exists"}
	errNoPrepared        = repr.ErrorKind{Code: repr.CodeInvalidPreparedStmt, Format: "prepared statement \"%s\" does not exist"}
)

// DefineStatement names a statement prepared by the protocol (st nil: the
// empty query); 42P05 if the name is taken.
func (s *Session) DefineStatement(name, sql string, st *Statement) error {
	return s.definePrepared(name, &prepared{st: st, sql: sql, at: time.Now()})
}

// definePrepared registers ps under name.
func (s *Session) definePrepared(name string, ps *prepared) error {
	if _, ok := s.prepared[name]; ok {
		return errDuplicatePrepared.New(name)
	}
	if s.prepared == nil {
		s.prepared = map[string]*prepared{}
	}
	s.prepared[name] = ps
	return nil
}

// LookupStatement finds a named prepared statement (nil, true for an
// empty query).
func (s *Session) LookupStatement(name string) (*Statement, bool) {
	ps, ok := s.prepared[name]
	if !ok {
		return nil, false
	}
	return ps.st, true
}

// CloseStatement forgets a named prepared statement, if it exists.
func (s *Session) CloseStatement(name string) { delete(s.prepared, name) }

// execPrepare executes PREPARE name [(types)] AS statement: the statement
// is analyzed now, as PostgreSQL does, so errors show at once.
func (p *Portal) execPrepare(ps *pg.PrepareStmt) error {
	s := p.st.s
	if _, ok := s.prepared[ps.Name]; ok {
		return errDuplicatePrepared.New(ps.Name)
	}
	var types []repr.T
	for _, a := range ps.Argtypes {
		t, err := typeFromName(a.GetTypeName())
		if err != nil {
			return err
		}
		types = append(types, t)
	}
	ast, writeTag := returningAsWith(ps.Query)
	st := &Statement{s: s, src: p.st.src, stmt: parse.Stmt{AST: ast, SQL: p.st.stmt.SQL, Offset: p.st.stmt.Offset},
		paramTypes: types, writeTag: writeTag}
	if err := st.describe(); err != nil {
		return err
	}
	p.tag = "PREPARE"
	return s.definePrepared(ps.Name, &prepared{st: st, sql: p.st.stmt.SQL, fromSQL: true, at: time.Now()})
}

// execExecute executes EXECUTE name [(args)]: the arguments are evaluated
// as constants cast to the parameter types, then the statement runs as if
// bound with them, its rows and tag becoming this statement's.
func (p *Portal) execExecute(ctx context.Context, es *pg.ExecuteStmt) error {
	s := p.st.s
	ps, ok := s.prepared[es.Name]
	if !ok {
		return errNoPrepared.New(es.Name)
	}
	if ps.st == nil {
		p.tag = ""
		return nil
	}
	st := ps.st
	if err := s.checkWritable(st.stmt.AST); err != nil {
		return err
	}
	if len(es.Params) != len(st.paramTypes) {
		return repr.Errorf(repr.CodeSyntax, "wrong number of parameters for prepared statement \"%s\"", es.Name).
			WithDetail("Expected %d parameters but got %d.", len(st.paramTypes), len(es.Params))
	}
	vals, err := s.evalArgs(es.Params, st.paramTypes)
	if err != nil {
		return err
	}
	// The prepared statement's own needs, for the role executing it now
	// (the EXECUTE statement names nothing itself).
	if err := st.checkPrivileges(); err != nil {
		return err
	}
	inner := &Portal{st: st, params: vals, formats: p.formats}
	if err := inner.dispatch(ctx, st.stmt.AST); err != nil {
		return err
	}
	p.rows, p.tag = inner.rows, inner.tag
	return nil
}

// evalArgs evaluates EXECUTE's arguments as SELECT arg::type, ....
func (s *Session) evalArgs(args []*pg.Node, types []repr.T) ([]repr.Datum, error) {
	if len(args) == 0 {
		return nil, nil
	}
	sel := &pg.SelectStmt{Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}
	for i, a := range args {
		tn, err := typeNameNode(types[i])
		if err != nil {
			return nil, err
		}
		cast := &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{Arg: a, TypeName: tn, Location: -1}}}
		sel.TargetList = append(sel.TargetList, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: cast, Location: -1}}})
	}
	n := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	q, err := s.e.planQuery(n, planner.Options{TimeZone: s.settings.timeZone})
	if err != nil {
		return nil, err
	}
	rows, err := s.e.runQuery(q, s.evalCtx(), s.ws)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 {
		return nil, repr.Errorf(repr.CodeInternal, "EXECUTE arguments gave %d rows", len(rows))
	}
	return rows[0], nil
}

// typeNameNode is the parsed type name of t (unknown parameters are
// text, as when binding them).
func typeNameNode(t repr.T) (*pg.TypeName, error) {
	if t.Family == repr.FamUnknown {
		t = repr.Text
	}
	res, err := pg.Parse("SELECT NULL::" + t.Name())
	if err != nil {
		return nil, err
	}
	return res.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast().TypeName, nil
}

// execDeallocate executes DEALLOCATE [PREPARE] name | ALL.
func (p *Portal) execDeallocate(ds *pg.DeallocateStmt) error {
	s := p.st.s
	p.tag = "DEALLOCATE"
	if ds.Isall || ds.Name == "" {
		p.tag = "DEALLOCATE ALL"
		clear(s.prepared)
		return nil
	}
	if _, ok := s.prepared[ds.Name]; !ok {
		return errNoPrepared.New(ds.Name)
	}
	delete(s.prepared, ds.Name)
	return nil
}

// execDiscard executes DISCARD ALL | PLANS | SEQUENCES | TEMP. DISCARD
// ALL (PgBouncer's reset query) closes every cursor, drops every prepared
// statement, resets the role and every setting, stops listening on every
// channel, forgets the session's sequence values and drops its temporary
// objects, which DISCARD TEMP drops alone (temp.go).
func (p *Portal) execDiscard(ds *pg.DiscardStmt) error {
	s := p.st.s
	switch ds.Target {
	case pg.DiscardMode_DISCARD_ALL:
		if s.tx != txIdle {
			return errNotInBlock.New("DISCARD ALL")
		}
		s.closeCursors()
		clear(s.prepared)
		s.restoreIdentity(identity{user: s.authUser}) // SET SESSION AUTHORIZATION DEFAULT
		s.resetAll()
		s.applyListen(listenAction{all: true})
		s.discardSequences()
		if err := s.discardTemp(); err != nil {
			return err
		}
		p.tag = "DISCARD ALL"
	case pg.DiscardMode_DISCARD_PLANS:
		for _, ps := range s.prepared {
			if ps.st != nil {
				ps.st.plan = nil
			}
		}
		p.tag = "DISCARD PLANS"
	case pg.DiscardMode_DISCARD_SEQUENCES:
		s.discardSequences()
		p.tag = "DISCARD SEQUENCES"
	case pg.DiscardMode_DISCARD_TEMP:
		if err := s.discardTemp(); err != nil {
			return err
		}
		p.tag = "DISCARD TEMP"
	default:
		return repr.Unsupported("DISCARD %s", ds.Target)
	}
	return nil
}

// discardSequences forgets the values currval and lastval report.
func (s *Session) discardSequences() {
	s.seqCurr, s.lastSeq = nil, nil
}

// preparedNames returns the named prepared statements in name order.
func (s *Session) preparedNames() []string {
	names := make([]string, 0, len(s.prepared))
	for n := range s.prepared {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
