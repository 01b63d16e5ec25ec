package sql

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// maxSubscriberBuffer is how many commits a subscriber may fall behind
// before it is cut off: a slow subscriber never slows the engine. The
// session setting subscribe_buffer may lower it (never raise it).
const maxSubscriberBuffer = 1024

// SubEvent is one commit as a subscriber sees it: the logical time and the
// subscribed collection's changes at that time (empty for progress only).
type SubEvent struct {
	Time    repr.Time
	Updates []repr.Update
	// bytes is the estimated memory of Updates, counted against the
	// subscriber's byte bound until Consumed.
	bytes int64
}

// defaultSubscribeBufferBytes bounds the memory of the commits queued for
// one subscriber (Options.SubscribeBufferBytes).
const defaultSubscribeBufferBytes = 64 << 20

// Subscription follows one collection: first its contents as of Time, then
// every committed change, in time order.
type Subscription struct {
	// Snapshot is the collection's contents at Time (as +count updates).
	Snapshot []repr.Update
	// Time is the logical time of the snapshot.
	Time repr.Time
	// Events delivers later commits; it is closed when the subscription
	// ends (Close, the collection dropped, the subscribed query failed, or
	// the subscriber fell more than its buffer behind: then Err says why).
	Events <-chan SubEvent
	// Catchup, when not nil, comes before Events: what changed between
	// Time and the subscription's start, when it started from an older
	// snapshot (a REPEATABLE READ block's, isolation.go).
	Catchup *SubEvent

	e        *Engine
	sub      *subscriber
	closeOne sync.Once
}

// subscriber is the engine's side of a subscription. Invariant: it is in
// e.subs[coll] exactly until unsubscribe closes ch and ended.
type subscriber struct {
	coll     uint64
	ch       chan SubEvent
	progress bool
	// ended is closed (after err is set) when the subscription ends.
	ended chan struct{}
	mu    sync.Mutex
	err   error
	// transient is the temporary view a SUBSCRIBE (query) installed.
	transient *matView
	// check, when set, re-checks the subscriber's privileges (under the
	// engine's lock) after a GRANT, REVOKE or owner change.
	check func() error
	// queued is the estimated bytes of the events in ch; publish adds,
	// Consumed subtracts. Past limit the subscriber is cut off.
	queued atomic.Int64
	limit  int64
	// pooled is the part of queued reserved from the engine's memory
	// budget (memory.go): taken by publish, given back by Consumed, and
	// all at once when the subscription ends.
	pooled atomic.Int64
	// info is what eddy_subscriptions lists (set under the engine lock by
	// describe); sent counts the rows the reader has taken.
	info subInfo
	sent atomic.Int64
}

// subInfo describes a subscription for eddy_subscriptions.
type subInfo struct {
	pid     int32
	user    string
	target  string // the relation's qualified name or the query's text
	query   bool
	started time.Time
}

// describe records who opened the subscription and on what, for
// eddy_subscriptions; snapshotRows counts the snapshot's rows as sent.
func (s *Subscription) describe(info subInfo, snapshotRows int64) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.sub.info = info
	s.sub.sent.Add(snapshotRows)
}

// Consumed tells the engine that ev, received from Events, is no longer
// queued: its bytes stop counting against the subscriber's bound.
func (s *Subscription) Consumed(ev SubEvent) {
	s.sub.queued.Add(-ev.bytes)
	if s.sub.pooled.Add(-ev.bytes) >= 0 {
		s.e.mem.give(ev.bytes)
	} else {
		s.sub.pooled.Add(ev.bytes) // the end of the subscription gave it back
	}
	s.sub.sent.Add(int64(len(ev.Updates)))
}

// Err reports why Events was closed (nil after Close).
func (s *Subscription) Err() error {
	s.sub.mu.Lock()
	defer s.sub.mu.Unlock()
	return s.sub.err
}

// Ended is closed when the subscription ends for any reason; Err then
// says why.
func (s *Subscription) Ended() <-chan struct{} { return s.sub.ended }

// Close ends the subscription and removes a temporary view. It is
// idempotent and safe from any goroutine.
func (s *Subscription) Close() {
	s.closeOne.Do(func() {
		s.e.mu.Lock()
		defer s.e.mu.Unlock()
		s.e.unsubscribe(s.sub, nil)
	})
}

