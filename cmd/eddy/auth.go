package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/eddydb/eddy/server"
)

// listFlag is a comma-separated, repeatable flag.
type listFlag struct{ list []string }

func (l *listFlag) String() string { return strings.Join(l.list, ",") }

func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			l.list = append(l.list, p)
		}
	}
	return nil
}

// authFlags declares the authentication, TLS, limit and allow-list
// flags; the returned function builds the configuration after
// flag.Parse.
func authFlags() (func() (server.AuthConfig, error), *listFlag) {
	user := flag.String("user", "eddy", "name of the bootstrap superuser a new data directory gets")
	pwFile := flag.String("password-file", "", "file whose first line is the bootstrap superuser's password (else $EDDY_PASSWORD)")
	method := flag.String("auth", "", "authentication method for all clients: scram-sha-256, md5, password, trust (loopback only) or reject; default: trust on loopback, scram-sha-256 elsewhere")
	hba := flag.String("hba-file", "", "pg_hba.conf-like rules: TYPE DATABASE USER ADDRESS METHOD per line")
	cert := flag.String("tls-cert", "", "PEM certificate (chain) for TLS")
	key := flag.String("tls-key", "", "PEM private key for TLS")
	tlsReq := flag.Bool("tls-required", false, "refuse clients that do not use TLS")
	maxConns := flag.Int("max-connections", 100, "maximum number of client connections")
	reserved := flag.Int("superuser-reserved-connections", 3, "connection slots reserved for superusers")
	timeout := new(time.Duration)
	flag.DurationVar(timeout, "startup-timeout", 10*time.Second, "time a client has to complete startup and authentication; a connection that has not is closed")
	flag.DurationVar(timeout, "authentication-timeout", 10*time.Second, "PostgreSQL's name for --startup-timeout")
	allow := &listFlag{}
	flag.Var(allow, "allow-connect", "addresses sources and sinks may connect to: host:port patterns (* wildcards) or CIDRs, comma-separated; default any")
	return func() (server.AuthConfig, error) {
		if *method != "" && *hba != "" {
			return server.AuthConfig{}, fmt.Errorf("--auth and --hba-file exclude each other")
		}
		pw, err := bootstrapPassword(*pwFile)
		if err != nil {
			return server.AuthConfig{}, err
		}
		return server.AuthConfig{Superuser: *user, Password: pw, Method: *method, HBAFile: *hba,
			TLSCert: *cert, TLSKey: *key, TLSRequired: *tlsReq, MaxConnections: *maxConns,
			ReservedConnections: *reserved, AuthTimeout: *timeout}, nil
	}, allow
}

// bootstrapPassword reads --password-file's first line, else EDDY_PASSWORD.
func bootstrapPassword(file string) (string, error) {
	if file == "" {
		return os.Getenv("EDDY_PASSWORD"), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--password-file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimRight(line, "\r"), nil
}
