package server

import (
	"context"
	"fmt"
	"net"
	"path"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// allowList is the operator's --allow-connect list: the addresses that
// sources and sinks may make the server connect to. Each entry is a
// host:port pattern ('*' matches within the host or the port:
// "*.kafka.internal:9092", "broker1:*") or a CIDR ("10.0.0.0/8", any
// port), which matches IP literals only: checking does no DNS lookup, so
// it never touches the network. A nil list allows every address.
type allowList struct {
	entries []string
	hosts   []hostPattern
	nets    []*net.IPNet
}

// hostPattern is a host:port pattern split in its two halves.
type hostPattern struct{ host, port string }

// parseAllowList parses the flag's entries (nil for none: allow all).
func parseAllowList(entries []string) (*allowList, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	a := &allowList{entries: entries}
	for _, e := range entries {
		if _, nw, err := net.ParseCIDR(e); err == nil {
			a.nets = append(a.nets, nw)
			continue
		}
		host, port, err := net.SplitHostPort(e)
		if err != nil || host == "" || port == "" {
			return nil, fmt.Errorf("--allow-connect %q: want host:port (with * wildcards) or a CIDR", e)
		}
		if _, err := path.Match(host, ""); err != nil {
			return nil, fmt.Errorf("--allow-connect %q: %w", e, err)
		}
		a.hosts = append(a.hosts, hostPattern{strings.ToLower(host), port})
	}
	return a, nil
}

// allows reports whether addr (host:port) may be connected to.
func (a *allowList) allows(addr string) bool {
	if a == nil {
		return true
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	host = strings.ToLower(host)
	for _, p := range a.hosts {
		hm, _ := path.Match(p.host, host)
		pm, _ := path.Match(p.port, port)
		if hm && pm {
			return true
		}
	}
	if ip := net.ParseIP(host); ip != nil {
		for _, nw := range a.nets {
			if nw.Contains(ip) {
				return true
			}
		}
	}
	return false
}

// check fails with 42501 naming the allow-list unless every address is
// allowed.
func (a *allowList) check(addrs []string) error {
	for _, addr := range addrs {
		if !a.allows(addr) {
			e := repr.Errorf("42501", "connecting to %s is not allowed by the server's --allow-connect list", addr)
			e.Hint = "Allowed: " + strings.Join(a.entries, ", ") + "."
			return e
		}
	}
	return nil
}

// dialer returns a dial function that refuses addresses off the list, so
// brokers a cluster advertises are held to it as well as the seeds (nil
// without a list: franz-go's own dialer).
func (a *allowList) dialer() func(ctx context.Context, network, host string) (net.Conn, error) {
	if a == nil {
		return nil
	}
	var d net.Dialer
	return func(ctx context.Context, network, host string) (net.Conn, error) {
		if !a.allows(host) {
			return nil, fmt.Errorf("connecting to %s is not allowed by the server's --allow-connect list", host)
		}
		return d.DialContext(ctx, network, host)
	}
}
