package sql

// The locking rule (ARCHITECTURE.md, "locking and panics"): every lock of
// the sql package is released by a defer, so that a panic between Lock and
// Unlock (a bug in an evaluator, a bad datum in a view's rows), recovered
// into XX000 at the statement boundary (Portal.run) or a background
// goroutine's, never leaves a mutex held and every other session hung.
// Short regions take the lock through these helpers, whose deferred
// release costs a few nanoseconds and keeps the region's scope unchanged.

// readLocked runs fn holding e.mu's read lock, released even if fn panics.
func (e *Engine) readLocked(fn func()) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	fn()
}

// writeLocked runs fn holding e.mu, released even if fn panics.
func (e *Engine) writeLocked(fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fn()
}
