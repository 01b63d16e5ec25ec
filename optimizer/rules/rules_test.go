package rules_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/optimizer/rules"
)

// TestRules runs the golden files in testdata/. Commands:
//
//	build                     parse the tree and print it
//	opt [rules=A,B | phases=P,Q] [expect=A,B]
//	                          run the named rules as one phase, or the named
//	                          phases (default: the rules.Default phases), and
//	                          print the tree and the rules that fired; fails
//	                          if an expected rule did not fire or the output
//	                          column types changed
//	nest depth=N              the input's first line is a base tree, the
//	                          second a template reading (Get prev ...); build
//	                          N levels of the template, each sharing the
//	                          previous level by reference wherever it reads
//	                          prev, optimize with rules.Default and print the
//	                          work and the result's size (see runNest)
//	joins shape=chain|star|cycle|clique n=N [seed=S]
//	                          build an N-way join in a shuffled FROM order
//	                          (see joinShape), optimize it and print the
//	                          join tree; fails on a cross join
func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var rel ir.Rel
			if d.Cmd != "joins" && d.Cmd != "nest" {
				var err error
				if rel, err = parseRel(d.Input); err != nil {
					d.Fatalf(t, "parse: %v", err)
				}
			}
			switch d.Cmd {
			case "build":
				return ir.Format(rel)
			case "opt":
				return runOpt(t, d, rel)
			case "joins":
				return runJoins(t, d)
			case "nest":
				return runNest(t, d)
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

func runOpt(t *testing.T, d *datadriven.TestData, rel ir.Rel) string {
	phases := rules.Default
	var expect []string
	for _, arg := range d.CmdArgs {
		switch arg.Key {
		case "rules":
			phases = []rules.Phase{{Name: "test", Rules: lookupRules(t, d, splitVals(arg.Vals))}}
		case "phases":
			phases = lookupPhases(t, d, splitVals(arg.Vals))
		case "expect":
			expect = splitVals(arg.Vals)
		default:
			d.Fatalf(t, "unknown argument %q", arg.Key)
		}
	}
	out, trace, err := rules.Run(rel, phases...)
	if err != nil {
		return fmt.Sprintf("error: %v\n", err)
	}
	for _, name := range expect {
		if !trace.Has(name) {
			d.Fatalf(t, "expected rule %s to fire; fired: %s\n%s", name, trace, ir.Format(out))
		}
	}
	if !slices.Equal(out.ColTypes(), rel.ColTypes()) {
		d.Fatalf(t, "output types changed from %v to %v", rel.ColTypes(), out.ColTypes())
	}
	fired := trace.String()
	if fired == "" {
		fired = "(none)"
	}
	return ir.Format(out) + "fired: " + fired + "\n"
}

// splitVals splits comma-separated argument values (rules=A,B).
func splitVals(vals []string) []string {
	var out []string
	for _, v := range vals {
		out = append(out, strings.Split(v, ",")...)
	}
	return out
}

// lookupPhases returns the named phases of rules.Phases, in the given order.
func lookupPhases(t *testing.T, d *datadriven.TestData, names []string) []rules.Phase {
	var out []rules.Phase
	for _, n := range names {
		i := slices.IndexFunc(rules.Phases, func(p rules.Phase) bool { return p.Name == n })
		if i < 0 {
			d.Fatalf(t, "unknown phase %q", n)
		}
		out = append(out, rules.Phases[i])
	}
	return out
}

func lookupRules(t *testing.T, d *datadriven.TestData, names []string) []rules.Rule {
	var out []rules.Rule
	for _, n := range names {
		i := slices.IndexFunc(rules.All, func(r rules.Rule) bool { return r.Name == n })
		if i < 0 {
			d.Fatalf(t, "unknown rule %q", n)
		}
		out = append(out, rules.All[i])
	}
	return out
}

// TestRunStopsAtCap checks that a rule that never reaches a fixed point
// makes Run fail instead of looping.
func TestRunStopsAtCap(t *testing.T) {
	rel, err := parseRel("(Filter (Get t [int4]) [#0 = 1])")
	if err != nil {
		t.Fatal(err)
	}
	flip := rules.Rule{Name: "Flip", Apply: func(e ir.Rel) ir.Rel {
		if f, ok := e.(*ir.Filter); ok {
			return &ir.Filter{Input: f.Input, Preds: f.Preds}
		}
		return nil
	}}
	_, trace, err := rules.Run(rel, rules.Phase{Name: "loop", Rules: []rules.Rule{flip}})
	if err == nil || !strings.Contains(err.Error(), "no fixed point") {
		t.Fatalf("want a fixed-point error, got %v", err)
	}
	if len(trace) != rules.MaxSteps+1 {
		t.Fatalf("fired %d times, want %d", len(trace), rules.MaxSteps+1)
	}
}

// TestRuleNamesUnique guards the name lookup used by the golden tests.
func TestRuleNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rules.All {
		if seen[r.Name] {
			t.Errorf("duplicate rule name %s", r.Name)
		}
		seen[r.Name] = true
	}
}

// TestRuleRoots checks each rule's Root against what it matches: on a node
// of any other operator type the rule declines, so offering a rule only
// nodes of its Root type (as Run does) loses no rewrite.
func TestRuleRoots(t *testing.T) {
	var nodes []ir.Rel
	for _, s := range []string{
		"(Get t [int4 int4])",
		"(Values [int4 int4] [1, 2])",
		"(Map (Get t [int4 int4]) [#0 + 1])",
		"(Filter (Filter (Get t [int4 int4]) [#0 = 1]) [true, #1 > 2 AND #0 < 3])",
		"(Project (Project (Get t [int4 int4]) [1 0]) [1 0])",
		"(Join cross (Get t [int4 int4]) (Get u [int4]) [#0 = #2 AND 1 = 1])",
		"(Reduce (Reduce (Get t [int4 int4]) [0 1]) [0 1])",
		"(TopK (Get t [int4 int4]) [0] [1] 1 0)",
		"(Union (Get t [int4 int4]) (Get t [int4 int4]))",
		"(Negate (Get t [int4 int4]))",
		"(Threshold (Get t [int4 int4]))",
	} {
		r, err := parseRel(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		nodes = append(nodes, r)
	}
	for _, rule := range rules.All {
		if rule.Root == nil {
			continue
		}
		for _, n := range nodes {
			if fmt.Sprintf("%T", n) == fmt.Sprintf("%T", rule.Root) {
				continue
			}
			if out := rule.Apply(n); out != nil {
				t.Errorf("rule %s (root %T) rewrote a %T", rule.Name, rule.Root, n)
			}
		}
	}
}
