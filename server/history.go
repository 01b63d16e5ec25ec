package server

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector/datagen"
	"github.com/eddydb/eddy/server/connector/format"
	"github.com/eddydb/eddy/server/connector/kafka"
	"github.com/eddydb/eddy/server/connector/nexmark"
	"github.com/eddydb/eddy/sql"
)

// historyChunk is the most events (nexmark) or rows (datagen) a history
// read hands the engine at once.
const historyChunk = 1 << 16

// History reads a source's events again from its start for a view created
// after the source began (sql.SourceHistory): nexmark and datagen
// regenerate them (row n is a pure function of the options and n), Kafka
// reads them again from the source's start offsets (kafkaHistory).
func (c *connectors) History(ctx context.Context, def sql.SourceDef, from, to []byte, cuts [][]byte,
	emit func([]sql.Change, int) error) (*repr.Error, error) {
	switch def.Connector {
	case "nexmark", "datagen":
		gen, err := counterGenerator(def)
		if err != nil {
			return nil, err
		}
		return nil, counterHistory(ctx, from, to, cuts, gen, emit)
	case "kafka":
		return c.kafkaHistory(ctx, def, from, to, cuts, emit)
	}
	return repr.Errorf("01000", "connector %q cannot replay source %s: a new view sees only its events from now on", def.Connector, def.Name), nil
}

// rangeGen returns the changes of a deterministic source between two
// positions (event or row numbers).
type rangeGen func(from, to int64) []sql.Change

// counterGenerator returns the range generator of a nexmark or datagen
// source.
func counterGenerator(def sql.SourceDef) (rangeGen, error) {
	if def.Connector == "nexmark" {
		cfg, tt, err := nexmark.ParseOptions(def.Options)
		if err != nil {
			return nil, err
		}
		return func(from, to int64) []sql.Change {
			g := nexmark.NewAt(cfg, from)
			var rows []repr.Row
			for {
				var row repr.Row
				n, ok := g.NextOf(tt, &row)
				if !ok || n >= to {
					return insertions(rows)
				}
				rows = append(rows, row)
			}
		}, nil
	}
	cfg, err := datagen.ParseOptions(connectorColumns(def), def.Options)
	if err != nil {
		return nil, err
	}
	return func(from, to int64) []sql.Change {
		g := datagen.NewAt(cfg, from)
		rows := make([]repr.Row, 0, to-from)
		for g.Position() < to {
			var row repr.Row // Next reuses a row's array: give each its own
			if !g.Next(&row) {
				break
			}
			rows = append(rows, row)
		}
		return insertions(rows)
	}, nil
}

// counterHistory emits a counter-positioned source's changes from position
// from to position to in chunks of at most historyChunk, never spanning a
// cut.
func counterHistory(ctx context.Context, from, to []byte, cuts [][]byte, gen rangeGen, emit func([]sql.Change, int) error) error {
	start, end := nexmarkPosition(from), nexmarkPosition(to)
	if start < 0 || end < start {
		return fmt.Errorf("bad source positions %x .. %x", from, to)
	}
	bounds := make([]int64, len(cuts))
	for i, c := range cuts {
		if bounds[i] = nexmarkPosition(c); bounds[i] < start || bounds[i] > end || (i > 0 && bounds[i] < bounds[i-1]) {
			return fmt.Errorf("bad source cut %x", c)
		}
	}
	seg := 0
	for pos := start; pos < end; {
		if err := ctx.Err(); err != nil {
			return err
		}
		for seg < len(bounds) && bounds[seg] <= pos {
			seg++
		}
		next := min(pos+historyChunk, end)
		if seg < len(bounds) {
			next = min(next, bounds[seg])
		}
		if err := emit(gen(pos, next), seg); err != nil {
			return err
		}
		pos = next
	}
	return nil
}

// kafkaHistory reads a Kafka source's records again from its start
// offsets (from; legacy sources without them: the earliest retained) up
// to its committed offsets (to), segment by segment between the cuts,
// decoding them as the source did (bad records skipped silently: the
// source reported them when it first read them). Records that retention
// has deleted since are missing: the view gets what the topic still
// holds, and the notice says how many offsets of which partitions it
// lacks.
func (c *connectors) kafkaHistory(ctx context.Context, def sql.SourceDef, from, to []byte, cuts [][]byte,
	emit func([]sql.Change, int) error) (*repr.Error, error) {
	ks, err := newKafkaSetup(def)
	if err != nil {
		return nil, err
	}
	if err := c.allow.check(ks.cfg.Brokers); err != nil {
		return nil, err
	}
	ks.cfg.Dial = c.allow.dialer()
	end, err := decodeOffsets(to)
	if err != nil || len(end) == 0 {
		return nil, err
	}
	cur := map[int32]int64{}
	if len(from) > 0 {
		if cur, err = decodeOffsets(from); err != nil {
			return nil, err
		}
	}
	earliest, err := kafka.EarliestOffsets(ctx, ks.cfg)
	if err != nil {
		return nil, err
	}
	notice := retentionLoss(def.Name, cur, earliest, end)
	for p, o := range earliest {
		cur[p] = max(cur[p], o)
	}
	in := &kafka.Ingest{Source: def.Name, Decoder: ks.dec, OnError: kafka.SkipBadRecords}
	bounds := append(slices.Clone(cuts), to)
	for seg, b := range bounds {
		bound, err := decodeOffsets(b)
		if err != nil {
			return nil, err
		}
		err = kafka.ReadRange(ctx, ks.cfg, cur, bound, func(recs []kafka.Record) error {
			var ch format.Changes
			parts, err := decodeByPartition(in, recs, &ch)
			if err != nil {
				return err
			}
			return emit(sqlChanges(ch.List, parts), seg)
		})
		if err != nil {
			return nil, err
		}
		for p, o := range bound {
			cur[p] = max(cur[p], o)
		}
	}
	return notice, nil
}

// retentionLoss describes the offsets between a source's start and the
// earliest retained offsets (below its committed end) that retention has
// deleted, as a notice (nil when nothing is missing).
func retentionLoss(name string, start, earliest, end map[int32]int64) *repr.Error {
	var lost []string
	for _, p := range slices.Sorted(maps.Keys(end)) {
		if e := min(earliest[p], end[p]); e > start[p] {
			lost = append(lost, fmt.Sprintf("partition %d offsets %d..%d", p, start[p], e-1))
		}
	}
	if len(lost) == 0 {
		return nil
	}
	return repr.Errorf("01000", "source %s cannot be replayed whole: Kafka no longer holds %s (retention deleted them), so this view lacks those records, which views created earlier have",
		name, strings.Join(lost, ", "))
}
