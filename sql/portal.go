package sql

import (
	"context"
	"fmt"
	"strings"

	"github.com/eddydb/eddy/repr"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// Portal is a bound statement. Its first Execute runs the statement to
// completion and buffers the result rows; Execute with a row limit then
// hands them out in pieces (PortalSuspended in between).
type Portal struct {
	st       *Statement
	params   []repr.Datum
	formats  []int16
	executed bool
	rows     []repr.Row
	tag      string
	// pos is the number of rows read (by Execute, FETCH or MOVE); pastEnd
	// marks a portal read past its last row (FETCH's position after the
	// end, as opposed to on the last row).
	pos     int
	pastEnd bool
	buf     []byte
	copy    *copyFormat
	copyTo  *copyTo
	// stream is set for SUBSCRIBE: rows come as commits happen; copyOut
	// sends them as COPY TO STDOUT.
	stream  *subStream
	copyOut bool
	// lazy is set for a SELECT whose rows are produced as Execute sends
	// them (select_stream.go); only Execute's own run may set it
	// (streamOK), since EXECUTE and FETCH read rows.
	lazy     *rowStream
	streamOK bool
	// cur is set for the portal of a DECLAREd cursor (cursorportal.go).
	cur *cursor
	// mem is the statement's memory account (memory.go), opened by the
	// first Execute and released once the portal has sent its last row
	// (or is closed): buffered rows and a lazy stream stay accounted
	// while the portal is suspended.
	mem *memAccount
}

// Columns describes the result rows with their formats.
func (p *Portal) Columns() []Column { return wireColumns(p.st.cols, p.formats) }

// Close releases the portal (and the subscription of a SUBSCRIBE portal
// that never ran).
func (p *Portal) Close() {
	if p.lazy != nil {
		p.lazy.release() // its snapshots
	}
	p.rows, p.lazy = nil, nil
	p.mem.release()
	p.mem = nil
	if p.stream != nil && p.cur == nil {
		p.stream.sub.Close()
	}
}

// Execute runs the statement (the first time) and writes up to maxRows rows
// (0: all). It returns the command tag, or suspended when rows remain.
func (p *Portal) Execute(ctx context.Context, w RowWriter, maxRows int) (tag string, suspended bool, err error) {
	ctx, stop := p.st.s.statementContext(ctx)
	defer stop()
	p.st.s.beginActivity(ctx, p.st.src)
	defer p.st.s.endActivity()
	defer p.useMemory()(&suspended)
	if p.st.s.tx == txFailed && !isTxEnd(p.st.stmt.AST) {
		return "", false, errInFailedTx
	}
	if p.stream != nil && !p.executed && p.cur == nil {
		p.executed = true
		tag, err := p.streamRows(ctx, w)
		return tag, false, err
	}
	if err := p.st.s.enterGate(ctx, &p.st.stmt); err != nil {
		return "", false, err
	}
	defer p.st.s.leaveGate()
	if p.cur != nil {
		return p.executeCursor(ctx, w, maxRows)
	}
	if !p.executed {
		p.executed, p.streamOK = true, true
		err := p.run(ctx)
		p.streamOK = false
		err = p.st.s.finishPart(p.st, err)
		p.st.s.runOnCommit(ctx) // the transaction may have ended
		if err != nil {
			return "", false, err
		}
	}
	if p.lazy != nil {
		return p.executeStream(ctx, w, maxRows)
	}
	from := p.pos
	for p.pos < len(p.rows) {
		if err := ctx.Err(); err != nil {
			return "", false, canceled(ctx)
		}
		if err := w.WriteRow(p.encode(p.rows[p.pos])); err != nil {
			return "", false, err
		}
		p.pos++
		if maxRows > 0 {
			maxRows--
			if maxRows == 0 && p.pos < len(p.rows) {
				return "", true, nil
			}
		}
	}
	p.pastEnd = true
	return p.executedTag(p.pos - from), false, nil
}

// useMemory makes the portal's memory account, opened on first use, the
// session's for one Execute (or COPY). The function it returns restores
// the session's previous account (EXECUTE runs a statement inside
// another) and, unless *keep (the portal is suspended with rows left),
// releases the portal's: after a refusal that asked for a spill, the
// engine makes room for the statement's next attempt (makeRoom).
func (p *Portal) useMemory() func(keep *bool) {
	s := p.st.s
	if p.mem == nil {
		p.mem = s.e.mem.statementAccount(p.st.src)
	}
	prev := s.mem
	s.mem = p.mem
	return func(keep *bool) {
		s.mem = prev
		if !*keep && p.mem.release() {
			s.e.makeRoom()
		}
	}
}

// encode formats one row in the portal's result formats.
func (p *Portal) encode(r repr.Row) [][]byte {
	vals := make([][]byte, len(r))
	if p.buf == nil {
		// A nil slice of it would encode an empty string as NULL.
		p.buf = make([]byte, 0, 256)
	}
	p.buf = p.buf[:0]
	st := p.st.s.settings.textStyle()
	loc := st.Loc
	for i, d := range r {
		if d.IsNull() {
			continue
		}
		start := len(p.buf)
		t := p.st.cols[i].Type
		if formatAt(p.formats, i) == 1 {
			var err error
			if p.buf, err = repr.AppendBinary(p.buf, d, t); err != nil {
				p.buf = repr.AppendText(p.buf[:start], d, t, loc)
			}
		} else if t.IsReg() {
			p.buf = append(p.buf, p.regText(d, t)...)
		} else if t.Family == repr.FamArray && !t.Vector && t.ElemType().IsReg() {
			p.buf = repr.AppendText(p.buf, p.regArrayNames(d, t), repr.ArrayOf(repr.Text), loc)
		} else {
			p.buf = repr.AppendTextStyle(p.buf, d, t, st)
		}
		vals[i] = p.buf[start:len(p.buf):len(p.buf)]
	}
	return vals
}

// run executes the statement under the session's transaction rules: in
// autocommit mode a write commits at the end of the statement; inside a
// block it joins the block's write set; an error in a block fails the block.
func (p *Portal) run(ctx context.Context) (err error) {
	s := p.st.s
	s.startPart(p.st)
	s.xactEnded = false
	defer func() {
		if r := recover(); r != nil {
			s.e.log.Error("panic executing statement", "sql", p.st.stmt.SQL, "panic", r, "stack", stack())
			err = repr.Errorf(repr.CodeInternal, "internal error: %v", r)
		}
		err = asCanceled(ctx, err)
		if err != nil && s.tx == txBlock {
			s.tx = txFailed
		}
		if s.tx == txIdle && !s.xactEnded {
			s.e.stats.countXact(err == nil) // an autocommit statement's transaction
		}
		err = withPosition(err, p.st.src, -1)
	}()
	if err := s.checkWritable(p.st.stmt.AST); err != nil {
		return err
	}
	if x := p.st.stmt.Ext; x != nil {
		if err := s.checkWritableExt(x); err != nil {
			return err
		}
	}
	if takesSnapshot(p.st.stmt.AST) {
		s.markQueried()
	}
	if err := p.st.checkPrivileges(); err != nil {
		return err
	}
	if s.tx == txBlock {
		if err := s.ddlInBlock(ctx, &p.st.stmt); err != nil {
			return err
		}
	}
	return s.noticeSkipped(p.dispatch(ctx, p.st.stmt.AST))
}

// dispatch executes one statement by kind.
func (p *Portal) dispatch(ctx context.Context, n *pg.Node) error {
	s := p.st.s
	if x := p.st.stmt.Ext; x != nil {
		return p.dispatchExt(ctx, x)
	}
	switch {
	case hasModifyingCTE(n):
		err := p.execModifying(ctx, n)
		if err == nil && p.st.writeTag != "" {
			p.tag = fmt.Sprintf("%s %d", p.st.writeTag, len(p.rows))
		}
		return err
	case n.GetSelectStmt() != nil:
		return p.execSelect(ctx, n)
	case n.GetInsertStmt() != nil, n.GetUpdateStmt() != nil, n.GetDeleteStmt() != nil:
		return p.execDML(ctx, n)
	case n.GetTransactionStmt() != nil:
		return p.execTransaction(n.GetTransactionStmt())
	case n.GetVariableSetStmt() != nil && strings.EqualFold(n.GetVariableSetStmt().Name, "role"):
		p.tag = map[bool]string{true: "SET", false: "RESET"}[n.GetVariableSetStmt().Kind == pg.VariableSetKind_VAR_SET_VALUE]
		return s.setRole(argsText(n.GetVariableSetStmt().Args))
	case n.GetVariableSetStmt() != nil && strings.EqualFold(n.GetVariableSetStmt().Name, "session_authorization"):
		vs := n.GetVariableSetStmt()
		p.tag = map[bool]string{true: "SET", false: "RESET"}[vs.Kind != pg.VariableSetKind_VAR_RESET]
		if vs.Kind != pg.VariableSetKind_VAR_SET_VALUE {
			return s.setSessionAuthorization("")
		}
		return s.setSessionAuthorization(argsText(vs.Args))
	case n.GetVariableSetStmt() != nil:
		p.tag = "SET"
		if k := n.GetVariableSetStmt().Kind; k == pg.VariableSetKind_VAR_RESET || k == pg.VariableSetKind_VAR_RESET_ALL {
			p.tag = "RESET" // as PostgreSQL's tag
		}
		return s.applySet(n.GetVariableSetStmt())
	case n.GetVariableShowStmt() != nil:
		return p.execShow(n.GetVariableShowStmt())
	case n.GetCreateStmt() != nil:
		return p.execCreateTable(n.GetCreateStmt())
	case n.GetViewStmt() != nil:
		return p.execCreateView(n.GetViewStmt())
	case n.GetCreateFunctionStmt() != nil:
		return p.execCreateFunction(n.GetCreateFunctionStmt())
	case n.GetDoStmt() != nil:
		return p.execDo(ctx, n.GetDoStmt())
	case n.GetCallStmt() != nil:
		return p.execCall(ctx, n.GetCallStmt())
	case n.GetCreateTableAsStmt() != nil && n.GetCreateTableAsStmt().Objtype == pg.ObjectType_OBJECT_TABLE:
		return p.createTable(ctx, n.GetCreateTableAsStmt())
	case n.GetCreateTableAsStmt() != nil:
		return p.execCreateTableAs(n.GetCreateTableAsStmt())
	case n.GetDropStmt() != nil && n.GetDropStmt().RemoveType == pg.ObjectType_OBJECT_SCHEMA:
		return p.execDropSchema(n.GetDropStmt())
	case n.GetDropStmt() != nil:
		return p.execDrop(n.GetDropStmt())
	case n.GetCreateSchemaStmt() != nil:
		return p.execCreateSchema(n.GetCreateSchemaStmt())
	case n.GetCompositeTypeStmt() != nil:
		return p.execCreateType(n.GetCompositeTypeStmt())
	case n.GetCreateEnumStmt() != nil:
		return p.execCreateEnum(n.GetCreateEnumStmt())
	case n.GetAlterEnumStmt() != nil:
		return p.execAlterEnum(n.GetAlterEnumStmt())
	case n.GetRenameStmt() != nil && n.GetRenameStmt().RenameType == pg.ObjectType_OBJECT_SCHEMA:
		p.tag = "ALTER SCHEMA"
		return s.e.renameSchema(s, n.GetRenameStmt().Subname, n.GetRenameStmt().Newname)
	case n.GetGrantStmt() != nil:
		return p.execGrant(n.GetGrantStmt())
	case n.GetAlterOwnerStmt() != nil && n.GetAlterOwnerStmt().ObjectType == pg.ObjectType_OBJECT_FUNCTION:
		return p.alterFunctionOwner(n.GetAlterOwnerStmt())
	case n.GetAlterOwnerStmt() != nil && n.GetAlterOwnerStmt().ObjectType == pg.ObjectType_OBJECT_TYPE:
		return p.alterTypeOwner(n.GetAlterOwnerStmt())
	case n.GetAlterOwnerStmt() != nil:
		return p.execAlterOwner(n.GetAlterOwnerStmt())
	case n.GetAlterObjectSchemaStmt() != nil && n.GetAlterObjectSchemaStmt().ObjectType == pg.ObjectType_OBJECT_FUNCTION:
		return p.setFunctionSchema(n.GetAlterObjectSchemaStmt())
	case n.GetAlterObjectSchemaStmt() != nil && n.GetAlterObjectSchemaStmt().ObjectType == pg.ObjectType_OBJECT_TYPE:
		return p.setTypeSchema(n.GetAlterObjectSchemaStmt())
	case n.GetAlterObjectSchemaStmt() != nil:
		return p.execSetSchema(n.GetAlterObjectSchemaStmt())
	case n.GetAlterFunctionStmt() != nil:
		return p.execAlterFunction(n.GetAlterFunctionStmt())
	case n.GetCreateTrigStmt() != nil:
		return repr.Unsupported("CREATE TRIGGER")
	case n.GetIndexStmt() != nil:
		return p.execCreateIndex(n.GetIndexStmt())
	case n.GetReindexStmt() != nil:
		return p.execReindex(n.GetReindexStmt())
	case n.GetFetchStmt() != nil:
		return p.execFetch(ctx, n.GetFetchStmt())
	case n.GetDeclareCursorStmt() != nil:
		return p.execDeclare(n.GetDeclareCursorStmt())
	case n.GetPrepareStmt() != nil:
		return p.execPrepare(n.GetPrepareStmt())
	case n.GetExecuteStmt() != nil:
		return p.execExecute(ctx, n.GetExecuteStmt())
	case n.GetDeallocateStmt() != nil:
		return p.execDeallocate(n.GetDeallocateStmt())
	case n.GetDiscardStmt() != nil:
		return p.execDiscard(n.GetDiscardStmt())
	case n.GetClosePortalStmt() != nil:
		return p.execCloseCursor(n.GetClosePortalStmt())
	case n.GetExplainStmt() != nil:
		return p.execExplain(ctx, n.GetExplainStmt())
	case n.GetTruncateStmt() != nil:
		return p.execTruncate(n.GetTruncateStmt())
	case n.GetCreateSeqStmt() != nil:
		return p.execCreateSequence(n.GetCreateSeqStmt())
	case n.GetAlterSeqStmt() != nil:
		return p.execAlterSequence(n.GetAlterSeqStmt())
	case n.GetCommentStmt() != nil:
		return p.execComment(n.GetCommentStmt())
	case n.GetRefreshMatViewStmt() != nil:
		return p.execRefresh(n.GetRefreshMatViewStmt())
	case n.GetAlterTableStmt() != nil && n.GetAlterTableStmt().Objtype == pg.ObjectType_OBJECT_TYPE:
		return p.execAlterType(n.GetAlterTableStmt())
	case n.GetAlterTableStmt() != nil:
		return p.execAlterTable(n.GetAlterTableStmt())
	case n.GetCreateRoleStmt() != nil:
		return p.execCreateRole(n.GetCreateRoleStmt())
	case n.GetAlterRoleStmt() != nil:
		return p.execAlterRole(n.GetAlterRoleStmt())
	case n.GetDropRoleStmt() != nil:
		return p.execDropRole(n.GetDropRoleStmt())
	case n.GetAlterDefaultPrivilegesStmt() != nil:
		return p.execAlterDefaultPrivileges(n.GetAlterDefaultPrivilegesStmt())
	case n.GetReassignOwnedStmt() != nil:
		return p.execReassignOwned(n.GetReassignOwnedStmt())
	case n.GetDropOwnedStmt() != nil:
		return p.execDropOwned(n.GetDropOwnedStmt())
	case n.GetGrantRoleStmt() != nil:
		return p.execGrantRole(n.GetGrantRoleStmt())
	case n.GetRenameStmt() != nil && n.GetRenameStmt().RenameType == pg.ObjectType_OBJECT_ROLE:
		return p.execRenameRole(n.GetRenameStmt())
	case n.GetRenameStmt() != nil && (n.GetRenameStmt().RenameType == pg.ObjectType_OBJECT_TYPE || n.GetRenameStmt().RenameType == pg.ObjectType_OBJECT_ATTRIBUTE):
		return p.execRenameType(n.GetRenameStmt())
	case n.GetRenameStmt() != nil && n.GetRenameStmt().RenameType == pg.ObjectType_OBJECT_FUNCTION:
		return p.renameFunction(n.GetRenameStmt())
	case n.GetRenameStmt() != nil:
		return p.execRename(n.GetRenameStmt())
	case n.GetListenStmt() != nil, n.GetUnlistenStmt() != nil, n.GetNotifyStmt() != nil:
		return p.execListen(n)
	case n.GetCopyStmt() != nil:
		return repr.Errorf(repr.CodeProtocolViolation, "COPY FROM STDIN must be run through the copy sub-protocol")
	}
	return unsupportedStmt(fmt.Sprintf("statement %s", stmtKind(n)))
}

// regArrayNames returns an array of a reg* type as the text[] of its
// elements' names (regtype[] prints {integer,text}, as in PostgreSQL).
func (p *Portal) regArrayNames(d repr.Datum, t repr.T) repr.Datum {
	src := d.Array()
	names := make([]repr.Datum, len(src))
	for i, e := range src {
		if !e.IsNull() {
			names[i] = repr.NewText(p.regText(e, t.ElemType()))
		}
	}
	return repr.ArrayLike(d, names)
}

// regText is the text output of a reg* value: the object's name, or its
// OID when it names nothing.
func (p *Portal) regText(d repr.Datum, t repr.T) string {
	if name, ok := catalogSession(p.st.s).RegOut(t, uint32(d.Int())); ok {
		return name
	}
	return repr.FormatText(d, t, nil)
}
