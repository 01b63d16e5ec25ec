package server

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/eddydb/eddy/pgwire"
	"github.com/eddydb/eddy/sql"
)

// AuthConfig is who may connect and how: the bootstrap superuser, the
// authentication rules, TLS and the connection limits.
type AuthConfig struct {
	// Superuser names the bootstrap superuser a new data directory gets
	// ("" is eddy); Password, when set, becomes its password (at every
	// start, so an operator who lost it can set it again).
	Superuser, Password string
	// Method is the authentication method for every client (--auth); ""
	// means trust from loopback addresses and scram-sha-256 from others.
	// HBAFile, when set, holds pg_hba.conf-like rules instead.
	Method  string
	HBAFile string
	// TLSCert and TLSKey are PEM files; with them clients may use TLS,
	// and with TLSRequired they must.
	TLSCert, TLSKey string
	TLSRequired     bool
	// MaxConnections (0 is 100, PostgreSQL's default), of which
	// ReservedConnections are for superusers; AuthTimeout bounds the
	// startup phase (0 is 60 s).
	MaxConnections      int
	ReservedConnections int
	AuthTimeout         time.Duration
	// FailureDelay overrides the delay after repeated failures (tests).
	FailureDelay time.Duration
}

// defaultMaxConnections is PostgreSQL's max_connections default.
const defaultMaxConnections = 100

// hbaRules returns the authentication rules the configuration asks for.
// Trust is allowed only for loopback addresses.
func (a AuthConfig) hbaRules() ([]pgwire.HBARule, error) {
	var rules []pgwire.HBARule
	switch {
	case a.HBAFile != "":
		text, err := os.ReadFile(a.HBAFile)
		if err != nil {
			return nil, fmt.Errorf("--hba-file: %w", err)
		}
		if rules, err = pgwire.ParseHBA(string(text)); err != nil {
			return nil, fmt.Errorf("--hba-file %s: %w", a.HBAFile, err)
		}
	case a.Method == string(pgwire.MethodTrust):
		rules = pgwire.DefaultHBA(pgwire.MethodReject)
	case a.Method != "":
		var err error
		if rules, err = pgwire.ParseHBA("host all all all " + a.Method); err != nil {
			return nil, fmt.Errorf("--auth: %w", err)
		}
	default:
		rules = pgwire.DefaultHBA(pgwire.MethodSCRAM)
	}
	if err := pgwire.CheckTrustLoopback(rules); err != nil {
		return nil, err
	}
	return rules, nil
}

// tlsConfig loads the server certificate (nil without one).
func (a AuthConfig) tlsConfig() (*tls.Config, error) {
	if a.TLSCert == "" && a.TLSKey == "" {
		if a.TLSRequired {
			return nil, fmt.Errorf("--tls-required needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(a.TLSCert, a.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// configureWire applies the authentication configuration to the wire
// server; it refuses a non-loopback listen address when no role can log
// in with a password, since only trust (loopback only) could admit anyone.
func configureWire(w *pgwire.Server, e *sql.Engine, a AuthConfig, listen string) error {
	if err := e.BootstrapRole(cmp.Or(a.Superuser, "eddy"), a.Password); err != nil {
		return fmt.Errorf("bootstrap superuser: %w", err)
	}
	rules, err := a.hbaRules()
	if err != nil {
		return err
	}
	if !loopbackListen(listen) && !e.HasLoginPassword() {
		return fmt.Errorf("refusing to listen on %s: no role has a password, and trust authentication is allowed only "+
			"from loopback addresses; set the bootstrap superuser's password (EDDY_PASSWORD or --password-file) "+
			"or listen on 127.0.0.1", listen)
	}
	tc, err := a.tlsConfig()
	if err != nil {
		return err
	}
	w.Auth = pgwire.Auth{Rules: rules, Roles: roleLookup{e}, FailureDelay: a.FailureDelay}
	w.TLSConfig, w.TLSRequired = tc, a.TLSRequired
	w.MaxConnections = cmp.Or(a.MaxConnections, defaultMaxConnections)
	w.ReservedConnections = a.ReservedConnections
	w.AuthTimeout = a.AuthTimeout
	return nil
}

// loopbackListen reports whether listen (host:port) accepts only
// loopback connections.
func loopbackListen(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// roleLookup adapts the engine's roles to pgwire.
type roleLookup struct{ e *sql.Engine }

func (r roleLookup) LookupRole(name string) (pgwire.Role, bool) {
	ra, ok := r.e.LookupRole(name)
	if !ok {
		return pgwire.Role{}, false
	}
	return pgwire.Role{Name: ra.Name, Super: ra.Super, Login: ra.Login, ConnLimit: ra.ConnLimit,
		Password: ra.Password, ValidUntil: ra.ValidUntil}, true
}
