package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector/kafka"
	"github.com/eddydb/eddy/sql"
)

// The Kafka sink: exactly-once delivery of a relation's changes.
//
// Protocol. The engine keeps a durable log of the relation's changes per
// logical time, written in the same batch as the change itself (sql/sink.go),
// so the log is exactly the relation's history since the sink was created.
// The sink delivers log entries in time order, several times per Kafka
// transaction, and tags every record with two headers: eddy.sink (the
// sink's identity: its ID and a creation nonce) and eddy.time (the logical
// time of the change). After a transaction commits it truncates the log up
// to the last time delivered (AckSink).
//
// Where the sink's progress lives: in Kafka, in the committed transactions
// themselves. At start-up the sink (1) initializes its transactional
// producer, whose transactional ID is fixed per sink, which fences any
// older incarnation and aborts its open transaction, then (2) reads back,
// with read_committed, the last record carrying its eddy.sink header in
// every partition; the largest eddy.time among them is the last time
// delivered (transactions commit in time order, and each one holds at
// least one record). It resumes with the log entries after that time.
// So a crash at any point neither loses nor duplicates: before the commit
// the transaction is aborted (its records are never visible to
// read_committed consumers) and its log entries are still there; after the
// commit the read-back finds its time and skips those entries even if
// AckSink never ran.
//
// Formats (ENCODE JSON): each record's value is a JSON object of the
// relation's columns.
//   - PLAIN: one record per unit of change; an insertion's value is the
//     row, a deletion's too, with header eddy.diff = -1 (+1 for insertions),
//     so a consumer recomputes the relation by summing.
//   - UPSERT (needs primary_key = 'col[,col...]'): per key and time, the
//     new row (key: the key columns as a JSON object) or, when the key's row
//     is gone, a tombstone (null value).
//   - DEBEZIUM: {"before": row|null, "after": row|null, "op": "c"|"u"|"d"};
//     with primary_key a key's deletion and insertion at one time become
//     one "u".

// sinkBatchTimes is how many logged times one Kafka transaction delivers
// at most; sinkPoll is how often an idle sink looks for new changes.
const (
	sinkBatchTimes = 256
	sinkPoll       = 20 * time.Millisecond
)

// kafkaSinkSetup is a Kafka sink's parsed definition.
type kafkaSinkSetup struct {
	cfg    kafka.Config
	format string
	key    []int // primary_key columns
	cols   []sql.ColumnDef
	ident  string // eddy.sink header value
}

// newKafkaSinkSetup validates a Kafka sink's options and format.
func newKafkaSinkSetup(def sql.SinkDef) (*kafkaSinkSetup, error) {
	opts := map[string]string{}
	var keyOpt string
	for k, v := range def.Options {
		switch {
		case k == "primary_key":
			keyOpt = v
		case k == "topic" || strings.HasPrefix(k, "properties."):
			opts[k] = v
		default:
			return nil, repr.Errorf(repr.CodeInvalidParameter, "unrecognized option %q for a kafka sink", k)
		}
	}
	cfg, err := kafka.ParseOptions(opts)
	if err != nil {
		return nil, err
	}
	s := &kafkaSinkSetup{cfg: cfg, format: strings.ToLower(def.Format), cols: def.Columns,
		ident: fmt.Sprintf("%d-%d", def.ID, def.Nonce)}
	if s.format == "" {
		s.format = "plain"
	}
	if enc := strings.ToLower(def.Encode); enc != "" && enc != "json" {
		return nil, repr.Unsupported("sink ENCODE %s", strings.ToUpper(enc))
	}
	if keyOpt != "" {
		for _, name := range strings.Split(keyOpt, ",") {
			i := slices.IndexFunc(def.Columns, func(c sql.ColumnDef) bool { return strings.EqualFold(c.Name, strings.TrimSpace(name)) })
			if i < 0 {
				return nil, repr.Errorf(repr.CodeUndefinedColumn, "primary_key column %q is not a column of %s", strings.TrimSpace(name), def.FromName)
			}
			s.key = append(s.key, i)
		}
	}
	switch s.format {
	case "plain", "debezium":
	case "upsert":
		if len(s.key) == 0 {
			return nil, repr.Errorf(repr.CodeInvalidParameter, "FORMAT UPSERT sink needs the primary_key option")
		}
	default:
		return nil, repr.Unsupported("sink FORMAT %s", strings.ToUpper(s.format))
	}
	return s, nil
}

