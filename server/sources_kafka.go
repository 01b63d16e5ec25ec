package server

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector/format"
	"github.com/eddydb/eddy/server/connector/kafka"
	"github.com/eddydb/eddy/sql"
)

// lagInterval is how often a running Kafka source refreshes its lag in
// eddy_sources.
const lagInterval = 200 * time.Millisecond

// kafkaSetup is a Kafka source's parsed definition.
type kafkaSetup struct {
	cfg     kafka.Config
	onError kafka.OnError
	dec     format.Decoder
}

// kafkaSourceOptions are the top-level WITH options a Kafka source takes
// besides the properties.* and scan.* families (which package kafka
// checks).
var kafkaSourceOptions = []string{"topic", "on_error"}

// newKafkaSetup validates a Kafka source: its options, its on_error policy
// and its FORMAT ... ENCODE (PLAIN JSON when absent). UPSERT needs a
// connector-fed table with a primary key: a source stores no rows to
// replace.
func newKafkaSetup(def sql.SourceDef) (*kafkaSetup, error) {
	for k := range def.Options {
		if !slices.Contains(kafkaSourceOptions, k) && !strings.HasPrefix(k, "properties.") && !strings.HasPrefix(k, "scan.") {
			return nil, repr.Errorf(repr.CodeInvalidParameter, "unrecognized option %q for a kafka source", k)
		}
	}
	cfg, err := kafka.ParseOptions(def.Options)
	if err != nil {
		return nil, err
	}
	if v, ok := def.Options[sql.IdleTimeoutOption]; ok {
		if _, err := sql.ParseIdleTimeout(v); err != nil {
			return nil, err
		}
	}
	onErr, err := kafka.ParseOnError(def.Options["on_error"])
	if err != nil {
		return nil, err
	}
	f, enc := strings.ToLower(def.Format), strings.ToLower(def.Encode)
	if f == "" {
		f, enc = format.FormatPlain, format.EncodeJSON
	}
	if f == format.FormatUpsert && (!def.IsTable || len(def.PrimaryKey) == 0) {
		return nil, repr.Errorf(repr.CodeInvalidParameter, "FORMAT UPSERT needs a table with a primary key: CREATE TABLE %s (..., PRIMARY KEY (...)) WITH (connector = 'kafka', ...)", def.Name)
	}
	dec, err := format.NewDecoder(f, enc, connectorColumns(def), def.PrimaryKey, def.EncodeOptions)
	if err != nil {
		return nil, err
	}
	return &kafkaSetup{cfg: cfg, onError: onErr, dec: dec}, nil
}

// runKafka consumes a Kafka source from its stored offsets: each poll's
// records are decoded (bad ones skipped and reported, or the source stops
// under on_error = 'fail' before any of the poll is applied) and ingested
// with the offsets after them, in one engine commit, so a restart resumes
// exactly after the last committed batch.
func (c *connectors) runKafka(ctx context.Context, def sql.SourceDef, size *ingestSize) error {
	ks, err := newKafkaSetup(def)
	if err != nil {
		return err
	}
	if err := c.allow.check(ks.cfg.Brokers); err != nil {
		return err // the list narrowed since the source was created
	}
	ks.cfg.Dial = c.allow.dialer()
	pos, err := c.e.SourcePosition(def.ID)
	if err != nil {
		return err
	}
	start, err := decodeOffsets(pos)
	if err != nil {
		return err
	}
	r, err := kafka.NewReader(ctx, ks.cfg, start)
	if err != nil {
		return err
	}
	defer r.Close()
	if start == nil {
		// Pin the startup mode's offsets at once: a restart before the
		// first record must not resolve scan.startup.mode = 'latest' again
		// (and skip what arrived in between).
		if err := c.e.IngestChanges(def.ID, nil, encodeOffsets(r.Positions()), nil); err != nil {
			return err
		}
	}
	lagCtx, stopLag := context.WithCancel(ctx)
	lagDone := make(chan struct{})
	go func() {
		defer close(lagDone)
		_ = runRecovered(c.log, fmt.Sprintf("lag report of source %q", def.Name), func() error {
			c.reportLag(lagCtx, def.ID, r)
			return nil
		})
	}()
	defer func() { stopLag(); <-lagDone }()
	return c.consumeKafka(ctx, def, ks, r, size)
}

