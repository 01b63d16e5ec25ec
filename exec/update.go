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

// StateReader scans a dataflow's durable state when it is restored. fn is
// called in key order with every key (relative to the dataflow) starting
// with prefix; the slices are only valid during the call.
type StateReader interface {
	Scan(prefix []byte, fn func(key, value []byte) error) error
}
