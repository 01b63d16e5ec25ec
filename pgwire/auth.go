package pgwire

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/xdg-go/scram"
)

// Role is what authentication needs to know about a role.
type Role struct {
	Name  string
	Super bool
	Login bool
	// ConnLimit is the role's CONNECTION LIMIT (-1 none; superusers are
	// exempt, as in PostgreSQL).
	ConnLimit int
	// Password is the stored verifier ("SCRAM-SHA-256$..." or "md5...")
	// or "" for none.
	Password string
	// ValidUntil ends the password's validity (zero: forever).
	ValidUntil time.Time
}

// RoleLookup finds roles; implemented by the statement layer.
type RoleLookup interface {
	LookupRole(name string) (Role, bool)
}

// Auth configures client authentication. The zero value trusts every
// client and role (pgwire's own tests); servers set Rules and Roles.
type Auth struct {
	// Rules choose the method per connection (first match); nil trusts
	// everyone.
	Rules []HBARule
	// Roles looks up roles; nil treats every user name as a superuser
	// without a password.
	Roles RoleLookup
	// FailureDelay is the delay after a second failed authentication from
	// one address; it doubles with each further failure up to
	// maxFailureDelay. 0 is defaultFailureDelay.
	FailureDelay time.Duration
}

const (
	defaultFailureDelay = 200 * time.Millisecond
	maxFailureDelay     = 5 * time.Second
	// failureMemory is how long an address's failures count.
	failureMemory = time.Minute
	// maxFailureAddrs bounds the failure table.
	maxFailureAddrs = 10000
)

// errAuthFailed is PostgreSQL's message for every password failure:
// wrong password, unknown role, no or expired password alike, so a client
// cannot tell which roles exist.
func errAuthFailed(user string) *repr.Error {
	return repr.Errorf("28P01", "password authentication failed for user \"%s\"", user)
}

// lookupRole finds user, or treats it as a passwordless superuser when
// the server has no role lookup.
func (s *Server) lookupRole(user string) (Role, bool) {
	if s.Auth.Roles == nil {
		return Role{Name: user, Super: true, Login: true, ConnLimit: -1}, true
	}
	return s.Auth.Roles.LookupRole(user)
}

// authenticate runs the method the rules choose for the connection and
// returns the authenticated role, or the error to send as FATAL.
func (c *conn) authenticate(user, database string) (Role, error) {
	role, exists := c.srv.lookupRole(user)
	method := MethodTrust
	if c.srv.Auth.Rules != nil {
		r, ok := matchHBA(c.srv.Auth.Rules, c.remoteIP(), c.tls, user, database)
		if !ok {
			return Role{}, c.noHBAEntry(user, database)
		}
		method = r.Method
	}
	var err error
	switch method {
	case MethodTrust:
		if !exists {
			err = repr.Errorf("28000", "role \"%s\" does not exist", user)
		}
	case MethodReject:
		err = repr.Errorf("28000", "pg_hba.conf rejects connection for host \"%s\", user \"%s\", database \"%s\", %s",
			c.remoteHost(), user, database, c.encryptionWord())
	default:
		err = c.passwordAuth(method, user, role, exists)
	}
	if err != nil {
		c.srv.failures.failed(c.remoteHost(), c.srv.Auth.FailureDelay)
		return Role{}, err
	}
	c.srv.failures.succeeded(c.remoteHost())
	if !role.Login {
		return Role{}, repr.Errorf("28000", "role \"%s\" is not permitted to log in", user)
	}
	return role, nil
}

// passwordAuth runs a password method. An unknown role, a role without a
// usable password and an expired password fail like a wrong password,
// after the same exchange.
func (c *conn) passwordAuth(method Method, user string, role Role, exists bool) error {
	usable := exists && role.Password != "" && (role.ValidUntil.IsZero() || time.Now().Before(role.ValidUntil))
	if !usable {
		role.Password = ""
	}
	ok := false
	var err error
	switch {
	case method == MethodPassword:
		ok, err = c.cleartextAuth(role.Password)
	case method == MethodMD5 && strings.HasPrefix(role.Password, "md5"):
		ok, err = c.md5Auth(role.Password)
	default: // scram-sha-256, and md5 for a SCRAM verifier or none
		ok, err = c.scramAuth(user, role.Password)
	}
	if err != nil {
		return err
	}
	if !ok {
		return errAuthFailed(user)
	}
	return nil
}

