package sql

import (
	"slices"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// ALTER TYPE ... RENAME VALUE of an enum type in use. PostgreSQL renames
// the pg_enum row in place: stored values hold the label's OID, so every
// value, index entry and view reads the new label at once and the sort
// order stays. Eddy's values hold their label (repr/enum.go), so the
// rename rewrites what holds one, in one atomic change:
//
//   - the stored rows of every table with a column whose type holds the
//     enum (directly, in an array, in a field of a composite type or of
//     another table's row type, at any depth), with the session's own
//     pending writes to them, and their indexes;
//   - every materialized view over those tables or whose columns or
//     query use such a type, with everything over it: each is planned
//     and backfilled again (rebuildView), its contents, operator state
//     (groups, orders, top-N) and stored plan (enum literals, label
//     arrays) then holding the new label, and its indexes rebuilt;
//   - open subscriptions: one to a rewritten table or a rebuilt view
//     receives, at the rename's time, the retraction of each row that
//     changed and its new form (what a client following the relation
//     sees change); a SUBSCRIBE (query) over one is recomputed the same
//     way. In a transaction block that would publish before COMMIT, so
//     there it is 0A000 while such a subscription is open.
//
// Plain views are planned at each read and follow. SQL text Eddy stores
// (view queries, column defaults, CHECK constraints) has its literals of
// the enum respelled with the new label (enum_literals.go), as
// PostgreSQL's stored constants follow the rename. A sink reading a
// rewritten table or a rebuilt view is not sent the relabelling (as in
// Materialize and RisingWave, records already delivered are not
// rewritten): its next records carry the new label, including the
// retraction of a row it was sent under the old one. A source holding
// the type is 0A000: its decoder reads external text with the labels.

// commitEnumRename commits nu, the copy of the enum type o whose label
// from is renamed to (its sort order is order), rewriting what holds
// values of it. The caller holds e.mu.
func (e *Engine) commitEnumRename(s *Session, o, nu *Object, from, to string, order float64) error {
	held := e.cat.typesHolding(typeOID(o))
	rl := relabeler{cat: e.cat, held: held, oid: typeOID(o), order: order, to: to}
	texts, err := e.cat.relabelTexts(o, from, rl)
	if err != nil {
		return err
	}
	tables, users, err := e.enumHolders(o, held)
	if err != nil {
		return err
	}
	if tables, users, err = e.respelledIndexes(o, texts, tables, users); err != nil {
		return err
	}
	if len(tables) == 0 && len(users) == 0 && !e.subscribedQueryHolds(held) {
		return e.commitAltered(o, nu, nil, texts...)
	}
	rebuild := e.enumRebuilds(tables, users)
	if err := e.checkNotBackfilling(slices.Concat(tables, rebuild)...); err != nil {
		return err
	}
	before := e.subscribedContents(tables, rebuild, held)
	if len(before) > 0 && e.inDDLBlock() {
		// Subscribers would see the change before the block commits,
		// and nothing if it rolled back.
		return repr.Unsupported("ALTER TYPE ... RENAME VALUE in a transaction block while a subscription reads what holds type %s", o.Name)
	}
	return e.changeAndRebuild(before, rebuild, func() error {
		if err := e.checkpointLocked(); err != nil {
			return err
		}
		if err := e.commitAltered(o, nu, nil, texts...); err != nil {
			return err
		}
		for _, t := range tables {
			conv := rl.row(t)
			if err := s.reshapePending(t.ID, conv); err != nil {
				return err
			}
			cur := e.cat.byID[t.ID] // with its respelled defaults
			if err := e.commitAltered(cur, cur.clone(), conv); err != nil {
				return err
			}
		}
		return nil
	})
}

// respelledIndexes adds to tables and users the relations whose indexes
// have respelled expressions or predicates among texts, so that the
// indexes are built again under them: a table's rows are rewritten
// (unchanged where no column holds the enum), which rebuilds its
// indexes, and a materialized view is rebuilt with its indexes.
func (e *Engine) respelledIndexes(enum *Object, texts [][2]*Object, tables, users []*Object) ([]*Object, []*Object, error) {
	has := func(l []*Object, id uint64) bool {
		return slices.ContainsFunc(l, func(o *Object) bool { return o.ID == id })
	}
	for _, x := range texts {
		if x[1].Index == nil {
			continue
		}
		rel := e.cat.byID[x[1].Index.Table]
		switch {
		case rel == nil || has(tables, rel.ID) || has(users, rel.ID):
		case rel.Kind == planner.RelTable && rel.Source == nil:
			tables = append(tables, rel)
		case rel.Kind == planner.RelMaterializedView:
			users = append(users, rel)
		default:
			return nil, nil, repr.Unsupported("ALTER TYPE ... RENAME VALUE of type %s while index %s of %s %s spells a label", enum.Name, x[1].Name, kindName(rel.Kind), rel.Name)
		}
	}
	return tables, users, nil
}

// changeAndRebuild runs change and then recomputes the materialized views
// of rebuild from their queries under the new catalog (with their
// indexes), in one atomic change, and then sends the subscriptions the
// difference from before (subscribedContents, read before the change).
func (e *Engine) changeAndRebuild(before map[uint64]subContents, rebuild []*Object, change func() error) error {
	err := e.atomically(func() error {
		if err := change(); err != nil {
			return err
		}
		for _, v := range rebuild {
			if err := e.rebuildIndexedView(e.cat.byID[v.ID]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	e.publishRewritten(before)
	return nil
}

// typesHolding returns the OIDs of the types whose values hold values of
// the enum type oid: it, and every composite type (or relation row type)
// with a column of a type in the set, to a fixed point.
func (c *Catalog) typesHolding(oid uint32) map[uint32]bool {
	held := map[uint32]bool{oid: true}
	for grew := true; grew; {
		grew = false
		for _, u := range c.objects() {
			if u.Kind != relType && !hasRowType(u) || held[typeOID(u)] {
				continue
			}
			if slices.ContainsFunc(u.Columns, func(cl ColumnDef) bool { return holdsType(cl.Type, held) }) {
				held[typeOID(u)], grew = true, true
			}
		}
	}
	return held
}

// holdsType reports whether values of t hold values of one of the types
// held (t is one, or an array of one).
func holdsType(t repr.T, held map[uint32]bool) bool {
	return t.Enum != 0 && held[t.Enum] || t.Composite != 0 && held[t.Composite]
}

// enumHolders returns the tables that store values of the held types
// (rewritten), and the views and materialized views whose columns hold
// them or whose query names one of the types (enum is the renamed type).
// A source (or another stored relation that is not a table) holding one
// is 0A000.
func (e *Engine) enumHolders(enum *Object, held map[uint32]bool) (tables, users []*Object, err error) {
	named := e.cat.heldTypeObjects(held)
	for _, u := range e.cat.objects() {
		switch u.Kind {
		case relType, relIndex, relSequence, relFunction:
			continue
		}
		holds := slices.ContainsFunc(u.Columns, func(cl ColumnDef) bool { return holdsType(cl.Type, held) })
		switch {
		case u.Kind == planner.RelView || u.Kind == planner.RelMaterializedView:
			if holds || slices.ContainsFunc(named, func(t *Object) bool { return viewNamesType(u, t) }) {
				users = append(users, u)
			}
		case !holds:
		case u.Kind == planner.RelTable && u.Source == nil:
			tables = append(tables, u)
		default:
			return nil, nil, repr.Unsupported("ALTER TYPE ... RENAME VALUE of type %s, which %s %s holds", enum.Name, kindName(u.Kind), u.Name)
		}
	}
	return tables, users, nil
}

// heldTypeObjects returns the catalog objects of the held types.
func (c *Catalog) heldTypeObjects(held map[uint32]bool) []*Object {
	var out []*Object
	for _, u := range c.objects() {
		if (u.Kind == relType || hasRowType(u)) && held[typeOID(u)] {
			out = append(out, u)
		}
	}
	return out
}

// enumRebuilds returns the materialized views to rebuild: those over the
// rewritten tables and over the users, and the users themselves, in an
// order where each comes after the materialized views it reads.
func (e *Engine) enumRebuilds(tables, users []*Object) []*Object {
	seen := map[uint64]bool{}
	var set []*Object
	add := func(x *Object) {
		if !seen[x.ID] && x.Kind == planner.RelMaterializedView {
			seen[x.ID] = true
			set = append(set, x)
		}
	}
	for _, t := range tables {
		for _, x := range e.dropSet(t)[1:] {
			add(x)
		}
	}
	for _, u := range users {
		for _, x := range e.dropSet(u) {
			add(x)
		}
	}
	// Topological order by Deps (IDs need not follow reads: a replaced
	// plain view may read a newer materialized view).
	var out []*Object
	done := map[uint64]bool{}
	for len(out) < len(set) {
		for _, x := range set {
			if done[x.ID] {
				continue
			}
			ready := true
			for _, d := range x.Deps {
				if seen[d] && !done[d] {
					ready = false
				}
			}
			if ready {
				done[x.ID] = true
				out = append(out, x)
			}
		}
	}
	return out
}

// rebuildIndexedView rebuilds materialized view v (rebuildView) and the
// indexes on it, whose keys are compiled again under the new catalog.
func (e *Engine) rebuildIndexedView(v *Object) error {
	ixs := e.cat.indexesOf(v.ID)
	if err := e.rebuildView(v); err != nil {
		return err
	}
	if len(ixs) == 0 {
		return nil
	}
	b := e.db.NewBatch()
	defer b.Close()
	c := e.colls[v.ID]
	for _, ix := range ixs {
		n := ix.clone()
		if err := e.cat.replace(ix, n); err != nil {
			return err
		}
		b.DeletePrefix(storage.RowPrefix(ix.ID))
		c.AddIndexKey(ix.ID, n.ixKey.storageKey(), b)
	}
	return e.commitDDL(b)
}

// relabeler maps values holding the enum type oid to the renamed label:
// the value of sort order order gets label to.
type relabeler struct {
	cat   *Catalog
	held  map[uint32]bool
	oid   uint32
	order float64
	to    string
}

// row returns the conversion of table t's rows.
func (rl relabeler) row(t *Object) func(repr.Row) (repr.Row, error) {
	return func(r repr.Row) (repr.Row, error) {
		out := append(repr.Row(nil), r...)
		for i, cl := range t.Columns {
			if i >= len(out) || !holdsType(cl.Type, rl.held) {
				continue
			}
			var err error
			if out[i], err = rl.datum(r[i], cl.Type); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// datum returns d, of type t, with the renamed label.
func (rl relabeler) datum(d repr.Datum, t repr.T) (repr.Datum, error) {
	if d.IsNull() || !holdsType(t, rl.held) {
		return d, nil
	}
	switch {
	case t.Family == repr.FamArray:
		elems := d.Array()
		out := make([]repr.Datum, len(elems))
		et := t.ElemType()
		if t.Composite != 0 {
			et = repr.CompositeOf(t.Composite)
		}
		for i, el := range elems {
			var err error
			if out[i], err = rl.datum(el, et); err != nil {
				return repr.Null, err
			}
		}
		return repr.ArrayLike(d, out), nil
	case t.IsEnum():
		if l := d.EnumLabel(); t.Enum == rl.oid && l.Order == rl.order {
			return repr.NewEnum(repr.EnumLabel{Label: rl.to, Order: l.Order}), nil
		}
		return d, nil
	case t.Family == repr.FamRecord:
		ct := rl.cat.compositeByOID(t.Composite)
		if ct == nil {
			return d, nil
		}
		fields, types := d.Record()
		out := make(repr.Row, len(fields))
		for i, f := range fields {
			out[i] = f
			if i < len(ct.Columns) {
				var err error
				if out[i], err = rl.datum(f, ct.Columns[i].Type); err != nil {
					return repr.Null, err
				}
			}
		}
		return repr.NewRecord(out, types)
	}
	return d, nil
}

// subContents is a subscribed collection's contents before a rewrite:
// rows by their encoding, with their counts.
type subContents struct {
	rows   map[string]repr.Row
	counts map[string]int64
}

// scanContents reads the contents of collection id.
func (e *Engine) scanContents(id uint64) subContents {
	sc := subContents{rows: map[string]repr.Row{}, counts: map[string]int64{}}
	if c := e.colls[id]; c != nil {
		c.Scan(func(r repr.Row, n int64) bool {
			k := string(repr.AppendRow(nil, r))
			sc.rows[k] = r
			sc.counts[k] += n
			return true
		})
	}
	return sc
}

// subscribedContents returns, by collection, the contents of each
// collection with a subscriber that the rename changes: a rewritten
// table, a rebuilt view, or a SUBSCRIBE (query) reading one of them or
// using a held type.
func (e *Engine) subscribedContents(tables, rebuild []*Object, held map[uint32]bool) map[uint64]subContents {
	byID := map[uint64]*Object{}
	for _, x := range slices.Concat(tables, rebuild) {
		byID[x.ID] = x
	}
	out := map[uint64]subContents{}
	for id, subs := range e.subs {
		for sub := range subs {
			if byID[id] != nil || sub.transient != nil && (droppedInput(byID, id, sub) != nil || e.transientHolds(sub.transient.obj, held)) {
				out[id] = e.scanContents(id)
				break
			}
		}
	}
	return out
}

// subscribedQueryHolds reports whether a SUBSCRIBE (query) uses one of
// the held types.
func (e *Engine) subscribedQueryHolds(held map[uint32]bool) bool {
	for _, subs := range e.subs {
		for sub := range subs {
			if sub.transient != nil && e.transientHolds(sub.transient.obj, held) {
				return true
			}
		}
	}
	return false
}

// transientHolds reports whether the temporary view of a SUBSCRIBE
// (query) has a column of a held type or names one in its query.
func (e *Engine) transientHolds(obj *Object, held map[uint32]bool) bool {
	if slices.ContainsFunc(obj.Columns, func(cl ColumnDef) bool { return holdsType(cl.Type, held) }) {
		return true
	}
	return slices.ContainsFunc(e.cat.heldTypeObjects(held), func(t *Object) bool { return viewNamesType(obj, t) })
}

// publishRewritten hands each subscribed collection's change to its
// subscribers, at a new time: what its rows were before (before) against
// what they are now. A SUBSCRIBE (query)'s temporary view is first
// computed again under the new catalog; if that fails, its
// subscriptions end with the error.
func (e *Engine) publishRewritten(before map[uint64]subContents) {
	if len(before) == 0 {
		return
	}
	b := e.db.NewBatch()
	defer b.Close()
	t := e.tick(b)
	if err := e.db.Commit(b); err != nil {
		e.log.Warn("logging the clock after ALTER TYPE", "err", err)
	}
	ids := slices.Sorted(func(yield func(uint64) bool) {
		for id := range before {
			if !yield(id) {
				return
			}
		}
	})
	deltas := map[uint64][]repr.Update{}
	for _, id := range ids {
		if err := e.recomputeTransient(id, t); err != nil {
			for sub := range e.subs[id] {
				e.unsubscribe(sub, err)
			}
			continue
		}
		deltas[id] = contentsDelta(before[id], e.scanContents(id))
	}
	e.publish(t, deltas)
}

// contentsDelta returns the updates that turn old into nu: retractions
// first, then insertions.
func contentsDelta(old, nu subContents) []repr.Update {
	var minus, plus []repr.Update
	for k, n := range old.counts {
		if d := nu.counts[k] - n; d < 0 {
			minus = append(minus, repr.Update{Row: old.rows[k], Diff: d})
		}
	}
	for k, n := range nu.counts {
		if d := n - old.counts[k]; d > 0 {
			plus = append(plus, repr.Update{Row: nu.rows[k], Diff: d})
		}
	}
	sortUpdates(minus)
	sortUpdates(plus)
	return append(minus, plus...)
}

// sortUpdates orders updates by their rows.
func sortUpdates(us []repr.Update) {
	slices.SortFunc(us, func(a, b repr.Update) int { return repr.CompareRows(a.Row, b.Row) })
}

// recomputeTransient, when collection id is the temporary view of a
// SUBSCRIBE (query), plans its query again and computes its contents
// afresh as of t, replacing its dataflow; otherwise it does nothing.
func (e *Engine) recomputeTransient(id uint64, t repr.Time) error {
	old := e.views[id]
	if old == nil || !old.transient {
		return nil
	}
	cols, deps, err := e.describeQuery(old.obj.SQL, true, old.obj.TimeZone)
	if err != nil {
		return err
	}
	obj := old.obj.clone()
	obj.Columns, obj.Deps = cols, deps
	mv, err := e.buildView(obj)
	if err != nil {
		return err
	}
	mv.transient = true
	c := storage.NewCollection(id, nil)
	bf := &backfill{e: e, mv: mv, c: c, t: t}
	err = bf.step(exec.Input{Updates: e.collectionInputs(mv.df.Sources(), t)})
	if err == nil {
		err = bf.replaySources(func(n *repr.Error) { e.log.Warn("SUBSCRIBE: "+n.Message, "query", obj.SQL) })
	}
	if err != nil {
		return err
	}
	mv.df.Commit()
	e.colls[id], e.views[id] = c, mv
	for sub := range e.subs[id] {
		sub.transient = mv
	}
	return nil
}
