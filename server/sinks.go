package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql"
)

// The connectors runtime also runs sinks (sql.SinkConnectors): one
// goroutine per sink, under the same running map as sources (sources and
// sinks share the catalog's ID space).

// ValidateSink checks a sink definition against its connector.
func (c *connectors) ValidateSink(def sql.SinkDef) error {
	switch def.Connector {
	case "kafka":
		ks, err := newKafkaSinkSetup(def)
		if err != nil {
			return err
		}
		return c.allow.check(ks.cfg.Brokers)
	case "":
		return repr.Errorf(repr.CodeInvalidParameter, "sink %q needs a connector option", def.Name)
	}
	return repr.Unsupported("sink connector %q", def.Connector)
}

// ActivateSink starts a sink unless it runs already.
func (c *connectors) ActivateSink(def sql.SinkDef) {
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
		c.superviseSink(ctx, def)
	}()
}

// DeactivateSink stops a sink (it was dropped).
func (c *connectors) DeactivateSink(id uint64) { c.Deactivate(id) }

// superviseSink runs a sink, reporting its state in eddy_sinks; like a
// source it reconnects after losing its connection (class 08) and stops on
// any other error. A restart is always safe: the sink's protocol resumes
// after what was delivered.
func (c *connectors) superviseSink(ctx context.Context, def sql.SinkDef) {
	for ctx.Err() == nil {
		c.e.SetSinkStatus(def.ID, sql.SourceRunning, "")
		err := runRecovered(c.log, fmt.Sprintf("sink %q", def.Name), func() error { return c.runKafkaSink(ctx, def) })
		if ctx.Err() != nil || err == nil {
			return
		}
		e := repr.ErrorFrom(err)
		c.e.SetSinkStatus(def.ID, sql.SourceFailed, e.Code+": "+e.Message)
		if !strings.HasPrefix(e.Code, "08") {
			c.log.Error("sink stopped", "sink", def.Name, "err", err)
			return
		}
		c.log.Warn("sink lost its connection; retrying", "sink", def.Name, "err", err, "in", retryDelay)
		sleepCtx(ctx, retryDelay)
	}
}
