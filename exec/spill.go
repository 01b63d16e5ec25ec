package exec

import (
	"errors"
	"fmt"
)

// Operator state larger than memory. Plain joins (joinOp, not the delta
// form), shared joins' private sides (join_spill.go), window and interval
// joins (their close indexes turned into names of rows, close_spill.go),
// append-only joins (append_spill.go), Reduces and TopKs (reduce_spill.go,
// topk_spill.go: keyed; those closing windows keep their close index
// resident, window_spill.go), Windows (winfunc_spill.go: by partition;
// without PARTITION BY, by chunk of the one partition, winpage.go),
// SessionWindows (session_spill.go: keyed, close index resident;
// without a key, by session, session_kspill.go) and
// temporal filters (temporal_spill.go: rows logged by time, read back as
// they come due) can spill their state to the store; the keyed ones share
// their bookkeeping of resident keys (spill_keys.go).
// The caller, which owns the store and the memory budget, picks which (SpillCandidates, SpillNode),
// tells every dataflow when a checkpoint has made the store equal to its
// state (Flushed), and restores a dataflow within a bound of memory
// (RestoreWithin), leaving the rest spilled.
//
// Invariants the caller keeps: the StateReader reads the store under the
// dataflow's state prefix, which holds what the Steps logged up to the
// last checkpoint; SpillNode and Flushed are called only right after a
// checkpoint that committed every state write of every Step so far.

// StateCandidate is an in-memory operator state that may spill: its node
// and estimated heap bytes.
type StateCandidate struct {
	Node  int
	Bytes int64
}

// A spiller is an operator whose state can live in the store: plain,
// shared, window and interval joins (join_spill.go, close_spill.go),
// append-only joins (append_spill.go), Reduces (reduce_spill.go), TopKs
// (topk_spill.go), Windows (winfunc_spill.go), SessionWindows
// (session_spill.go) and temporal filters (temporal_spill.go).
// Each keeps, once spilled, the keys it touched since the last checkpoint
// and a cache of clean keys; the store holds the rest.
type spiller interface {
	// spillSize reports the in-memory state's estimated bytes and
	// whether it can spill now (not spilled yet, no Step pending, state
	// logged in a spillable layout).
	spillSize() (bytes int64, ok bool)
	// spillTo drops the in-memory state and reads it from r under prefix
	// (the node's state key prefix) from then on, caching up to cache
	// bytes; false, doing nothing, when it cannot spill.
	spillTo(r StateReader, prefix []byte, cache int64) bool
	// spilledStats reports whether the state is spilled and, if so, its
	// resident bytes and the keys loaded and evicted so far.
	spilledStats() (spilled bool, resident, loads, evictions int64)
	// setCache changes the cache bound of a spilled state (nothing
	// before it spills): spill_cache.go.
	setCache(bytes int64)
	// flushedState marks every resident key clean and evicts past the
	// cache (a checkpoint has written every change so far).
	flushedState()
	// restoreSized is restore, returning the row's estimated bytes, and
	// whether the state restored so far allows stopping here and
	// spilling (RestoreWithin).
	restoreSized(key, value []byte) (bytes int64, canStop bool, err error)
	// forget drops the undo records of the restore so far.
	forget()
}

// spillerOf returns op as a spiller, or nil when its state cannot spill.
// The operators are listed, not found by interface: a windowReduce or
// windowTopK embeds a Reduce or TopK but has its own spill methods that
// keep its close index by group key (window_spill.go); the window and
// interval joins have their own spillTo, which turns their close indexes
// from references into the joinOp's arrangements into names.
func spillerOf(op operator) spiller {
	switch o := op.(type) {
	case *windowReduce, *windowTopK, *windowOp:
		return o.(spiller)
	case *joinOp:
		return o
	case *sharedJoin:
		return o
	case *appendJoin:
		return o
	case *windowJoin:
		return o
	case *intervalJoin:
		return o
	case *reduceOp:
		return o
	case *topkOp:
		return o
	case *temporalOp:
		return o
	case *sessionOp:
		return o
	case *shardedOp:
		if spillerOf(o.shards[0].op) != nil {
			return o
		}
	}
	return nil
}

