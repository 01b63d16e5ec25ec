package sql

import (
	"fmt"
	"strconv"
	"strings"
)

// EXPLAIN in PostgreSQL's shape: a tree of plan nodes printed as
// PostgreSQL 15's explain.c prints them, in TEXT, JSON, YAML and XML, so
// that the tools that parse EXPLAIN (pgAdmin, DBeaver, pev2, auto_explain
// readers) read Eddy's plans. The tree is built from the dataflow a
// statement runs (explain_build.go); this file holds the tree and its
// four printers. Keys follow PostgreSQL's names ("Node Type", "Relation
// Name", "Plan Rows", "Hash Cond", ...); Eddy's own properties (a shared
// arrangement, an append-only join, a delta join's lookups) use keys of
// the same style that PostgreSQL does not have.

// planNode is one node of the printed plan.
type planNode struct {
	// typ is the JSON "Node Type" (e.g. "Hash Join", "Seq Scan"); title
	// is the text form's node line before the costs ("Hash Left Join",
	// "Seq Scan on t", "Index Scan using t_pkey on t").
	typ, title string
	// parent is the JSON "Parent Relationship" ("Outer", "Inner",
	// "Member"; "" for the root).
	parent string
	// subplan names an InitPlan child ("CTE w": a data-modifying WITH
	// query), printed above it as PostgreSQL prints a subplan's name.
	subplan string
	// head are the properties JSON lists before the costs ("Join Type",
	// "Strategy", "Relation Name", "Alias", ...); the text form shows
	// them only through title.
	head []planProp
	// Estimates: startup and total cost, rows and average row width.
	startup, total float64
	rows           int64
	width          int
	// base is a scan's collection size (the rows an Index Scan made of
	// it searches; 0 for other nodes).
	base int64
	// actual is the rows the node produced under ANALYZE (-1: not
	// measured), per loop when loops is set: the times it ran (an inner
	// Index Scan runs once per outer row; 0: never executed), else once.
	actual int64
	loops  *int64
	// output is the node's output columns (VERBOSE).
	output []string
	// tail are the properties after the costs and Output ("Hash Cond",
	// "Filter", "Group Key", ...), printed as "Key: value" lines.
	tail     []planProp
	children []*planNode
}

// planProp is one property: a string, a list of strings, a bool or a
// number.
type planProp struct {
	key string
	val any
}

// explainOpts are the options that shape the printed plan.
type explainOpts struct {
	format  explainFormatKind
	costs   bool
	verbose bool
	analyze bool
}

// planFooter is a top-level property after the plan ("Planning Time",
// "Execution Time", Eddy's "Rules Fired"); text prints it unindented.
type planFooter = planProp