// subscribeCollection subscribes to a table's or materialized view's
// changes. The snapshot and the registration happen under one lock, so no
// commit falls between them.
func (e *Engine) subscribeCollection(id uint64, progress bool, buffer int) (*Subscription, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.colls[id] == nil {
		return nil, repr.Unsupported("SUBSCRIBE to a relation that stores no rows (a source or a plain view): subscribe to a query over it")
	}
	return e.registerSubscriber(id, progress, buffer, nil), nil
}

// registerSubscriber adds a subscriber under the engine lock.
func (e *Engine) registerSubscriber(id uint64, progress bool, buffer int, transient *matView) *Subscription {
	if buffer <= 0 || buffer > maxSubscriberBuffer {
		buffer = maxSubscriberBuffer
	}
	sub := &subscriber{coll: id, ch: make(chan SubEvent, buffer), progress: progress,
		ended: make(chan struct{}), transient: transient, limit: e.subscribeBytes}
	if e.subs == nil {
		e.subs = map[uint64]map[*subscriber]bool{}
	}
	if e.subs[id] == nil {
		e.subs[id] = map[*subscriber]bool{}
	}
	e.subs[id][sub] = true
	return &Subscription{Snapshot: e.snapshot(id, e.clock), Time: e.clock, Events: sub.ch, e: e, sub: sub}
}

// unsubscribe removes a subscriber (under the engine lock), closing its
// channel with err, and drops its temporary view.
func (e *Engine) unsubscribe(sub *subscriber, err error) {
	if !e.subs[sub.coll][sub] {
		return
	}
	delete(e.subs[sub.coll], sub)
	if len(e.subs[sub.coll]) == 0 {
		delete(e.subs, sub.coll)
	}
	sub.mu.Lock()
	sub.err = err
	sub.mu.Unlock()
	e.mem.give(sub.pooled.Swap(0))
	close(sub.ch)
	close(sub.ended)
	if sub.transient != nil {
		delete(e.views, sub.transient.obj.ID)
		delete(e.colls, sub.transient.obj.ID)
	}
}

// publish hands a durable commit's changes to the subscribers (under the
// engine lock, after the commit). Sends never block: a subscriber whose
// queue already holds its buffer of commits, or would pass its bound in
// bytes, is cut off with 54000 instead (a commit larger than the bound
// still goes to a subscriber whose queue is empty). The queued events of
// a subscriber cut off are freed once its reader lets go of them.
func (e *Engine) publish(t repr.Time, deltas map[uint64][]repr.Update) {
	for id, subs := range e.subs {
		d := deltas[id]
		size := updatesBytes(d)
		for sub := range subs {
			e.publishOne(sub, t, d, size)
		}
	}
}

// publishOne hands one commit's changes d (size bytes) to sub, cutting it
// off as publish says. A panic here (a bug) cuts off this subscriber alone
// with XX000: the commit is already durable, and the other subscribers
// and later commits go on.
func (e *Engine) publishOne(sub *subscriber, t repr.Time, d []repr.Update, size int64) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("panic delivering to a subscriber", "panic", r, "stack", stack())
			e.unsubscribe(sub, repr.Errorf(repr.CodeInternal, "internal error delivering to this subscription: %v", r))
		}
	}()
	if len(d) == 0 && !sub.progress {
		return
	}
	faultPublish.Inject()
	if len(sub.ch) > 0 && sub.limit > 0 && sub.queued.Load()+size > sub.limit {
		e.unsubscribe(sub, repr.Errorf(repr.CodeProgramLimitExceeded,
			"subscriber fell more than %d bytes behind and was disconnected", sub.limit).
			WithHint("Read the subscription's rows faster (FETCH more often), or subscribe to a smaller result."))
		return
	}
	if !e.mem.take(size) {
		e.unsubscribe(sub, e.subscriberOutOfMemory(size))
		return
	}
	sub.pooled.Add(size) // before the reader can see the event
	select {
	case sub.ch <- SubEvent{Time: t, Updates: d, bytes: size}:
		sub.queued.Add(size)
	default:
		sub.pooled.Add(-size)
		e.mem.give(size)
		e.unsubscribe(sub, repr.Errorf(repr.CodeProgramLimitExceeded,
			"subscriber fell more than %d commits behind and was disconnected", cap(sub.ch)).
			WithHint("Read the subscription's rows faster (FETCH more often), or subscribe to a smaller result."))
	}
}