// kafkaErr wraps a Kafka failure as 08001 (reconnect and retry).
func kafkaErr(what string, err error) error {
	return repr.Errorf("08001", "kafka sink: %s: %v", what, err)
}

// runKafkaSink runs the protocol described above until ctx ends.
func (c *connectors) runKafkaSink(ctx context.Context, def sql.SinkDef) error {
	ks, err := newKafkaSinkSetup(def)
	if err != nil {
		return err
	}
	if err := c.allow.check(ks.cfg.Brokers); err != nil {
		return err // the list narrowed since the sink was created
	}
	ks.cfg.Dial = c.allow.dialer()
	prod, err := kgo.NewClient(append(ks.cfg.BaseOpts(), kgo.SeedBrokers(ks.cfg.Brokers...),
		kgo.DefaultProduceTopic(ks.cfg.Topic), kgo.TransactionalID("eddy-sink-"+ks.ident))...)
	if err != nil {
		return kafkaErr("creating producer", err)
	}
	defer prod.Close()
	if _, _, err := prod.ProducerID(ctx); err != nil {
		return kafkaErr("initializing the transactional producer", err)
	}
	delivered, err := readBack(ctx, ks)
	if err != nil {
		return err
	}
	if err := c.e.AckSink(def.ID, delivered, 0); err != nil {
		return err
	}
	for ctx.Err() == nil {
		batches, err := c.e.SinkLog(def.ID, delivered, sinkBatchTimes)
		if err != nil {
			return err
		}
		if len(batches) == 0 {
			sleepCtx(ctx, sinkPoll)
			continue
		}
		faultSink.Inject()
		recs := ks.records(batches)
		last := batches[len(batches)-1].Time
		if len(recs) > 0 {
			if err := produceTxn(ctx, prod, recs); err != nil {
				return err
			}
		}
		if err := c.e.AckSink(def.ID, last, int64(len(recs))); err != nil {
			return err
		}
		delivered = last
	}
	return nil
}

// produceTxn writes recs in one Kafka transaction.
func produceTxn(ctx context.Context, prod *kgo.Client, recs []*kgo.Record) error {
	if err := prod.BeginTransaction(); err != nil {
		return kafkaErr("beginning a transaction", err)
	}
	if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		_ = prod.AbortBufferedRecords(ctx)
		_ = prod.EndTransaction(ctx, kgo.TryAbort)
		return kafkaErr("producing", err)
	}
	if err := prod.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return kafkaErr("committing a transaction", err)
	}
	return nil
}

// readBack returns the last logical time this sink committed to its
// topic: the largest eddy.time of the sink's records, found by reading each
// partition's committed tail backwards in growing windows (0 if none).
func readBack(ctx context.Context, ks *kafkaSinkSetup) (repr.Time, error) {
	cl, err := kgo.NewClient(append(ks.cfg.BaseOpts(), kgo.SeedBrokers(ks.cfg.Brokers...))...)
	if err != nil {
		return 0, kafkaErr("creating client", err)
	}
	defer cl.Close()
	bounds, err := partitionBounds(ctx, cl, ks.cfg.Topic)
	if err != nil {
		return 0, err
	}
	var best repr.Time
	for p, b := range bounds {
		t, err := readBackPartition(ctx, ks, p, b)
		if err != nil {
			return 0, err
		}
		best = max(best, t)
	}
	return best, nil
}

// span is a partition's earliest offset and last stable offset.
type span struct{ start, end int64 }

// readBackPartition finds the sink's last record in one partition.
func readBackPartition(ctx context.Context, ks *kafkaSinkSetup, p int32, b span) (repr.Time, error) {
	for window := int64(64); ; window *= 8 {
		from := max(b.start, b.end-window)
		t, found, err := scanRange(ctx, ks, p, from, b.end)
		if err != nil || found || from == b.start {
			return t, err
		}
	}
}

