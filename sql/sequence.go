package sql

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/sql/parse"
	"github.com/eddydb/eddy/storage"
)

// Sequences. A sequence is a catalog object (kind relSequence, sharing the
// relations' name space as in PostgreSQL) whose definition is its
// SequenceDef; its value lives outside the catalog and outside
// transactions: nextval is never rolled back, as in PostgreSQL.
//
// Durability follows PostgreSQL's WAL-ahead scheme: the stored state of a
// sequence is a value and whether it was handed out; nextval writes it
// (synced) only once every seqLogAhead calls, recording the value
// seqLogAhead steps ahead as already handed out. A crash therefore skips
// at most seqLogAhead values but never repeats one; setval and a clean
// Close write the exact state.

// relSequence is the object kind of a sequence. The planner never sees
// one: Catalog.Relation refuses to read a sequence as a relation.
const relSequence planner.RelKind = 100

// seqLogAhead is how many values one durable write of nextval covers
// (PostgreSQL's SEQ_LOG_VALS).
const seqLogAhead = 32

// SequenceDef is a sequence's definition.
type SequenceDef struct {
	// Type is the sequence's data type: smallint, integer or bigint.
	Type                       string
	Increment, Min, Max, Start int64
	Cycle                      bool `json:",omitempty"`
	// OwnedBy is the table whose column owns the sequence (serial and
	// identity columns): dropping the table drops it.
	OwnedBy  uint64 `json:",omitempty"`
	OwnedCol string `json:",omitempty"`
	// Identity marks the sequence of an identity column.
	Identity bool `json:",omitempty"`

	// ownedBy names the OWNED BY column of CREATE SEQUENCE until it is
	// resolved.
	ownedBy []string
	// restart is CREATE SEQUENCE's RESTART value, the first nextval's
	// instead of Start (nil: none given).
	restart *int64
}

// firstValue is the value a new sequence's first nextval returns.
func (d *SequenceDef) firstValue() int64 {
	if d.restart != nil {
		return *d.restart
	}
	return d.Start
}

// seqState is a sequence's current value, guarded by Engine.seqMu.
type seqState struct {
	id     uint64
	name   string
	def    *SequenceDef
	last   int64
	called bool
	// cached counts the values nextval may still hand out before it must
	// log ahead again.
	cached  int
	dropped bool
}

func seqKey(id uint64) []byte { return storage.MetaKey("seq/" + strconv.FormatUint(id, 10)) }

func encodeSeqValue(v int64, called bool) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(v))
	if called {
		return append(b, 1)
	}
	return append(b, 0)
}

