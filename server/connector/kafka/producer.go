package kafka

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ProducerOptions configure a Producer.
type ProducerOptions struct {
	// TransactionalID makes the producer transactional: records are
	// produced between Begin and Commit/Abort, and a read_committed reader
	// sees only committed ones. Each concurrent producer needs its own id;
	// a new producer with the same id fences the old one.
	TransactionalID string
	// ManualPartitions sends each record to its Record.Partition; otherwise
	// records are partitioned by key hash (Kafka's default partitioner,
	// compatible with the Java client).
	ManualPartitions bool
}

// Producer writes records to one topic synchronously. It serves tests and
// the Kafka sink.
type Producer struct {
	cl    *kgo.Client
	topic string
}

// NewProducer connects a producer for cfg.Topic.
func NewProducer(cfg Config, po ProducerOptions) (*Producer, error) {
	opts := cfg.clientOpts()
	opts = append(opts, kgo.DefaultProduceTopic(cfg.Topic))
	if po.TransactionalID != "" {
		opts = append(opts, kgo.TransactionalID(po.TransactionalID))
	}
	if po.ManualPartitions {
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, errBroker("creating producer", err)
	}
	return &Producer{cl: cl, topic: cfg.Topic}, nil
}

// Produce sends recs and waits until every one is acknowledged (or, in a
// transaction, written pending the commit). Offsets and timestamps of recs
// are ignored; a zero Timestamp means now.
func (p *Producer) Produce(ctx context.Context, recs ...Record) error {
	krs := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		krs[i] = &kgo.Record{Topic: p.topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: r.Timestamp}
	}
	if err := p.cl.ProduceSync(ctx, krs...).FirstErr(); err != nil {
		return errBroker("producing", err)
	}
	return nil
}

// Begin starts a transaction (transactional producers only).
func (p *Producer) Begin() error {
	if err := p.cl.BeginTransaction(); err != nil {
		return errBroker("beginning transaction", err)
	}
	return nil
}

// Commit commits the open transaction: its records become visible to
// read_committed readers atomically.
func (p *Producer) Commit(ctx context.Context) error { return p.end(ctx, kgo.TryCommit) }

// Abort aborts the open transaction: read_committed readers never see its
// records.
func (p *Producer) Abort(ctx context.Context) error { return p.end(ctx, kgo.TryAbort) }

// end flushes and ends the open transaction.
func (p *Producer) end(ctx context.Context, try kgo.TransactionEndTry) error {
	if try == kgo.TryAbort {
		if err := p.cl.AbortBufferedRecords(ctx); err != nil {
			return errBroker("aborting buffered records", err)
		}
	} else if err := p.cl.Flush(ctx); err != nil {
		return errBroker("flushing", err)
	}
	if err := p.cl.EndTransaction(ctx, try); err != nil {
		return errBroker("ending transaction", err)
	}
	return nil
}

// Close flushes nothing and disconnects; an open transaction is aborted by
// the broker when it times out or a producer with the same id starts.
func (p *Producer) Close() { p.cl.Close() }