// receiveAuth flushes and reads the client's answer to an authentication
// request of type authType.
func (c *conn) receiveAuth(authType uint32) (pgproto3.FrontendMessage, error) {
	if err := c.flush(); err != nil {
		return nil, err
	}
	if err := c.be.SetAuthType(authType); err != nil {
		return nil, err
	}
	msg, err := c.be.Receive()
	if err != nil {
		return nil, err
	}
	return msg, nil
}

// receivePassword reads a PasswordMessage.
func (c *conn) receivePassword(authType uint32) (string, error) {
	msg, err := c.receiveAuth(authType)
	if err != nil {
		return "", err
	}
	pm, ok := msg.(*pgproto3.PasswordMessage)
	if !ok {
		return "", protocolViolation("expected password response, got %T", msg)
	}
	return pm.Password, nil
}

// cleartextAuth asks for the password in clear and checks it against the
// verifier.
func (c *conn) cleartextAuth(verifier string) (bool, error) {
	c.be.Send(&pgproto3.AuthenticationCleartextPassword{})
	pw, err := c.receivePassword(pgproto3.AuthTypeCleartextPassword)
	if err != nil {
		return false, err
	}
	return verifyPassword(verifier, c.user, pw), nil
}

// md5Auth runs the md5 challenge against an md5 verifier.
func (c *conn) md5Auth(verifier string) (bool, error) {
	var salt [4]byte
	rand.Read(salt[:])
	c.be.Send(&pgproto3.AuthenticationMD5Password{Salt: salt})
	got, err := c.receivePassword(pgproto3.AuthTypeMD5Password)
	if err != nil {
		return false, err
	}
	sum := md5.Sum(append([]byte(verifier[3:]), salt[:]...))
	want := "md5" + hex.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1, nil
}

// scramAuth runs a SCRAM-SHA-256 exchange (RFC 5802, RFC 7677). Without
// a SCRAM verifier it runs against mock credentials derived from the user
// name, so the exchange looks the same and fails at the end, as in
// PostgreSQL.
func (c *conn) scramAuth(user, verifier string) (bool, error) {
	creds, real := parseSCRAMVerifier(verifier)
	if !real {
		creds = c.srv.mockCredentials(user)
	}
	srv, err := scram.SHA256.NewServer(func(string) (scram.StoredCredentials, error) { return creds, nil })
	if err != nil {
		return false, err
	}
	conv := srv.NewConversation()
	c.be.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256"}})
	msg, err := c.receiveAuth(pgproto3.AuthTypeSASL)
	if err != nil {
		return false, err
	}
	first, ok := msg.(*pgproto3.SASLInitialResponse)
	if !ok || first.AuthMechanism != "SCRAM-SHA-256" {
		return false, protocolViolation("expected SASL initial response for SCRAM-SHA-256")
	}
	out, err := conv.Step(string(first.Data))
	if err != nil {
		return false, protocolViolation("malformed SCRAM message: %v", err)
	}
	c.be.Send(&pgproto3.AuthenticationSASLContinue{Data: []byte(out)})
	if msg, err = c.receiveAuth(pgproto3.AuthTypeSASLContinue); err != nil {
		return false, err
	}
	final, ok := msg.(*pgproto3.SASLResponse)
	if !ok {
		return false, protocolViolation("expected SASL response")
	}
	out, err = conv.Step(string(final.Data))
	if err != nil || !conv.Valid() || !real {
		return false, nil
	}
	c.be.Send(&pgproto3.AuthenticationSASLFinal{Data: []byte(out)})
	return true, nil
}

