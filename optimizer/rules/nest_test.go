package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/optimizer/rules"
)

// runNest builds a plan shaped like a decorrelated subquery nest, whose
// subtrees are shared by reference (a DAG), optimizes it and prints the
// rule applications, the distinct nodes (the DAG) and the nodes of its
// tree unfolding, before and after. Rules and passes must keep a shared
// subtree shared: rewriting it once per parent would unfold the DAG and
// make every later phase pay for each copy.
func runNest(t *testing.T, d *datadriven.TestData) string {
	var depth int
	d.ScanArgs(t, "depth", &depth)
	lines := strings.Split(strings.TrimSpace(d.Input), "\n")
	if len(lines) != 2 {
		d.Fatalf(t, "want a base line and a template line")
	}
	base, err := parseRel(lines[0])
	if err != nil {
		d.Fatalf(t, "parse base: %v", err)
	}
	tmpl, err := parseRel(lines[1])
	if err != nil {
		d.Fatalf(t, "parse template: %v", err)
	}
	rel := base
	for range depth {
		rel = substPrev(tmpl, rel)
	}
	out, trace, err := rules.Run(rel, rules.Default...)
	if err != nil {
		return fmt.Sprintf("error: %v\n", err)
	}
	return fmt.Sprintf("input: %d nodes, tree of %d\nrule applications: %d\noutput: %d nodes, tree of %d\nfired: %s\n",
		dagSize(rel), treeSize(rel), len(trace), dagSize(out), treeSize(out), trace)
}

// substPrev returns tmpl with every (Get prev ...) replaced by prev.
func substPrev(tmpl, prev ir.Rel) ir.Rel {
	if g, ok := tmpl.(*ir.Get); ok && g.Name == "prev" {
		return prev
	}
	kids := tmpl.Children()
	if len(kids) == 0 {
		return tmpl
	}
	out := make([]ir.Rel, len(kids))
	for i, k := range kids {
		out[i] = substPrev(k, prev)
	}
	return tmpl.WithChildren(out)
}

// dagSize counts the distinct nodes of rel.
func dagSize(rel ir.Rel) int {
	seen := map[ir.Rel]bool{}
	var walk func(ir.Rel)
	walk = func(r ir.Rel) {
		if seen[r] {
			return
		}
		seen[r] = true
		for _, k := range r.Children() {
			walk(k)
		}
	}
	walk(rel)
	return len(seen)
}

// treeSize counts the nodes of rel's tree unfolding (a shared node once
// per parent).
func treeSize(rel ir.Rel) int {
	memo := map[ir.Rel]int{}
	var size func(ir.Rel) int
	size = func(r ir.Rel) int {
		if n, ok := memo[r]; ok {
			return n
		}
		n := 1
		for _, k := range r.Children() {
			n += size(k)
		}
		memo[r] = n
		return n
	}
	return size(rel)
}