// scanRange reads partition p over [from, end) with read_committed and
// returns the largest eddy.time of the sink's records there.
func scanRange(ctx context.Context, ks *kafkaSinkSetup, p int32, from, end int64) (repr.Time, bool, error) {
	if from >= end {
		return 0, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(append(ks.cfg.BaseOpts(), kgo.SeedBrokers(ks.cfg.Brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{ks.cfg.Topic: {p: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(), kgo.FetchMaxWait(100*time.Millisecond))...)
	if err != nil {
		return 0, false, kafkaErr("creating consumer", err)
	}
	defer cl.Close()
	var best repr.Time
	found, next := false, from
	for next < end {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return 0, false, kafkaErr(fmt.Sprintf("reading back partition %d", p), ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			next = max(next, r.Offset+1)
			if t, ok := ks.recordTime(r); ok {
				best, found = max(best, t), true
			}
		})
	}
	return best, found, nil
}

// recordTime returns the eddy.time of one of the sink's records.
func (ks *kafkaSinkSetup) recordTime(r *kgo.Record) (repr.Time, bool) {
	if r.Attrs.IsControl() {
		return 0, false
	}
	var mine bool
	var t uint64
	var err error = fmt.Errorf("no time")
	for _, h := range r.Headers {
		switch h.Key {
		case "eddy.sink":
			mine = string(h.Value) == ks.ident
		case "eddy.time":
			t, err = strconv.ParseUint(string(h.Value), 10, 64)
		}
	}
	return repr.Time(t), mine && err == nil
}

// partitionBounds returns each partition's earliest and last stable
// offsets.
func partitionBounds(ctx context.Context, cl *kgo.Client, topic string) (map[int32]span, error) {
	out := map[int32]span{}
	for _, ts := range []int64{-2, -1} {
		req := kmsg.NewPtrListOffsetsRequest()
		req.ReplicaID, req.IsolationLevel = -1, 1
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = topic
		parts, err := topicPartitions(ctx, cl, topic)
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p, ts, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return nil, kafkaErr("listing offsets", err)
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return nil, kafkaErr("listing offsets", err)
				}
				s := out[p.Partition]
				if ts == -2 {
					s.start = p.Offset
				} else {
					s.end = p.Offset
				}
				out[p.Partition] = s
			}
		}
	}
	return out, nil
}

// topicPartitions lists the partitions of topic (22023 if it does not
// exist: sinks do not create topics).
func topicPartitions(ctx context.Context, cl *kgo.Client, topic string) ([]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, kafkaErr("fetching metadata", err)
	}
	var parts []int32
	for _, rt := range resp.Topics {
		if err := kerr.ErrorForCode(rt.ErrorCode); err != nil {
			return nil, repr.Errorf(repr.CodeInvalidParameter, "Kafka topic %q: %v", topic, err)
		}
		for _, p := range rt.Partitions {
			parts = append(parts, p.Partition)
		}
	}
	if len(parts) == 0 {
		return nil, repr.Errorf(repr.CodeInvalidParameter, "Kafka topic %q does not exist", topic)
	}
	return parts, nil
}

// records encodes logged batches as Kafka records in the sink's format.
func (ks *kafkaSinkSetup) records(batches []sql.SinkBatch) []*kgo.Record {
	var out []*kgo.Record
	for _, b := range batches {
		hdr := []kgo.RecordHeader{{Key: "eddy.sink", Value: []byte(ks.ident)}, {Key: "eddy.time", Value: []byte(strconv.FormatUint(uint64(b.Time), 10))}}
		switch {
		case ks.format == "plain":
			out = ks.plain(out, b.Updates, hdr)
		case len(ks.key) > 0:
			out = ks.keyed(out, b.Updates, hdr)
		default:
			out = ks.debeziumUnkeyed(out, b.Updates, hdr)
		}
	}
	return out
}

// plain emits one record per unit of change.
func (ks *kafkaSinkSetup) plain(out []*kgo.Record, us []repr.Update, hdr []kgo.RecordHeader) []*kgo.Record {
	for _, u := range us {
		diff := kgo.RecordHeader{Key: "eddy.diff", Value: []byte("+1")}
		if u.Diff < 0 {
			diff.Value = []byte("-1")
		}
		v := ks.rowJSON(nil, u.Row)
		for range abs(u.Diff) {
			out = append(out, &kgo.Record{Value: v, Headers: append(slices.Clone(hdr), diff)})
		}
	}
	return out
}

