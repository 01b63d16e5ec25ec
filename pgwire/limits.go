package pgwire

import (
	"time"

	"github.com/eddydb/eddy/repr"
)

// Connection limits, as PostgreSQL's max_connections,
// superuser_reserved_connections and per-role CONNECTION LIMIT. A
// connection takes a slot once its StartupMessage arrives and holds it
// until it ends; one that never sends a StartupMessage holds none, and
// is closed at the authentication timeout either way.

var errTooManyClients = repr.Errorf("53300", "sorry, too many clients already")

// authTimeout is AuthTimeout or PostgreSQL's default.
func (s *Server) authTimeout() time.Duration {
	if s.AuthTimeout > 0 {
		return s.AuthTimeout
	}
	return defaultAuthTimeout
}

// takeSlot counts c as a client; false if MaxConnections are taken.
func (s *Server) takeSlot(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.MaxConnections > 0 && s.clients >= s.MaxConnections {
		return false
	}
	s.clients++
	c.slot = true
	return true
}

// admitRole applies the slots reserved for superusers and the role's
// connection limit to an authenticated client, and counts it for its role.
func (s *Server) admitRole(c *conn, role Role) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !role.Super {
		if role.ConnLimit >= 0 && s.perRole[role.Name] >= role.ConnLimit {
			return repr.Errorf("53300", "too many connections for role \"%s\"", role.Name)
		}
		if s.MaxConnections > 0 && s.clients > s.MaxConnections-s.ReservedConnections {
			return repr.Errorf("53300", "remaining connection slots are reserved for non-replication superuser connections")
		}
	}
	if s.perRole == nil {
		s.perRole = map[string]int{}
	}
	s.perRole[role.Name]++
	c.role = role.Name
	return nil
}

// release gives back c's slot and role count.
func (s *Server) release(c *conn) {
	s.mu.Lock()
	s.releaseSlot(c)
	s.mu.Unlock()
}

// releaseSlot gives back c's slot and role count; the caller holds s.mu.
func (s *Server) releaseSlot(c *conn) {
	if c.slot {
		s.clients--
		c.slot = false
	}
	if c.role != "" {
		if s.perRole[c.role]--; s.perRole[c.role] <= 0 {
			delete(s.perRole, c.role)
		}
		c.role = ""
	}
}
