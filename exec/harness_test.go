package exec

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// memStore is an in-memory StateWriter and StateReader.
type memStore struct{ m map[string][]byte }

func newMemStore() *memStore { return &memStore{m: map[string][]byte{}} }

func (s *memStore) Set(k, v []byte) { s.m[string(k)] = bytes.Clone(v) }
func (s *memStore) Delete(k []byte) { delete(s.m, string(k)) }

func (s *memStore) Scan(prefix []byte, fn func(k, v []byte) error) error {
	var keys []string
	for k := range s.m {
		if strings.HasPrefix(k, string(prefix)) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn([]byte(k), s.m[k]); err != nil {
			return err
		}
	}
	return nil
}

func (s *memStore) ScanFrom(prefix, from []byte, fn func(k, v []byte) error) error {
	return s.Scan(prefix, func(k, v []byte) error {
		if bytes.Compare(k, from) < 0 {
			return nil
		}
		return fn(k, v)
	})
}

type batchOp struct {
	key    []byte
	val    []byte
	del    bool
	prefix bool
	ranged bool
}

// opBatch records writes to apply to a memStore on commit.
type opBatch struct{ ops []batchOp }

func (b *opBatch) Set(k, v []byte) {
	b.ops = append(b.ops, batchOp{key: bytes.Clone(k), val: bytes.Clone(v)})
}
func (b *opBatch) Delete(k []byte) { b.ops = append(b.ops, batchOp{key: bytes.Clone(k), del: true}) }

// DeletePrefix makes opBatch a PrefixDeleter.
func (b *opBatch) DeletePrefix(p []byte) {
	b.ops = append(b.ops, batchOp{key: bytes.Clone(p), del: true, prefix: true})
}

// DeleteRange makes opBatch a PrefixDeleter.
func (b *opBatch) DeleteRange(start, end []byte) {
	b.ops = append(b.ops, batchOp{key: bytes.Clone(start), val: bytes.Clone(end), del: true, ranged: true})
}

func (b *opBatch) apply(s *memStore) {
	for _, op := range b.ops {
		if op.ranged {
			maps.DeleteFunc(s.m, func(k string, _ []byte) bool { return k >= string(op.key) && k < string(op.val) })
		} else if op.prefix {
			maps.DeleteFunc(s.m, func(k string, _ []byte) bool { return strings.HasPrefix(k, string(op.key)) })
		} else if op.del {
			s.Delete(op.key)
		} else {
			s.Set(op.key, op.val)
		}
	}
}

// harness runs the datadriven commands of testdata/* against one dataflow.
type harness struct {
	plan  *dataflow.Plan
	d     *Dataflow
	store *memStore
}

func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		h := &harness{}
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			out, err := h.run(t, td)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return out
		})
	})
}

func (h *harness) run(t *testing.T, td *datadriven.TestData) (string, error) {
	switch td.Cmd {
	case "dataflow":
		p, err := dataflow.Parse(td.Input)
		if err != nil {
			return "", err
		}
		if h.d, err = Build(p); err != nil {
			if code := repr.ErrorCode(err); code != repr.CodeInternal {
				return fmt.Sprintf("error: %s %s\n", code, err), nil
			}
			return "", err
		}
		h.plan, h.store = p, newMemStore()
		return p.String(), nil
	case "step":
		return h.step(t, td)
	case "shards":
		return shardPlan(t, td)
	case "state":
		var n int
		td.ScanArgs(t, "node", &n)
		return h.d.DebugState(n), nil
	case "restore":
		return h.restore()
	case "late":
		return formatLate(h.d.Late()), nil
	case "watermarks":
		return h.watermarks(), nil
	case "bounded":
		return formatBounded(h.d.Bounded()), nil
	case "size":
		var n int
		td.ScanArgs(t, "node", &n)
		op := h.d.Operators()[n]
		return fmt.Sprintf("%s rows=%d sized=%t\n", op.Op, op.StateRows, op.StateBytes > 0), nil
	case "share":
		return sharePlan(td.Input)
	}
	return "", fmt.Errorf("unknown command %s", td.Cmd)
}

// step parses "src=<coll> <diff> <row>" and "wm src=<coll> <literal>"
// lines, runs a Step and commits it (or rolls it back with the rollback
// argument), printing the output. With the canceled argument the Step
// runs with an already closed Interrupt channel.
func (h *harness) step(t *testing.T, td *datadriven.TestData) (string, error) {
	var ts uint64
	td.ScanArgs(t, "t", &ts)
	inputs, err := parseInputs(h.plan, td.Input, ts)
	if err != nil {
		return "", err
	}
	if td.HasArg("now") {
		var now string
		td.ScanArgs(t, "now", &now)
		if inputs.Now, err = parseNow(now); err != nil {
			return "", err
		}
	}
	var b opBatch
	ctx := &expr.Ctx{}
	if td.HasArg("canceled") {
		// The statement was cancelled before the Step: it must fail
		// with ErrCanceled and leave no trace.
		done := make(chan struct{})
		close(done)
		ctx.Interrupt = done
	}
	out, err := h.d.StepInput(ctx, ts, inputs, &b)
	if err != nil {
		return fmt.Sprintf("error: %s %s\n", repr.ErrorCode(err), err), nil
	}
	if td.HasArg("rollback") {
		h.d.Rollback()
	} else {
		h.d.Commit()
		b.apply(h.store)
	}
	return formatUpdates(out), nil
}

