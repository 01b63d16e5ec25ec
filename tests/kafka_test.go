package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddydb/eddy/tests/harness"
)

// The Kafka tests run an in-process Kafka cluster (kfake) in the test and
// Eddy as a subprocess, which reaches kfake through the address given in
// the WITH options.

// startKafka starts kfake with the given topics (name -> partitions) and
// returns its bootstrap address.
func startKafka(t *testing.T, topics map[string]int32) string {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1)}
	for name, parts := range topics {
		opts = append(opts, kfake.SeedTopics(parts, name))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return strings.Join(c.ListenAddrs(), ",")
}

// kafkaRec is a record to produce: partition, key (nil for none) and value
// (nil for a tombstone).
type kafkaRec struct {
	part       int32
	key, value []byte
}

// producer is a non-transactional test producer writing to chosen
// partitions.
func producer(t *testing.T, addr string) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DisableClientMetrics())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produceRecs writes recs to topic and waits for the acknowledgements.
func produceRecs(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, recs ...kafkaRec) {
	t.Helper()
	krs := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		krs[i] = &kgo.Record{Topic: topic, Partition: r.part, Key: r.key, Value: r.value}
	}
	if err := cl.ProduceSync(ctx, krs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// waitRows polls sql until its rows (sorted, "|"-joined, ";"-separated)
// equal want, and fails with the last result after a timeout.
func waitRows(t *testing.T, ctx context.Context, c *pgconn.PgConn, sql, want string) {
	t.Helper()
	var got string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		rows, err := queryRows(ctx, c, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if got = strings.Join(rows, ";"); got == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s:\ngot  %s\nwant %s", sql, got, want)
}

func mustRows(t *testing.T, ctx context.Context, c *pgconn.PgConn, sql string) string {
	t.Helper()
	rows, err := queryRows(ctx, c, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(rows, ";")
}

func kafkaWith(addr, topic string, extra ...string) string {
	return fmt.Sprintf("WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s'%s)", topic, addr, strings.Join(extra, ""))
}

// TestKafkaSourcePlain: a PLAIN JSON source over two partitions feeds a
// view; bad records are skipped, counted in eddy_sources and listed in
// eddy_source_errors; the lag returns to zero; DROP SOURCE needs CASCADE.
func TestKafkaSourcePlain(t *testing.T) {
	addr := startKafka(t, map[string]int32{"events": 2})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	p := producer(t, addr)
	produceRecs(t, ctx, p, "events",
		kafkaRec{0, nil, []byte(`{"id": 1, "grp": "a", "amount": 10}`)},
		kafkaRec{1, nil, []byte(`{"id": 2, "grp": "b", "amount": 5}`)},
		kafkaRec{0, nil, []byte(`{"id": 3, "grp": "a", "amount": 7`)},    // invalid JSON
		kafkaRec{1, nil, []byte(`{"id": 4, "grp": "b", "amount": "x"}`)}, // wrong type
		kafkaRec{1, nil, []byte(`{"id": 5, "grp": "a", "amount": 1}`)})
	execAll(t, ctx, c,
		"CREATE SOURCE ev (id int, grp text, amount int) "+kafkaWith(addr, "events")+" FORMAT PLAIN ENCODE JSON",
		"CREATE MATERIALIZED VIEW totals AS SELECT grp, count(*) AS n, sum(amount) AS total FROM ev GROUP BY grp")
	waitRows(t, ctx, c, "SELECT * FROM totals", "a|2|11;b|1|5")
	waitRows(t, ctx, c, "SELECT name, connector, state, error, records, bad_records, lag FROM eddy_sources", "ev|kafka|running|NULL|5|2|0")
	waitRows(t, ctx, c, `SELECT source, partition, "offset", substr(error, 1, 5), record FROM eddy_source_errors`,
		`ev|0|1|22P02|{"id": 3, "grp": "a", "amount": 7;ev|1|1|22P02|{"id": 4, "grp": "b", "amount": "x"}`)
	produceRecs(t, ctx, p, "events", kafkaRec{0, nil, []byte(`{"id": 6, "grp": "b", "amount": 100}`)})
	waitRows(t, ctx, c, "SELECT * FROM totals", "a|2|11;b|2|105")
	waitRows(t, ctx, c, "SELECT records, bad_records, lag FROM eddy_sources", "6|2|0")

	// The counters and the error list survive a restart; nothing is read twice.
	s.Kill()
	s.Restart()
	c2 := pgConnect(t, ctx, s.DSN())
	defer c2.Close(ctx)
	waitRows(t, ctx, c2, "SELECT records, bad_records, lag FROM eddy_sources", "6|2|0")
	waitRows(t, ctx, c2, "SELECT * FROM totals", "a|2|11;b|2|105")
	if got := mustRows(t, ctx, c2, "SELECT count(*) FROM eddy_source_errors"); got != "2" {
		t.Errorf("eddy_source_errors has %s rows after the restart, want 2", got)
	}
	if _, err := c2.Exec(ctx, "DROP SOURCE ev").ReadAll(); pgCode(err) != "2BP01" {
		t.Errorf("DROP SOURCE with a dependent view: got %v, want 2BP01", err)
	}
	if _, err := c2.Exec(ctx, "INSERT INTO eddy_sources VALUES ('x')").ReadAll(); pgCode(err) != "42809" {
		t.Errorf("INSERT INTO eddy_sources: got %v, want 42809", err)
	}
	execAll(t, ctx, c2, "DROP SOURCE ev CASCADE")
	waitRows(t, ctx, c2, "SELECT count(*) FROM eddy_sources", "0")
	waitRows(t, ctx, c2, "SELECT count(*) FROM eddy_source_errors", "0")
}

func pgCode(err error) string {
	if pe, ok := err.(*pgconn.PgError); ok {
		return pe.Code
	}
	return fmt.Sprint(err)
}

// TestKafkaUpsertAndDebezium: tables with a primary key fed by FORMAT
// UPSERT (with tombstones) and FORMAT DEBEZIUM, and a view over each.
func TestKafkaUpsertAndDebezium(t *testing.T) {
	addr := startKafka(t, map[string]int32{"up": 2, "dbz": 1, "up_out": 2, "dbz_out": 1})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	execAll(t, ctx, c,
		"CREATE TABLE up (id int PRIMARY KEY, v text) "+kafkaWith(addr, "up")+" FORMAT UPSERT ENCODE JSON",
		"CREATE MATERIALIZED VIEW up_n AS SELECT count(*) AS n, min(v) AS lo, max(v) AS hi FROM up",
		"CREATE TABLE dbz (id int PRIMARY KEY, v int) "+kafkaWith(addr, "dbz")+" FORMAT DEBEZIUM ENCODE JSON",
		"CREATE MATERIALIZED VIEW dbz_sum AS SELECT count(*) AS n, sum(v) AS total FROM dbz")
	p := producer(t, addr)
	key := func(id int) []byte { return []byte(fmt.Sprintf(`{"id": %d}`, id)) }
	// Keys stay in one partition, as Kafka's key partitioning does.
	produceRecs(t, ctx, p, "up",
		kafkaRec{0, key(1), []byte(`{"id": 1, "v": "one"}`)},
		kafkaRec{1, key(2), []byte(`{"id": 2, "v": "two"}`)},
		kafkaRec{0, key(1), []byte(`{"id": 1, "v": "uno"}`)},
		kafkaRec{1, key(3), []byte(`{"id": 3, "v": "three"}`)},
		kafkaRec{1, key(2), nil}, // tombstone
		kafkaRec{1, key(9), nil}) // tombstone of an absent key
	waitRows(t, ctx, c, "SELECT * FROM up", "1|uno;3|three")
	waitRows(t, ctx, c, "SELECT * FROM up_n", "2|three|uno")
	produceRecs(t, ctx, p, "up", kafkaRec{1, key(3), []byte(`{"id": 3, "v": "tres"}`)}, kafkaRec{0, key(1), nil})
	waitRows(t, ctx, c, "SELECT * FROM up", "3|tres")
	waitRows(t, ctx, c, "SELECT * FROM up_n", "1|tres|tres")

	produceRecs(t, ctx, p, "dbz",
		kafkaRec{0, nil, []byte(`{"payload": {"before": null, "after": {"id": 1, "v": 10}, "op": "c"}}`)},
		kafkaRec{0, nil, []byte(`{"before": null, "after": {"id": 2, "v": 20}, "op": "r"}`)},
		kafkaRec{0, nil, []byte(`{"before": {"id": 1, "v": 10}, "after": {"id": 1, "v": 11}, "op": "u"}`)},
		kafkaRec{0, nil, []byte(`{"before": {"id": 2, "v": 20}, "after": null, "op": "d"}`)},
		kafkaRec{0, nil, nil}, // Debezium's tombstone after a delete
		kafkaRec{0, nil, []byte(`{"before": null, "after": {"id": 3, "v": 30}, "op": "c"}`)})
	waitRows(t, ctx, c, "SELECT * FROM dbz", "1|11;3|30")
	waitRows(t, ctx, c, "SELECT * FROM dbz_sum", "2|41")
	waitRows(t, ctx, c, "SELECT name, bad_records, lag FROM eddy_sources", "dbz|0|0;up|0|0")

	// Sinks: UPSERT by key (a snapshot, an upsert, a tombstone) and
	// DEBEZIUM (creates, then an update as one "u").
	execAll(t, ctx, c,
		"CREATE SINK up_sink FROM up "+kafkaWith(addr, "up_out", ", primary_key = 'id'")+" FORMAT UPSERT ENCODE JSON",
		"CREATE SINK dbz_sink FROM dbz "+kafkaWith(addr, "dbz_out", ", primary_key = 'id'")+" FORMAT DEBEZIUM ENCODE JSON")
	produceRecs(t, ctx, p, "up", kafkaRec{0, key(4), []byte(`{"id": 4, "v": "cuatro"}`)}, kafkaRec{1, key(3), nil})
	produceRecs(t, ctx, p, "dbz", kafkaRec{0, nil, []byte(`{"before": {"id": 1, "v": 11}, "after": {"id": 1, "v": 12}, "op": "u"}`)})
	waitRows(t, ctx, c, "SELECT * FROM up", "4|cuatro")
	var ups []string
	for _, r := range readTopic(t, ctx, addr, "up_out", 3) {
		ups = append(ups, fmt.Sprintf("%s=%s", r.Key, r.Value))
	}
	sort.Strings(ups) // partitions interleave; per key the order is kept
	if got, want := strings.Join(ups, " "), `{"id":3}= {"id":3}={"id":3,"v":"tres"} {"id":4}={"id":4,"v":"cuatro"}`; got != want {
		t.Errorf("upsert sink:\ngot  %s\nwant %s", got, want)
	}
	var ops []string
	for _, r := range readTopic(t, ctx, addr, "dbz_out", 3) {
		ops = append(ops, fmt.Sprintf("%s %s", r.Key, r.Value))
	}
	want := `{"id":1} {"before":null,"after":{"id":1,"v":11},"op":"c"};` +
		`{"id":3} {"before":null,"after":{"id":3,"v":30},"op":"c"};` +
		`{"id":1} {"before":{"id":1,"v":11},"after":{"id":1,"v":12},"op":"u"}`
	if got := strings.Join(ops, ";"); got != want {
		t.Errorf("debezium sink:\ngot  %s\nwant %s", got, want)
	}
}

// readTopic reads n records of topic (read_committed, from the start), in
// partition order, failing after a timeout.
func readTopic(t *testing.T, ctx context.Context, addr, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableClientMetrics())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for len(out) < n && pctx.Err() == nil {
		cl.PollFetches(pctx).EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
	if len(out) != n {
		t.Fatalf("read %d records of %s, want %d", len(out), topic, n)
	}
	return out
}

// TestKafkaOnErrorFail: a source with on_error = 'fail' stops at its bad
// record, visibly, while another source keeps feeding its view.
func TestKafkaOnErrorFail(t *testing.T) {
	addr := startKafka(t, map[string]int32{"strict": 1, "other": 1})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	execAll(t, ctx, c,
		"CREATE SOURCE strict (id int) "+kafkaWith(addr, "strict", ", on_error = 'fail'")+" FORMAT PLAIN ENCODE JSON",
		"CREATE MATERIALIZED VIEW strict_n AS SELECT count(*) AS n FROM strict",
		"CREATE SOURCE other (id int) "+kafkaWith(addr, "other", ", scan.startup.mode = 'latest'")+" FORMAT PLAIN ENCODE JSON")
	p := producer(t, addr)
	// other starts at the latest offset: records produced before it started
	// are not read, those produced after are, even across a restart before
	// the first of them.
	produceRecs(t, ctx, p, "other", kafkaRec{0, nil, []byte(`{"id": -1}`)})
	execAll(t, ctx, c, "CREATE MATERIALIZED VIEW other_n AS SELECT count(*) AS n FROM other")
	waitRows(t, ctx, c, "SELECT lag FROM eddy_sources WHERE name = 'other'", "0")
	c.Close(ctx)
	s.Kill()
	produceRecs(t, ctx, p, "other", kafkaRec{0, nil, []byte(`{"id": 100}`)})
	s.Restart()
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	waitRows(t, ctx, c, "SELECT * FROM other_n", "1")
	produceRecs(t, ctx, p, "strict", kafkaRec{0, nil, []byte(`{"id": 1}`)})
	waitRows(t, ctx, c, "SELECT * FROM strict_n", "1")
	produceRecs(t, ctx, p, "strict", kafkaRec{0, nil, []byte(`{"id": "nope"}`)}, kafkaRec{0, nil, []byte(`{"id": 3}`)})
	waitRows(t, ctx, c, "SELECT state, error LIKE '22P02: source \"strict\" stopped on a bad record at partition 0 offset 1%' FROM eddy_sources WHERE name = 'strict'", "failed|t")
	for i := range 5 {
		produceRecs(t, ctx, p, "other", kafkaRec{0, nil, []byte(fmt.Sprintf(`{"id": %d}`, i))})
	}
	waitRows(t, ctx, c, "SELECT * FROM other_n", "6")
	if got := mustRows(t, ctx, c, "SELECT * FROM strict_n"); got != "1" {
		t.Errorf("strict_n = %s after the bad record, want 1 (nothing after it applied)", got)
	}
	if !strings.Contains(s.Logs(), "source stopped") {
		t.Errorf("the failure was not logged")
	}
}

// TestKafkaSourceKill produces records while Eddy is killed with SIGKILL
// and restarted, then checks that the view equals its recomputation over
// every produced record, each counted once, and that the lag is zero.
func TestKafkaSourceKill(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	addr := startKafka(t, map[string]int32{"stream": 3})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	c := pgConnect(t, ctx, s.DSN())
	execAll(t, ctx, c,
		"CREATE SOURCE stream (id bigint, grp int, amount int) "+kafkaWith(addr, "stream", ", properties.fetch.max.wait.ms = '20'")+" FORMAT PLAIN ENCODE JSON",
		"CREATE MATERIALIZED VIEW by_grp AS SELECT grp, count(*) AS n, sum(amount) AS total, count(DISTINCT id) AS ids FROM stream GROUP BY grp")
	c.Close(ctx)
	p := producer(t, addr)
	type agg struct{ n, total int64 }
	want := map[int]*agg{}
	var mu sync.Mutex
	var produced int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := rand.New(rand.NewPCG(uint64(seed), 8))
		for id := int64(0); ; {
			select {
			case <-stop:
				return
			default:
			}
			var recs []kafkaRec
			mu.Lock()
			for range 1 + r.IntN(50) {
				grp, amount := r.IntN(7), r.IntN(1000)
				recs = append(recs, kafkaRec{int32(r.IntN(3)), nil, []byte(fmt.Sprintf(`{"id": %d, "grp": %d, "amount": %d}`, id, grp, amount))})
				if want[grp] == nil {
					want[grp] = &agg{}
				}
				want[grp].n++
				want[grp].total += int64(amount)
				id++
			}
			produced = id
			mu.Unlock()
			produceRecs(t, ctx, p, "stream", recs...)
			time.Sleep(time.Millisecond)
		}
	}()
	for range 3 {
		time.Sleep(time.Duration(200+rng.IntN(500)) * time.Millisecond)
		s.Kill()
		time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
		s.Restart()
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	<-done
	var lines []string
	for grp, a := range want {
		lines = append(lines, fmt.Sprintf("%d|%d|%d|%d", grp, a.n, a.total, a.n))
	}
	sort.Strings(lines)
	t.Logf("%d records produced", produced)
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	waitRows(t, ctx, c, "SELECT lag, records, bad_records FROM eddy_sources", fmt.Sprintf("0|%d|0", produced))
	waitRows(t, ctx, c, "SELECT * FROM by_grp", strings.Join(lines, ";"))
}

// TestDatagenRestart: a datagen-fed table killed mid-generation resumes at
// its stored row and ends with exactly the rows of an uninterrupted run.
func TestDatagenRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	c := pgConnect(t, ctx, s.DSN())
	opts := "WITH (connector = 'datagen', fields.id.kind = 'sequence', fields.id.start = '1', fields.id.end = '400', " +
		"fields.v.min = '0', fields.v.max = '1000000', fields.v.seed = '7', fields.s.length = '6', datagen.rows.per.second = '500')"
	execAll(t, ctx, c, "CREATE TABLE g1 (id int PRIMARY KEY, v int, s text) "+opts)
	c.Close(ctx)
	time.Sleep(300 * time.Millisecond)
	s.Kill()
	s.Restart()
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	partial := mustRows(t, ctx, c, "SELECT count(*) FROM g1")
	execAll(t, ctx, c, "CREATE TABLE g2 (id int PRIMARY KEY, v int, s text) "+opts)
	waitRows(t, ctx, c, "SELECT name, state, records FROM eddy_sources", "g1|done|400;g2|done|400")
	t.Logf("g1 had %s rows at the restart", partial)
	if partial == "0" || partial == "400" {
		t.Logf("the kill did not fall mid-generation (%s rows)", partial)
	}
	a, b := mustRows(t, ctx, c, "SELECT * FROM g1"), mustRows(t, ctx, c, "SELECT * FROM g2")
	if a != b || strings.Count(a, ";") != 399 {
		t.Errorf("datagen rows differ across a restart:\n%.200s\n%.200s", a, b)
	}
}

// TestKafkaSinkKill writes to a table while Eddy is killed with SIGKILL and
// restarted; a read_committed consumer of the sink's topic must then see
// every change of the view exactly once: each insertion once, each deletion
// once, summing to the view's contents.
func TestKafkaSinkKill(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 9))
	addr := startKafka(t, map[string]int32{"out": 3})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	c := pgConnect(t, ctx, s.DSN())
	execAll(t, ctx, c,
		"CREATE TABLE t (id bigint PRIMARY KEY, v int)",
		insertRange(1, 20),
		"CREATE MATERIALIZED VIEW mv AS SELECT id, v FROM t WHERE v % 3 <> 0",
		"CREATE SINK k FROM mv "+kafkaWith(addr, "out")+" FORMAT PLAIN ENCODE JSON")
	if _, err := c.Exec(ctx, "DROP MATERIALIZED VIEW mv").ReadAll(); pgCode(err) != "2BP01" {
		t.Errorf("DROP MATERIALIZED VIEW under a sink: got %v, want 2BP01", err)
	}
	c.Close(ctx)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); sinkWriter(ctx, s.DSN(), seed, stop) }()
	for range 2 {
		time.Sleep(time.Duration(300+rng.IntN(500)) * time.Millisecond)
		s.Kill()
		s.Restart()
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	<-done
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	view := mustRows(t, ctx, c, "SELECT id, v FROM mv")
	t.Logf("view has %d rows", strings.Count(view, ";")+1)
	checkSinkTopic(t, ctx, addr, "out", view)
	waitRows(t, ctx, c, "SELECT name, relation, connector, state, error FROM eddy_sinks", "k|mv|kafka|running|NULL")
	execAll(t, ctx, c, "DROP SINK k")
	waitRows(t, ctx, c, "SELECT count(*) FROM eddy_sinks", "0")
	execAll(t, ctx, c, "DROP MATERIALIZED VIEW mv")
}

