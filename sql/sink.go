package sql

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/storage"
)

// Sinks.
//
// A sink (CREATE SINK name FROM relation WITH (connector = ...)) delivers
// every change of a table or materialized view to an external system,
// exactly once. The engine's half is a durable per-sink change log: every
// commit that changes the sink's relation also writes, in the same synced
// batch, the relation's updates at that logical time under
// /m/sink/<id>/log/<time>; CREATE SINK writes the relation's contents at
// the creation time as the first entry. The log therefore never misses a
// change and never holds one twice, whatever crashes. The connector
// runtime (in server) reads entries after its delivered time (SinkLog),
// delivers them, and truncates them (AckSink); where it keeps its
// delivered time, and how that time is made atomic with the delivery, is
// the connector's protocol (for Kafka: the records carry their logical
// time, and the last one committed is read back from Kafka at start-up, see
// server/sinks_kafka.go). Sinks are not relations: they have their own
// namespace and are listed in eddy_sinks.

// SinkDef is a sink as the connector runtime needs it.
type SinkDef struct {
	ID   uint64
	Name string
	// Schema is the sink's schema ("" for public: sinks made before
	// sinks had schemas).
	Schema string `json:",omitempty"`
	// From is the ID of the table or materialized view the sink follows,
	// FromName its name; Columns are its columns.
	From      uint64
	FromName  string
	FromKind  planner.RelKind
	Columns   []ColumnDef
	Connector string
	// Options are the WITH options (keys lower-cased) without connector.
	Options        map[string]string
	Format, Encode string
	// Nonce tells this sink from an earlier one with the same ID (another
	// data directory) in the external system.
	Nonce         uint64
	EncodeOptions map[string]string `json:",omitempty"`
}

// SinkConnectors is the part of the connector runtime that runs sinks. The
// server's Connectors implementation also implements it; without it CREATE
// SINK is 0A000.
type SinkConnectors interface {
	ValidateSink(def SinkDef) error
	ActivateSink(def SinkDef)
	DeactivateSink(id uint64)
}

// SinkBatch is one logical time's changes of a sink's relation.
type SinkBatch struct {
	Time    repr.Time
	Updates []repr.Update
}

// sinkState is a sink in the engine: its definition and eddy_sinks row.
type sinkState struct {
	def        SinkDef
	state, err string
	delivered  repr.Time
	records    int64
	row        repr.Row
}

var sysSinksColumns = []ColumnDef{
	{Name: "name", Type: repr.Text}, {Name: "relation", Type: repr.Text}, {Name: "connector", Type: repr.Text},
	{Name: "state", Type: repr.Text}, {Name: "error", Type: repr.Text}, {Name: "delivered_time", Type: repr.Int8},
	{Name: "records", Type: repr.Int8},
}

func sinkDefKey(id uint64) []byte    { return storage.MetaKey(fmt.Sprintf("sink/%d/def", id)) }
func sinkLogPrefix(id uint64) []byte { return storage.MetaKey(fmt.Sprintf("sink/%d/log/", id)) }
func sinkLogKey(id uint64, t repr.Time) []byte {
	return binary.BigEndian.AppendUint64(sinkLogPrefix(id), uint64(t))
}

// sinkDefPrefix is the prefix of every sink definition key's scan: all
// sink keys, of which the definitions end in /def.
var sinkKeysPrefix = storage.MetaKey("sink/")

// execCreateSink executes CREATE SINK ... FROM relation.
func (p *Portal) execCreateSink(cs *parse.CreateSink) error {
	p.tag = "CREATE SINK"
	if err := p.st.s.MayCreateConnector(); err != nil {
		return err
	}
	if cs.From == nil {
		return repr.Unsupported("CREATE SINK ... AS query (create a materialized view and CREATE SINK ... FROM it)")
	}
	def := SinkDef{Name: cs.Name, Options: map[string]string{}, Format: strings.ToLower(cs.Format),
		Encode: strings.ToLower(cs.Encode), EncodeOptions: optionMap(cs.EncodeOptions)}
	for _, o := range cs.Options {
		if o.Key == "connector" {
			def.Connector = strings.ToLower(o.Value)
			continue
		}
		def.Options[o.Key] = o.Value
	}
	def.Schema = cs.Schema // qualified when names were bound
	if def.Schema == nsPublic {
		def.Schema = ""
	}
	return p.st.s.e.createSink(def, cs.From, cs.IfNotExists)
}

