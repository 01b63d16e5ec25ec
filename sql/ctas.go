package sql

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// CREATE TABLE ... AS and SELECT ... INTO: a table created with the
// query's column names and types, then filled by INSERT INTO it SELECT
// the query through the ordinary write path (constraints, views, the
// write set), all in one transaction as in PostgreSQL: inside a block as
// part of it, otherwise in a block of its own, so that a query failing
// at run time leaves no table behind. WITH NO DATA creates the table
// only. The command tag is PostgreSQL's "SELECT n".

// selectIntoTable rewrites SELECT ... INTO t ... as CREATE TABLE t AS
// SELECT ..., which it means; other statements are returned as they are.
func selectIntoTable(n *pg.Node) *pg.Node {
	sel := n.GetSelectStmt()
	if sel == nil || sel.IntoClause == nil {
		return n
	}
	into := sel.IntoClause
	sel.IntoClause = nil
	return &pg.Node{Node: &pg.Node_CreateTableAsStmt{CreateTableAsStmt: &pg.CreateTableAsStmt{
		Query: n, Into: into, Objtype: pg.ObjectType_OBJECT_TABLE}}}
}

// createTable executes CREATE TABLE ... AS (see above).
func (p *Portal) createTable(ctx context.Context, st *pg.CreateTableAsStmt) error {
	p.tag = "CREATE TABLE AS"
	if st.Query.GetSelectStmt() == nil {
		return repr.Unsupported("CREATE TABLE AS EXECUTE")
	}
	s := p.st.s
	if s.tx != txIdle {
		return p.fillNewTable(ctx, st)
	}
	s.beginBlock()
	s.blk.implicit = true
	err := s.beginDDL(ctx)
	if err == nil {
		err = p.fillNewTable(ctx, st)
	}
	if err != nil {
		s.endRollback()
		return err
	}
	return s.endTx()
}

// fillNewTable creates the table of CREATE TABLE ... AS and inserts the
// query's rows, inside the session's block.
func (p *Portal) fillNewTable(ctx context.Context, st *pg.CreateTableAsStmt) error {
	s := p.st.s
	sql, err := viewSQL(st.Query, st.Into.ColNames)
	if err != nil {
		return err
	}
	var cols []ColumnDef
	s.e.readLocked(func() {
		cols, _, err = s.e.describeQuery(sql, false, s.settings.timeZone)
	})
	if err == nil {
		err = distinctColumns(cols)
	}
	if err != nil {
		return err
	}
	obj := &Object{Kind: planner.RelTable, Schema: schemaOf(st.Into.Rel), Name: st.Into.Rel.Relname, Columns: cols,
		Owner: s.newOwner()}
	if err := s.e.createObjects([]*Object{obj}, st.IfNotExists); err != nil {
		return err
	}
	if err := s.noteOnCommit(st.Into.Rel, st.Into.OnCommit); err != nil || st.Into.SkipData {
		return err
	}
	rel := &pg.RangeVar{Schemaname: obj.Schema, Relname: obj.Name, Inh: true, Relpersistence: "p", Location: -1}
	ins := &pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: &pg.InsertStmt{Relation: rel, SelectStmt: st.Query,
		Override: pg.OverridingKind_OVERRIDING_NOT_SET}}}
	if err := p.execDML(ctx, ins); err != nil {
		return err
	}
	p.tag = "SELECT " + strings.TrimPrefix(p.tag, "INSERT 0 ")
	return nil
}
