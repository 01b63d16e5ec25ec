package expr

// Memory is the account that one statement's or one commit's work
// reserves memory from as it grows (sql's accountant implements it;
// --memory-limit is its budget). Callers report growth in chunks, never
// per row: exec reports a Step's estimated growth every few hundred KiB.
// An account is used by one goroutine at a time.
type Memory interface {
	// Grow accounts n more bytes (n >= 0) held by the work. A non-nil
	// error, a *repr.Error with SQLSTATE 53200 naming the work, means the
	// reservation would pass the budget: the work must stop and let go of
	// what it holds (a Step rolls back), and the error ends the statement.
	Grow(n int64) error
}
