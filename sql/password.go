package sql

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/xdg-go/scram"
)

// Stored passwords are verifiers in PostgreSQL's formats, never the
// password itself (PostgreSQL's password_encryption, pg_authid.rolpassword):
//
//	SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>   (base64 parts)
//	md5<hex of md5(password || role name)>
//
// A password given already in one of these forms is stored as is, as
// PostgreSQL does, so a dump's CREATE ROLE ... PASSWORD 'SCRAM-SHA-256$...'
// restores the same credentials.

// scramIterations is PostgreSQL's scram_iterations default.
const scramIterations = 4096

// scramSaltLen is the salt length PostgreSQL generates (SCRAM_DEFAULT_SALT_LEN).
const scramSaltLen = 16

// encryptPassword returns the verifier of password for role under method
// ("scram-sha-256" or "md5", the password_encryption setting).
func encryptPassword(role, password, method string) (string, error) {
	if isVerifier(password) {
		return password, nil
	}
	if password == "" {
		return "", nil
	}
	switch method {
	case "md5":
		return md5Verifier(role, password), nil
	case "scram-sha-256":
		return scramVerifier(password)
	}
	return "", fmt.Errorf("password_encryption %q", method)
}

// isVerifier reports whether s is already an md5 or SCRAM verifier.
func isVerifier(s string) bool {
	if strings.HasPrefix(s, "SCRAM-SHA-256$") {
		return true
	}
	if len(s) == 35 && strings.HasPrefix(s, "md5") {
		_, err := hex.DecodeString(s[3:])
		return err == nil
	}
	return false
}

// md5Verifier is "md5" followed by md5(password || role) in hex.
func md5Verifier(role, password string) string {
	sum := md5.Sum([]byte(password + role))
	return "md5" + hex.EncodeToString(sum[:])
}

// scramVerifier derives a SCRAM-SHA-256 verifier with a fresh random salt.
// The password is SASLprep-normalized; one that SASLprep rejects is used
// as raw bytes, as PostgreSQL does.
func scramVerifier(password string) (string, error) {
	client, err := scram.SHA256.NewClient("", password, "")
	if err != nil {
		if client, err = scram.SHA256.NewClientUnprepped("", password, ""); err != nil {
			return "", err
		}
	}
	salt := make([]byte, scramSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	creds, err := client.GetStoredCredentialsWithError(scram.KeyFactors{Salt: string(salt), Iters: scramIterations})
	if err != nil {
		return "", err
	}
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", creds.Iters, b64(salt), b64(creds.StoredKey), b64(creds.ServerKey)), nil
}
