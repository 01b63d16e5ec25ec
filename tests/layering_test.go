package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
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

// ground lists the ground packages (GUIDE.md section 2), which any package
// may import, with the only Eddy packages each may import: repr (the data
// model) imports none, expr (expressions, functions, aggregates) only repr,
// faults (the test-only fault-injection registry) none.
var ground = map[string][]string{"repr": nil, "expr": {"repr"}, "faults": nil}

// groundLeaves lists packages below a ground package that are narrower
// still, with the only Eddy packages each may import: expr/jsonpath (the
// SQL/JSON path language, which expr's functions call) imports only repr
// and expr/are; expr/are (PostgreSQL's regular expressions, shared by
// expr's functions and jsonpath's like_regex) only repr.
var groundLeaves = map[string][]string{"expr/jsonpath": {"repr", "expr/are"}, "expr/are": {"repr"}}

// execImporters lists the only packages of the planner and the optimizer
// that may import exec's packages: lowering produces exec's input format;
// the IR, the rules and the planner take what they share with exec from
// expr and repr.
var execImporters = []string{"optimizer/lower"}

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
	for leaf, allowed := range groundLeaves {
		if within(from, leaf) && !within(to, leaf) && !within(to, allowed...) {
			return fmt.Sprintf("%s imports only %s", leaf, strings.Join(allowed, ", "))
		}
	}
	if g, ok := groundRoot(from); ok {
		if t, _ := groundRoot(to); t != g && !slices.Contains(ground[g], t) {
			return groundRule(g)
		}
		return ""
	}
	switch {
	case isGround(to):
		return ""
	case within(to, "exec") && within(from, "planner", "optimizer") && !within(from, execImporters...):
		return "the planner and the optimizer's IR and rules import no exec package (only optimizer/lower does); expr and repr hold what they share"
	case to == "sql/parse" || strings.HasPrefix(to, "sql/parse/"):
		if !within(from, parseImporters...) {
			return "only sql and server may import sql/parse"
		}
		return ""
	case within(from, "pgwire"):
		if !within(to, "pgwire") {
			return "pgwire declares the interfaces it needs and imports only the ground packages repr and expr"
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

// groundRoot returns the ground package path is or is below.
func groundRoot(path string) (string, bool) {
	for g := range ground {
		if within(path, g) {
			return g, true
		}
	}
	return "", false
}

// isGround reports whether path is a ground package or below one.
func isGround(path string) bool {
	_, ok := groundRoot(path)
	return ok
}

// groundRule states what ground package g may import.
func groundRule(g string) string {
	if len(ground[g]) == 0 {
		return g + " is a ground package and imports no other Eddy package"
	}
	return fmt.Sprintf("%s is a ground package and imports only %s", g, strings.Join(ground[g], ", "))
}

// top returns the first element of a package path.
func top(path string) string {
	first, _, _ := strings.Cut(path, "/")
	return first
}

// within reports whether path is one of the given packages or a package
// below one of them. "sql" means sql itself and sql/....
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
		{"exec", "expr", true},
		{"storage", "repr", true},
		{"pgwire", "repr", true},
		{"tests", "server", true},
		{"exec", "repr", true},
		{"expr", "repr", true},
		{"expr", "expr/jsonpath", true},
		{"expr/jsonpath", "repr", true},
		{"sql", "expr/jsonpath", true},
		{"expr/jsonpath", "expr", false},
		{"expr/jsonpath", "expr/are", true},
		{"expr", "expr/are", true},
		{"expr/are", "repr", true},
		{"expr/are", "expr", false},
		{"expr/are", "expr/jsonpath", false},
		{"expr/jsonpath", "sql", false},
		{"planner", "expr", true},
		{"optimizer/ir", "repr", true},
		{"optimizer/lower", "exec/dataflow", true},
		{"planner", "exec/dataflow", false},
		{"optimizer/ir", "exec/dataflow", false},
		{"optimizer/rules", "exec", false},
		{"repr", "expr", false},
		{"repr", "exec", false},
		{"expr", "exec/dataflow", false},
		{"expr", "planner", false},
		{"storage", "exec", false},
		{"exec", "optimizer/ir", false},
		{"exec", "planner", false},
		{"exec", "sql", false},
		{"planner", "sql", false},
		{"pgwire", "sql", false},
		{"pgwire", "exec", false},
		{"pgwire", "storage", false},
		{"planner", "sql/parse", false},
		{"server", "cmd/eddy", false},
		{"util", "exec", false},
	} {
		got := checkImport(tc.from, tc.to) == ""
		if got != tc.ok {
			t.Errorf("%s -> %s: allowed=%v, want %v (%s)", tc.from, tc.to, got, tc.ok, checkImport(tc.from, tc.to))
		}
	}
}
