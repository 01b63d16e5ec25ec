package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/eddydb/eddy/tests/harness"
)

// layers ranks the top-level packages: imports must go from a lower rank to
// a higher one (cmd -> server -> pgwire -> sql -> planner -> optimizer ->
// exec -> storage). tests and bench sit above everything.
var layers = map[string]int{
	"tests":     -1,
	"bench":     -1,
	"cmd":       0,
	"server":    1,
	"pgwire":    2,
	"sql":       3,
	"planner":   4,
	"optimizer": 5,
	"exec":      6,
	"storage":   7,
}

// leaves may be imported by any package; they import only each other.
var leaves = map[string]bool{"sql/types": true, "sql/pgerr": true}

// parseImporters lists the only packages that may import sql/parse.
var parseImporters = []string{"sql", "server"}

// goPackage is the part of `go list -json` output the test reads.
type goPackage struct {
	ImportPath string
	Imports    []string
}

// TestLayering fails on any import that goes against the direction of the
// layers, as listed by `go list -deps -json ./...`.
func TestLayering(t *testing.T) {
	root, err := harness.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-e", "-deps", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs, err := decodePackages(strings.NewReader(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/eddydb/eddy/"
	for _, v := range violations(module, pkgs) {
		t.Error(v)
	}
}

// decodePackages reads the stream of JSON objects go list prints.
func decodePackages(r io.Reader) ([]goPackage, error) {
	dec := json.NewDecoder(r)
	var pkgs []goPackage
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
}

// violations returns one message per forbidden import among the module's
// packages (paths under module, which ends in a slash).
func violations(module string, pkgs []goPackage) []string {
	var out []string
	for _, p := range pkgs {
		from, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			to, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if msg := checkImport(from, to); msg != "" {
				out = append(out, fmt.Sprintf("%s imports %s: %s", from, to, msg))
			}
		}
	}
	return out
}

// checkImport returns why from may not import to, or "".
func checkImport(from, to string) string {
	switch {
	case leaves[from] && !leaves[to]:
		return "sql/types and sql/pgerr are leaves and import no other Eddy package"
	case leaves[to]:
		return ""
	case to == "sql/parse" || strings.HasPrefix(to, "sql/parse/"):
		if !within(from, parseImporters...) {
			return "only sql and server may import sql/parse"
		}
		return ""
	case within(from, "pgwire"):
		if !within(to, "pgwire") {
			return "pgwire declares the interfaces it needs and imports only sql/types and sql/pgerr"
		}
		return ""
	}
	rf, okf := layers[top(from)]
	rt, okt := layers[top(to)]
	switch {
	case !okf:
		return fmt.Sprintf("top-level package %q has no layer: add it to the layering test", top(from))
	case !okt:
		return fmt.Sprintf("top-level package %q has no layer: add it to the layering test", top(to))
	case rt < rf:
		return "upward import (layers: cmd -> server -> pgwire -> sql -> planner -> optimizer -> exec -> storage)"
	}
	return ""
}

// top returns the first element of a package path.
func top(path string) string {
	first, _, _ := strings.Cut(path, "/")
	return first
}

// within reports whether path is one of the given packages or a package
// below one of them. "sql" means sql itself and sql/..., minus nothing:
// callers handle the leaves first.
func within(path string, roots ...string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}

// TestLayeringRules checks the rules themselves on made-up imports, so that
// a broken checker cannot pass silently.
func TestLayeringRules(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{"cmd/eddy", "server", true},
		{"server", "pgwire", true},
		{"server", "sql/parse", true},
		{"sql", "planner", true},
		{"sql", "sql/parse", true},
		{"planner", "optimizer/ir", true},
		{"optimizer/lower", "exec/dataflow", true},
		{"exec", "storage", true},
		{"exec", "exec/scalar", true},
		{"storage", "sql/types", true},
		{"pgwire", "sql/pgerr", true},
		{"tests", "server", true},
		{"exec", "sql/types", true},
		{"storage", "exec", false},
		{"exec", "optimizer/ir", false},
		{"exec", "planner", false},
		{"exec", "sql", false},
		{"planner", "sql", false},
		{"pgwire", "sql", false},
		{"pgwire", "exec", false},
		{"pgwire", "storage", false},
		{"planner", "sql/parse", false},
		{"sql/types", "exec", false},
		{"server", "cmd/eddy", false},
		{"util", "exec", false},
	} {
		got := checkImport(tc.from, tc.to) == ""
		if got != tc.ok {
			t.Errorf("%s -> %s: allowed=%v, want %v (%s)", tc.from, tc.to, got, tc.ok, checkImport(tc.from, tc.to))
		}
	}
}
