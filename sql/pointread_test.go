package sql

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// readCmd runs the read-path commands of the session transcripts:
//
//   - `query [params=(v1,v2,...)]` prepares the input as one statement,
//     binds the parameters (text format; NULL is NULL) and executes it
//     twice: with point reads and with full snapshots. It fails the test if
//     the two answers differ and prints the answer and whether the query
//     used a point read.
//   - `prepare name` prepares the input and keeps the statement as name.
//   - `execute name [params=(...)]` binds and executes a kept statement
//     (its plan may be cached: see plancache.go).
func (te *testEngine) readCmd(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "query":
		stmts, err := te.s.Prepare(context.Background(), d.Input, nil)
		if err != nil {
			return errText(err)
		}
		if len(stmts) != 1 {
			t.Fatalf("query wants one statement, got %d", len(stmts))
		}
		return te.compareReads(t, d, stmts[0])
	case "prepare":
		var name string
		d.ScanArgs(t, "name", &name)
		stmts, err := te.s.Prepare(context.Background(), d.Input, nil)
		if err != nil {
			return errText(err)
		}
		if te.prepared == nil {
			te.prepared = map[string]*Statement{}
		}
		te.prepared[name] = stmts[0]
		return "ok\n"
	case "execute":
		var name string
		d.ScanArgs(t, "name", &name)
		st := te.prepared[name]
		if st == nil {
			t.Fatalf("no prepared statement %s", name)
		}
		out, err := te.execParams(st, params(d))
		if err != nil {
			return out + errText(err)
		}
		return out
	}
	t.Fatalf("unknown command %s", d.Cmd)
	return ""
}

// compareReads executes st three ways and checks that the answers agree
// (as multisets: without ORDER BY the order is free): as served (generic
// plan, point reads, shared joins), without point reads and shared joins,
// and as the reference (planned with the values as literals, full
// snapshots). It prints the answer and which fast paths ran.
func (te *testEngine) compareReads(t *testing.T, d *datadriven.TestData, st *Statement) string {
	ps := params(d)
	before, beforeShared := pointReadCount.Load(), sharedJoinCount.Load()
	fast := te.execOrErr(st, ps)
	used, shared := pointReadCount.Load()-before, sharedJoinCount.Load()-beforeShared
	generic := st.plan != nil && st.plan.q != nil
	disablePointReads, disableSharedJoins = true, true
	slow := te.execOrErr(st, ps)
	disableGenericPlans = true
	ref := te.execOrErr(st, ps)
	disablePointReads, disableGenericPlans, disableSharedJoins = false, false, false
	if sortedLines(fast) != sortedLines(ref) || sortedLines(slow) != sortedLines(ref) {
		t.Fatalf("%s: served\n%s\nwithout point reads\n%s\nreference\n%s", d.Pos, fast, slow, ref)
	}
	if used > 0 {
		fast += "(point read)\n"
	}
	if shared > 0 {
		fast += "(shared join)\n"
	}
	if generic {
		fast += "(generic plan)\n"
	}
	return fast
}

// execOrErr is execParams with the error printed into the transcript.
func (te *testEngine) execOrErr(st *Statement, ps [][]byte) string {
	out, err := te.execParams(st, ps)
	if err != nil {
		out += errText(err)
	}
	return out
}

// params returns the params=(...) argument as wire values (text format).
func params(d *datadriven.TestData) [][]byte {
	for _, a := range d.CmdArgs {
		if a.Key != "params" {
			continue
		}
		out := make([][]byte, len(a.Vals))
		for i, v := range a.Vals {
			if v != "NULL" {
				out[i] = []byte(v)
			}
		}
		return out
	}
	return nil
}

// execParams binds st with text parameters and executes it, printing the
// transcript as execOne does.
func (te *testEngine) execParams(st *Statement, ps [][]byte) (string, error) {
	ctx := context.Background()
	p, err := st.Bind(ctx, ps, nil, nil)
	if err != nil {
		return "", err
	}
	rc := &rowCollector{}
	tag, _, err := p.Execute(ctx, rc, 0)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range rc.rows {
		b.WriteString(strings.Join(r, " | ") + "\n")
	}
	return b.String() + tag + "\n", nil
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
