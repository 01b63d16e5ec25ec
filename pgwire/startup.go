package pgwire

import (
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/jackc/pgx/v5/pgproto3"
)

// maxNegotiations bounds SSLRequest/GSSENCRequest rounds before the
// StartupMessage, so a client cannot loop forever.
const maxNegotiations = 4

// startup runs the startup phase: it declines encryption requests, handles a
// CancelRequest, and for a StartupMessage creates the session and sends
// AuthenticationOk, ParameterStatus, BackendKeyData and ReadyForQuery. It
// reports whether the connection continues into the query phase.
func (c *conn) startup() bool {
	for range maxNegotiations {
		msg, err := c.be.ReceiveStartupMessage()
		if err != nil {
			if c.shuttingDown.Load() {
				c.sendFatal(errAdminShutdown)
			} else if !isDisconnect(err) {
				c.sendFatal(protocolViolation("invalid startup packet: %v", err))
			}
			return false
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false
			}
		case *pgproto3.CancelRequest:
			c.srv.cancel(m.ProcessID, m.SecretKey)
			return false
		case *pgproto3.StartupMessage:
			return c.connect(m)
		}
	}
	c.sendFatal(protocolViolation("too many encryption requests"))
	return false
}

// connect creates the session for a StartupMessage and sends the messages
// that complete startup.
func (c *conn) connect(m *pgproto3.StartupMessage) bool {
	params, unrecognized := startupParams(m.Parameters)
	if params["user"] == "" {
		c.sendFatal(repr.Errorf("28000", "no PostgreSQL user name specified in startup packet"))
		return false
	}
	sess, err := c.srv.handler.Connect(c.baseCtx, params)
	if err != nil {
		c.sendFatal(err)
		return false
	}
	c.sess = sess
	c.srv.register(c)
	sess.SetBackend(c.backend())
	if m.ProtocolVersion != pgproto3.ProtocolVersion30 || len(unrecognized) > 0 {
		// We speak 3.0 only; tell a newer client to downgrade (protocol docs,
		// NegotiateProtocolVersion).
		c.be.Send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unrecognized})
	}
	c.be.Send(&pgproto3.AuthenticationOk{})
	c.sendParameters(sess.Parameters())
	c.be.Send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
	c.readyForQuery()
	return !c.fatal
}

// startupParams returns the parameters for Handler.Connect (database
// defaulting to user, as in PostgreSQL) and the protocol options ("_pq_.*")
// we do not recognize.
func startupParams(in map[string]string) (params map[string]string, unrecognized []string) {
	params = make(map[string]string, len(in)+1)
	for k, v := range in {
		if strings.HasPrefix(k, "_pq_.") {
			unrecognized = append(unrecognized, k)
			continue
		}
		params[k] = v
	}
	if params["database"] == "" {
		params["database"] = params["user"]
	}
	return params, unrecognized
}