func optionMap(opts []parse.Option) map[string]string {
	if len(opts) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, o := range opts {
		m[o.Key] = o.Value
	}
	return m
}

// sinkConnectors returns the runtime's sink side, or 0A000.
func (e *Engine) sinkConnectors() (SinkConnectors, error) {
	sc, ok := e.connectors.(SinkConnectors)
	if !ok {
		return nil, repr.Unsupported("sinks (no connector runtime in this process)")
	}
	return sc, nil
}

// createSink validates and persists a sink, logging the relation's current
// contents as its first change, and starts it.
func (e *Engine) createSink(def SinkDef, from *pg.RangeVar, ifNotExists bool) error {
	sc, exists, err := e.checkNewSink(&def, from)
	if exists && ifNotExists {
		return nil
	}
	if err != nil {
		return err
	}
	def.Nonce = uint64(time.Now().UnixNano())
	if err := sc.ValidateSink(def); err != nil {
		return err
	}
	e.writeLocked(func() {
		err = e.addSinkLocked(&def)
	})
	if err != nil {
		return err
	}
	sc.ActivateSink(def)
	return nil
}

// checkNewSink resolves a new sink's relation under the engine's lock and
// returns the sink runtime, or exists (with 42710) when the name is taken.
func (e *Engine) checkNewSink(def *SinkDef, from *pg.RangeVar) (sc SinkConnectors, exists bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sc, err = e.sinkConnectors()
	if err == nil {
		err = e.resolveSinkFrom(def, from)
	}
	if err == nil && e.sinkNamed(def.schema(), def.Name) != nil {
		return sc, true, repr.Errorf(repr.CodeDuplicateObject, "sink \"%s\" already exists", def.Name)
	}
	return sc, false, err
}

// resolveSinkFrom fills the relation a sink follows.
func (e *Engine) resolveSinkFrom(def *SinkDef, from *pg.RangeVar) error {
	obj := e.cat.lookup(from.Schemaname, from.Relname)
	if obj == nil {
		return repr.ErrUndefinedTable.New(from.Relname)
	}
	if isSystemRelation(obj.ID) || (obj.Kind != planner.RelTable && obj.Kind != planner.RelMaterializedView) {
		return repr.Unsupported("CREATE SINK FROM %s %s (sinks follow tables and materialized views)", kindName(obj.Kind), obj.Name)
	}
	def.From, def.FromName, def.FromKind, def.Columns = obj.ID, obj.Name, obj.Kind, obj.Columns
	return nil
}

// addSinkLocked persists a new sink and its first log entry in one batch.
func (e *Engine) addSinkLocked(def *SinkDef) error {
	if e.cat.byID[def.From] == nil {
		return repr.Errorf(repr.CodeSerializationFailure, "could not serialize access: relation was dropped concurrently")
	}
	b := e.db.NewBatch()
	defer b.Close()
	prevID := e.nextID
	def.ID = e.allocID(b)
	js, err := json.Marshal(def)
	if err != nil {
		return err
	}
	b.Set(sinkDefKey(def.ID), js)
	if snap := e.snapshot(def.From, e.clock); len(snap) > 0 {
		b.Set(sinkLogKey(def.ID, e.clock), encodeUpdates(snap))
	}
	if err := e.db.Commit(b); err != nil {
		e.nextID = prevID
		return err
	}
	e.registerSink(*def)
	return nil
}

// registerSink adds a sink's runtime state (under the engine lock).
func (e *Engine) registerSink(def SinkDef) {
	if e.sinks == nil {
		e.sinks = map[uint64]*sinkState{}
	}
	s := &sinkState{def: def, state: SourceRunning}
	e.sinks[def.ID] = s
	e.refreshSinkRow(s)
}

// sinkNamed finds a sink by name.
func (e *Engine) sinkNamed(schema, name string) *sinkState {
	for _, s := range e.sinks {
		if s.def.Name == name && s.def.schema() == schema {
			return s
		}
	}
	return nil
}

// listedName is the sink's name in eddy_sinks, whose key it is: schema
// qualified outside public.
func (d *SinkDef) listedName() string {
	if d.schema() == nsPublic {
		return d.Name
	}
	return d.Schema + "." + d.Name
}

// schema is the sink's schema.
func (d *SinkDef) schema() string {
	if d.Schema == "" {
		return nsPublic
	}
	return d.Schema
}

