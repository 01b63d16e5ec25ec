package sql

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// genReplayer stands for a deterministic connector: the batch between
// positions from and to (8-byte counters) is the rows i, 'r<i>' for i in
// [from, to). skew, when set, makes replay disagree with what was ingested.
type genReplayer struct{ skew int }

func (genReplayer) Replayable(def SourceDef) bool { return def.Name == "gen" }

func (g genReplayer) Replay(def SourceDef, from, to []byte) ([]Change, error) {
	return genBatch(genPos(from), genPos(to)+int64(g.skew)), nil
}

func genPos(b []byte) int64 {
	if len(b) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

func genBatch(from, to int64) []Change {
	var out []Change
	for i := from; i < to; i++ {
		out = append(out, Change{Kind: ChangeInsert, Row: repr.Row{repr.NewInt(i), repr.NewText(fmt.Sprintf("r%d", i))}})
	}
	return out
}

// TestReplayableSourceLog: a replayable source's batches are logged by
// position only, and a crash before the checkpoint is recovered by
// regenerating them; a non-replayable source's batches keep their rows.
// Replay fails loudly when no replayer can regenerate a logged batch or
// when it regenerates a different one.
func TestReplayableSourceLog(t *testing.T) {
	te := &testEngine{t: t, dir: t.TempDir(), opts: Options{Replayer: genReplayer{}}}
	te.open()
	defer func() { _ = te.e.Close() }()
	te.e.SetConnectors(&fakeConnectors{active: map[uint64]bool{}})
	te.e.SetCheckpointOptions(CheckpointOptions{})
	out := te.run(`CREATE SOURCE gen (i int, s text) WITH (connector = 'kafka', topic = 'g');
CREATE SOURCE other (i int, s text) WITH (connector = 'kafka', topic = 'o');
CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n, sum(i) AS total, max(s) AS hi FROM gen;
CREATE MATERIALIZED VIEW w AS SELECT count(*) AS n, sum(i) AS total FROM other`)
	if strings.Contains(out, "ERROR") {
		t.Fatal(out)
	}
	ingest := func(name string, from, to int64) {
		obj := te.e.cat.lookup("", name)
		pos := binary.BigEndian.AppendUint64(nil, uint64(to))
		if err := te.e.IngestChanges(obj.ID, genBatch(from, to), pos, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range [][2]int64{{0, 10}, {10, 25}, {25, 40}} {
		ingest("gen", r[0], r[1])
		ingest("other", r[0], r[1])
	}
	kinds := logKinds(t, te.e)
	if kinds != "rsrsrs" {
		t.Fatalf("log record kinds %q, want position-only records (r) for gen and full ones (s) for other", kinds)
	}
	want := te.run("SELECT * FROM v; SELECT * FROM w")
	if !strings.Contains(want, "40 | 780 | r9") {
		t.Fatalf("views before the crash:\n%s", want)
	}

	if err := te.e.CloseWithoutCheckpoint(); err != nil {
		t.Fatal(err)
	}
	// No replayer: the restart refuses rather than lose the batches.
	if e, err := OpenWith(te.dir, te.e.log, Options{}); err == nil || !strings.Contains(err.Error(), "cannot replay") {
		if e != nil {
			_ = e.Close()
		}
		t.Fatalf("restart without a replayer: %v", err)
	}
	// A replayer that disagrees with the log's change counts.
	e, err := OpenWith(te.dir, te.e.log, Options{Replayer: genReplayer{skew: 1}})
	if err == nil || !strings.Contains(err.Error(), "changes, the log recorded") {
		if e != nil {
			_ = e.Close()
		}
		t.Fatalf("restart with a skewed replayer: %v", err)
	}
	// The real one rebuilds the views, and the source continues from there.
	e, err = OpenWith(te.dir, te.e.log, Options{Replayer: genReplayer{}})
	if err != nil {
		t.Fatal(err)
	}
	te.e, te.s = e, e.NewSession(map[string]string{"user": "eddy"})
	te.e.SetConnectors(&fakeConnectors{active: map[uint64]bool{}})
	if got := te.run("SELECT * FROM v; SELECT * FROM w"); got != want {
		t.Fatalf("after replay:\n%s\nwant:\n%s", got, want)
	}
	ingest("gen", 40, 41)
	if got := te.run("SELECT n, total FROM v"); !strings.Contains(got, "41 | 820") {
		t.Fatalf("after one more batch:\n%s", got)
	}
}

// logKinds returns the kind bytes of the input log's records in order.
func logKinds(t *testing.T, e *Engine) string {
	var b strings.Builder
	if err := e.db.Scan(storage.LogPrefix(), func(_, v []byte) error { b.WriteByte(v[0]); return nil }); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
