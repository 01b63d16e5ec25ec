package sql

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// shapeNode is one node of a text plan as explain.depesz and DBeaver's
// text parser read it: the node line's name and costs, its property
// lines, its children by indentation.
type shapeNode struct {
	name                   string
	startup, total         float64
	rows                   int64
	props                  []string
	children               []*shapeNode
	indent                 int
	parent                 *shapeNode
	line                   string
	startupText, totalText string
}

// nodeLine is a plan node line: "[->  ]Name  (cost=s..t rows=n width=w)".
var nodeLine = regexp.MustCompile(`^( *)(?:->  )?(\S.*?)  \(cost=(\d+\.\d\d)\.\.(\d+\.\d\d) rows=(\d+) width=(\d+)\)$`)

// parseTextPlan parses a text plan, failing on a line that is neither a
// node nor a "Key: value" property of the node above it.
func parseTextPlan(t *testing.T, lines []string) *shapeNode {
	t.Helper()
	var root, cur *shapeNode
	for _, l := range lines {
		m := nodeLine.FindStringSubmatch(l)
		if m == nil {
			if cur == nil || !strings.Contains(l, ": ") {
				t.Fatalf("line %q is neither a node nor a property", l)
			}
			cur.props = append(cur.props, strings.TrimSpace(l))
			continue
		}
		n := &shapeNode{name: m[2], indent: len(m[1]), line: l, startupText: m[3], totalText: m[4]}
		n.startup, _ = strconv.ParseFloat(m[3], 64)
		n.total, _ = strconv.ParseFloat(m[4], 64)
		n.rows, _ = strconv.ParseInt(m[5], 10, 64)
		if root == nil {
			root, cur = n, n
			continue
		}
		p := cur
		for p != nil && p.indent >= n.indent {
			p = p.parent
		}
		if p == nil {
			t.Fatalf("node line %q is not under the root", l)
		}
		n.parent = p
		p.children = append(p.children, n)
		cur = n
	}
	return root
}

// prop returns n's property key's value ("" if absent).
func (n *shapeNode) prop(key string) string {
	for _, p := range n.props {
		if v, ok := strings.CutPrefix(p, key+": "); ok {
			return v
		}
	}
	return ""
}

// checkShape checks the rules a plan viewer relies on: costs ordered;
// a Hash Join has a Hash Cond and a Hash node (one child, costed as it)
// as its inner input, and costs at least its inputs; a Nested Loop over
// an Index Scan costs its outer input plus a scan per outer row; an Index
// Scan has its Index Cond and a cost of its own.
func checkShape(t *testing.T, n *shapeNode) {
	t.Helper()
	if n.startup > n.total {
		t.Errorf("%q: startup cost above total", n.line)
	}
	switch {
	case strings.HasPrefix(n.name, "Hash") && strings.HasSuffix(n.name, "Join"):
		if len(n.children) != 2 || n.children[1].name != "Hash" || n.prop("Hash Cond") == "" {
			t.Errorf("%q: want a Hash Cond, an outer input and a Hash", n.line)
			break
		}
		outer, hash := n.children[0], n.children[1]
		if n.startup < hash.total || n.total < n.startup+outer.total {
			t.Errorf("%q: costs below its inputs' (%q, %q)", n.line, outer.line, hash.line)
		}
	case n.name == "Hash":
		if len(n.children) != 1 || n.startupText != n.children[0].totalText || n.totalText != n.children[0].totalText {
			t.Errorf("%q: want one child whose total is its cost", n.line)
		}
	case n.name == "Nested Loop" && len(n.children) == 2 && strings.HasPrefix(n.children[1].name, "Index Scan"):
		outer, inner := n.children[0], n.children[1]
		if n.total+0.01 < outer.total+float64(outer.rows)*inner.total {
			t.Errorf("%q: total below one inner scan per outer row (%q, %q)", n.line, outer.line, inner.line)
		}
	case strings.HasPrefix(n.name, "Index Scan using "):
		if n.prop("Index Cond") == "" {
			t.Errorf("%q: no Index Cond", n.line)
		}
		if n.startup <= 0 || n.total <= n.startup {
			t.Errorf("%q: want the index descent's and the rows' costs", n.line)
		}
	}
	for _, c := range n.children {
		checkShape(t, c)
	}
}

