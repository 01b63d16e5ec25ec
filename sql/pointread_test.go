package sql

import (
	"context"
	"fmt"
	"slices"
	"strconv"
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
//   - `prepare name [types=(oid,...)]` prepares the input (with the
//     parameter types a driver declares) and keeps the statement as name.
//   - `execute name [params=(...)]` binds and executes a kept statement
//     (its plan may be cached: see plancache.go); an INSERT served by its
//     kept plan with the rows rebuilt prints so (insert_template.go).
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
		var oids []uint32 // types=(oid,...): the parameter types a driver declares
		if d.HasArg("types") {
			var ts []string
			d.ScanArgs(t, "types", &ts)
			for _, x := range ts {
				oid, err := strconv.ParseUint(x, 10, 32)
				if err != nil {
					t.Fatalf("types: %v", err)
				}
				oids = append(oids, uint32(oid))
			}
		}
		stmts, err := te.s.Prepare(context.Background(), d.Input, oids)
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
		before, shared := insertRebinds.Load(), insertShared.Load()
		out, err := te.execParams(st, params(d))
		if err != nil {
			out += errText(err)
		}
		if insertRebinds.Load() > before {
			out += "(insert plan kept)\n"
		}
		if insertShared.Load() > shared {
			out += "(bound values used as the rows)\n"
		}
		return out
	}
	t.Fatalf("unknown command %s", d.Cmd)
	return ""
}

// compareReads executes st four ways and checks that the answers agree
// (as multisets: without ORDER BY the order is free): as served (generic
// plan, point reads, direct point reads, shared joins), the same through a
// built dataflow (which must give the same rows in the same order),
// without point reads and shared joins,
// and as the reference (planned with the values as literals, full
// snapshots). It prints the answer and which fast paths ran.
func (te *testEngine) compareReads(t *testing.T, d *datadriven.TestData, st *Statement) string {
	ps := params(d)
	before, beforeShared := pointReadCount.Load(), sharedJoinCount.Load()
	fast := te.execOrErr(st, ps)
	used, shared := pointReadCount.Load()-before, sharedJoinCount.Load()-beforeShared
	generic := st.plan != nil && st.plan.q != nil
	disableDirectPoints = true
	built := te.execOrErr(st, ps)
	disableDirectPoints = false
	if fast != built { // the same rows in the same order (pointplan.go)
		t.Fatalf("%s: served\n%s\nthrough a built dataflow\n%s", d.Pos, fast, built)
	}
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

// TestLongInListPointRead checks that an IN list longer than maxPrefixes
// still reads by key on a table large enough (one probe per rowsPerProbe
// rows) in SELECT, UPDATE and DELETE, with the answers and the writes of
// a full scan, and that a view over the table sees the writes.
func TestLongInListPointRead(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE li (k int, n int, v int, PRIMARY KEY (k, n));
CREATE MATERIALIZED VIEW s AS SELECT count(*) AS c, sum(v) AS t FROM li;
INSERT INTO li SELECT g / 4, g % 4, g FROM generate_series(0, 39999) g`)
	keys := func(step, off int) string {
		var b strings.Builder
		for i := range 1500 {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, i*step+off)
		}
		b.WriteString(", NULL")
		return b.String()
	}
	in := keys(3, 1)
	sel := "SELECT count(*), sum(v) FROM li WHERE k IN (" + in + ")"
	before := pointReadCount.Load()
	fast := te.mustRun(sel)
	if pointReadCount.Load() == before {
		t.Fatalf("a 1,501-value IN list over 40,000 rows did not read by key")
	}
	disablePointReads = true
	slow := te.mustRun(sel)
	disablePointReads = false
	if fast != slow {
		t.Fatalf("by key:\n%s\nby scan:\n%s", fast, slow)
	}
	te.mustRun("UPDATE li SET v = -v WHERE k IN (" + in + ")")
	te.mustRun("DELETE FROM li WHERE k IN (" + keys(5, 2) + ")")
	const whole = "SELECT count(*) AS c, sum(v) AS t FROM li"
	if got, want := te.mustRun("SELECT * FROM s"), te.mustRun(whole); got != want {
		t.Fatalf("view after the writes:\n%s\nwant:\n%s", got, want)
	}
	// 40,000 rows: 10,000 keys; 1,500 updated (k = 1, 4, ...), 1,500
	// deleted (k = 2, 7, ...), 300 of them both (k = 7, 22, ...: k = 1 mod 3
	// and 2 mod 5 is k = 7 mod 15).
	if got, want := te.mustRun("SELECT count(DISTINCT k) FROM li WHERE v < 0"), te.mustRun("SELECT 1200::bigint AS count"); got != want {
		t.Fatalf("updated keys left:\n%s\nwant:\n%s", got, want)
	}
}
