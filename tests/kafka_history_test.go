package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/eddydb/eddy/tests/harness"
)

// TestKafkaLateView creates a view over a Kafka source that has been
// consuming for a while, while records keep arriving and Eddy is killed
// with SIGKILL and restarted: the late view must contain the records
// produced before it (read again from the source's start offsets), then
// keep up with the live feed with no gap and no duplicate, and equal the
// view that was there from the start.
func TestKafkaLateView(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 9))
	addr := startKafka(t, map[string]int32{"stream": 3})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	c := pgConnect(t, ctx, s.DSN())
	const query = "SELECT grp, count(*) AS n, sum(amount) AS total, count(DISTINCT id) AS ids FROM stream GROUP BY grp"
	execAll(t, ctx, c,
		"CREATE SOURCE stream (id bigint, grp int, amount int) "+kafkaWith(addr, "stream", ", properties.fetch.max.wait.ms = '20'")+" FORMAT PLAIN ENCODE JSON",
		"CREATE MATERIALIZED VIEW early AS "+query)
	pr := startKafkaProducer(t, ctx, addr, seed)
	waitRecords(t, ctx, c, 500)
	execAll(t, ctx, c, "CREATE MATERIALIZED VIEW late AS "+query)
	if got := mustRows(t, ctx, c, "SELECT sum(n) >= 500 FROM late"); got != "t" {
		t.Fatalf("the late view lacks the records read before it: sum(n) >= 500 is %s", got)
	}
	c.Close(ctx)
	for range 2 {
		time.Sleep(time.Duration(200+rng.IntN(400)) * time.Millisecond)
		s.Kill()
		time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
		s.Restart()
	}
	want, produced := pr.stop()
	c = pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	waitRows(t, ctx, c, "SELECT lag, records FROM eddy_sources", fmt.Sprintf("0|%d", produced))
	execAll(t, ctx, c, "CREATE MATERIALIZED VIEW last AS "+query)
	for _, v := range []string{"early", "late", "last"} {
		waitRows(t, ctx, c, "SELECT * FROM "+v, want)
	}
}

// kafkaProducer produces JSON records {id, grp, amount} to the topic
// "stream" (3 partitions) until stopped, tracking the expected per-group
// count and sum.
type kafkaProducer struct {
	mu       sync.Mutex
	want     map[int][2]int64
	produced int64
	quit     chan struct{}
	done     chan struct{}
}

// startKafkaProducer starts producing batches of 1..50 records.
func startKafkaProducer(t *testing.T, ctx context.Context, addr string, seed int64) *kafkaProducer {
	p := producer(t, addr)
	k := &kafkaProducer{want: map[int][2]int64{}, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(k.done)
		r := rand.New(rand.NewPCG(uint64(seed), 10))
		for id := int64(0); ; {
			select {
			case <-k.quit:
				return
			default:
			}
			var recs []kafkaRec
			k.mu.Lock()
			for range 1 + r.IntN(50) {
				grp, amount := r.IntN(7), r.IntN(1000)
				recs = append(recs, kafkaRec{int32(r.IntN(3)), nil, []byte(fmt.Sprintf(`{"id": %d, "grp": %d, "amount": %d}`, id, grp, amount))})
				w := k.want[grp]
				k.want[grp] = [2]int64{w[0] + 1, w[1] + int64(amount)}
				id++
			}
			k.produced = id
			k.mu.Unlock()
			produceRecs(t, ctx, p, "stream", recs...)
			time.Sleep(time.Millisecond)
		}
	}()
	return k
}

// stop stops the producer and returns the expected view rows (grp, n,
// total, distinct ids) and the number of records produced.
func (k *kafkaProducer) stop() (string, int64) {
	close(k.quit)
	<-k.done
	var lines []string
	for grp, a := range k.want {
		lines = append(lines, fmt.Sprintf("%d|%d|%d|%d", grp, a[0], a[1], a[0]))
	}
	sort.Strings(lines)
	return strings.Join(lines, ";"), k.produced
}

// waitRecords waits until the only source has read at least n records.
func waitRecords(t *testing.T, ctx context.Context, c *pgconn.PgConn, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if mustRows(t, ctx, c, fmt.Sprintf("SELECT records >= %d FROM eddy_sources", n)) == "t" {
			return
		}
	}
	t.Fatalf("the source did not read %d records", n)
}

