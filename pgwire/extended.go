package pgwire

import (
	"github.com/eddydb/eddy/repr"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Extended-protocol error kinds, with PostgreSQL's codes and messages.
var (
	errDuplicateStatement = repr.ErrorKind{Code: "42P05", Format: "prepared statement %q already exists"}
	errDuplicatePortal    = repr.ErrorKind{Code: "42P03", Format: "portal %q already exists"}
	errNoStatement        = repr.ErrorKind{Code: repr.CodeInvalidPreparedStmt, Format: "prepared statement %q does not exist"}
	errNoPortal           = repr.ErrorKind{Code: repr.CodeInvalidCursor, Format: "portal %q does not exist"}
	errMultipleCommands   = repr.Errorf(repr.CodeSyntax, "cannot insert multiple commands into a prepared statement")
)

// noStatement is 26000 for a missing statement, worded as PostgreSQL does.
func noStatement(name string) error {
	if name == "" {
		return repr.Errorf(errNoStatement.Code, "unnamed prepared statement does not exist")
	}
	return errNoStatement.New(name)
}

// handleParse prepares a statement. A named statement must not exist yet; the
// unnamed one is replaced.
func (c *conn) handleParse(m *pgproto3.Parse) {
	if _, ok := c.lookupStmt(m.Name); ok && m.Name != "" {
		c.extError(errDuplicateStatement.New(m.Name))
		return
	}
	if m.Name == "" {
		delete(c.stmts, "")
	}
	ctx := c.beginStatement()
	stmts, err := c.sess.Prepare(ctx, m.Query, m.ParameterOIDs)
	c.endStatement()
	if err != nil {
		c.extError(err)
		return
	}
	if len(stmts) > 1 {
		c.extError(errMultipleCommands)
		return
	}
	var e stmtEntry
	if len(stmts) == 1 {
		e.st = stmts[0]
	}
	if m.Name == "" {
		c.stmts[""] = e
	} else if err := c.sess.DefineStatement(m.Name, m.Query, e.st); err != nil {
		c.extError(err)
		return
	}
	c.be.Send(&pgproto3.ParseComplete{})
}

// lookupStmt finds a prepared statement: the unnamed one here, named ones
// in the session (shared with SQL PREPARE).
func (c *conn) lookupStmt(name string) (stmtEntry, bool) {
	if name == "" {
		e, ok := c.stmts[""]
		return e, ok
	}
	st, ok := c.sess.LookupStatement(name)
	return stmtEntry{st: st}, ok
}

// handleBind creates a portal from a statement. A named portal must not
// exist yet; the unnamed one is closed and replaced.
func (c *conn) handleBind(m *pgproto3.Bind) {
	if m.DestinationPortal == "" {
		c.closePortal("")
	} else if _, ok := c.lookupPortal(m.DestinationPortal); ok {
		c.extError(errDuplicatePortal.New(m.DestinationPortal))
		return
	}
	se, ok := c.lookupStmt(m.PreparedStatement)
	if !ok {
		c.extError(noStatement(m.PreparedStatement))
		return
	}
	var pe portalEntry
	if se.st != nil {
		if err := checkBind(m, se.st); err != nil {
			c.extError(err)
			return
		}
		ctx := c.beginStatement()
		p, err := se.st.Bind(ctx, m.Parameters, m.ParameterFormatCodes, m.ResultFormatCodes)
		c.endStatement()
		if err != nil {
			c.extError(err)
			return
		}
		pe.p = p
	}
	c.portals[m.DestinationPortal] = pe
	c.be.Send(&pgproto3.BindComplete{})
}

// checkBind validates a Bind's counts and format codes against st, with
// PostgreSQL's messages, so Statement.Bind may rely on them.
func checkBind(m *pgproto3.Bind, st Statement) error {
	if want := numParams(st); len(m.Parameters) != want {
		return protocolViolation("bind message supplies %d parameters, but prepared statement %q requires %d",
			len(m.Parameters), m.PreparedStatement, want)
	}
	if n := len(m.ParameterFormatCodes); n > 1 && n != len(m.Parameters) {
		return protocolViolation("bind message has %d parameter formats but %d parameters", n, len(m.Parameters))
	}
	if n := len(m.ResultFormatCodes); n > 1 && n != numColumns(st) {
		return protocolViolation("bind message has %d result formats but query has %d columns", n, numColumns(st))
	}
	if err := checkFormats(m.ParameterFormatCodes); err != nil {
		return err
	}
	return checkFormats(m.ResultFormatCodes)
}

// checkFormats rejects format codes other than text (0) and binary (1).
func checkFormats(codes []int16) error {
	for _, f := range codes {
		if f != 0 && f != 1 {
			return repr.Errorf(repr.CodeInvalidParameter, "unsupported format code: %d", f)
		}
	}
	return nil
}

// handleDescribe answers Describe S with ParameterDescription and
// RowDescription/NoData, and Describe P with RowDescription/NoData.
func (c *conn) handleDescribe(m *pgproto3.Describe) {
	switch m.ObjectType {
	case 'S':
		se, ok := c.lookupStmt(m.Name)
		if !ok {
			c.extError(noStatement(m.Name))
			return
		}
		c.paramDsc.ParameterOIDs = nil
		if se.st != nil {
			c.paramDsc.ParameterOIDs = se.st.ParamOIDs()
		}
		c.be.Send(&c.paramDsc)
		c.describeColumns(se.st)
	case 'P':
		pe, ok := c.lookupPortal(m.Name)
		if !ok {
			c.extError(errNoPortal.New(m.Name))
			return
		}
		c.describeColumns(pe.p)
	default:
		c.extError(protocolViolation("invalid DESCRIBE message subtype %d", m.ObjectType))
	}
}

// describable is what Statement and Portal share for Describe.
type describable interface{ Columns() []Column }

// counted is what a Statement may also implement: its numbers of
// parameters and result columns (len(ParamOIDs()) and len(Columns())),
// without building their descriptions, which checkBind would otherwise do
// at every Bind.
type counted interface {
	NumParams() int
	NumColumns() int
}

// numParams is len(st.ParamOIDs()).
func numParams(st Statement) int {
	if c, ok := st.(counted); ok {
		return c.NumParams()
	}
	return len(st.ParamOIDs())
}

// numColumns is len(st.Columns()).
func numColumns(st Statement) int {
	if c, ok := st.(counted); ok {
		return c.NumColumns()
	}
	return len(st.Columns())
}

// describeColumns sends RowDescription for d's columns, or NoData when d
// returns no rows (or is nil, the empty statement).
func (c *conn) describeColumns(d describable) {
	var cols []Column
	if d != nil {
		cols = d.Columns()
	}
	if cols == nil {
		c.be.Send(&pgproto3.NoData{})
		return
	}
	c.sendRowDescription(cols)
}

// handleExecute runs or resumes a portal, up to MaxRows rows (0 = all):
// PortalSuspended if rows remain, else CommandComplete.
func (c *conn) handleExecute(m *pgproto3.Execute) {
	pe, ok := c.lookupPortal(m.Portal)
	if !ok {
		c.extError(errNoPortal.New(m.Portal))
		return
	}
	if pe.p == nil {
		c.be.Send(&pgproto3.EmptyQueryResponse{})
		return
	}
	ctx := c.beginStatement()
	tag, suspended, err := c.execute(ctx, pe.p, int(m.MaxRows))
	c.endStatement()
	c.sendNotices()
	if err != nil {
		c.sendChangedParameters()
		c.extError(err)
		return
	}
	if suspended {
		c.be.Send(&pgproto3.PortalSuspended{})
		return
	}
	c.sendChangedParameters()
	c.sendCommandComplete(tag)
}

// handleClose closes a statement or portal; closing a missing one is not an
// error.
func (c *conn) handleClose(m *pgproto3.Close) {
	switch m.ObjectType {
	case 'S':
		if m.Name == "" {
			delete(c.stmts, "")
		} else {
			c.sess.CloseStatement(m.Name)
		}
	case 'P':
		c.closePortal(m.Name)
	default:
		c.extError(protocolViolation("invalid CLOSE message subtype %d", m.ObjectType))
		return
	}
	c.be.Send(&pgproto3.CloseComplete{})
}

// lookupPortal finds a portal: one bound here, else the session's SQL
// cursor of that name (cursors and portals share one namespace).
func (c *conn) lookupPortal(name string) (portalEntry, bool) {
	if pe, ok := c.portals[name]; ok {
		return pe, true
	}
	if name == "" {
		return portalEntry{}, false
	}
	p, ok := c.sess.LookupCursor(name)
	return portalEntry{p: p}, ok
}

// closePortal closes and forgets the named portal, or closes the SQL
// cursor of that name, if either exists.
func (c *conn) closePortal(name string) {
	pe, ok := c.portals[name]
	if !ok {
		if name != "" {
			c.sess.CloseCursor(name)
		}
		return
	}
	delete(c.portals, name)
	if pe.p != nil {
		pe.p.Close()
	}
}

// handleSync ends an extended-protocol batch: error skipping stops and
// ReadyForQuery is sent (which drops the portals outside a transaction).
func (c *conn) handleSync() {
	c.ignoreTillSync = false
	c.sendReady(c.txStatus())
}
