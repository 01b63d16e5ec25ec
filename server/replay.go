package server

import (
	"encoding/binary"
	"fmt"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector/nexmark"
	"github.com/eddydb/eddy/sql"
)

// replayer regenerates the batches of the deterministic connectors for
// the engine's log replay (sql.SourceReplayer), so their rows are not
// logged: only nexmark, whose events are a pure function of its options
// and position. Kafka batches are logged in full (the broker may be
// unreachable, or have dropped the records, when Eddy restarts), and so
// are datagen's (its random generators are not replayable by position).
type replayer struct{}

func (replayer) Replayable(def sql.SourceDef) bool { return def.Connector == "nexmark" }

// Replay regenerates the nexmark batch that moved the source from event
// position from to event position to: the rows of the source's event type
// among those events, in order, exactly as runNexmark ingested them.
func (replayer) Replay(def sql.SourceDef, from, to []byte) ([]sql.Change, error) {
	if def.Connector != "nexmark" {
		return nil, fmt.Errorf("connector %q does not replay", def.Connector)
	}
	cfg, tt, err := nexmark.ParseOptions(def.Options)
	if err != nil {
		return nil, err
	}
	start, end := nexmarkPosition(from), nexmarkPosition(to)
	if start < 0 || end < start {
		return nil, fmt.Errorf("bad nexmark positions %x .. %x", from, to)
	}
	g := nexmark.NewAt(cfg, start)
	var rows []repr.Row
	for g.Position() < end {
		var row repr.Row
		if _, ok := g.NextOf(tt, &row); !ok {
			break
		}
		rows = append(rows, row)
	}
	if g.Position() != end {
		return nil, fmt.Errorf("nexmark replay ended at event %d, not %d", g.Position(), end)
	}
	return insertions(rows), nil
}

// nexmarkPosition decodes a nexmark source position (the next event's
// index, 8 bytes big-endian; empty: 0), -1 if malformed.
func nexmarkPosition(b []byte) int64 {
	switch len(b) {
	case 0:
		return 0
	case 8:
		return int64(binary.BigEndian.Uint64(b))
	}
	return -1
}
