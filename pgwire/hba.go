package pgwire

import (
	"bufio"
	"fmt"
	"net"
	"slices"
	"strings"
)

// Method is a client authentication method, as named in pg_hba.conf.
type Method string

// The authentication methods: trust (no password; allowed only for
// loopback addresses), reject, password (cleartext), md5 (falls back to
// SCRAM for a role whose password is stored as a SCRAM verifier, as in
// PostgreSQL) and scram-sha-256.
const (
	MethodTrust    Method = "trust"
	MethodReject   Method = "reject"
	MethodPassword Method = "password"
	MethodMD5      Method = "md5"
	MethodSCRAM    Method = "scram-sha-256"
)

// HBARule is one line of a pg_hba.conf-like file: connections of Type
// ("host" any, "hostssl" TLS only, "hostnossl" plaintext only) to one of
// Databases as one of Users from an address in Net use Method. Databases
// and Users hold "all" to match any; Net nil matches any address.
type HBARule struct {
	Type      string
	Databases []string
	Users     []string
	Net       *net.IPNet
	Method    Method
	// Line is the rule's line in its file (0 for built-in rules).
	Line int
}

// ParseHBA reads rules, one per line: TYPE DATABASE USER ADDRESS METHOD,
// where DATABASE and USER are comma-separated lists or "all", ADDRESS is a
// CIDR, a bare IP address or "all", and '#' starts a comment. The rules
// are tried in order and the first match decides.
func ParseHBA(text string) ([]HBARule, error) {
	var rules []HBARule
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		r, err := parseHBALine(f)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		r.Line = n
		rules = append(rules, r)
	}
	return rules, nil
}

// parseHBALine parses the fields of one rule.
func parseHBALine(f []string) (HBARule, error) {
	if len(f) != 5 {
		return HBARule{}, fmt.Errorf("want 5 fields (TYPE DATABASE USER ADDRESS METHOD), have %d", len(f))
	}
	r := HBARule{Type: f[0], Databases: strings.Split(f[1], ","), Users: strings.Split(f[2], ","), Method: Method(f[4])}
	switch r.Type {
	case "host", "hostssl", "hostnossl":
	default:
		return r, fmt.Errorf("connection type %q (want host, hostssl or hostnossl)", r.Type)
	}
	switch r.Method {
	case MethodTrust, MethodReject, MethodPassword, MethodMD5, MethodSCRAM:
	default:
		return r, fmt.Errorf("authentication method %q (want trust, reject, password, md5 or scram-sha-256)", f[4])
	}
	for _, u := range r.Users {
		if strings.HasPrefix(u, "+") || strings.HasPrefix(u, "@") {
			return r, fmt.Errorf("user %q: group and file references are not supported", u)
		}
	}
	nw, err := parseAddress(f[3])
	r.Net = nw
	return r, err
}

// parseAddress parses an ADDRESS field (nil for "all").
func parseAddress(s string) (*net.IPNet, error) {
	if s == "all" {
		return nil, nil
	}
	if !strings.Contains(s, "/") {
		ip := net.ParseIP(s)
		if ip == nil {
			return nil, fmt.Errorf("invalid address %q", s)
		}
		bits := 128
		if ip.To4() != nil {
			ip, bits = ip.To4(), 32
		}
		return &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)}, nil
	}
	_, nw, err := net.ParseCIDR(s)
	if err != nil {
		return nil, fmt.Errorf("invalid address %q", s)
	}
	return nw, nil
}

// DefaultHBA are the rules without configuration: trust from loopback
// addresses, method from anywhere else.
func DefaultHBA(method Method) []HBARule {
	all := []string{"all"}
	_, v4, _ := net.ParseCIDR("127.0.0.0/8")
	_, v6, _ := net.ParseCIDR("::1/128")
	return []HBARule{
		{Type: "host", Databases: all, Users: all, Net: v4, Method: MethodTrust},
		{Type: "host", Databases: all, Users: all, Net: v6, Method: MethodTrust},
		{Type: "host", Databases: all, Users: all, Method: method},
	}
}

// CheckTrustLoopback fails if a trust rule admits a non-loopback address:
// trust is for local connections only.
func CheckTrustLoopback(rules []HBARule) error {
	for _, r := range rules {
		if r.Method == MethodTrust && !loopbackNet(r.Net) {
			where := "all addresses"
			if r.Net != nil {
				where = r.Net.String()
			}
			return fmt.Errorf("trust authentication is allowed only for loopback addresses, not %s (rule %d); use scram-sha-256", where, r.Line)
		}
	}
	return nil
}

// loopbackNet reports whether every address of nw is a loopback address.
func loopbackNet(nw *net.IPNet) bool {
	if nw == nil {
		return false
	}
	ones, bits := nw.Mask.Size()
	if bits == 32 {
		return nw.IP.To4()[0] == 127 && ones >= 8
	}
	return nw.IP.Equal(net.IPv6loopback) && ones == 128
}

// match returns the first rule for a connection, or false.
func matchHBA(rules []HBARule, addr net.IP, tls bool, user, database string) (HBARule, bool) {
	for _, r := range rules {
		if (r.Type == "hostssl" && !tls) || (r.Type == "hostnossl" && tls) {
			continue
		}
		if !listMatch(r.Databases, database) || !listMatch(r.Users, user) {
			continue
		}
		if r.Net != nil && (addr == nil || !r.Net.Contains(addr)) {
			continue
		}
		return r, true
	}
	return HBARule{}, false
}

// listMatch reports whether name is in list or list holds "all".
func listMatch(list []string, name string) bool {
	return slices.Contains(list, "all") || slices.Contains(list, name)
}
