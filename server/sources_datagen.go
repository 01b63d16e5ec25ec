package server

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector/datagen"
	"github.com/eddydb/eddy/sql"
)

// datagenTick is the longest a datagen source sleeps between batches.
const datagenTick = 100 * time.Millisecond

// runDatagen feeds a datagen source at datagen.rows.per.second from its
// stored position (the next row number, big-endian). Row n is a pure
// function of the options and n, so a restart continues with exactly the
// rows a run without the restart would have produced. It returns nil when
// every sequence column is exhausted.
func (c *connectors) runDatagen(ctx context.Context, def sql.SourceDef, size *ingestSize) error {
	cfg, err := datagen.ParseOptions(connectorColumns(def), def.Options)
	if err != nil {
		return err
	}
	pos, err := c.e.SourcePosition(def.ID)
	if err != nil {
		return err
	}
	var next int64
	if len(pos) == 8 {
		next = int64(binary.BigEndian.Uint64(pos))
	}
	start, first := time.Now(), next
	rate := max(cfg.RowsPerSecond, 1)
	for ctx.Err() == nil {
		due := first + int64(time.Since(start).Seconds()*float64(rate))
		n := min(due-next, int64(size.rows()))
		if n <= 0 {
			sleepCtx(ctx, min(datagenTick, time.Duration(float64(time.Second)/float64(rate))+time.Millisecond))
			continue
		}
		rows, after := generateSplit(c.e.Workers(), int(n), datagenBlock(cfg, next))
		if len(rows) == 0 {
			c.log.Info("source exhausted", "source", def.Name, "rows", after)
			return nil
		}
		if size.fit(len(rows), sql.RowsMemBytes(rows), c.e.SourceBatchBytes()) {
			continue // more than the budget's share: generated again, smaller
		}
		pos := binary.BigEndian.AppendUint64(nil, uint64(after))
		if err := c.e.IngestChanges(def.ID, insertions(rows), pos, &sql.IngestStats{Records: int64(len(rows))}); err != nil {
			return err
		}
		next = after
		size.committed()
	}
	return nil
}

// datagenBlock generates the parts of a datagen batch that starts at row
// number from: the part skip rows in starts at row from+skip.
func datagenBlock(cfg datagen.Config, from int64) blockGen {
	return func(skip int, out []repr.Row) (int, int64) {
		g := datagen.NewAt(cfg, from+int64(skip))
		for i := range out {
			var row repr.Row // Next reuses a row's array: give each its own
			if !g.Next(&row) {
				return i, g.Position()
			}
			out[i] = row
		}
		return len(out), g.Position()
	}
}