// parseSCRAMVerifier decodes SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>.
func parseSCRAMVerifier(v string) (scram.StoredCredentials, bool) {
	rest, ok := strings.CutPrefix(v, "SCRAM-SHA-256$")
	if !ok {
		return scram.StoredCredentials{}, false
	}
	iterSalt, keys, ok1 := strings.Cut(rest, "$")
	iter, salt, ok2 := strings.Cut(iterSalt, ":")
	stored, server, ok3 := strings.Cut(keys, ":")
	n, err := strconv.Atoi(iter)
	if !ok1 || !ok2 || !ok3 || err != nil || n <= 0 {
		return scram.StoredCredentials{}, false
	}
	dec := base64.StdEncoding.DecodeString
	s, err1 := dec(salt)
	sk, err2 := dec(stored)
	svk, err3 := dec(server)
	if errors.Join(err1, err2, err3) != nil {
		return scram.StoredCredentials{}, false
	}
	return scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(s), Iters: n}, StoredKey: sk, ServerKey: svk}, true
}

// mockCredentials are stable per user name (so probing a name twice
// shows the same salt) and match no password.
func (s *Server) mockCredentials(user string) scram.StoredCredentials {
	mac := hmac.New(sha256.New, s.mockSecret[:])
	mac.Write([]byte(user))
	sum := mac.Sum(nil)
	return scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(sum[:16]), Iters: 4096},
		StoredKey: sum, ServerKey: sum}
}

// verifyPassword checks a cleartext password against a verifier.
func verifyPassword(verifier, user, password string) bool {
	if strings.HasPrefix(verifier, "md5") {
		sum := md5.Sum([]byte(password + user))
		return subtle.ConstantTimeCompare([]byte(verifier[3:]), []byte(hex.EncodeToString(sum[:]))) == 1
	}
	creds, ok := parseSCRAMVerifier(verifier)
	if !ok {
		return false
	}
	client, err := scram.SHA256.NewClient("", password, "")
	if err != nil {
		if client, err = scram.SHA256.NewClientUnprepped("", password, ""); err != nil {
			return false
		}
	}
	got, err := client.GetStoredCredentialsWithError(creds.KeyFactors)
	return err == nil && subtle.ConstantTimeCompare(got.StoredKey, creds.StoredKey) == 1
}

// noHBAEntry is PostgreSQL's error when no rule matches.
func (c *conn) noHBAEntry(user, database string) error {
	return repr.Errorf("28000", "no pg_hba.conf entry for host \"%s\", user \"%s\", database \"%s\", %s",
		c.remoteHost(), user, database, c.encryptionWord())
}

// encryptionWord describes the connection's encryption as PostgreSQL's
// messages do.
func (c *conn) encryptionWord() string {
	if c.tls {
		return "SSL encryption"
	}
	return "no encryption"
}

// remoteIP is the client's IP address (nil for a non-TCP connection).
func (c *conn) remoteIP() net.IP {
	if a, ok := c.nc.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP
	}
	return nil
}

// remoteHost is the client's address as text ("local" for non-TCP).
func (c *conn) remoteHost() string {
	if ip := c.remoteIP(); ip != nil {
		return ip.String()
	}
	return "local"
}

// failureTable slows down repeated authentication failures per address.
// The delay is served by the failing connection's own goroutine, so it
// never holds up other clients.
type failureTable struct {
	mu    sync.Mutex
	addrs map[string]*failures
}

// failures are one address's recent failures.
type failures struct {
	n    int
	last time.Time
}

// failed records a failure from addr and sleeps for the delay it earns:
// nothing for the first, then base, doubling, capped at maxFailureDelay.
func (t *failureTable) failed(addr string, base time.Duration) {
	if base <= 0 {
		base = defaultFailureDelay
	}
	d := t.record(addr, base)
	if d > 0 {
		time.Sleep(d)
	}
}

// record counts a failure and returns the delay it earns.
func (t *failureTable) record(addr string, base time.Duration) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if t.addrs == nil {
		t.addrs = map[string]*failures{}
	}
	if len(t.addrs) >= maxFailureAddrs {
		for a, f := range t.addrs {
			if now.Sub(f.last) > failureMemory {
				delete(t.addrs, a)
			}
		}
	}
	f := t.addrs[addr]
	if f == nil || now.Sub(f.last) > failureMemory {
		f = &failures{}
		t.addrs[addr] = f
	}
	f.n++
	f.last = now
	if f.n < 2 {
		return 0
	}
	return min(base<<min(f.n-2, 10), maxFailureDelay)
}

// succeeded forgets addr's failures.
func (t *failureTable) succeeded(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.addrs, addr)
}