// TestExplainShapes parses the text EXPLAIN of ad hoc joins and key
// reads as plan viewers do and checks their shapes and costs, and that
// the estimates follow the collections' sizes.
func TestExplainShapes(t *testing.T) {
	te := newTestEngine(t)
	mustRun(t, te, `CREATE TABLE big (id int PRIMARY KEY, k int, v text);
CREATE TABLE small (id int PRIMARY KEY, name text);
CREATE INDEX big_k ON big (k);
INSERT INTO big SELECT g, g % 20, 'v' || g FROM generate_series(1, 2000) g;
INSERT INTO small SELECT g, 'n' || g FROM generate_series(1, 20) g`)
	plan := func(q string) *shapeNode {
		out := te.run("EXPLAIN " + q)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) < 3 || lines[0] != "QUERY PLAN" || lines[len(lines)-1] != "EXPLAIN" {
			t.Fatalf("EXPLAIN %s:\n%s", q, out)
		}
		root := parseTextPlan(t, lines[1:len(lines)-1])
		checkShape(t, root)
		return root
	}
	cases := []struct{ query, shape string }{
		{"SELECT * FROM big JOIN small ON big.v = small.name", "Hash Join(Seq Scan on big, Hash(Seq Scan on small))"},
		{"SELECT * FROM small JOIN big ON big.v = small.name", "Hash Join(Seq Scan on big, Hash(Seq Scan on small))"},
		{"SELECT * FROM small LEFT JOIN big ON big.v = small.name", "Hash Right Join(Seq Scan on big, Hash(Seq Scan on small))"},
		{"SELECT * FROM big LEFT JOIN small ON big.v = small.name", "Hash Left Join(Seq Scan on big, Hash(Seq Scan on small))"},
		{"SELECT * FROM big JOIN small ON big.k = small.id", "Nested Loop(Seq Scan on small, Index Scan using big_k on big)"},
		{"SELECT * FROM big WHERE id = 7", "Index Scan using big_pkey on big"},
		{"SELECT * FROM big WHERE k = 7", "Index Scan using big_k on big"},
		{"SELECT * FROM big WHERE id BETWEEN 10 AND 20", "Index Scan using big_pkey on big"},
	}
	for _, c := range cases {
		if got := shapeOf(plan(c.query)); got != c.shape {
			t.Errorf("%s:\ngot  %s\nwant %s", c.query, got, c.shape)
		}
	}
	// A key read finds one row of a unique key, more of another; a
	// larger collection costs more to descend.
	pk, byK := plan("SELECT * FROM big WHERE id = 7"), plan("SELECT * FROM big WHERE k = 7")
	if pk.rows != 1 || byK.rows <= 1 || byK.total <= pk.total {
		t.Errorf("key reads: %q, %q", pk.line, byK.line)
	}
	small := plan("SELECT * FROM small WHERE id = 7")
	if small.startup >= pk.startup {
		t.Errorf("descents: %q, %q", small.line, pk.line)
	}
	// The inner Index Scan's rows are per outer row.
	nl := plan("SELECT * FROM big JOIN small ON big.k = small.id")
	if inner := nl.children[1]; inner.rows*nl.children[0].rows != nl.rows {
		t.Errorf("per-loop rows: %q under %q", inner.line, nl.line)
	}
}

// shapeOf prints a plan's node names as Name(child, child).
func shapeOf(n *shapeNode) string {
	if len(n.children) == 0 {
		return n.name
	}
	var kids []string
	for _, c := range n.children {
		kids = append(kids, shapeOf(c))
	}
	return fmt.Sprintf("%s(%s)", n.name, strings.Join(kids, ", "))
}