// SpillCandidates lists d's in-memory operator states that can spill,
// with their estimated bytes.
func (d *Dataflow) SpillCandidates() []StateCandidate {
	var out []StateCandidate
	for i, op := range d.ops {
		if s := spillerOf(op); s != nil {
			if b, ok := s.spillSize(); ok {
				out = append(out, StateCandidate{Node: i, Bytes: b})
			}
		}
	}
	return out
}

// SpillNode spills node's state to the store read through r, caching up
// to cache bytes of it; it reports whether the node spilled (false: it
// cannot spill, is spilled already, or a Step is pending).
func (d *Dataflow) SpillNode(node int, r StateReader, cache int64) bool {
	if d.pending || node < 0 || node >= len(d.ops) {
		return false
	}
	s := spillerOf(d.ops[node])
	return s != nil && s.spillTo(r, nodePrefix(nil, node), cache)
}

// Flushed tells d that a checkpoint has written every state change of its
// Steps so far: spilled operators may evict what they changed. It does
// nothing while a Step is pending.
func (d *Dataflow) Flushed() {
	if d.pending {
		return
	}
	for _, op := range d.ops {
		if s := spillerOf(op); s != nil {
			s.flushedState()
		}
	}
}

// NodePrefix returns the prefix of node's state keys under the
// dataflow's state prefix.
func NodePrefix(node int) []byte { return nodePrefix(nil, node) }

// SpilledNodes returns the nodes whose state is spilled.
func (d *Dataflow) SpilledNodes() []int {
	var out []int
	for i, op := range d.ops {
		if s := spillerOf(op); s != nil {
			if sp, _, _, _ := s.spilledStats(); sp {
				out = append(out, i)
			}
		}
	}
	return out
}

// SpillStats reports, summed over d's spilled operators, the bytes
// resident in memory, and the keys loaded from the store and evicted.
func (d *Dataflow) SpillStats() (resident, loads, evictions int64) {
	for _, op := range d.ops {
		if s := spillerOf(op); s != nil {
			if sp, r, l, e := s.spilledStats(); sp {
				resident, loads, evictions = resident+r, loads+l, evictions+e
			}
		}
	}
	return resident, loads, evictions
}

// RestoreWithin is Restore keeping at most keep bytes (estimated) of the
// operator states that can spill in memory (keep < 0: no bound): an
// operator whose state passes what is left of keep stops loading and
// spills, reading its state from r from then on with a cache of cache
// bytes. It returns the estimated bytes of spillable state loaded.
func (d *Dataflow) RestoreWithin(r StateReader, keep, cache int64) (int64, error) {
	if keep < 0 {
		return 0, d.Restore(r)
	}
	var held int64
	for i, op := range d.ops {
		s := spillerOf(op)
		if s == nil {
			if err := d.restoreNode(r, i, op.restore); err != nil {
				return held, err
			}
			continue
		}
		err := d.restoreNode(r, i, func(key, value []byte) error {
			n, canStop, err := s.restoreSized(key, value)
			if held += n; err == nil && held > keep && canStop {
				s.forget()
				d.SpillNode(i, r, cache)
				return errStopScan
			}
			return err
		})
		if err != nil {
			return held, err
		}
	}
	d.wm.restored(d)
	return held, nil
}

// restoreNode scans node i's state into fn (keys relative to the node)
// and tells the operator it is restored; errStopScan ends the scan early.
func (d *Dataflow) restoreNode(r StateReader, i int, fn func(key, value []byte) error) error {
	prefix := nodePrefix(nil, i)
	n := len(prefix)
	err := r.Scan(prefix, func(key, value []byte) error { return fn(key[n:], value) })
	if errors.Is(err, errStopScan) {
		err = nil
	}
	if err == nil {
		err = d.ops[i].restored()
	}
	if err != nil {
		return fmt.Errorf("restoring node %%%d: %w", i, err)
	}
	return nil
}

// keyJoins makes the plain, shared, window and interval joins log their
// state by join key (tags 3 and 4) and the TopKs by group key
// (tagKGroup), so that they can spill; restoring state logged the older
// way turns it back.
func (d *Dataflow) keyJoins() {
	for _, op := range d.ops {
		switch o := op.(type) {
		case *joinOp:
			o.keyed = true
		case *sharedJoin:
			o.j.keyed = true
		case *windowJoin:
			o.keyed = true
		case *intervalJoin:
			o.keyed = true
		case *topkOp:
			o.keyed = true
		case *windowTopK:
			o.keyed = true
		}
	}
}