// sinksIn returns the sinks of schema ns.
func (e *Engine) sinksIn(ns string) []*sinkState {
	var out []*sinkState
	for _, s := range e.sinks {
		if s.def.schema() == ns {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].def.ID < out[j].def.ID })
	return out
}

// resolveSinkSchema is the schema of an unqualified sink name: the first
// schema of the search path (with USAGE) that holds a sink so named, else
// the first one of the path.
func (s *Session) resolveSinkSchema(cat *Catalog, name string) string {
	path := s.searchPath(cat)
	for _, ns := range path {
		if s.e.sinkNamed(ns, name) != nil && s.mayUseSchema(cat, ns) {
			return ns
		}
	}
	if len(path) > 0 {
		return path[0]
	}
	return nsPublic
}

// loadSinkStatuses restores the sinks from the store (at start-up, under
// the engine lock, from installSystemRelations).
func (e *Engine) loadSinkStatuses() error {
	var defs []SinkDef
	err := e.db.Scan(sinkKeysPrefix, func(k, v []byte) error {
		if !strings.HasSuffix(string(k), "/def") {
			return nil
		}
		var d SinkDef
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("decoding a sink definition: %w", err)
		}
		defs = append(defs, d)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].ID < defs[j].ID })
	for _, d := range defs {
		e.registerSink(d)
	}
	return nil
}

