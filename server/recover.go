package server

import (
	"log/slog"
	"runtime/debug"

	"github.com/eddydb/eddy/faults"
	"github.com/eddydb/eddy/repr"
)

// Every goroutine the server starts for background work (a source's
// reader, a sink, the ticker, a source's generator parts, Kafka lag
// reports) recovers a panic (a bug): the panic becomes an XX000 error
// naming the object, logged with its stack and shown as the object's
// state (eddy_sources, eddy_sinks), and the rest of the server keeps
// running. No panic on a background goroutine kills the process.

// faultSink: a sink about to encode a batch of its change log
// (runKafkaSink).
var faultSink = faults.Register("server.sink", "a sink encoding a batch for delivery")

// runRecovered runs fn, turning a panic into an XX000 error naming what
// (e.g. `source "bids"`), logged with its stack.
func runRecovered(log *slog.Logger, what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("panic in background work", "in", what, "panic", r, "stack", string(debug.Stack()))
			err = repr.Errorf(repr.CodeInternal, "internal error in %s: %v", what, r)
		}
	}()
	return fn()
}

// partPanic carries a panic from a generator part's goroutine to the
// goroutine waiting for it, which panics again with it (inside its own
// runRecovered), so the source fails rather than the process.
type partPanic struct{ v any }

// catchPart records a panic of a part's goroutine in *p. Deferred.
func catchPart(p **partPanic) {
	if r := recover(); r != nil {
		*p = &partPanic{v: r}
	}
}
