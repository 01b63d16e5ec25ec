package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// build holds the result of building cmd/eddy once per test process.
var build struct {
	once sync.Once
	dir  string // temporary directory holding the binary
	bin  string
	err  error
}

// ModuleRoot returns the directory holding Eddy's go.mod, found with
// `go env GOMOD` so that tests work from any package directory.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module")
	}
	return filepath.Dir(gomod), nil
}

// EddyBinary builds ./cmd/eddy once per test process and returns the path
// of the binary. A build failure fails the test with the compiler output:
// a missing or broken server must never make the end-to-end tests skip.
// $EDDY_BIN names a prebuilt binary to use instead (to run a test against
// another version of the server, say main's, for a before/after count).
func EddyBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("EDDY_BIN"); bin != "" {
		return bin
	}
	build.once.Do(func() { build.bin, build.err = buildEddy() })
	if build.err != nil {
		t.Fatalf("harness: cannot build the eddy server (./cmd/eddy): %v", build.err)
	}
	return build.bin
}

// buildEddy runs `go build -o <tmp>/eddy ./cmd/eddy` in the module root.
func buildEddy() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "eddy-harness-bin-")
	if err != nil {
		return "", err
	}
	build.dir = dir
	bin := filepath.Join(dir, "eddy")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/eddy")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/eddy: %v\n%s", err, out)
	}
	return bin, nil
}

// Main runs a test binary's tests and then removes the binary built by
// EddyBinary. Use it from TestMain: os.Exit(harness.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	return code
}
