package exec

// The cache bound of spilled operators can change after they spilled:
// the caller shares one pool of memory among every spilled operator
// (SetSpillCache), so that the caches together scale with the budget
// rather than with the number of operators. A new bound takes effect at
// the next Flushed, which evicts clean keys past it (dirty keys stay until
// a checkpoint has written them, as always).

// SetSpillCache sets the cache of each of d's spilled operators to bytes
// (a sharded node's shards share it equally, as at spillTo). Operators in
// memory keep none; one that spills later is given its cache by SpillNode.
func (d *Dataflow) SetSpillCache(bytes int64) {
	for _, op := range d.ops {
		if s := spillerOf(op); s != nil {
			s.setCache(bytes)
		}
	}
}

func (rs *residency) setCache(n int64) {
	if rs != nil {
		rs.cache = n
	}
}

func (o *joinOp) setCache(n int64) {
	if o.sp != nil {
		o.sp.setCache(n)
	}
}

func (o *sharedJoin) setCache(n int64) { o.j.setCache(n) }
func (o *appendJoin) setCache(n int64) { o.sp.setCache(n) }
func (o *reduceOp) setCache(n int64)   { o.sp.setCache(n) }
func (o *topkOp) setCache(n int64)     { o.sp.setCache(n) }
func (o *temporalOp) setCache(n int64) { o.sp.setCache(n) }

func (o *sessionOp) setCache(n int64) {
	o.sp.setCache(n)
	if o.ks != nil {
		o.ks.rs.setCache(n)
	}
}

func (o *windowOp) setCache(n int64) {
	o.sp.setCache(n)
	if o.pg != nil {
		o.pg.rs.setCache(n)
	}
}

func (o *shardedOp) setCache(n int64) {
	for _, s := range o.spillers() {
		s.setCache(n / int64(len(o.shards)))
	}
}
