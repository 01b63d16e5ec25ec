// Package connector is the family of source connectors: the code that turns
// an external or synthetic stream into rows of a CREATE SOURCE (or a table
// fed by a connector). Each connector is its own subpackage:
//
//   - nexmark: the deterministic Nexmark event generator (person, auction,
//     bid), resumable from any event number.
//   - datagen: RisingWave-style per-column generators (sequence, random) for
//     demos and tests, resumable from any row number.
//   - kafka, format: the Kafka client side and record decoders.
//
// The generators here are deterministic cores: no clock, no goroutines, no
// I/O. Row n is a pure function of the configuration and n, so a source that
// stored its offset (the next event number) in the same checkpoint as the
// state it fed resumes after a restart with exactly the same rows. Their
// runtime — goroutines, rate limiting (event rates are informational here),
// batching rows into the engine and checkpointing offsets — lives in server.
//
// This package holds only what the connectors share: Column, the name and
// type of one column a connector produces or is asked to fill.
package connector
