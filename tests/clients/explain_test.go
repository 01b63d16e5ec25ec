package clients

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// TestToolExplain runs the EXPLAIN statements that pgAdmin and DBeaver
// send (the "explain" entries of replay_tools.sql) on Eddy and reads the
// plans as those tools do: pgAdmin's JSON ([{"Plan": {...}}], nodes with
// "Node Type" and "Plans"), DBeaver's XML (<explain><Query><Plan> with
// Node-Type and Plans elements) and its text form (a node per "->  "
// line). Every node must carry a node type, and the costs or actual rows
// the statement asks for.
func TestToolExplain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eddy := connect(ctx, t, freshDatabase(t, harness.StartEddy(t)))
	n := 0
	for _, q := range readReplay(t, "testdata/replay_tools.sql") {
		if !strings.Contains(q.client, " explain ") {
			continue
		}
		n++
		res, err := eddy.Exec(ctx, q.sql).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v\n%s", q.client, err, q.sql)
		}
		var lines []string
		for _, r := range res {
			for _, row := range r.Rows {
				lines = append(lines, string(row[0]))
			}
		}
		want := explainWants(q.sql)
		var nodes int
		switch {
		case strings.Contains(q.sql, "FORMAT JSON"):
			nodes, err = checkJSONPlan(strings.Join(lines, "\n"), want)
		case strings.Contains(q.sql, "FORMAT XML"):
			nodes, err = checkXMLPlan(strings.Join(lines, "\n"), want)
		default:
			nodes, err = checkTextPlan(lines)
		}
		if err != nil {
			t.Errorf("%s: %v\n%s", q.client, err, strings.Join(lines, "\n"))
		}
		t.Logf("%s: %d plan nodes", q.client, nodes)
	}
	if n < 5 {
		t.Fatalf("replay_tools.sql holds %d explain statements, want 5", n)
	}
}

// planWants are the keys every node of a plan must have.
type planWants struct{ costs, actual bool }

// explainWants reads the options of a tool's EXPLAIN: costs unless
// COSTS false, actual rows with ANALYZE (true).
func explainWants(sql string) planWants {
	opts, _, _ := strings.Cut(strings.ToUpper(sql), ")")
	return planWants{
		costs:  !strings.Contains(opts, "COSTS FALSE"),
		actual: strings.Contains(opts, "ANALYZE TRUE") || strings.Contains(opts, ",ANALYZE"),
	}
}

// checkJSONPlan reads a FORMAT JSON plan as pgAdmin's explain view does
// and returns its number of nodes.
func checkJSONPlan(text string, want planWants) (int, error) {
	var doc []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return 0, err
	}
	if len(doc) != 1 || doc[0]["Plan"] == nil {
		return 0, fmt.Errorf("want one object with a Plan")
	}
	var walk func(raw json.RawMessage) (int, error)
	walk = func(raw json.RawMessage) (int, error) {
		var node map[string]any
		var kids struct{ Plans []json.RawMessage }
		if err := json.Unmarshal(raw, &node); err != nil {
			return 0, err
		}
		if err := json.Unmarshal(raw, &kids); err != nil {
			return 0, err
		}
		if err := checkKeys(func(k string) bool { _, ok := node[k]; return ok }, "Node Type", "Total Cost", "Plan Rows", "Actual Rows", want); err != nil {
			return 0, err
		}
		n := 1
		for _, k := range kids.Plans {
			c, err := walk(k)
			if err != nil {
				return 0, err
			}
			n += c
		}
		return n, nil
	}
	return walk(doc[0]["Plan"])
}

// checkKeys checks that a node has its type, and the cost and actual
// keys want asks for.
func checkKeys(has func(string) bool, typ, cost, rows, actual string, want planWants) error {
	for _, k := range []string{typ, cost, rows, actual} {
		needed := k == typ || (k == cost || k == rows) && want.costs || k == actual && want.actual
		if needed && !has(k) {
			return fmt.Errorf("a node lacks %q", k)
		}
	}
	return nil
}

// xmlNode is a plan node as DBeaver's PostgrePlanNodeXML reads it: its
// child elements by name, and the Plan elements under Plans.
type xmlNode struct {
	Fields []struct {
		XMLName xml.Name
	} `xml:",any"`
	Plans []xmlNode `xml:"Plans>Plan"`
}

// checkXMLPlan reads a FORMAT XML plan as DBeaver does and returns its
// number of nodes.
func checkXMLPlan(text string, want planWants) (int, error) {
	var doc struct {
		XMLName xml.Name
		Query   struct {
			Plan []xmlNode `xml:"Plan"`
		} `xml:"Query"`
	}
	if err := xml.Unmarshal([]byte(text), &doc); err != nil {
		return 0, err
	}
	if doc.XMLName.Local != "explain" || doc.XMLName.Space != "http://www.postgresql.org/2009/explain" || len(doc.Query.Plan) != 1 {
		return 0, fmt.Errorf("want <explain xmlns=...><Query><Plan>, got %v with %d plans", doc.XMLName, len(doc.Query.Plan))
	}
	var walk func(n xmlNode) (int, error)
	walk = func(n xmlNode) (int, error) {
		has := func(k string) bool {
			for _, f := range n.Fields {
				if f.XMLName.Local == k {
					return true
				}
			}
			return false
		}
		if err := checkKeys(has, "Node-Type", "Total-Cost", "Plan-Rows", "Actual-Rows", want); err != nil {
			return 0, err
		}
		count := 1
		for _, c := range n.Plans {
			k, err := walk(c)
			if err != nil {
				return 0, err
			}
			count += k
		}
		return count, nil
	}
	return walk(doc.Query.Plan[0])
}

// checkTextPlan reads a text plan as DBeaver's parsePlanText does: the
// root unindented, each child a "->  " line indented deeper than its
// parent's, properties "Key: value" lines; it returns the number of
// nodes.
func checkTextPlan(lines []string) (int, error) {
	if len(lines) == 0 || strings.HasPrefix(lines[0], " ") || !strings.Contains(lines[0], "(cost=") {
		return 0, fmt.Errorf("want an unindented root node line with its costs")
	}
	nodes := 1
	for _, l := range lines[1:] {
		body := strings.TrimLeft(l, " ")
		switch {
		case strings.HasPrefix(body, "->  "):
			if !strings.Contains(body, "(cost=") {
				return 0, fmt.Errorf("node line %q has no costs", l)
			}
			nodes++
		case !strings.Contains(body, ": "):
			return 0, fmt.Errorf("line %q is neither a node nor a property", l)
		}
	}
	return nodes, nil
}
