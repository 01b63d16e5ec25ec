package exec

// StateWriter receives every change of a dataflow's durable state during a
// Step. Keys are relative to the dataflow; the caller prefixes them and
// writes them in the same atomic batch as the inputs that caused them. The
// slices are only valid during the call (the dataflow reuses them), so an
// implementation that keeps them must copy, as pebble.Batch.Set does.
type StateWriter interface {
	Set(key, value []byte)
	Delete(key []byte)
}

// StateReader scans a dataflow's durable state when it is restored (and
// spilled state when it is loaded). Scan calls fn in key order with every
// key (relative to the dataflow) starting with prefix; ScanFrom does the
// same for those keys at or after from (a spilled Window without
// PARTITION BY reads one chunk of its ordered partition from its first
// key). The slices are only valid during the call; an error from fn
// stops the scan and is returned as is.
type StateReader interface {
	Scan(prefix []byte, fn func(key, value []byte) error) error
	ScanFrom(prefix, from []byte, fn func(key, value []byte) error) error
}
