package server

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
	"github.com/eddydb/eddy/server/connector/datagen"
	"github.com/eddydb/eddy/server/connector/nexmark"
	"github.com/eddydb/eddy/sql"
	"github.com/eddydb/eddy/storage"
)

// ingestBatch is the most rows a source hands the engine per commit: large
// enough to amortize the commit, small enough to keep freshness.
const ingestBatch = 8192

// connectors is the runtime of sources: it validates definitions with the
// connector packages and runs one reader goroutine per active source,
// feeding the engine batch by batch. It implements sql.Connectors.
type connectors struct {
	e   *sql.Engine
	log *slog.Logger

	mu      sync.Mutex
	running map[uint64]context.CancelFunc
	wg      sync.WaitGroup
	ctx     context.Context
	stop    context.CancelFunc
	// allow limits the addresses connectors connect to (nil: any).
	allow *allowList
}

func newConnectors(e *sql.Engine, log *slog.Logger) *connectors {
	ctx, stop := context.WithCancel(context.Background())
	return &connectors{e: e, log: log, running: map[uint64]context.CancelFunc{}, ctx: ctx, stop: stop}
}

// Validate checks a source definition against its connector.
func (c *connectors) Validate(def sql.SourceDef) error {
	switch def.Connector {
	case "nexmark":
		_, tt, err := nexmark.ParseOptions(def.Options)
		if err != nil {
			return err
		}
		return checkColumns(def, tt.Columns())
	case "kafka":
		ks, err := newKafkaSetup(def)
		if err != nil {
			return err
		}
		return c.allow.check(ks.cfg.Brokers)
	case "datagen":
		_, err := datagen.ParseOptions(connectorColumns(def), def.Options)
		return err
	case "":
		return repr.Errorf(repr.CodeInvalidParameter, "source %q needs a connector option", def.Name)
	}
	return repr.Unsupported("connector %q", def.Connector)
}

// checkColumns requires the declared columns to be the connector's, by name
// and type, in order.
func checkColumns(def sql.SourceDef, want []connector.Column) error {
	if len(def.Columns) != len(want) {
		return repr.Errorf(repr.CodeDatatypeMismatch, "source %q declares %d columns, but the %s connector produces %d (%s)",
			def.Name, len(def.Columns), def.Connector, len(want), columnList(want))
	}
	for i, w := range want {
		got := def.Columns[i]
		if !strings.EqualFold(got.Name, w.Name) || !got.Type.Equivalent(w.Type) {
			return repr.Errorf(repr.CodeDatatypeMismatch, "column %d of source %q is %s %s, but the %s connector produces %s %s",
				i+1, def.Name, got.Name, got.Type.Name(), def.Connector, w.Name, w.Type.Name())
		}
	}
	return nil
}

func columnList(cols []connector.Column) string {
	var parts []string
	for _, c := range cols {
		parts = append(parts, c.Name+" "+c.Type.Name())
	}
	return strings.Join(parts, ", ")
}

// Activate starts the source's reader unless it runs already.
func (c *connectors) Activate(def sql.SourceDef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.running[def.ID]; ok || c.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.running[def.ID] = cancel
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.supervise(ctx, def)
	}()
}

// retryDelay is how long a source that lost its connection to an external
// system waits before it reconnects.
const retryDelay = time.Second

// diskFullLogEvery spaces the log lines of a source waiting for disk space.
const diskFullLogEvery = 30 * time.Second