// textValue is a property's value in the text form.
func textValue(v any) string {
	switch v := v.(type) {
	case []string:
		return strings.Join(v, ", ")
	case bool:
		return map[bool]string{true: "true", false: "false"}[v]
	case float64:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return fmt.Sprint(v)
}

// renderText prints the tree as PostgreSQL's text format, one row per
// line: the root unindented, a child as "->  " under its parent, each
// node's properties six columns deeper than its "->".
func renderText(root *planNode, footers []planFooter, o explainOpts) []string {
	var lines []string
	// indent counts PostgreSQL's indentation steps (two spaces each): a
	// child enters one step in from its parent, its subplan name takes
	// one more, and its "->  " two.
	var walk func(n *planNode, indent int)
	walk = func(n *planNode, indent int) {
		if n.subplan != "" {
			lines = append(lines, strings.Repeat("  ", indent)+n.subplan)
			indent++
		}
		prefix := ""
		if indent > 0 {
			prefix = strings.Repeat("  ", indent) + "->  "
			indent += 2
		}
		detail := strings.Repeat("  ", indent+1)
		lines = append(lines, prefix+n.title+n.estimates(o))
		if o.verbose && len(n.output) > 0 {
			lines = append(lines, detail+"Output: "+strings.Join(n.output, ", "))
		}
		for _, p := range n.tail {
			lines = append(lines, detail+p.key+": "+textValue(p.val))
		}
		for _, c := range n.children {
			walk(c, indent+1)
		}
	}
	walk(root, 0)
	for _, f := range footers {
		lines = append(lines, f.key+": "+textValue(f.val))
	}
	return lines
}

// estimates is the text form's "  (cost=... rows=... width=...)" and
// "(actual rows=... loops=1)" parts.
func (n *planNode) estimates(o explainOpts) string {
	var s string
	if o.costs {
		s = fmt.Sprintf("  (cost=%.2f..%.2f rows=%d width=%d)", n.startup, n.total, n.rows, n.width)
	}
	switch {
	case !o.analyze || n.actual < 0:
	case n.timesRun() == 0:
		s += " (never executed)"
	default:
		if s == "" {
			s = " "
		}
		s += fmt.Sprintf(" (actual rows=%d loops=%d)", n.actual, n.timesRun())
	}
	return s
}

// timesRun is the number of times the node ran (see loops).
func (n *planNode) timesRun() int64 {
	if n.loops == nil {
		return 1
	}
	return *n.loops
}

// props lists the node's properties in PostgreSQL's order for the
// structured formats (JSON, YAML, XML): Node Type, the head, Parent
// Relationship, Parallel Aware, Async Capable, costs, actuals, Output,
// the tail (an aggregate's Strategy, Partial Mode and a set operation's
// Command come before Parent Relationship). Plans follows.
func (n *planNode) props(o explainOpts) []planProp {
	out := []planProp{{"Node Type", n.typ}}
	head := n.head
	for len(head) > 0 && (head[0].key == "Strategy" || head[0].key == "Partial Mode" || head[0].key == "Command" || head[0].key == "Operation") {
		out, head = append(out, head[0]), head[1:]
	}
	if n.parent != "" {
		out = append(out, planProp{"Parent Relationship", n.parent})
	}
	if n.subplan != "" {
		out = append(out, planProp{"Subplan Name", n.subplan})
	}
	out = append(out, planProp{"Parallel Aware", false}, planProp{"Async Capable", false})
	out = append(out, head...)
	if o.costs {
		out = append(out, planProp{"Startup Cost", costNum(n.startup)}, planProp{"Total Cost", costNum(n.total)},
			planProp{"Plan Rows", n.rows}, planProp{"Plan Width", n.width})
	}
	if o.analyze && n.actual >= 0 {
		out = append(out, planProp{"Actual Rows", n.actual}, planProp{"Actual Loops", n.timesRun()})
	}
	if o.verbose && n.output != nil {
		out = append(out, planProp{"Output", n.output})
	}
	return append(out, n.tail...)
}

// costNum is a cost as the structured formats print it (two decimals, a
// JSON number).
type costNum float64

// scalarText is a scalar property value in the structured formats: the
// JSON literal (numbers, booleans, strings quoted) and the bare text.
func scalarText(v any) (jsonLit, bare string) {
	switch v := v.(type) {
	case costNum:
		s := strconv.FormatFloat(float64(v), 'f', 2, 64)
		return s, s
	case float64:
		s := strconv.FormatFloat(v, 'f', 3, 64)
		return s, s
	case int, int64:
		s := fmt.Sprint(v)
		return s, s
	case bool:
		s := textValue(v)
		return s, s
	}
	s := fmt.Sprint(v)
	return jsonString(s), s
}

// renderJSON prints the tree as PostgreSQL's FORMAT JSON: an array of one
// object holding "Plan" and the footers, indented by two spaces per
// level.
func renderJSON(root *planNode, footers []planFooter, o explainOpts) string {
	var b strings.Builder
	b.WriteString("[\n  {\n    \"Plan\": ")
	writeJSONNode(&b, root, o, 4)
	for _, f := range footers {
		b.WriteString(",\n    " + jsonString(f.key) + ": " + jsonValue(f.val, 4))
	}
	b.WriteString("\n  }\n]")
	return b.String()
}

// writeJSONNode writes n as a JSON object whose members are indented by
// ind+2 spaces.
func writeJSONNode(b *strings.Builder, n *planNode, o explainOpts, ind int) {
	pad := strings.Repeat(" ", ind+2)
	b.WriteString("{")
	for i, p := range n.props(o) {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n" + pad + jsonString(p.key) + ": " + jsonValue(p.val, ind+2))
	}
	if len(n.children) > 0 {
		b.WriteString(",\n" + pad + "\"Plans\": [")
		for i, c := range n.children {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + pad + "  ")
			writeJSONNode(b, c, o, ind+4)
		}
		b.WriteString("\n" + pad + "]")
	}
	b.WriteString("\n" + strings.Repeat(" ", ind) + "}")
}

