package kafka

import (
	"context"
	"fmt"
	"testing"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
	"github.com/eddydb/eddy/server/connector/format"
	"github.com/twmb/franz-go/pkg/kfake"
)

// BenchmarkReadDecode reads a 4-partition topic of 50,000 small JSON
// records from an in-process kfake cluster and decodes them: the source
// path without the engine. kfake runs in this process, so CPU time covers
// the broker too; records/s is an underestimate of the client side.
func BenchmarkReadDecode(b *testing.B) {
	const parts, perPart = 4, 12500
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(parts, topic))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	cfg := Config{Brokers: c.ListenAddrs(), Topic: topic, StartupMode: StartEarliest}
	p, err := NewProducer(cfg, ProducerOptions{ManualPartitions: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var recs []Record
	for i := range parts * perPart {
		recs = append(recs, Record{Partition: int32(i % parts), Value: fmt.Appendf(nil, `{"id":%d,"name":"user-%d","price":%d.25,"active":true,"qty":%d}`, i, i, i%1000, i%77)})
	}
	if err := p.Produce(ctx, recs...); err != nil {
		b.Fatal(err)
	}
	p.Close()
	cols := []connector.Column{{Name: "id", Type: repr.Int8}, {Name: "name", Type: repr.Text}, {Name: "price", Type: repr.Float8}, {Name: "active", Type: repr.Bool}, {Name: "qty", Type: repr.Int4}}
	dec, err := format.NewDecoder("plain", "json", cols, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r, err := NewReader(ctx, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		in := Ingest{Source: "bench", Decoder: dec}
		var out format.Changes
		for in.Records < parts*perPart {
			batch, err := r.Poll(ctx, 0)
			if err != nil {
				b.Fatal(err)
			}
			out.Reset()
			if err := in.Decode(batch, &out); err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
	b.ReportMetric(float64(b.N*parts*perPart)/b.Elapsed().Seconds(), "records/s")
}