// supervise runs a source, reporting its state in eddy_sources: a source
// that cannot reach its external system (SQLSTATE class 08) reconnects
// after retryDelay, and one whose commit found the disk full (53100:
// nothing was written) or whose batch the memory budget refused (53200:
// nothing was applied, and memory may be free later) resumes from its
// durable position after retryDelay, logged at most every diskFullLogEvery (a refused source
// also shrinks its batches, ingestSize, and stops with 53200 once even its
// smallest batch is refused again and again while no other work holds
// memory, so that standing state and the batch's own maintenance are what
// does not fit: it would never progress); any other error (a bad
// record under on_error = 'fail', a maintenance error of a view) stops
// it, logged and visible as failed with the error. A failed source never
// stalls views that do not read it: each source has its own goroutine
// and commits alone.
func (c *connectors) supervise(ctx context.Context, def sql.SourceDef) {
	var fullLogged time.Time
	size := newIngestSize()
	for ctx.Err() == nil {
		c.e.SetSourceStatus(def.ID, sql.SourceStatus{State: sql.SourceRunning, Lag: -1})
		err := runRecovered(c.log, fmt.Sprintf("source %q", def.Name), func() error { return c.run(ctx, def, size) })
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			c.e.SetSourceStatus(def.ID, sql.SourceStatus{State: "done", Lag: 0})
			return
		}
		e := repr.ErrorFrom(err)
		stuck := e.Code == repr.CodeOutOfMemory && size.refused() && !c.e.WorkHoldsMemory()
		if stuck {
			e = outOfMemoryStop(def.Name, e)
			err = e
		}
		c.e.SetSourceStatus(def.ID, sql.SourceStatus{State: sql.SourceFailed, Err: e.Code + ": " + e.Message, Lag: -1})
		switch {
		case e.Code == storage.CodeDiskFull:
			if time.Since(fullLogged) >= diskFullLogEvery {
				fullLogged = time.Now()
				c.log.Warn("source paused: the disk is full; retrying", "source", def.Name, "detail", e.Detail, "every", retryDelay)
			}
		case strings.HasPrefix(e.Code, "08"):
			c.log.Warn("source lost its connection; retrying", "source", def.Name, "err", err, "in", retryDelay)
		case e.Code == repr.CodeOutOfMemory && !stuck:
			c.log.Warn("source batch refused memory; retrying", "source", def.Name, "err", err,
				"detail", e.Detail, "next_rows", size.rows(), "in", retryDelay)
		default:
			c.log.Error("source stopped", "source", def.Name, "err", err)
			return
		}
		sleepCtx(ctx, retryDelay)
	}
}