// TestKafkaLateViewRetention: when retention has deleted records a source
// read, a view created later gets what the topic still holds, with a
// NOTICE naming the missing offsets; the earlier view keeps everything.
func TestKafkaLateViewRetention(t *testing.T) {
	addr := startKafka(t, map[string]int32{"events": 1})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	var notices []string
	cfg, err := pgconn.ParseConfig(s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Code+": "+n.Message) }
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	p := producer(t, addr)
	for i := range 10 {
		produceRecs(t, ctx, p, "events", kafkaRec{0, nil, []byte(fmt.Sprintf(`{"id": %d}`, i))})
	}
	execAll(t, ctx, c,
		"CREATE SOURCE ev (id int) "+kafkaWith(addr, "events")+" FORMAT PLAIN ENCODE JSON",
		"CREATE MATERIALIZED VIEW early AS SELECT count(*) AS n, min(id) AS lo FROM ev")
	waitRows(t, ctx, c, "SELECT * FROM early", "10|0")
	deleteRecords(t, ctx, addr, "events", 0, 4)
	execAll(t, ctx, c, "CREATE MATERIALIZED VIEW late AS SELECT count(*) AS n, min(id) AS lo FROM ev")
	waitRows(t, ctx, c, "SELECT * FROM late", "6|4")
	if len(notices) != 1 || !strings.Contains(notices[0], "partition 0 offsets 0..3") {
		t.Errorf("notices %q, want one naming partition 0 offsets 0..3", notices)
	}
	produceRecs(t, ctx, p, "events", kafkaRec{0, nil, []byte(`{"id": 10}`)})
	waitRows(t, ctx, c, "SELECT * FROM early", "11|0")
	waitRows(t, ctx, c, "SELECT * FROM late", "7|4")
}

// deleteRecords deletes the records of a partition before offset before
// (as retention would).
func deleteRecords(t *testing.T, ctx context.Context, addr, topic string, part int32, before int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DisableClientMetrics())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrDeleteRecordsRequest()
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewDeleteRecordsRequestTopicPartition()
	rp.Partition, rp.Offset = part, before
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = 5000
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rp.ErrorCode != 0 {
				t.Fatalf("deleting records: error code %d", rp.ErrorCode)
			}
		}
	}
}

// TestKafkaIdlePartition: a partition that stops delivering holds the
// watermark of a source without idleness back forever, but not that of a
// source with scan.watermark.idle.timeout: after the timeout its
// EMIT ON WINDOW CLOSE view closes the window; the idle partition's rows
// that arrive later below the watermark are late.
func TestKafkaIdlePartition(t *testing.T) {
	addr := startKafka(t, map[string]int32{"clicks": 2})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	cols := "(u int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
	window := " AS SELECT window_start, count(*) AS n FROM TUMBLE(%s, ts, INTERVAL '10' SECOND) GROUP BY window_start EMIT ON WINDOW CLOSE"
	execAll(t, ctx, c,
		"CREATE SOURCE idle "+cols+kafkaWith(addr, "clicks", ", scan.watermark.idle.timeout = '300ms', properties.fetch.max.wait.ms = '20'")+" FORMAT PLAIN ENCODE JSON",
		"CREATE SOURCE stuck "+cols+kafkaWith(addr, "clicks", ", scan.watermark.idle.timeout = '0', properties.fetch.max.wait.ms = '20'")+" FORMAT PLAIN ENCODE JSON",
		"CREATE MATERIALIZED VIEW idle_w"+fmt.Sprintf(window, "idle"),
		"CREATE MATERIALIZED VIEW stuck_w"+fmt.Sprintf(window, "stuck"))
	if _, err := c.Exec(ctx, "CREATE SOURCE bad (u int) "+kafkaWith(addr, "clicks", ", scan.watermark.idle.timeout = 'soon'")).ReadAll(); pgCode(err) != "22023" {
		t.Errorf("a bad idle timeout: got %v, want 22023", err)
	}
	p := producer(t, addr)
	rec := func(part int32, u, sec int) kafkaRec {
		return kafkaRec{part, nil, []byte(fmt.Sprintf(`{"u": %d, "ts": "2024-01-01 00:00:%02d"}`, u, sec))}
	}
	produceRecs(t, ctx, p, "clicks", rec(0, 1, 1), rec(1, 2, 2))
	waitRows(t, ctx, c, "SELECT name, records FROM eddy_sources ORDER BY 1", "idle|2;stuck|2")
	time.Sleep(600 * time.Millisecond) // partition 1 goes idle
	produceRecs(t, ctx, p, "clicks", rec(0, 3, 15))
	waitRows(t, ctx, c, "SELECT * FROM idle_w", "2024-01-01 00:00:00|2")
	produceRecs(t, ctx, p, "clicks", rec(1, 4, 3), rec(0, 5, 16))
	waitRows(t, ctx, c, "SELECT name, records, late_rows FROM eddy_sources ORDER BY 1", "idle|5|1;stuck|5|0")
	if got := mustRows(t, ctx, c, "SELECT count(*) FROM stuck_w"); got != "0" {
		t.Errorf("the source without idleness closed %s windows: partition 1 should hold it back", got)
	}
	waitRows(t, ctx, c, "SELECT * FROM idle_w", "2024-01-01 00:00:00|2")
}
