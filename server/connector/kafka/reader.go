package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Record is one Kafka record of the Reader's topic.
type Record struct {
	Partition int32
	Offset    int64
	Key       []byte
	Value     []byte
	Timestamp time.Time
}

// Reader consumes every partition of one topic from explicit offsets,
// without a consumer group. Poll must not be called concurrently with
// itself; Positions, Lag and Close may be called from any goroutine.
//
// Invariant: next[p] is the offset of the next record Poll can return from
// partition p: every record before it has been returned (or was a
// transaction marker or aborted record, which are never returned).
type Reader struct {
	cfg  Config
	cl   *kgo.Client
	mu   sync.Mutex // guards next
	next map[int32]int64
}

// errBroker wraps a failure to talk to Kafka as 08001, the SQLSTATE of a
// connection that could not be established.
func errBroker(what string, err error) error {
	return repr.Errorf("08001", "kafka: %s: %v", what, err)
}

// NewReader connects to the brokers and starts consuming every partition
// of cfg.Topic: partition p from start[p] (the offset of the next record to
// read, as Positions returns), and a partition missing from a non-nil
// start from its earliest offset (it was created after the positions were
// stored, so all its records are new). A nil start map (a new source) uses
// cfg's startup mode, resolved to concrete offsets here, once.
func NewReader(ctx context.Context, cfg Config, start map[int32]int64) (*Reader, error) {
	admin, err := kgo.NewClient(cfg.clientOpts()...)
	if err != nil {
		return nil, errBroker("creating client", err)
	}
	defer admin.Close()
	parts, err := partitions(ctx, admin, cfg.Topic)
	if err != nil {
		return nil, err
	}
	next := make(map[int32]int64, len(parts))
	var missing []int32
	for _, p := range parts {
		if o, ok := start[p]; ok {
			next[p] = o
		} else {
			missing = append(missing, p)
		}
	}
	ts := startupTimestamp(cfg)
	if start != nil {
		ts = -2 // a partition created after the positions were stored: all its records are new
	}
	if len(missing) > 0 {
		resolved, err := listOffsets(ctx, admin, cfg, missing, ts)
		if err != nil {
			return nil, err
		}
		maps.Copy(next, resolved)
	}
	return newReaderAt(cfg, next)
}

// newReaderAt starts the consuming client at the given offsets.
func newReaderAt(cfg Config, next map[int32]int64) (*Reader, error) {
	offs := make(map[int32]kgo.Offset, len(next))
	for p, o := range next {
		offs[p] = kgo.NewOffset().At(o)
	}
	cl, err := kgo.NewClient(cfg.consumerOpts(offs)...)
	if err != nil {
		return nil, errBroker("creating consumer", err)
	}
	return &Reader{cfg: cfg, cl: cl, next: next}, nil
}

// startupTimestamp is the ListOffsets timestamp of cfg's startup mode: -2
// is the earliest offset, -1 the latest, otherwise a Unix millisecond time.
func startupTimestamp(cfg Config) int64 {
	switch cfg.StartupMode {
	case StartLatest:
		return -1
	case StartTimestamp:
		return cfg.StartupMillis
	}
	return -2
}

// partitions returns the sorted partition ids of topic (22023 if the topic
// does not exist).
func partitions(ctx context.Context, cl *kgo.Client, topic string) ([]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, t)
	req.AllowAutoTopicCreation = false
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, errBroker("fetching metadata", err)
	}
	var parts []int32
	for _, rt := range resp.Topics {
		if err := kerr.ErrorForCode(rt.ErrorCode); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return nil, repr.Errorf(repr.CodeInvalidParameter, "Kafka topic %q does not exist", topic)
			}
			return nil, errBroker("metadata of topic "+topic, err)
		}
		for _, p := range rt.Partitions {
			parts = append(parts, p.Partition)
		}
	}
	if len(parts) == 0 {
		return nil, repr.Errorf(repr.CodeInvalidParameter, "Kafka topic %q does not exist", topic)
	}
	slices.Sort(parts)
	return parts, nil
}