// parseInputs reads "src=<coll> <diff> <row>" lines, whose rows are typed
// by the plan's Source of that collection, and "wm src=<coll> <literal>"
// lines, whose literal is cast to the type of the Source's event-time
// column.
func parseInputs(p *dataflow.Plan, input string, ts uint64) (Input, error) {
	inputs := map[repr.CollectionID][]repr.Update{}
	in := Input{Updates: inputs, Watermarks: map[repr.CollectionID]int64{}}
	for _, line := range strings.Split(input, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "wm "); ok {
			if err := parseWatermark(p, rest, in.Watermarks); err != nil {
				return in, err
			}
			continue
		}
		src, rest, _ := strings.Cut(line, " ")
		diffText, rowText, _ := strings.Cut(rest, " ")
		coll, err := strconv.ParseUint(strings.TrimPrefix(src, "src="), 10, 64)
		if err != nil {
			return in, fmt.Errorf("bad input line %q", line)
		}
		diff, err := strconv.ParseInt(diffText, 10, 64)
		if err != nil {
			return in, fmt.Errorf("bad diff in %q", line)
		}
		row, err := dataflow.ParseRow(rowText, sourceTypes(p, repr.CollectionID(coll)))
		if err != nil {
			return in, err
		}
		id := repr.CollectionID(coll)
		inputs[id] = append(inputs[id], repr.Update{Row: row, Time: ts, Diff: diff})
	}
	return in, nil
}

// parseWatermark parses "src=<coll> <literal>" into wms.
func parseWatermark(p *dataflow.Plan, text string, wms map[repr.CollectionID]int64) error {
	src, lit, _ := strings.Cut(text, " ")
	coll, err := strconv.ParseUint(strings.TrimPrefix(src, "src="), 10, 64)
	if err != nil {
		return fmt.Errorf("bad watermark line %q", text)
	}
	id := repr.CollectionID(coll)
	for _, n := range p.Nodes {
		if s, ok := n.Op.(dataflow.Source); ok && s.Collection == id && s.HasEventTime {
			row, err := dataflow.ParseRow("("+lit+")", n.Types[s.EventTimeCol:s.EventTimeCol+1])
			if err != nil {
				return err
			}
			v, ok := wmValue(row[0])
			if !ok {
				return fmt.Errorf("bad watermark %q", lit)
			}
			wms[id] = v
			return nil
		}
	}
	return fmt.Errorf("collection %d has no event-time source", coll)
}

func formatLate(m map[repr.CollectionID]int64) string {
	var b strings.Builder
	for _, c := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "src=%d late=%d\n", c, m[c])
	}
	if b.Len() == 0 {
		return "no event-time sources\n"
	}
	return b.String()
}

// watermarks prints the output watermarks, one column per line.
func (h *harness) watermarks() string {
	var b strings.Builder
	ts := h.plan.Nodes[h.plan.Output].Types
	for c, v := range h.d.OutputWatermarks() {
		fmt.Fprintf(&b, "#%d %s\n", c, FormatWatermark(ts[c], v))
	}
	return b.String()
}

func formatBounded(rs []StateReport) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintln(&b, r)
	}
	if b.Len() == 0 {
		return "no state\n"
	}
	return b.String()
}

func sourceTypes(p *dataflow.Plan, c repr.CollectionID) []repr.T {
	for _, n := range p.Nodes {
		if s, ok := n.Op.(dataflow.Source); ok && s.Collection == c {
			return n.Types
		}
	}
	return nil
}

func formatUpdates(us []repr.Update) string {
	if len(us) == 0 {
		return "(no output)\n"
	}
	var b strings.Builder
	for _, u := range us {
		fmt.Fprintf(&b, "%+d %s\n", u.Diff, dataflow.FormatRow(u.Row))
	}
	return b.String()
}

// restore builds a second dataflow from the plan, restores it from the
// committed state and replaces the first, reporting any node whose
// restored state differs from the live one.
func (h *harness) restore() (string, error) {
	d, err := Build(h.plan)
	if err != nil {
		return "", err
	}
	if err := d.Restore(h.store); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "restored %d keys\n", len(h.store.m))
	for i := range h.plan.Nodes {
		if got, want := d.DebugState(i), h.d.DebugState(i); got != want {
			fmt.Fprintf(&b, "node %%%d differs:\nrestored:\n%slive:\n%s", i, got, want)
		}
	}
	h.d = d
	return b.String(), nil
}

// parseNow parses the now=<timestamptz text> argument of step (the Step's
// wall-clock time, Input.Now).
func parseNow(s string) (int64, error) {
	row, err := dataflow.ParseRow("('"+s+"')", []repr.T{repr.TimestampTZ})
	if err != nil {
		return 0, err
	}
	return row[0].Micros(), nil
}
