package kafka

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
	"github.com/eddydb/eddy/server/connector/format"
	"github.com/twmb/franz-go/pkg/kfake"
)

const topic = "events"

// newCluster starts an in-process Kafka cluster with topic seeded with
// the given number of partitions, and returns a Config for it.
func newCluster(t *testing.T, partitions int32) Config {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cfg, err := ParseOptions(map[string]string{
		"connector": "kafka", "topic": topic,
		"properties.bootstrap.server":  strings.Join(c.ListenAddrs(), ","),
		"properties.fetch.max.wait.ms": "50",
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// testCtx is a context that ends the test if Kafka hangs.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// produce writes n records to each partition, valued "<tag>-p<partition>-<i>".
func produce(t *testing.T, cfg Config, partitions int32, n int, tag string) []string {
	t.Helper()
	p, err := NewProducer(cfg, ProducerOptions{ManualPartitions: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var recs []Record
	var vals []string
	for part := range partitions {
		for i := range n {
			v := fmt.Sprintf("%s-p%d-%d", tag, part, i)
			recs = append(recs, Record{Partition: part, Value: []byte(v)})
			vals = append(vals, v)
		}
	}
	if err := p.Produce(testCtx(t), recs...); err != nil {
		t.Fatal(err)
	}
	return vals
}

// pollN polls until n records arrived, checking offsets grow within each
// partition from the reader's starting positions (by one, unless
// transaction markers or aborted records lie between).
func pollN(t *testing.T, r *Reader, n, batch int) []Record {
	t.Helper()
	ctx := testCtx(t)
	var got []Record
	last := r.Positions()
	for len(got) < n {
		recs, err := r.Poll(ctx, min(batch, n-len(got)))
		if err != nil {
			t.Fatalf("after %d of %d records: %v", len(got), n, err)
		}
		for _, rec := range recs {
			if rec.Offset < last[rec.Partition] {
				t.Fatalf("partition %d: offset %d after %d", rec.Partition, rec.Offset, last[rec.Partition]-1)
			}
			last[rec.Partition] = rec.Offset + 1
		}
		got = append(got, recs...)
	}
	return got
}

// values returns the sorted values of recs.
func values(recs []Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, string(r.Value))
	}
	slices.Sort(out)
	return out
}

// expectNothing checks no record arrives within a short wait.
func expectNothing(t *testing.T, r *Reader) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if recs, err := r.Poll(ctx, 0); len(recs) > 0 || err != context.DeadlineExceeded {
		t.Fatalf("unexpected records %v, err %v", values(recs), err)
	}
}

// checkLag polls Lag until it equals want (fetches may lag a little).
func checkLag(t *testing.T, r *Reader, want map[int32]int64) {
	t.Helper()
	lag, err := r.Lag(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(lag, want) {
		t.Fatalf("lag %v, want %v", lag, want)
	}
}

func TestReadAllPartitionsFromEarliest(t *testing.T) {
	cfg := newCluster(t, 3)
	want := produce(t, cfg, 3, 20, "a")
	r, err := NewReader(testCtx(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checkLag(t, r, map[int32]int64{0: 20, 1: 20, 2: 20})
	got := pollN(t, r, len(want), 7)
	if !slices.Equal(values(got), slices.Sorted(slices.Values(want))) {
		t.Fatalf("got %v", values(got))
	}
	expectNothing(t, r)
	checkLag(t, r, map[int32]int64{0: 0, 1: 0, 2: 0})
	if pos := r.Positions(); !maps.Equal(pos, map[int32]int64{0: 20, 1: 20, 2: 20}) {
		t.Fatalf("positions %v", pos)
	}
}

func TestReadFromLatest(t *testing.T) {
	cfg := newCluster(t, 2)
	produce(t, cfg, 2, 5, "old")
	cfg.StartupMode = StartLatest
	r, err := NewReader(testCtx(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checkLag(t, r, map[int32]int64{0: 0, 1: 0})
	want := produce(t, cfg, 2, 3, "new")
	got := pollN(t, r, len(want), 100)
	if !slices.Equal(values(got), slices.Sorted(slices.Values(want))) {
		t.Fatalf("got %v", values(got))
	}
	expectNothing(t, r)
}

func TestReadFromExplicitOffsets(t *testing.T) {
	cfg := newCluster(t, 3)
	produce(t, cfg, 3, 10, "a")
	// Partition 2 is missing from the map: it is new, read from the start
	// even though the startup mode says latest.
	cfg.StartupMode = StartLatest
	r, err := NewReader(testCtx(t), cfg, map[int32]int64{0: 4, 1: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checkLag(t, r, map[int32]int64{0: 6, 1: 0, 2: 10})
	got := pollN(t, r, 16, 100)
	var want []string
	for i := 4; i < 10; i++ {
		want = append(want, fmt.Sprintf("a-p0-%d", i))
	}
	for i := range 10 {
		want = append(want, fmt.Sprintf("a-p2-%d", i))
	}
	slices.Sort(want)
	if !slices.Equal(values(got), want) {
		t.Fatalf("got %v", values(got))
	}
	expectNothing(t, r)
}

// TestResume stops a reader midway and resumes from its positions, with
// more records produced in between: the two readers together see every
// record exactly once.
func TestResume(t *testing.T) {
	cfg := newCluster(t, 4)
	all := produce(t, cfg, 4, 25, "a")
	r, err := NewReader(testCtx(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := pollN(t, r, 37, 5)
	pos := r.Positions()
	r.Close()
	all = append(all, produce(t, cfg, 4, 5, "b")...)

	r2, err := NewReader(testCtx(t), cfg, pos)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if got := r2.Positions(); !maps.Equal(got, pos) {
		t.Fatalf("resumed at %v, want %v", got, pos)
	}
	second := pollN(t, r2, len(all)-len(first), 9)
	expectNothing(t, r2)
	got := values(append(first, second...))
	if !slices.Equal(got, slices.Sorted(slices.Values(all))) {
		t.Fatalf("lost or duplicated records: got %d, want %d", len(got), len(all))
	}
	checkLag(t, r2, map[int32]int64{0: 0, 1: 0, 2: 0, 3: 0})
}

func TestUnknownTopic(t *testing.T) {
	cfg := newCluster(t, 1)
	cfg.Topic = "nope"
	_, err := NewReader(testCtx(t), cfg, nil)
	if repr.ErrorCode(err) != repr.CodeInvalidParameter {
		t.Fatalf("got %v", err)
	}
}

// TestTransactions checks that a read_committed reader never sees records
// of an aborted transaction, sees committed ones, and reads past the
// transaction markers (lag zero); a read_uncommitted reader sees both.
func TestTransactions(t *testing.T) {
	cfg := newCluster(t, 2)
	p, err := NewProducer(cfg, ProducerOptions{TransactionalID: "sink-1", ManualPartitions: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := testCtx(t)
	txn := func(commit bool, vals ...string) {
		if err := p.Begin(); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if err := p.Produce(ctx, Record{Partition: int32(i % 2), Value: []byte(v)}); err != nil {
				t.Fatal(err)
			}
		}
		end := p.Abort
		if commit {
			end = p.Commit
		}
		if err := end(ctx); err != nil {
			t.Fatal(err)
		}
	}
	txn(false, "aborted-1", "aborted-2", "aborted-3")
	txn(true, "committed-1", "committed-2")
	txn(false, "aborted-4")

	r, err := NewReader(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := values(pollN(t, r, 2, 100)); !slices.Equal(got, []string{"committed-1", "committed-2"}) {
		t.Fatalf("read_committed got %v", got)
	}
	expectNothing(t, r)
	checkLag(t, r, map[int32]int64{0: 0, 1: 0})

	cfg.ReadUncommitted = true
	ru, err := NewReader(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ru.Close()
	if got := values(pollN(t, ru, 6, 100)); len(got) != 6 {
		t.Fatalf("read_uncommitted got %v", got)
	}
}

// TestIngestBadRecords decodes a topic with bad records: skipped, counted
// and reported with partition and offset, or failing the source.
func TestIngestBadRecords(t *testing.T) {
	cfg := newCluster(t, 2)
	p, err := NewProducer(cfg, ProducerOptions{ManualPartitions: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	vals := [][2]string{{"0", `{"id": 1}`}, {"1", `{"id": "x"}`}, {"0", `{"id": 2`}, {"1", `{"id": 3}`}}
	for _, v := range vals {
		part := int32(v[0][0] - '0')
		if err := p.Produce(testCtx(t), Record{Partition: part, Value: []byte(v[1])}); err != nil {
			t.Fatal(err)
		}
	}
	dec, err := format.NewDecoder("plain", "json", []connector.Column{{Name: "id", Type: repr.Int4}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(testCtx(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs := pollN(t, r, 4, 100)
	slices.SortFunc(recs, func(a, b Record) int { return int(a.Partition-b.Partition)*100 + int(a.Offset-b.Offset) })

	var reports []string
	in := Ingest{Source: "s", Decoder: dec, Report: func(b BadRecord) { reports = append(reports, b.String()) }}
	var out format.Changes
	if err := in.Decode(recs, &out); err != nil {
		t.Fatal(err)
	}
	if in.Records != 4 || in.Bad != 2 || out.Len() != 2 {
		t.Fatalf("records %d bad %d changes %d", in.Records, in.Bad, out.Len())
	}
	wantReports := []string{
		`source "s" partition 0 offset 1: 22P02: invalid input syntax for type json: The input string ended unexpectedly. (record starts "{\"id\": 2")`,
		`source "s" partition 1 offset 0: 22P02: invalid input syntax for type integer: "x": column "id" (record starts "{\"id\": \"x\"}")`,
	}
	if !slices.Equal(reports, wantReports) {
		t.Fatalf("reports:\n%s", strings.Join(reports, "\n"))
	}

	fail := Ingest{Source: "s", Decoder: dec, OnError: FailOnBadRecord}
	out.Reset()
	err = fail.Decode(recs, &out)
	e := repr.ErrorFrom(err)
	if e.Code != repr.CodeInvalidText || !strings.Contains(e.Message, `source "s" stopped on a bad record at partition 0 offset 1`) || out.Len() != 1 {
		t.Fatalf("got %v (%s), %d changes", err, e.Detail, out.Len())
	}
}

func TestReadFromTimestamp(t *testing.T) {
	cfg := newCluster(t, 1)
	p, err := NewProducer(cfg, ProducerOptions{ManualPartitions: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	base := time.UnixMilli(1_700_000_000_000)
	for i := range 6 {
		rec := Record{Value: []byte(fmt.Sprint(i)), Timestamp: base.Add(time.Duration(i) * time.Second)}
		if err := p.Produce(testCtx(t), rec); err != nil {
			t.Fatal(err)
		}
	}
	cfg.StartupMode, cfg.StartupMillis = StartTimestamp, base.Add(3*time.Second).UnixMilli()
	r, err := NewReader(testCtx(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := values(pollN(t, r, 3, 100)); !slices.Equal(got, []string{"3", "4", "5"}) {
		t.Fatalf("got %v", got)
	}
	// A time after the last record starts at the end.
	cfg.StartupMillis = base.Add(time.Hour).UnixMilli()
	r2, err := NewReader(testCtx(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if pos := r2.Positions(); pos[0] != 6 {
		t.Fatalf("positions %v", pos)
	}
}