// listOffsets asks the partition leaders for the offset at timestamp ts
// (-2 earliest, -1 latest: the last stable offset under read_committed) of
// each partition. A time after the last record resolves to the end.
func listOffsets(ctx context.Context, cl *kgo.Client, cfg Config, parts []int32, ts int64) (map[int32]int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	if !cfg.ReadUncommitted {
		req.IsolationLevel = 1
	}
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = cfg.Topic
	for _, p := range parts {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p, ts, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, errBroker("listing offsets", err)
	}
	out := make(map[int32]int64, len(parts))
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return nil, errBroker(fmt.Sprintf("listing offsets of partition %d", p.Partition), err)
			}
			out[p.Partition] = p.Offset
		}
	}
	if ts >= 0 { // no record at or after ts: start at the end
		for p, o := range out {
			if o < 0 {
				end, err := listOffsets(ctx, cl, cfg, []int32{p}, -1)
				if err != nil {
					return nil, err
				}
				out[p] = end[p]
			}
		}
	}
	return out, nil
}

// take returns the data records of fs, advancing the positions past every
// record under r.mu (released by defer, even if a record panics).
func (r *Reader) take(fs kgo.Fetches) []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Record
	fs.EachRecord(func(rec *kgo.Record) {
		r.advance(rec.Partition, rec.Offset)
		if !rec.Attrs.IsControl() {
			out = append(out, Record{Partition: rec.Partition, Offset: rec.Offset, Key: rec.Key, Value: rec.Value, Timestamp: rec.Timestamp})
		}
	})
	return out
}

// Poll returns the next records, at most max (max <= 0 means no limit), in
// offset order within each partition, blocking until there is at least one
// or ctx is done (then it returns ctx's error). Key and Value stay valid
// until the caller drops them. A fetch error (e.g. a partition's leader
// reporting an unrecoverable error) is returned along with the records
// fetched with it, which are valid and already counted in Positions.
func (r *Reader) Poll(ctx context.Context, max int) ([]Record, error) {
	for {
		fs := r.cl.PollRecords(ctx, max)
		if fs.IsClientClosed() {
			return nil, errBroker("polling", kgo.ErrClientClosed)
		}
		out := r.take(fs)
		if err := fetchErr(ctx, fs); err != nil || len(out) > 0 {
			return out, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// advance records that partition p was read through offset o.
func (r *Reader) advance(p int32, o int64) {
	if o+1 > r.next[p] {
		r.next[p] = o + 1
	}
}

// fetchErr returns ctx's error if it ended the poll, else the first fetch
// error that is not data loss (kgo resets and continues after data loss:
// records deleted by retention before they were read).
func fetchErr(ctx context.Context, fs kgo.Fetches) error {
	for _, fe := range fs.Errors() {
		switch {
		case errors.Is(fe.Err, context.Canceled), errors.Is(fe.Err, context.DeadlineExceeded):
			return ctx.Err()
		case errors.As(fe.Err, new(*kgo.ErrDataLoss)):
			continue
		}
		return errBroker(fmt.Sprintf("fetching partition %d", fe.Partition), fe.Err)
	}
	return nil
}

// Positions returns, for every partition, the offset of the next record to
// read: the start offsets to pass to NewReader to resume right after the
// records Poll returned so far.
func (r *Reader) Positions() map[int32]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.next)
}

// Lag returns, for every partition, how many offsets lie between the
// reader's position and the partition's end (the last stable offset under
// read_committed): zero once the reader has caught up. Offsets of
// transaction markers and aborted records count until read past.
func (r *Reader) Lag(ctx context.Context) (map[int32]int64, error) {
	next := r.Positions()
	parts := slices.Sorted(maps.Keys(next))
	end, err := listOffsets(ctx, r.cl, r.cfg, parts, -1)
	if err != nil {
		return nil, err
	}
	lag := make(map[int32]int64, len(end))
	for p, e := range end {
		lag[p] = max(0, e-next[p])
	}
	return lag, nil
}

// Close stops the consumer. It never commits anything to Kafka.
func (r *Reader) Close() { r.cl.Close() }
