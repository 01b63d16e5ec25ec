package pgwire

import (
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/jackc/pgx/v5/pgproto3"
)

// maxNegotiations bounds SSLRequest/GSSENCRequest rounds before the
// StartupMessage, so a client cannot loop forever.
const maxNegotiations = 4

// defaultAuthTimeout is PostgreSQL's authentication_timeout.
const defaultAuthTimeout = 60 * time.Second

// startup runs the startup phase: it answers encryption requests (TLS
// when configured, never GSS), handles a CancelRequest, and for a
// StartupMessage authenticates the client, creates the session and sends
// AuthenticationOk, ParameterStatus, BackendKeyData and ReadyForQuery. It
// reports whether the connection continues into the query phase. The
// whole phase must finish within the authentication timeout.
func (c *conn) startup() bool {
	c.nc.SetReadDeadline(time.Now().Add(c.srv.authTimeout()))
	for range maxNegotiations {
		msg, err := c.be.ReceiveStartupMessage()
		if err != nil {
			c.startupFailed(err)
			return false
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if !c.negotiateTLS() {
				return false
			}
		case *pgproto3.GSSEncRequest:
			if c.tls {
				return false // only allowed on a plaintext connection
			}
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false
			}
		case *pgproto3.CancelRequest:
			c.srv.cancel(m.ProcessID, m.SecretKey)
			return false
		case *pgproto3.StartupMessage:
			ok := c.connect(m)
			if ok {
				c.clearReadDeadline()
			}
			return ok
		}
	}
	c.sendFatal(protocolViolation("too many encryption requests"))
	return false
}

// startupFailed reports why the startup phase could not read a message:
// nothing for a vanished or timed-out client (PostgreSQL just closes),
// 57P01 on shutdown, 08P01 for garbage.
func (c *conn) startupFailed(err error) {
	var ne net.Error
	switch {
	case c.shuttingDown.Load():
		c.sendFatal(errAdminShutdown)
	case isDisconnect(err), errors.As(err, &ne) && ne.Timeout():
	default:
		c.sendFatal(protocolViolation("invalid startup packet: %v", err))
	}
}

// negotiateTLS answers an SSLRequest: 'N' without a certificate, else
// 'S' and the TLS handshake, after which the protocol continues over TLS
// (c.nc stays the raw connection: its deadlines and Close apply to the
// TLS stream, and other goroutines may use it).
func (c *conn) negotiateTLS() bool {
	if c.tls {
		return false // a second SSLRequest is a protocol violation
	}
	if c.srv.TLSConfig == nil {
		_, err := c.nc.Write([]byte{'N'})
		return err == nil
	}
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		return false
	}
	tc := tls.Server(c.nc, c.srv.TLSConfig)
	if err := tc.Handshake(); err != nil {
		c.srv.logger.Debug("pgwire: TLS handshake failed", "remote", c.remoteHost(), "err", err)
		return false
	}
	c.tls = true
	st := tc.ConnectionState()
	c.tlsState = &st
	c.be = pgproto3.NewBackend(tc, tc)
	c.be.SetMaxBodyLen(c.srv.MaxMessageSize)
	return true
}

// connect authenticates the client of a StartupMessage, creates its
// session and sends the messages that complete startup.
func (c *conn) connect(m *pgproto3.StartupMessage) bool {
	params, unrecognized := startupParams(m.Parameters)
	user := params["user"]
	if user == "" {
		c.sendFatal(repr.Errorf("28000", "no PostgreSQL user name specified in startup packet"))
		return false
	}
	c.user = user
	if err := c.admit(params); err != nil {
		c.sendFatal(err)
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

// admit takes a connection slot, enforces --tls-required and
// authenticates the client, then applies the reserved slots and the
// role's connection limit. A refused client gives its slot back at once,
// before it is told, so a retry finds it free.
func (c *conn) admit(params map[string]string) (err error) {
	if !c.srv.takeSlot(c) {
		return errTooManyClients
	}
	defer func() {
		if err != nil {
			c.srv.release(c)
		}
	}()
	if c.srv.TLSRequired && !c.tls {
		return c.noHBAEntry(c.user, params["database"])
	}
	role, err := c.authenticate(c.user, params["database"])
	if err != nil {
		return err
	}
	return c.srv.admitRole(c, role)
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