// updatesBytes estimates the memory updates hold: each update and its
// row's datums, plus the bytes of their strings.
func updatesBytes(us []repr.Update) int64 {
	n := int64(len(us)) * int64(unsafe.Sizeof(repr.Update{}))
	for _, u := range us {
		n += int64(len(u.Row)) * int64(unsafe.Sizeof(repr.Datum{}))
		for _, d := range u.Row {
			n += int64(len(d.Text()))
		}
	}
	return n
}

// failTransient ends the subscription whose temporary view failed to
// process a commit (e.g. division by zero on a new row): a subscriber's
// query must never make a write fail, so the write proceeds without it.
// The view's Step has already rolled itself back.
func (e *Engine) failTransient(mv *matView, err error) {
	for sub := range e.subs[mv.obj.ID] {
		e.unsubscribe(sub, err)
	}
	delete(e.views, mv.obj.ID)
	delete(e.colls, mv.obj.ID)
}

// endSubscriptions ends, with an error naming the dropped relation, every
// subscription that reads one of the dropped objects: subscriptions to it
// and temporary views of SUBSCRIBE (query) over it. Under the engine lock.
func (e *Engine) endSubscriptions(dropped []*Object) {
	byID := make(map[uint64]*Object, len(dropped))
	for _, o := range dropped {
		byID[o.ID] = o
	}
	for id, subs := range e.subs {
		for sub := range subs {
			if o := droppedInput(byID, id, sub); o != nil {
				e.unsubscribe(sub, repr.Errorf(repr.CodeUndefinedTable, "%s \"%s\" was dropped", kindName(o.Kind), o.Name).
					WithDetail("The subscription read %s \"%s\", which no longer exists.", kindName(o.Kind), o.Name))
			}
		}
	}
}

// droppedInput returns the dropped object a subscriber reads, or nil.
func droppedInput(byID map[uint64]*Object, coll uint64, sub *subscriber) *Object {
	if o := byID[coll]; o != nil {
		return o
	}
	if sub.transient == nil {
		return nil
	}
	for _, d := range slices.Concat(sub.transient.obj.Deps, sub.transient.sources) {
		if o := byID[d]; o != nil {
			return o
		}
	}
	return nil
}

// subscribeQuery installs a temporary, in-memory view for SUBSCRIBE
// (query): it is maintained like a materialized view but keeps no durable
// state and disappears with the subscription. Its literals fold in tz,
// the subscribing session's time zone.
func (e *Engine) subscribeQuery(sql string, progress bool, buffer int, tz string) (*Subscription, []ColumnDef, error) {
	sub, cols, srcs, err := e.subscribeQueryLocked(sql, progress, buffer, tz)
	if err != nil {
		return nil, nil, err
	}
	e.activateSources(srcs) // a source no view reads starts reading now
	return sub, cols, nil
}

// subscribeQueryLocked is subscribeQuery under the engine lock; it also
// returns the sources its dataflow reads.
func (e *Engine) subscribeQueryLocked(sql string, progress bool, buffer int, tz string) (*Subscription, []ColumnDef, []uint64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cols, deps, err := e.describeQuery(sql, true, tz)
	if err != nil {
		return nil, nil, nil, err
	}
	obj := &Object{ID: e.transientID(), Kind: planner.RelMaterializedView, Name: "subscribe", SQL: sql, Columns: cols, Deps: deps, TimeZone: tz}
	mv, err := e.buildView(obj)
	if err != nil {
		return nil, nil, nil, err
	}
	mv.transient = true
	c := storage.NewCollection(obj.ID, nil)
	acct := e.mem.account(statementWork("SUBSCRIBE " + sql))
	defer acct.release()
	bf := &backfill{e: e, mv: mv, c: c, t: e.clock, mem: acct.memory()}
	err = bf.step(exec.Input{Updates: e.collectionInputs(mv.df.Sources(), e.clock)})
	if err == nil {
		// The sources' history, as a new view gets it: the subscription's
		// snapshot holds every event its sources have read.
		err = bf.replaySources(func(n *repr.Error) { e.log.Warn("SUBSCRIBE: "+n.Message, "query", sql) })
	}
	if err != nil {
		return nil, nil, nil, err
	}
	mv.df.Commit()
	e.colls[obj.ID], e.views[obj.ID] = c, mv
	return e.registerSubscriber(obj.ID, progress, buffer, mv), cols, mv.sources, nil
}

// transientID returns an ID for a temporary view: from the top of the ID
// space down, so it never collides with catalog IDs and sorts after every
// durable view it may read.
func (e *Engine) transientID() uint64 {
	e.nextTransient++
	return ^uint64(0) - e.nextTransient
}