// sleepCtx sleeps for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Deactivate stops a source's reader.
func (c *connectors) Deactivate(id uint64) {
	c.mu.Lock()
	cancel := c.running[id]
	delete(c.running, id)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Close stops every reader and waits for them.
func (c *connectors) Close() {
	c.stop()
	c.wg.Wait()
}

// outOfMemoryStop is the error that stops a source whose smallest batch
// the budget keeps refusing (see supervise): refused, its last refusal.
func outOfMemoryStop(source string, refused *repr.Error) *repr.Error {
	e := repr.Errorf(repr.CodeOutOfMemory,
		"out of memory: source %s stopped, the state of the views it feeds fills the memory budget", source).
		WithDetail("Its batches of %d rows were refused %d times in a row with nothing left to spill; the last refusal: %s",
			minIngestBatch, stuckRefusals, refused.Detail).
		WithHint("Raise --memory-limit, or drop views over the source, then restart the server.")
	return e
}

// run reads a source until ctx ends or the source is exhausted, in
// batches of size's rows.
func (c *connectors) run(ctx context.Context, def sql.SourceDef, size *ingestSize) error {
	switch def.Connector {
	case "nexmark":
		return c.runNexmark(ctx, def, size)
	case "kafka":
		return c.runKafka(ctx, def, size)
	case "datagen":
		return c.runDatagen(ctx, def, size)
	}
	return repr.Unsupported("connector %q", def.Connector)
}

// runNexmark feeds a Nexmark source from its stored position (the next
// event number). With max emit speed off it paces events by event time.
// Each full-size batch is generated while the one before it is ingested
// (readAhead); under a memory budget a batch's rows take at most the
// engine's SourceBatchBytes (ingestSize.fit).
func (c *connectors) runNexmark(ctx context.Context, def sql.SourceDef, size *ingestSize) error {
	cfg, tt, err := nexmark.ParseOptions(def.Options)
	if err != nil {
		return err
	}
	pos, err := c.e.SourcePosition(def.ID)
	if err != nil {
		return err
	}
	next := nexmarkPosition(pos)
	if next < 0 {
		return fmt.Errorf("source %s: bad stored position %x", def.Name, pos)
	}
	start, startEvent := time.Now(), next
	ra := newReadAhead(c.e.Workers(), func(from int64) blockGen { return nexmarkBlock(cfg, tt, from) })
	defer ra.stop()
	for ctx.Err() == nil {
		rows, after := ra.take(next, size.rows())
		if len(rows) == 0 {
			c.log.Info("source exhausted", "source", def.Name, "events", after)
			return nil
		}
		if size.fit(len(rows), sql.RowsMemBytes(rows), c.e.SourceBatchBytes()) {
			continue // more than the budget's share: generated again, smaller
		}
		if size.atFull() {
			// Only at full size: a source whose batches the memory budget
			// refused (and shrank) has no room for a second batch in flight.
			ra.start(after, size.afterCommit())
		}
		pos := binary.BigEndian.AppendUint64(nil, uint64(after))
		if err := c.e.IngestChanges(def.ID, insertions(rows), pos, &sql.IngestStats{Records: int64(len(rows))}); err != nil {
			return err
		}
		next = after
		size.committed()
		if !cfg.MaxEmitSpeed {
			pace(ctx, start, cfg.EventTime(next)-cfg.EventTime(startEvent))
		}
	}
	return nil
}

// nexmarkBlock generates the parts of a Nexmark batch of table type tt
// that starts at event number from: the part skip rows in starts after
// skip events of type tt (Generator.SkipOf, O(1)).
func nexmarkBlock(cfg nexmark.Config, tt nexmark.TableType, from int64) blockGen {
	return func(skip int, out []repr.Row) (int, int64) {
		g := nexmark.NewAt(cfg, from)
		g.SkipOf(tt, int64(skip))
		var slab datumSlab
		w := len(tt.Columns())
		for i := range out {
			row := slab.row(w) // the batch keeps the rows: never reused
			if _, ok := g.NextOf(tt, &row); !ok {
				return i, g.Position()
			}
			out[i] = row
		}
		return len(out), g.Position()
	}
}

// datumSlab hands out the arrays of generated rows from chunks of up to
// datumChunk datums, so that a source does not allocate once per row (a
// bid's 7 datums were one allocation per event: a quarter of q1's bytes
// allocated, and a malloc per event). Rows handed out are never reused;
// a chunk stays alive while any of its rows does, as exec's row slab
// (operators may keep input rows), and a chunk is bounded as exec's is.
type datumSlab struct{ buf []repr.Datum }

// datumChunk is the number of datums allocated at once, exec's slabChunk.
const datumChunk = 4096

// row returns an empty row with capacity n, its own n datums: a
// generator's resize fills it in place, and appending never writes into
// a neighbour.
func (s *datumSlab) row(n int) repr.Row {
	if cap(s.buf)-len(s.buf) < n {
		s.buf = make([]repr.Datum, 0, max(datumChunk, n))
	}
	l := len(s.buf)
	s.buf = s.buf[:l+n]
	return s.buf[l : l : l+n]
}

// insertions turns rows into insert changes.
func insertions(rows []repr.Row) []sql.Change {
	out := make([]sql.Change, len(rows))
	for i, r := range rows {
		out[i] = sql.Change{Kind: sql.ChangeInsert, Row: r}
	}
	return out
}

// connectorColumns are a source's columns as the connector packages take
// them.
func connectorColumns(def sql.SourceDef) []connector.Column {
	cols := make([]connector.Column, len(def.Columns))
	for i, c := range def.Columns {
		cols[i] = connector.Column{Name: c.Name, Type: c.Type}
	}
	return cols
}

// pace sleeps until wall-clock time has caught up with the event time
// emitted since start (ms).
func pace(ctx context.Context, start time.Time, emittedMS int64) {
	ahead := time.Duration(emittedMS)*time.Millisecond - time.Since(start)
	if ahead <= 0 {
		return
	}
	t := time.NewTimer(ahead)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
