// Package storage is Eddy's durable store on Pebble, and the in-memory
// ordered multisets (Collection) that mirror table and view contents.
//
// # One store
//
// A single Pebble database holds the catalog, table rows, view contents
// and the operator state of every dataflow. A write is acknowledged only
// after its batch is in the synced WAL. Commit is safe to call from many
// goroutines at once: Pebble's commit pipeline groups concurrent synced
// batches behind one fsync (group commit), so the cost of durability is
// shared (see BenchmarkCommit).
//
// # Key layout
//
// Every key starts with one byte naming its kind; kinds never share a
// prefix, so each kind is one contiguous key range. Collection ids are
// fixed-width 8-byte big-endian integers (not uvarints), so ids sort
// numerically and a prefix of one id is never a prefix of another.
//
//	m <name>                      MetaKey: next ids, the logical clock, ...
//	c <id:8>                      CatalogKey: one catalog entry (value encoded by the caller)
//	r <id:8> <key>                RowKey: a row of a table or a view, keyed by its
//	                              order-preserving encoding (repr.AppendKey);
//	                              value: encodeValue (count, then the row)
//	r <index id:8> <ixkey> <key>  an entry of an index of a collection (index.go):
//	                              the index columns' key encoding, then the row's
//	                              collection key; value: uvarint(len(ixkey))
//	s <id:8> <key>                StatePrefix: operator state of dataflow <id>; the
//	                              exec runtime owns everything after the prefix
//	l <t:8>                       LogKey: the input-log record of logical time t
//	                              (sql's checkpointed durability; value encoded by sql)
//
// PrettyKey prints keys as /m/<name>, /c/<id>, /r/<id>/<key>, /s/<id>/<key>, /l/<t>.
//
// # Collections
//
// A Collection is the live contents of one table or view in memory: an
// ordered multiset of rows (a B-tree keyed by the encoded key), mirrored
// under RowKey(id, ·). Apply changes memory and appends the matching
// write to a Batch, so a statement's in-memory effect and its durable
// effect are one atomic unit; Begin/Rollback undo the in-memory half when
// the statement fails. Clear (TRUNCATE) empties a collection the same way. A collection may have
// indexes (CREATE INDEX, index.go): secondary arrangements ordered by some
// columns, changed by the same Apply, Clear and Rollback calls and logged to
// the same batch, so they always equal their collection.
//
// A collection may be spilled (spill.go): Pebble then holds its rows and
// index entries as of the last checkpoint, memory only the changes since,
// and every read merges the two, so results are the same as in memory.
//
// # Concurrency
//
// DB and Batch are Pebble's: a DB may be used by any number of
// goroutines; a Batch by one at a time. A Collection has no internal lock:
// its read methods (Get, Scan, ScanPrefix, Len) may run concurrently with
// each other, but every mutating method (Load, Apply, Begin, Rollback,
// Commit) needs exclusive access. Callers hold a sync.RWMutex.
package storage