// consumeKafka is runKafka's loop.
func (c *connectors) consumeKafka(ctx context.Context, def sql.SourceDef, ks *kafkaSetup, r *kafka.Reader, size *ingestSize) error {
	var pending []sql.SourceError
	in := &kafka.Ingest{Source: def.Name, Decoder: ks.dec, OnError: ks.onError, Report: func(b kafka.BadRecord) {
		pending = append(pending, sql.SourceError{Partition: b.Partition, Offset: b.Offset,
			Err: b.Err.Code + ": " + describeErr(b.Err), Prefix: strings.ToValidUTF8(string(b.Prefix), "?")})
	}}
	var ch format.Changes
	for {
		recs, ferr := r.Poll(ctx, size.rows())
		if ctx.Err() != nil {
			return nil
		}
		if len(recs) > 0 {
			ch.Reset()
			pending = pending[:0]
			records, bad := in.Records, in.Bad
			parts, err := decodeByPartition(in, recs, &ch)
			if err != nil {
				return err
			}
			stats := &sql.IngestStats{Records: in.Records - records, Bad: in.Bad - bad, Errors: pending}
			if err := c.e.IngestChanges(def.ID, sqlChanges(ch.List, parts), encodeOffsets(r.Positions()), stats); err != nil {
				return err
			}
			size.committed()
		}
		if ferr != nil {
			return ferr
		}
	}
}

// reportLag publishes the source's total lag every lagInterval.
func (c *connectors) reportLag(ctx context.Context, id uint64, r *kafka.Reader) {
	t := time.NewTicker(lagInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		lag, err := r.Lag(ctx)
		if err != nil || ctx.Err() != nil {
			continue
		}
		var total int64
		for _, n := range lag {
			total += n
		}
		c.e.SetSourceStatus(id, sql.SourceStatus{State: sql.SourceRunning, Lag: total})
	}
}

func describeErr(e *repr.Error) string {
	if e.Detail != "" {
		return e.Message + ": " + e.Detail
	}
	return e.Message
}

// decodeByPartition decodes recs into ch one record at a time, returning
// the record of each decoded change (a record may decode to several
// changes or none): its partition, which the engine's per-partition
// watermarks need, and its offset, which a bad deletion is reported with.
func decodeByPartition(in *kafka.Ingest, recs []kafka.Record, ch *format.Changes) ([]recordRef, error) {
	refs := make([]recordRef, 0, len(recs))
	for i := range recs {
		if err := in.Decode(recs[i:i+1], ch); err != nil {
			return nil, err
		}
		refs = refs[:min(len(refs), len(ch.List))]
		for len(refs) < len(ch.List) {
			refs = append(refs, recordRef{partition: recs[i].Partition, offset: recs[i].Offset})
		}
	}
	return refs, nil
}

// recordRef is the Kafka record a change was decoded from.
type recordRef struct {
	partition int32
	offset    int64
}

// sqlChanges converts decoded changes to the engine's; refs[i] is the
// record of list[i] (nil: all partition 0, offset 0).
func sqlChanges(list []format.Change, refs []recordRef) []sql.Change {
	out := make([]sql.Change, len(list))
	for i, c := range list {
		var k sql.ChangeKind
		switch c.Kind {
		case format.Insert:
			k = sql.ChangeInsert
		case format.Delete:
			k = sql.ChangeDelete
		case format.Upsert:
			k = sql.ChangeUpsert
		case format.Tombstone:
			k = sql.ChangeTombstone
		}
		out[i] = sql.Change{Kind: k, Row: c.Row, Key: c.Key}
		if i < len(refs) {
			out[i].Partition, out[i].Offset = refs[i].partition, refs[i].offset
		}
	}
	return out
}

// offsetsVersion tags the position encoding of Kafka sources.
const offsetsVersion = 'k'

// encodeOffsets encodes per-partition next offsets as a position: a
// version byte, then (partition int32, offset int64) big-endian pairs in
// partition order.
func encodeOffsets(next map[int32]int64) []byte {
	buf := []byte{offsetsVersion}
	for _, p := range slices.Sorted(maps.Keys(next)) {
		buf = binary.BigEndian.AppendUint32(buf, uint32(p))
		buf = binary.BigEndian.AppendUint64(buf, uint64(next[p]))
	}
	return buf
}

// decodeOffsets is encodeOffsets' inverse; a nil position (a new source)
// is a nil map, which makes the reader use the startup mode.
func decodeOffsets(pos []byte) (map[int32]int64, error) {
	if pos == nil {
		return nil, nil
	}
	if len(pos) == 0 || pos[0] != offsetsVersion || (len(pos)-1)%12 != 0 {
		return nil, fmt.Errorf("corrupt kafka source position %x", pos)
	}
	out := map[int32]int64{}
	for b := pos[1:]; len(b) > 0; b = b[12:] {
		out[int32(binary.BigEndian.Uint32(b))] = int64(binary.BigEndian.Uint64(b[4:]))
	}
	return out, nil
}
