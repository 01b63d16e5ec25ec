// Package kafka is the Kafka client side of Eddy's Kafka sources (and,
// later, sinks), on franz-go: WITH-option parsing, a Reader that consumes
// every partition of a topic from explicit offsets, a transactional
// Producer, and the bad-record policy (on_error) of a source.
//
// Offsets belong to Eddy, not to Kafka: the Reader never joins a consumer
// group and never commits offsets. Its caller stores the next offset of
// each partition (Reader.Positions) in Pebble in the same atomic batch as
// the view state those records fed, and passes them back to NewReader after
// a restart, so every record is applied exactly once. Without stored
// offsets the startup mode (scan.startup.mode) is resolved to concrete
// offsets once, in NewReader, with ListOffsets.
//
// The Reader reads with isolation level read_committed by default, so rows
// from aborted transactions (e.g. of a crashed transactional sink) are never
// seen. It keeps control records internally so that its positions move past
// transaction markers: after catching up, every partition's lag is zero.
//
// ReadRange reads a range of offsets again, exactly the records a Reader
// returned over it: a view created after its source has been consuming is
// backfilled that way from the source's start offsets (records retention
// deleted since are gone: EarliestOffsets tells which).
//
// The partitions consumed are those the topic has when NewReader runs; a
// partition added later is picked up by the next NewReader (a restart),
// from its earliest offset since the stored positions lack it.
//
// This package does I/O and runs franz-go's goroutines; it is the edge. The
// decoding of records into rows is package format's deterministic core.
package kafka
