package sql

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
)

// fakeConnectors accepts every definition and runs nothing: tests feed
// sources with IngestChanges themselves.
type fakeConnectors struct {
	active map[uint64]bool
	// batches are the changes ingested per source, by start position (a
	// position is the number of changes before it, 8 bytes big-endian),
	// for History.
	batches map[uint64][]fakeBatch
}

// fakeBatch is one ingested batch and its start position.
type fakeBatch struct {
	start   uint64
	changes []Change
}

// History returns the recorded batches between from and to (SourceHistory).
func (f *fakeConnectors) History(_ context.Context, def SourceDef, from, to []byte, cuts [][]byte,
	emit func([]Change, int) error) (*repr.Error, error) {
	lo, hi := fakePosition(from), fakePosition(to)
	for _, b := range f.batches[def.ID] {
		if b.start < lo || b.start >= hi {
			continue
		}
		seg := 0
		for seg < len(cuts) && fakePosition(cuts[seg]) <= b.start {
			seg++
		}
		if err := emit(b.changes, seg); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func fakePosition(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func (f *fakeConnectors) Validate(SourceDef) error   { return nil }
func (f *fakeConnectors) Activate(d SourceDef)       { f.active[d.ID] = true }
func (f *fakeConnectors) Deactivate(id uint64)       { delete(f.active, id) }
func (f *fakeConnectors) ValidateSink(SinkDef) error { return nil }
func (f *fakeConnectors) ActivateSink(SinkDef)       {}
func (f *fakeConnectors) DeactivateSink(uint64)      {}

// TestConnectors runs testdata_connectors (kept apart from testdata, whose
// files TestSession runs without a connector runtime). Commands: exec and
// restart as in TestSession; `ingest source=<name> [partition=p]` feeds
// one batch whose lines are `insert|delete|upsert <v1,v2,...>`, `tombstone
// <key values>` or `error <partition> <offset> <message>` (bad records,
// counted); a change line may start with `partition=p` (its record's
// partition; default the command's, else 0; its offset is its position,
// the number of changes before it); `sinklog sink=<name>` prints the sink's undelivered log;
// `ack sink=<name> time=<t>` acknowledges it.
func TestConnectors(t *testing.T) {
	datadriven.Walk(t, "testdata_connectors", func(t *testing.T, path string) {
		te := newTestEngine(t)
		fc := &fakeConnectors{active: map[uint64]bool{}, batches: map[uint64][]fakeBatch{}}
		te.e.SetConnectors(fc)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "exec":
				return te.run(d.Input)
			case "restart":
				te.restart()
				fc.active = map[uint64]bool{}
				te.e.SetConnectors(fc)
				return "ok\n"
			case "ingest":
				return te.ingest(t, d, fc)
			case "sinklog", "ack":
				return te.sinkCmd(t, d)
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// ingest feeds one batch to a source (see TestConnectors).
func (te *testEngine) ingest(t *testing.T, d *datadriven.TestData, fc *fakeConnectors) string {
	var name string
	d.ScanArgs(t, "source", &name)
	var part int
	if d.HasArg("partition") {
		d.ScanArgs(t, "partition", &part)
	}
	obj := te.e.cat.lookup("", name)
	if obj == nil || obj.Source == nil {
		t.Fatalf("no source %s", name)
	}
	prev, err := te.e.SourcePosition(obj.ID)
	if err != nil {
		t.Fatal(err)
	}
	start := fakePosition(prev)
	stats := &IngestStats{}
	var changes []Change
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		p := part
		if v, ok := strings.CutPrefix(line, "partition="); ok {
			n, after, _ := strings.Cut(v, " ")
			var err error
			if p, err = strconv.Atoi(n); err != nil {
				t.Fatal(err)
			}
			line = after
		}
		kind, rest, _ := strings.Cut(line, " ")
		stats.Records++
		if kind == "error" {
			f := strings.SplitN(rest, " ", 3)
			p, _ := strconv.Atoi(f[0])
			o, _ := strconv.ParseInt(f[1], 10, 64)
			stats.Bad++
			stats.Errors = append(stats.Errors, SourceError{Partition: int32(p), Offset: o, Err: f[2], Prefix: "{..."})
			continue
		}
		ch := Change{Kind: map[string]ChangeKind{"insert": ChangeInsert, "delete": ChangeDelete, "upsert": ChangeUpsert, "tombstone": ChangeTombstone}[kind],
			Partition: int32(p), Offset: int64(start) + int64(len(changes))}
		if ch.Kind == ChangeTombstone {
			ch.Key = parseValues(t, rest, obj, obj.PrimaryKey)
		} else {
			ch.Row = parseValues(t, rest, obj, nil)
		}
		changes = append(changes, ch)
	}
	pos := binary.BigEndian.AppendUint64(nil, start+uint64(len(changes)))
	if err := te.e.IngestChanges(obj.ID, changes, pos, stats); err != nil {
		return errText(err)
	}
	fc.batches[obj.ID] = append(fc.batches[obj.ID], fakeBatch{start: start, changes: changes})
	return "ok\n"
}

// parseValues reads comma-separated text values of obj's columns (cols:
// the column of each value; nil for all).
func parseValues(t *testing.T, s string, obj *Object, cols []int) repr.Row {
	var row repr.Row
	for i, v := range strings.Split(s, ",") {
		col := i
		if cols != nil {
			col = cols[i]
		}
		d, err := repr.ParseText(strings.TrimSpace(v), obj.Columns[col].Type, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		row = append(row, d)
	}
	return row
}

// sinkCmd prints or acknowledges a sink's log.
func (te *testEngine) sinkCmd(t *testing.T, d *datadriven.TestData) string {
	var name string
	d.ScanArgs(t, "sink", &name)
	te.e.mu.RLock()
	s := te.e.sinkNamed(nsPublic, name)
	te.e.mu.RUnlock()
	if s == nil {
		t.Fatalf("no sink %s", name)
	}
	if d.Cmd == "ack" {
		var at uint64
		d.ScanArgs(t, "time", &at)
		if err := te.e.AckSink(s.def.ID, at, 0); err != nil {
			return errText(err)
		}
		return "ok\n"
	}
	batches, err := te.e.SinkLog(s.def.ID, 0, 100)
	if err != nil {
		return errText(err)
	}
	var b strings.Builder
	for _, sb := range batches {
		for _, u := range sb.Updates {
			fmt.Fprintf(&b, "t=%d %+d %v\n", sb.Time, u.Diff, u.Row)
		}
	}
	return b.String()
}

// TestPartitionWatermarkEncoding checks that the logged source batches keep
// each change's partition (replay re-derives the per-partition watermarks
// from them) and that the watermark key reads both encodings.
func TestPartitionWatermarkEncoding(t *testing.T) {
	changes := []Change{
		{Kind: ChangeInsert, Row: repr.Row{repr.NewInt(1)}, Partition: 0},
		{Kind: ChangeUpsert, Row: repr.Row{repr.NewInt(2)}, Partition: 7},
		{Kind: ChangeTombstone, Key: repr.Row{repr.NewInt(3)}, Partition: -1},
	}
	rec, err := decodeLogRecord(appendSourceRecord(nil, 5, 9, changes))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.changes) != len(changes) {
		t.Fatalf("got %d changes", len(rec.changes))
	}
	for i, c := range rec.changes {
		if c.Kind != changes[i].Kind || c.Partition != changes[i].Partition {
			t.Errorf("change %d: got kind %d partition %d, want %d %d", i, c.Kind, c.Partition, changes[i].Kind, changes[i].Partition)
		}
	}
	wm, parts := decodeWatermark(encodeWatermark(42, map[int32]int64{0: 50, 3: 42}))
	if wm != 42 || len(parts) != 2 || parts[0] != 50 || parts[3] != 42 {
		t.Errorf("got %d %v", wm, parts)
	}
	if wm, parts := decodeWatermark(encodeInt64(-17)); wm != -17 || parts != nil {
		t.Errorf("old encoding: got %d %v", wm, parts)
	}
}