// typeBounds returns the range of a sequence type.
func typeBounds(t string) (int64, int64) {
	switch t {
	case "smallint":
		return math.MinInt16, math.MaxInt16
	case "integer":
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// sequenceTypeName maps a type name to a sequence type.
func sequenceTypeName(tn *pg.TypeName) (string, error) {
	name := tn.Names[len(tn.Names)-1].GetString_().Sval
	switch name {
	case "int2", "smallint":
		return "smallint", nil
	case "int4", "integer", "int":
		return "integer", nil
	case "int8", "bigint":
		return "bigint", nil
	}
	return "", repr.Errorf(repr.CodeInvalidParameter, "sequence type must be smallint, integer, or bigint")
}

// sequenceDef builds a definition from CREATE SEQUENCE options (or an
// identity column's), with typ the default type.
func sequenceDef(opts []*pg.Node, typ string) (*SequenceDef, error) {
	d := &SequenceDef{Type: typ, Increment: 1}
	var min, max, start *int64
	var restart *pg.DefElem
	for _, n := range opts {
		de := n.GetDefElem()
		if de == nil {
			continue
		}
		var err error
		switch de.Defname {
		case "as":
			d.Type, err = sequenceTypeName(de.Arg.GetTypeName())
		case "increment":
			d.Increment, err = defInt(de)
		case "start":
			var v int64
			v, err = defInt(de)
			start = &v
		case "minvalue", "maxvalue":
			if de.Arg == nil {
				continue
			}
			var v int64
			if v, err = defInt(de); de.Defname == "minvalue" {
				min = &v
			} else {
				max = &v
			}
		case "cycle":
			d.Cycle = de.Arg == nil || de.Arg.GetBoolean() == nil || de.Arg.GetBoolean().Boolval
		case "restart":
			restart = de
		case "cache":
			err = checkSequenceCache(de)
		case "owned_by", "sequence_name":
		default:
			err = repr.Unsupported("sequence option %s", de.Defname)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := d.fill(min, max, start); err != nil {
		return nil, err
	}
	return d, d.restartAt(restart)
}

// restartAt applies CREATE SEQUENCE's RESTART [WITH n] option (nil: none):
// the first value is n, or the start without one, within the bounds.
func (d *SequenceDef) restartAt(de *pg.DefElem) error {
	if de == nil {
		return nil
	}
	v := d.Start
	if de.Arg != nil {
		var err error
		if v, err = defInt(de); err != nil {
			return err
		}
	}
	if v < d.Min {
		return repr.Errorf(repr.CodeInvalidParameter, "RESTART value (%d) cannot be less than MINVALUE (%d)", v, d.Min)
	}
	if v > d.Max {
		return repr.Errorf(repr.CodeInvalidParameter, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", v, d.Max)
	}
	d.restart = &v
	return nil
}

// fill applies PostgreSQL's defaults and checks the bounds.
func (d *SequenceDef) fill(min, max, start *int64) error {
	if d.Increment == 0 {
		return repr.Errorf(repr.CodeInvalidParameter, "INCREMENT must not be zero")
	}
	lo, hi := typeBounds(d.Type)
	if d.Increment > 0 {
		d.Min, d.Max = 1, hi
	} else {
		d.Min, d.Max = lo, -1
	}
	if min != nil {
		d.Min = *min
	}
	if max != nil {
		d.Max = *max
	}
	if d.Min < lo || d.Min > hi {
		return repr.Errorf(repr.CodeInvalidParameter, "MINVALUE (%d) is out of range for sequence data type %s", d.Min, d.Type)
	}
	if d.Max < lo || d.Max > hi {
		return repr.Errorf(repr.CodeInvalidParameter, "MAXVALUE (%d) is out of range for sequence data type %s", d.Max, d.Type)
	}
	if d.Min >= d.Max {
		return repr.Errorf(repr.CodeInvalidParameter, "MINVALUE (%d) must be less than MAXVALUE (%d)", d.Min, d.Max)
	}
	if d.Increment > 0 {
		d.Start = d.Min
	} else {
		d.Start = d.Max
	}
	if start != nil {
		d.Start = *start
	}
	if d.Start < d.Min {
		return repr.Errorf(repr.CodeInvalidParameter, "START value (%d) cannot be less than MINVALUE (%d)", d.Start, d.Min)
	}
	if d.Start > d.Max {
		return repr.Errorf(repr.CodeInvalidParameter, "START value (%d) cannot be greater than MAXVALUE (%d)", d.Start, d.Max)
	}
	return nil
}

// checkSequenceCache is PostgreSQL's check of CACHE (which Eddy, whose
// nextval is exact, otherwise ignores): 22023 unless positive.
func checkSequenceCache(de *pg.DefElem) error {
	v, err := defInt(de)
	if err == nil && v <= 0 {
		err = repr.Errorf(repr.CodeInvalidParameter, "CACHE (%d) must be greater than zero", v)
	}
	return err
}

func defInt(de *pg.DefElem) (int64, error) {
	switch {
	case de.Arg.GetInteger() != nil:
		return int64(de.Arg.GetInteger().Ival), nil
	case de.Arg.GetFloat() != nil:
		v, err := strconv.ParseInt(de.Arg.GetFloat().Fval, 10, 64)
		if err != nil {
			return 0, repr.Errorf(repr.CodeNumericOutOfRange, "value \"%s\" is out of range for type bigint", de.Arg.GetFloat().Fval)
		}
		return v, nil
	}
	return 0, repr.Errorf(repr.CodeSyntax, "%s requires a numeric value", de.Defname)
}

// step returns the value after v, or false when the sequence is exhausted.
func (d *SequenceDef) step(v int64) (int64, bool) {
	if d.Increment > 0 {
		if v > d.Max-d.Increment {
			return d.Min, d.Cycle
		}
		return v + d.Increment, true
	}
	if v < d.Min-d.Increment {
		return d.Max, d.Cycle
	}
	return v + d.Increment, true
}

// execCreateSequence executes CREATE SEQUENCE.
func (p *Portal) execCreateSequence(cs *pg.CreateSeqStmt) error {
	p.tag = "CREATE SEQUENCE"
	def, err := sequenceDef(cs.Options, "bigint")
	if err != nil {
		return err
	}
	obj := &Object{Kind: relSequence, Schema: schemaOf(cs.Sequence), Name: cs.Sequence.Relname, Sequence: def, Owner: p.st.s.newOwner()}
	def.ownedBy = ownedByNames(cs.Options)
	return p.st.s.e.createObjects([]*Object{obj}, cs.IfNotExists)
}

// registerSequence makes a sequence known to nextval at its stored state
// (the start, not yet called, when nothing is stored). Caller holds e.mu.
func (e *Engine) registerSequence(o *Object) error {
	last, called := o.Sequence.firstValue(), false
	v, ok, err := e.db.Get(seqKey(o.ID))
	if err != nil {
		return err
	}
	if ok && len(v) == 9 {
		last, called = int64(binary.BigEndian.Uint64(v)), v[8] == 1
	}
	e.registerSequenceAt(o, last, called)
	return nil
}

// registerSequenceAt makes a sequence known to nextval at the given
// state: one whose state is staged in a batch not yet durable (an atomic
// change, a block with DDL), which registerSequence would not read.
// Caller holds e.mu.
func (e *Engine) registerSequenceAt(o *Object, last int64, called bool) {
	st := &seqState{id: o.ID, name: qualified(o.Schema, o.Name), def: o.Sequence, last: last, called: called}
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	if e.seqs == nil {
		e.seqs = map[string]*seqState{}
	}
	e.seqs[st.name] = st
}

// forgetSequence unregisters a dropped sequence. Caller holds e.mu.
func (e *Engine) forgetSequence(o *Object) {
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	if st := e.seqs[qualified(o.Schema, o.Name)]; st != nil && st.id == o.ID {
		st.dropped = true
		delete(e.seqs, st.name)
	}
}

// flushSequences writes every sequence's exact state (at clean shutdown,
// so a restart continues without a gap).
func (e *Engine) flushSequences() {
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	if len(e.seqs) == 0 {
		return
	}
	b := e.db.NewBatch()
	defer b.Close()
	for _, st := range e.seqs {
		b.Set(seqKey(st.id), encodeSeqValue(st.last, st.called))
	}
	if err := e.db.Commit(b); err != nil {
		e.log.Warn("writing sequence states", "err", err)
	}
}

// writeSeq durably stores a sequence state. Caller holds e.seqMu.
func (e *Engine) writeSeq(id uint64, v int64, called bool) error {
	b := e.db.NewBatch()
	defer b.Close()
	b.Set(seqKey(id), encodeSeqValue(v, called))
	return e.db.Commit(b)
}

// sequence finds a registered sequence by its regclass-style name, or
// nil. Caller holds e.seqMu.
func (e *Engine) sequence(name string) *seqState {
	schema, rel := parseRegclass(name)
	return e.seqs[qualified(schema, rel)]
}

// holdSequence returns the sequence named name with e.seqMu held, or nil
// with it released (also when the lookup panics).
func (e *Engine) holdSequence(name string) (st *seqState) {
	e.seqMu.Lock()
	defer func() {
		if st == nil {
			e.seqMu.Unlock()
		}
	}()
	return e.sequence(name)
}

// lockedSequence finds a sequence and returns with e.seqMu held, or
// returns the error for a missing one (with e.seqMu released: the catalog
// lookup takes e.mu, which DDL takes before e.seqMu).
func (e *Engine) lockedSequence(name string) (*seqState, error) {
	if st := e.holdSequence(name); st != nil {
		return st, nil
	}
	schema, rel := parseRegclass(name)
	var o *Object
	e.readLocked(func() {
		o = e.cat.lookup(schema, rel)
	})
	if o != nil {
		return nil, repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a sequence", rel)
	}
	return nil, repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", name)
}

// parseRegclass splits a relation name as regclass input does: parts
// separated by dots, unquoted parts folded to lower case.
func parseRegclass(s string) (schema, name string) {
	var parts []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		case c == '.' && !quoted:
			parts = append(parts, cur.String())
			cur.Reset()
		case !quoted:
			cur.WriteString(strings.ToLower(string(c)))
		default:
			cur.WriteByte(c)
		}
	}
	parts = append(parts, cur.String())
	if len(parts) > 1 {
		return parts[len(parts)-2], parts[len(parts)-1]
	}
	return "public", parts[0]
}

// nextVal advances a sequence, logging ahead when its cache is used up.
func (e *Engine) nextVal(name string) (*seqState, int64, error) {
	st, err := e.lockedSequence(name)
	if err != nil {
		return nil, 0, err
	}
	return e.advance(st)
}

// advance is nextVal for the sequence st, found with e.seqMu held, which
// it releases.
func (e *Engine) advance(st *seqState) (*seqState, int64, error) {
	defer e.seqMu.Unlock()
	v := st.last
	if st.called {
		var ok bool
		if v, ok = st.def.step(st.last); !ok {
			bound, which := st.def.Max, "maximum"
			if st.def.Increment < 0 {
				bound, which = st.def.Min, "minimum"
			}
			return nil, 0, repr.Errorf("2200H", "nextval: reached %s value of sequence \"%s\" (%d)", which, strings.TrimPrefix(st.name, "public."), bound)
		}
	}
	if st.cached > 0 {
		st.cached--
	} else {
		ahead, n := v, 0
		for ; n < seqLogAhead; n++ {
			next, ok := st.def.step(ahead)
			if !ok {
				break
			}
			ahead = next
		}
		if err := e.writeSeq(st.id, ahead, true); err != nil {
			return nil, 0, fmt.Errorf("logging sequence %s: %w", st.name, err)
		}
		st.cached = n
	}
	st.last, st.called = v, true
	return st, v, nil
}

// setVal sets a sequence's state durably.
func (e *Engine) setVal(name string, v int64, called bool) (*seqState, error) {
	st, err := e.lockedSequence(name)
	if err != nil {
		return nil, err
	}
	defer e.seqMu.Unlock()
	if v < st.def.Min || v > st.def.Max {
		return nil, repr.Errorf(repr.CodeNumericOutOfRange, "setval: value %d is out of bounds for sequence \"%s\" (%d..%d)",
			v, strings.TrimPrefix(st.name, "public."), st.def.Min, st.def.Max)
	}
	if err := e.writeSeq(st.id, v, called); err != nil {
		return nil, err
	}
	st.last, st.called, st.cached = v, called, 0
	return st, nil
}

// ownedSequences returns the IDs of the sequences owned by the tables.
func (e *Engine) ownedSequences(rels []*planner.Relation) []uint64 {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []uint64
	for _, o := range e.cat.objects() {
		if o.Kind != relSequence {
			continue
		}
		for _, r := range rels {
			if o.Sequence.OwnedBy == uint64(r.ID) {
				out = append(out, o.ID)
			}
		}
	}
	return out
}

// restartSequences resets sequences to their start (TRUNCATE ... RESTART
// IDENTITY), durably.
func (e *Engine) restartSequences(ids []uint64) error {
	if len(ids) == 0 {
		return nil
	}
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	for _, st := range e.seqs {
		for _, id := range ids {
			if st.id != id {
				continue
			}
			if err := e.writeSeq(id, st.def.Start, false); err != nil {
				return err
			}
			st.last, st.called, st.cached = st.def.Start, false, 0
		}
	}
	return nil
}

// sessionSeqs implements expr.Sequences for a session: currval and
// lastval are per session, as in PostgreSQL.
type sessionSeqs struct{ s *Session }

// lockedSeqs serves nextval while the session's statement holds the
// engine's lock (ALTER TABLE filling a new column's DEFAULT nextval(...)
// into the existing rows): sessionSeqs would take that lock again and
// wait for itself forever. It reads the catalog directly; the other
// sequence functions are refused there.
type lockedSeqs struct{ s *Session }

func (q lockedSeqs) NextVal(name string) (int64, error) {
	s := q.s
	if err := s.checkSequenceWrite("nextval"); err != nil {
		return 0, err
	}
	name = s.seqNameHeld(name)
	if err := s.checkSeqPrivHeld(name, privUsage|privUpdate); err != nil {
		return 0, err
	}
	st := s.e.holdSequence(name)
	if st == nil {
		schema, rel := parseRegclass(name)
		if s.e.cat.lookup(schema, rel) != nil {
			return 0, repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a sequence", rel)
		}
		return 0, repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	st, v, err := s.e.advance(st)
	if err != nil {
		return 0, err
	}
	s.noteSeq(st, v)
	return v, nil
}

func (lockedSeqs) CurrVal(string) (int64, error) { return 0, lockedSeqRefusal("currval") }

func (lockedSeqs) SetVal(string, int64, bool) (int64, error) { return 0, lockedSeqRefusal("setval") }

func (lockedSeqs) LastVal() (int64, error) { return 0, lockedSeqRefusal("lastval") }

func lockedSeqRefusal(fn string) error {
	return repr.Unsupported("%s while ALTER TABLE converts or fills a table's existing rows", fn)
}

func (q sessionSeqs) NextVal(name string) (int64, error) {
	if err := q.s.checkSequenceWrite("nextval"); err != nil {
		return 0, err
	}
	if err := q.s.checkSeqPriv(name, privUsage|privUpdate); err != nil {
		return 0, err
	}
	st, v, err := q.s.e.nextVal(q.s.seqName(name))
	if err != nil {
		return 0, err
	}
	q.s.noteSeq(st, v)
	return v, nil
}

func (q sessionSeqs) CurrVal(name string) (int64, error) {
	e := q.s.e
	if err := q.s.checkSeqPriv(name, privUsage|privSelect); err != nil {
		return 0, err
	}
	st, err := e.lockedSequence(q.s.seqName(name))
	if err != nil {
		return 0, err
	}
	e.seqMu.Unlock()
	v, ok := q.s.seqCurr[st.id]
	if !ok {
		return 0, repr.Errorf("55000", "currval of sequence \"%s\" is not yet defined in this session", strings.TrimPrefix(st.name, "public."))
	}
	return v, nil
}

func (q sessionSeqs) SetVal(name string, v int64, called bool) (int64, error) {
	if err := q.s.checkSequenceWrite("setval"); err != nil {
		return 0, err
	}
	if err := q.s.checkSeqPriv(name, privUpdate); err != nil {
		return 0, err
	}
	st, err := q.s.e.setVal(q.s.seqName(name), v, called)
	if err != nil {
		return 0, err
	}
	if called {
		q.s.noteSeq(st, v)
	}
	return v, nil
}

func (q sessionSeqs) LastVal() (int64, error) {
	st := q.s.lastSeq
	undefined := repr.Errorf("55000", "lastval is not yet defined in this session")
	if st == nil {
		return 0, undefined
	}
	q.s.e.seqMu.Lock()
	dropped := st.dropped
	q.s.e.seqMu.Unlock()
	if dropped {
		return 0, undefined
	}
	if err := q.s.checkSeqPriv(st.name, privUsage|privSelect); err != nil {
		return 0, err
	}
	return q.s.seqCurr[st.id], nil
}

// noteSeq records a value the session obtained (currval, lastval).
func (s *Session) noteSeq(st *seqState, v int64) {
	if s.seqCurr == nil {
		s.seqCurr = map[uint64]int64{}
	}
	s.seqCurr[st.id], s.lastSeq = v, st
}

// defaultText renders a DEFAULT expression, dropping the ::regclass casts
// of sequence-function arguments (nextval('s'::regclass), as pg_dump and
// PostgreSQL's own serial defaults write them): the functions take the
// name as text.
func defaultText(n *pg.Node) (string, error) {
	walkProto(n, func(m proto.Message) {
		fc, ok := m.(*pg.FuncCall)
		if !ok || len(fc.Args) == 0 || len(fc.Funcname) == 0 {
			return
		}
		switch fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval() {
		case "nextval", "currval", "setval":
		default:
			return
		}
		if tc := fc.Args[0].GetTypeCast(); tc != nil && tc.TypeName != nil && len(tc.TypeName.Names) > 0 &&
			tc.TypeName.Names[len(tc.TypeName.Names)-1].GetString_().GetSval() == "regclass" {
			fc.Args[0] = tc.Arg
		}
	})
	return parse.DeparseExpr(n)
}

// checkDefaultExpr refuses what PostgreSQL refuses in a column DEFAULT
// when the table is created, rather than at the first INSERT: a column
// reference or a subquery (0A000), an aggregate (42803), a window
// function (42P20) or a built-in set-returning function (0A000).
func checkDefaultExpr(n *pg.Node) error {
	var err error
	// Column references and subqueries first: PostgreSQL reports them
	// before an aggregate over them (avg(x) is a column reference).
	for _, aggs := range []bool{false, true} {
		walkProtoPruned(n, func(m proto.Message) bool {
			if err == nil {
				err = defaultExprError(m, aggs)
			}
			return err == nil
		})
	}
	return err
}

// defaultExprError is checkDefaultExpr's verdict on one node: column
// references and subqueries, or (aggs) aggregate and window calls.
func defaultExprError(m proto.Message, aggs bool) error {
	switch x := m.(type) {
	case *pg.ColumnRef:
		if !aggs {
			return repr.Errorf(repr.CodeFeatureNotSupported, "cannot use column reference in DEFAULT expression").WithPosition(x.Location + 1)
		}
	case *pg.SubLink:
		if !aggs {
			return repr.Errorf(repr.CodeFeatureNotSupported, "cannot use subquery in DEFAULT expression").WithPosition(x.Location + 1)
		}
	case *pg.FuncCall:
		if !aggs {
			return nil
		}
		name := ""
		if len(x.Funcname) > 0 {
			name = x.Funcname[len(x.Funcname)-1].GetString_().GetSval()
		}
		if x.Over != nil {
			return repr.Errorf("42P20", "window functions are not allowed in DEFAULT expressions").WithPosition(x.Location + 1)
		}
		if _, agg := expr.LookupAgg(strings.ToLower(name)); agg || x.AggStar {
			return repr.Errorf(repr.CodeGrouping, "aggregate functions are not allowed in DEFAULT expressions").WithPosition(x.Location + 1)
		}
		if expr.IsTableFunc(name) {
			return repr.Errorf(repr.CodeFeatureNotSupported, "set-returning functions are not allowed in DEFAULT expressions").WithPosition(x.Location + 1)
		}
	}
	return nil
}

// ownedByNames returns the OWNED BY option's names (nil: none given;
// ["none"]: OWNED BY NONE).
func ownedByNames(opts []*pg.Node) []string {
	for _, n := range opts {
		if de := n.GetDefElem(); de != nil && de.Defname == "owned_by" {
			return stringList(de.Arg.GetList().GetItems())
		}
	}
	return nil
}

// resolveOwner sets a sequence's owning table column from OWNED BY
// names. The caller holds e.mu.
func (e *Engine) resolveOwner(def *SequenceDef, names []string) error {
	if names == nil {
		return nil
	}
	if len(names) == 1 && names[0] == "none" {
		def.OwnedBy, def.OwnedCol = 0, ""
		return nil
	}
	if len(names) < 2 {
		return repr.Errorf(repr.CodeSyntax, "invalid OWNED BY option").WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
	}
	col, tbl, schema := names[len(names)-1], names[len(names)-2], ""
	if len(names) > 2 {
		schema = names[len(names)-3]
	}
	t := e.cat.lookup(schema, tbl)
	if t == nil {
		return repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", tbl)
	}
	if t.Kind != planner.RelTable {
		return repr.Errorf(repr.CodeWrongObjectType, "sequence cannot be owned by relation \"%s\"", tbl)
	}
	if columnIndex(t.Columns, col) < 0 {
		return repr.Errorf(repr.CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, tbl)
	}
	def.OwnedBy, def.OwnedCol = t.ID, col
	return nil
}

// execAlterSequence executes ALTER SEQUENCE: new bounds, increment,
// start, cycling, RESTART [WITH n] and OWNED BY. Like nextval it is not
// transactional.
func (p *Portal) execAlterSequence(as *pg.AlterSeqStmt) error {
	p.tag = "ALTER SEQUENCE"
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	obj := e.cat.lookup(as.Sequence.Schemaname, as.Sequence.Relname)
	if obj == nil {
		if as.MissingOk {
			return nil
		}
		return repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", as.Sequence.Relname)
	}
	if obj.Kind != relSequence {
		return repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a sequence", obj.Name)
	}
	nu := obj.clone()
	def := *obj.Sequence
	nu.Sequence = &def
	restart, restartTo, err := alterSequenceDef(&def, as.Options)
	if err != nil {
		return err
	}
	if err := e.resolveOwner(&def, ownedByNames(as.Options)); err != nil {
		return err
	}
	if restart && (restartTo < def.Min || restartTo > def.Max) {
		return repr.Errorf(repr.CodeInvalidParameter, "RESTART value (%d) cannot be outside MINVALUE and MAXVALUE", restartTo)
	}
	if err := e.commitAltered(obj, nu, nil); err != nil {
		return err
	}
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	st := e.seqs[qualified(obj.Schema, obj.Name)]
	if st == nil {
		return nil
	}
	st.def, st.cached = nu.Sequence, 0
	if restart {
		st.last, st.called = restartTo, false
	}
	return e.writeSeq(st.id, st.last, st.called)
}

// alterSequenceDef applies ALTER SEQUENCE options to def, reporting a
// RESTART and its value.
func alterSequenceDef(def *SequenceDef, opts []*pg.Node) (restart bool, to int64, err error) {
	var min, max, start *int64
	lo, hi := def.Min, def.Max
	min, max, startv := &lo, &hi, def.Start
	start = &startv
	oldType := def.Type
	for _, n := range opts {
		de := n.GetDefElem()
		if de == nil {
			continue
		}
		switch de.Defname {
		case "as":
			def.Type, err = sequenceTypeName(de.Arg.GetTypeName())
		case "increment":
			def.Increment, err = defInt(de)
		case "start":
			*start, err = defInt(de)
		case "restart":
			restart, to = true, *start
			if de.Arg != nil {
				to, err = defInt(de)
			}
		case "minvalue", "maxvalue":
			var v int64
			if de.Arg != nil {
				v, err = defInt(de)
			} else if tlo, thi := typeBounds(def.Type); de.Defname == "minvalue" {
				v = map[bool]int64{true: 1, false: tlo}[def.Increment > 0]
			} else {
				v = map[bool]int64{true: thi, false: -1}[def.Increment > 0]
			}
			if de.Defname == "minvalue" {
				*min = v
			} else {
				*max = v
			}
		case "cycle":
			def.Cycle = de.Arg == nil || de.Arg.GetBoolean() == nil || de.Arg.GetBoolean().Boolval
		case "cache":
			err = checkSequenceCache(de)
		case "owned_by":
		default:
			err = repr.Unsupported("sequence option %s", de.Defname)
		}
		if err != nil {
			return false, 0, err
		}
	}
	if restart && !hasOption(opts, "restart", true) {
		to = *start
	}
	if def.Type != oldType {
		def.retypeBounds(oldType, min, max, !hasOption(opts, "minvalue", false), !hasOption(opts, "maxvalue", false))
	}
	return restart, to, def.fill(min, max, start)
}

// retypeBounds moves the bounds *min and *max (when free to move) of a
// sequence whose type changed from oldType to d.Type: a bound at its old
// type's limit becomes the new type's default bound, as PostgreSQL's
// ALTER SEQUENCE ... AS does (and ALTER COLUMN TYPE of an identity column).
func (d *SequenceDef) retypeBounds(oldType string, min, max *int64, freeMin, freeMax bool) {
	olo, ohi := typeBounds(oldType)
	lo, hi := typeBounds(d.Type)
	if freeMax && *max == ohi {
		*max = map[bool]int64{true: hi, false: -1}[d.Increment > 0]
	}
	if freeMin && *min == olo {
		*min = map[bool]int64{true: 1, false: lo}[d.Increment > 0]
	}
}

// hasOption reports whether an option is given (withArg: with a value).
func hasOption(opts []*pg.Node, name string, withArg bool) bool {
	for _, n := range opts {
		if de := n.GetDefElem(); de != nil && de.Defname == name && (!withArg || de.Arg != nil) {
			return true
		}
	}
	return false
}

// checkSeqPriv refuses a sequence function to a role holding none of
// any on the sequence named (42501 "permission denied for sequence"):
// nextval needs USAGE or UPDATE, currval and lastval USAGE or SELECT,
// setval UPDATE. An identity column's sequence is the table's own
// business and is not checked, as in PostgreSQL. A missing sequence is
// left for the function to report.
func (s *Session) checkSeqPriv(name string, any aclMode) error {
	name = s.seqName(name)
	s.e.mu.RLock()
	defer s.e.mu.RUnlock()
	return s.checkSeqPrivHeld(name, any)
}

// checkSeqPrivHeld is checkSeqPriv for a resolved name, with e.mu held.
func (s *Session) checkSeqPrivHeld(name string, any aclMode) error {
	schema, rel := parseRegclass(name)
	o := s.e.cat.lookup(schema, rel)
	if o == nil || o.Kind != relSequence || o.Sequence.Identity {
		return nil
	}
	if sc := s.e.cat.schemas[o.Schema]; sc != nil && !s.e.hasSchemaPriv(s.currentUser(), sc, privUsage) {
		return repr.Errorf(codeInsufficientPrivilege, "permission denied for schema %s", o.Schema)
	}
	p, _ := s.e.rolePrivs(s.currentUser(), relACL(o), o.Owner, allSeqPrivs)
	if p&any == 0 {
		return repr.Errorf(codeInsufficientPrivilege, "permission denied for sequence %s", o.Name)
	}
	return nil
}

// renameSequenceUsers returns the tables whose column defaults call
// sequence old (by its Seq link, or by name in a written nextval), as
// changed copies calling it by nu's name: PostgreSQL's defaults hold the
// sequence's OID, so a rename never breaks them. The caller holds e.mu.
func (e *Engine) renameSequenceUsers(old, nu *Object) [][2]*Object {
	call := "nextval(" + quoteLiteral(qualifiedText(nu.Schema, nu.Name)) + ")"
	var spellings []string // how a written default may name old
	names := []string{qualifiedText(old.Schema, old.Name), old.Schema + "." + old.Name}
	if old.Schema == nsPublic {
		names = append(names, old.Name)
	}
	for _, n := range names {
		spellings = append(spellings, "nextval("+quoteLiteral(n)+")")
	}
	var fixes [][2]*Object
	for _, o := range e.cat.byID {
		var c *Object
		for i, col := range o.Columns {
			d := col.Default
			for _, was := range spellings {
				d = strings.ReplaceAll(d, was, call)
			}
			if col.Seq == old.ID {
				d = call
			}
			if d == col.Default {
				continue
			}
			if c == nil {
				c = o.clone()
				fixes = append(fixes, [2]*Object{o, c})
			}
			c.Columns[i].Default = d
		}
	}
	return fixes
}

// retypeIdentity gives the sequence seq of an identity column whose type
// changes to t that type, its bounds following as in retypeBounds
// (PostgreSQL alters an identity sequence with its column; a serial
// column's sequence keeps its type). The change is noted in a.seqFixes.
func (a *alteration) retypeIdentity(seq uint64, t repr.T) error {
	typ := map[uint32]string{repr.Int2.OID(): "smallint", repr.Int4.OID(): "integer", repr.Int8.OID(): "bigint"}[t.OID()]
	if typ == "" {
		return repr.Errorf(repr.CodeInvalidParameter, "identity column type must be smallint, integer, or bigint")
	}
	var def *SequenceDef
	for _, o := range a.created {
		if o.ID == seq {
			def = o.Sequence
		}
	}
	for _, f := range a.seqFixes {
		if f[1].ID == seq {
			def = f[1].Sequence
		}
	}
	if def == nil {
		o := a.e.cat.byID[seq]
		if o == nil || o.Sequence == nil {
			return nil
		}
		c := o.clone()
		d := *o.Sequence
		c.Sequence, def = &d, &d
		a.seqFixes = append(a.seqFixes, [2]*Object{o, c})
	}
	old := def.Type
	def.Type = typ
	min, max, start := def.Min, def.Max, def.Start
	def.retypeBounds(old, &min, &max, true, true)
	return def.fill(&min, &max, &start)
}

// redefineSequences hands nextval the new definitions of altered
// sequences (fixes: old, new), once they are committed. The caller holds
// e.mu.
func (e *Engine) redefineSequences(fixes [][2]*Object) {
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	for _, f := range fixes {
		if st := e.seqs[qualified(f[1].Schema, f[1].Name)]; st != nil && st.id == f[1].ID {
			st.def, st.cached = f[1].Sequence, 0
		}
	}
}