// sinkWriter inserts rows and deletes some, reconnecting after kills,
// until stop.
func sinkWriter(ctx context.Context, dsn string, seed int64, stop <-chan struct{}) {
	r := rand.New(rand.NewPCG(uint64(seed), 10))
	next := int64(1000)
	for {
		c, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				continue
			}
		}
		for err == nil {
			select {
			case <-stop:
				c.Close(ctx)
				return
			default:
			}
			var sql string
			if r.IntN(4) == 0 && next > 1010 {
				lo := 1000 + r.Int64N(next-1000)
				sql = fmt.Sprintf("DELETE FROM t WHERE id BETWEEN %d AND %d", lo, lo+2)
			} else {
				n := 1 + r.IntN(20)
				sql = insertRange(next, next+int64(n)-1)
				next += int64(n)
			}
			_, err = c.Exec(ctx, sql).ReadAll()
		}
		c.Close(ctx)
	}
}

// insertRange inserts ids lo..hi into t, with v = 7 id.
func insertRange(lo, hi int64) string {
	var vals []string
	for id := lo; id <= hi; id++ {
		vals = append(vals, fmt.Sprintf("(%d, %d)", id, id*7))
	}
	return "INSERT INTO t VALUES " + strings.Join(vals, ", ")
}

// checkSinkTopic reads the topic with read_committed until the changes sum
// to view (sorted "id|v" rows joined by ";"), and fails if a change appears
// twice.
func checkSinkTopic(t *testing.T, ctx context.Context, addr, topic, view string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableClientMetrics())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ins, del := map[string]int{}, map[string]int{}
	var got string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		fs := cl.PollFetches(pctx)
		cancel()
		fs.EachRecord(func(r *kgo.Record) {
			row := sinkRow(t, r.Value)
			if headerValue(r, "eddy.diff") == "-1" {
				del[row]++
			} else {
				ins[row]++
			}
		})
		var rows []string
		for row, n := range ins {
			if n-del[row] > 0 {
				rows = append(rows, row)
			}
		}
		sort.Strings(rows)
		if got = strings.Join(rows, ";"); got == view {
			break
		}
	}
	if got != view {
		t.Fatalf("sink topic sums to\n%.300s\nwant the view\n%.300s", got, view)
	}
	var dups []string
	for row, n := range ins {
		if n > 1 || del[row] > 1 {
			dups = append(dups, fmt.Sprintf("%s (+%d -%d)", row, n, del[row]))
		}
	}
	if len(dups) > 0 {
		t.Errorf("changes delivered more than once: %v", dups)
	}
	t.Logf("sink delivered %d insertions and %d deletions", len(ins), len(del))
}

func headerValue(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// sinkRow decodes a {"id":..,"v":..} value into "id|v".
func sinkRow(t *testing.T, value []byte) string {
	var row struct{ ID, V int64 }
	if err := json.Unmarshal(value, &row); err != nil {
		t.Fatalf("sink record %q: %v", value, err)
	}
	return fmt.Sprintf("%d|%d", row.ID, row.V)
}
