package sql

import "github.com/eddydb/eddy/repr"

// SourceProgress is how far the engine has ingested a source (or
// connector-fed table): everything up to Position is committed and has
// flowed through every materialized view reading the source, because
// Ingest applies a batch and stores its position in one synced write.
type SourceProgress struct {
	ID uint64
	// Position is the connector's durable reading position (opaque to the
	// engine; nil before the first batch). For nexmark it is the next event
	// number, big-endian.
	Position []byte
	// Watermark is the source's current watermark in microseconds since
	// the PostgreSQL epoch, valid when HasWatermark.
	Watermark    int64
	HasWatermark bool
}

// SourceProgressOf returns the progress of the source or connector-fed
// table named name (schema public). Benchmarks and tests poll it to learn
// when a bounded source has been ingested completely.
func (e *Engine) SourceProgressOf(name string) (SourceProgress, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	o := e.cat.lookup("", name)
	var st *sourceState
	if o != nil {
		st = e.sources[o.ID]
	}
	if st == nil {
		return SourceProgress{}, repr.ErrUndefinedTable.New(name)
	}
	p := SourceProgress{ID: o.ID, Watermark: st.watermark, HasWatermark: st.hasWM}
	// Read the position under the lock: Ingest commits it while holding
	// the lock exclusively, so it matches the in-memory state seen here.
	pos, err := e.SourcePosition(p.ID)
	p.Position = pos
	return p, err
}

// ViewLate returns the late rows the dataflow of the materialized view
// named name has dropped so far, per source name (sources without an event
// time are absent). Rows below a source's watermark are dropped and
// counted, never silently (GUIDE §3); tests use this to check that none
// were.
func (e *Engine) ViewLate(name string) (map[string]int64, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	o := e.cat.lookup("", name)
	if o == nil || e.views[o.ID] == nil {
		return nil, repr.ErrUndefinedTable.New(name)
	}
	out := map[string]int64{}
	for id, n := range e.views[o.ID].df.Late() {
		if src := e.cat.byID[uint64(id)]; src != nil {
			out[src.Name] = n
		}
	}
	return out, nil
}