// debeziumUnkeyed emits a "c" per inserted and a "d" per deleted unit.
func (ks *kafkaSinkSetup) debeziumUnkeyed(out []*kgo.Record, us []repr.Update, hdr []kgo.RecordHeader) []*kgo.Record {
	for _, u := range us {
		var v []byte
		if u.Diff > 0 {
			v = append(ks.rowJSON([]byte(`{"before":null,"after":`), u.Row), `,"op":"c"}`...)
		} else {
			v = append(ks.rowJSON([]byte(`{"before":`), u.Row), `,"after":null,"op":"d"}`...)
		}
		for range abs(u.Diff) {
			out = append(out, &kgo.Record{Value: v, Headers: hdr})
		}
	}
	return out
}

// keyed emits, per key changed at one time, its new state (UPSERT) or its
// before/after images (DEBEZIUM), in the order the keys first changed.
func (ks *kafkaSinkSetup) keyed(out []*kgo.Record, us []repr.Update, hdr []kgo.RecordHeader) []*kgo.Record {
	type change struct{ before, after repr.Row }
	byKey := map[string]*change{}
	var order []string
	for _, u := range us {
		k := string(repr.AppendColsKey(nil, u.Row, ks.key))
		ch := byKey[k]
		if ch == nil {
			ch = &change{}
			byKey[k] = ch
			order = append(order, k)
		}
		if u.Diff > 0 {
			ch.after = u.Row
		} else if ch.before == nil {
			ch.before = u.Row
		}
	}
	for _, k := range order {
		ch := byKey[k]
		row := ch.after
		if row == nil {
			row = ch.before
		}
		key := ks.keyJSON(row)
		var v []byte
		switch {
		case ks.format == "upsert" && ch.after != nil:
			v = ks.rowJSON(nil, ch.after)
		case ks.format == "upsert":
			v = nil // tombstone
		default:
			v = ks.debeziumJSON(ch.before, ch.after)
		}
		out = append(out, &kgo.Record{Key: key, Value: v, Headers: hdr})
	}
	return out
}

// debeziumJSON is the envelope of one keyed change.
func (ks *kafkaSinkSetup) debeziumJSON(before, after repr.Row) []byte {
	op := "u"
	switch {
	case before == nil:
		op = "c"
	case after == nil:
		op = "d"
	}
	b := []byte(`{"before":`)
	b = ks.optRowJSON(b, before)
	b = append(b, `,"after":`...)
	b = ks.optRowJSON(b, after)
	return append(b, `,"op":"`+op+`"}`...)
}

func (ks *kafkaSinkSetup) optRowJSON(b []byte, r repr.Row) []byte {
	if r == nil {
		return append(b, "null"...)
	}
	return ks.rowJSON(b, r)
}

// rowJSON appends the row as a JSON object of its columns.
func (ks *kafkaSinkSetup) rowJSON(b []byte, r repr.Row) []byte {
	b = append(b, '{')
	for i, c := range ks.cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, c.Name)
		b = append(b, ':')
		b = appendJSONDatum(b, r[i], c.Type)
	}
	return append(b, '}')
}

// keyJSON is the JSON object of the row's key columns.
func (ks *kafkaSinkSetup) keyJSON(r repr.Row) []byte {
	b := []byte{'{'}
	for j, i := range ks.key {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, ks.cols[i].Name)
		b = append(b, ':')
		b = appendJSONDatum(b, r[i], ks.cols[i].Type)
	}
	return append(b, '}')
}

// appendJSONDatum appends a datum as JSON: numbers and booleans natively,
// jsonb as itself, NULL as null, everything else as its PostgreSQL text.
func appendJSONDatum(b []byte, d repr.Datum, t repr.T) []byte {
	switch {
	case d.IsNull():
		return append(b, "null"...)
	case d.Family() == repr.FamBool:
		return strconv.AppendBool(b, d.Bool())
	case d.Family() == repr.FamInt:
		return strconv.AppendInt(b, d.Int(), 10)
	case d.Family() == repr.FamFloat && !math.IsNaN(d.Float()) && !math.IsInf(d.Float(), 0):
		return strconv.AppendFloat(b, d.Float(), 'g', -1, 64)
	}
	s := repr.FormatText(d, t, time.UTC)
	switch d.Family() {
	case repr.FamJSONB:
		return append(b, s...)
	case repr.FamNumeric:
		if json.Valid([]byte(s)) {
			return append(b, s...)
		}
	}
	return appendJSONString(b, s)
}

func appendJSONString(b []byte, s string) []byte {
	js, _ := json.Marshal(s)
	return append(b, js...)
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