// activeSinks returns the definitions of every sink, in ID order.
func (e *Engine) activeSinks() []SinkDef {
	var out []SinkDef
	for _, s := range e.sinks {
		out = append(out, s.def)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// logSinks appends, for every sink whose relation changed at t, the
// changes to the sink's log in the commit's batch (called from propagate).
func (e *Engine) logSinks(deltas map[uint64][]repr.Update, t repr.Time, b *storage.Batch) {
	if b == nil {
		return
	}
	for id, s := range e.sinks {
		if d := deltas[s.def.From]; len(d) > 0 {
			b.Set(sinkLogKey(id, t), encodeUpdates(d))
		}
	}
}

// encodeUpdates encodes (row, diff) pairs: per update a zigzag varint
// diff, a uvarint length and the row's value encoding. The buffer is
// sized once from the first update's encoding (a table's rows are alike;
// a commit's write set is megabytes, whose regrowth by doubling was 1–3%
// of a TPC-H refresh batch).
func encodeUpdates(us []repr.Update) []byte {
	var buf, row []byte
	for i, u := range us {
		buf = binary.AppendVarint(buf, u.Diff)
		row = repr.AppendRow(row[:0], u.Row)
		buf = binary.AppendUvarint(buf, uint64(len(row)))
		buf = append(buf, row...)
		if i == 0 && len(us) > 1 {
			buf = slices.Grow(buf, (len(us)-1)*(len(buf)+len(buf)/4))
		}
	}
	return buf
}

// decodeUpdates is encodeUpdates' inverse, at time t.
func decodeUpdates(b []byte, t repr.Time) ([]repr.Update, error) {
	var out []repr.Update
	for len(b) > 0 {
		diff, k := binary.Varint(b)
		if k <= 0 {
			return nil, errCorruptLog
		}
		b = b[k:]
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, errCorruptLog
		}
		row, err := repr.DecodeRow(b[k : k+int(n)])
		if err != nil {
			return nil, err
		}
		out = append(out, repr.Update{Row: row, Time: t, Diff: diff})
		b = b[k+int(n):]
	}
	return out, nil
}

var errCorruptLog = errors.New("sql: corrupt sink log entry")

// errStopScan ends a scan early.
var errStopScan = errors.New("stop")

// SinkLog returns up to max logged batches of a sink with times after
// `after`, in time order.
func (e *Engine) SinkLog(id uint64, after repr.Time, max int) ([]SinkBatch, error) {
	var out []SinkBatch
	prefix := sinkLogPrefix(id)
	err := e.db.Scan(prefix, func(k, v []byte) error {
		if len(k) != len(prefix)+8 {
			return errCorruptLog
		}
		t := repr.Time(binary.BigEndian.Uint64(k[len(prefix):]))
		if t <= after {
			return nil
		}
		us, err := decodeUpdates(v, t)
		if err != nil {
			return err
		}
		out = append(out, SinkBatch{Time: t, Updates: us})
		if len(out) >= max {
			return errStopScan
		}
		return nil
	})
	if errors.Is(err, errStopScan) {
		err = nil
	}
	return out, err
}

// AckSink records that a sink delivered everything up to time t (records
// is how many records that took) and drops those log entries.
func (e *Engine) AckSink(id uint64, t repr.Time, records int64) error {
	var keys [][]byte
	prefix := sinkLogPrefix(id)
	err := e.db.Scan(prefix, func(k, _ []byte) error {
		if len(k) == len(prefix)+8 && repr.Time(binary.BigEndian.Uint64(k[len(prefix):])) <= t {
			keys = append(keys, append([]byte(nil), k...))
			return nil
		}
		return errStopScan
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	for _, k := range keys {
		b.Delete(k)
	}
	if err := e.db.Commit(b); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if s := e.sinks[id]; s != nil {
		s.delivered = max(s.delivered, t)
		s.records += records
		e.refreshSinkRow(s)
	}
	return nil
}

// SetSinkStatus reports a sink's state and error in eddy_sinks.
func (e *Engine) SetSinkStatus(id uint64, state, errText string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s := e.sinks[id]; s != nil {
		s.state, s.err = state, errText
		e.refreshSinkRow(s)
	}
}

// refreshSinkRow replaces the sink's row of eddy_sinks.
func (e *Engine) refreshSinkRow(s *sinkState) {
	c := e.colls[sysSinksID]
	if c == nil {
		return
	}
	errText := repr.Null
	if s.err != "" {
		errText = repr.NewText(s.err)
	}
	row := repr.Row{repr.NewText(s.def.listedName()), repr.NewText(s.def.FromName), repr.NewText(s.def.Connector),
		repr.NewText(s.state), errText, repr.NewInt(int64(s.delivered)), repr.NewInt(s.records)}
	if s.row != nil {
		_ = c.Apply(s.row, -1, nil)
	}
	_ = c.Apply(row, 1, nil)
	s.row = row
}

// dropSinks executes DROP SINK; missing are the names IF EXISTS skipped.
func (e *Engine) dropSinks(d *parse.DropObject) (missing []string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var victims []*sinkState
	for _, n := range d.Names {
		s := e.sinkNamed(n.Schemaname, n.Relname)
		if s == nil && !d.IfExists {
			return nil, repr.Errorf(repr.CodeUndefinedObject, "sink \"%s\" does not exist", n.Relname)
		}
		if s == nil {
			missing = append(missing, n.Relname)
		}
		if s != nil {
			victims = append(victims, s)
		}
	}
	return missing, e.removeSinksLocked(victims)
}

// removeSinksLocked deletes sinks durably and stops them.
func (e *Engine) removeSinksLocked(victims []*sinkState) error {
	if len(victims) == 0 {
		return nil
	}
	b := e.db.NewBatch()
	defer b.Close()
	for _, s := range victims {
		b.Delete(sinkDefKey(s.def.ID))
		b.DeletePrefix(sinkLogPrefix(s.def.ID))
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	sc, _ := e.connectors.(SinkConnectors)
	for _, s := range victims {
		delete(e.sinks, s.def.ID)
		if c := e.colls[sysSinksID]; c != nil && s.row != nil {
			_ = c.Apply(s.row, -1, nil)
		}
		if sc != nil {
			sc.DeactivateSink(s.def.ID)
		}
	}
	return nil
}

// sinksReading returns the sinks that follow any of objs.
func (e *Engine) sinksReading(objs []*Object) []*sinkState {
	var out []*sinkState
	for _, s := range e.sinks {
		for _, o := range objs {
			if s.def.From == o.ID {
				out = append(out, s)
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].def.ID < out[j].def.ID })
	return out
}

// moveSinks puts sinks in schema ns (ALTER SCHEMA ... RENAME), durably.
func (e *Engine) moveSinks(sinks []*sinkState, ns string) error {
	if len(sinks) == 0 {
		return nil
	}
	if ns == nsPublic {
		ns = ""
	}
	b := e.db.NewBatch()
	defer b.Close()
	for _, s := range sinks {
		def := s.def
		def.Schema = ns
		js, err := json.Marshal(def)
		if err != nil {
			return err
		}
		b.Set(sinkDefKey(def.ID), js)
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	for _, s := range sinks {
		s.def.Schema = ns
		e.refreshSinkRow(s)
	}
	return nil
}