// jsonValue is v as JSON: a list inline (["a", "b"]) as PostgreSQL
// prints Output and keys, except an empty one ("Triggers"), which
// PostgreSQL opens and closes on two lines, the second indented by ind.
func jsonValue(v any, ind int) string {
	list, ok := v.([]string)
	if !ok {
		lit, _ := scalarText(v)
		return lit
	}
	if len(list) == 0 {
		return "[\n" + strings.Repeat(" ", ind) + "]"
	}
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = jsonString(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// renderYAML prints the tree as PostgreSQL's FORMAT YAML.
func renderYAML(root *planNode, footers []planFooter, o explainOpts) string {
	var b strings.Builder
	b.WriteString("- Plan: \n")
	writeYAMLNode(&b, root, o, 4)
	for _, f := range footers {
		writeYAMLProp(&b, f, 2)
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeYAMLNode writes n's properties at indent ind, then its Plans.
func writeYAMLNode(b *strings.Builder, n *planNode, o explainOpts, ind int) {
	for _, p := range n.props(o) {
		writeYAMLProp(b, p, ind)
	}
	if len(n.children) == 0 {
		return
	}
	pad := strings.Repeat(" ", ind)
	b.WriteString(pad + "Plans: \n")
	for _, c := range n.children {
		var sub strings.Builder
		writeYAMLNode(&sub, c, o, ind+4)
		// The first property of each element follows its "- ".
		s := sub.String()
		b.WriteString(pad + "  - " + s[ind+4:])
	}
}

// writeYAMLProp writes one "Key: value" line (a list as "- item" lines
// under the key), quoting values as PostgreSQL's escape_yaml does.
func writeYAMLProp(b *strings.Builder, p planProp, ind int) {
	pad := strings.Repeat(" ", ind)
	if list, ok := p.val.([]string); ok {
		b.WriteString(pad + p.key + ": ")
		if len(list) == 0 {
			b.WriteString("[]\n")
			return
		}
		b.WriteString("\n")
		for _, s := range list {
			b.WriteString(pad + "  - " + yamlString(s) + "\n")
		}
		return
	}
	lit, bare := scalarText(p.val)
	if lit != bare { // a string
		bare = yamlString(bare)
	}
	b.WriteString(pad + p.key + ": " + bare + "\n")
}

// yamlString quotes s as PostgreSQL's EXPLAIN YAML does: every string
// value double-quoted, with " doubled inside.
func yamlString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// renderXML prints the tree as PostgreSQL's FORMAT XML: element names are
// the keys with spaces as hyphens.
func renderXML(root *planNode, footers []planFooter, o explainOpts) string {
	var b strings.Builder
	b.WriteString("<explain xmlns=\"http://www.postgresql.org/2009/explain\">\n  <Query>\n    <Plan>\n")
	writeXMLNode(&b, root, o, 6)
	b.WriteString("    </Plan>\n")
	for _, f := range footers {
		writeXMLProp(&b, f, 4)
	}
	b.WriteString("  </Query>\n</explain>")
	return b.String()
}

// writeXMLNode writes n's properties as elements at indent ind, then its
// Plans.
func writeXMLNode(b *strings.Builder, n *planNode, o explainOpts, ind int) {
	for _, p := range n.props(o) {
		writeXMLProp(b, p, ind)
	}
	if len(n.children) == 0 {
		return
	}
	pad := strings.Repeat(" ", ind)
	b.WriteString(pad + "<Plans>\n")
	for _, c := range n.children {
		b.WriteString(pad + "  <Plan>\n")
		writeXMLNode(b, c, o, ind+4)
		b.WriteString(pad + "  </Plan>\n")
	}
	b.WriteString(pad + "</Plans>\n")
}

// writeXMLProp writes one property element (a list as <Item>s).
func writeXMLProp(b *strings.Builder, p planProp, ind int) {
	pad := strings.Repeat(" ", ind)
	tag := strings.ReplaceAll(p.key, " ", "-")
	if list, ok := p.val.([]string); ok {
		b.WriteString(pad + "<" + tag + ">\n")
		for _, s := range list {
			b.WriteString(pad + "  <Item>" + xmlEscape(s) + "</Item>\n")
		}
		b.WriteString(pad + "</" + tag + ">\n")
		return
	}
	_, bare := scalarText(p.val)
	b.WriteString(pad + "<" + tag + ">" + xmlEscape(bare) + "</" + tag + ">\n")
}

// xmlEscape escapes &, < and > (and quotes) for element text.
func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
