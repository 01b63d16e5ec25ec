// Package sql is Eddy's statement layer: sessions that prepare, bind and
// execute statements; the catalog of tables and views; and the coordinator
// (Engine) that assigns logical times to transactions, pushes every
// committed write through the dataflows of the materialized views that read
// it, and makes the commit durable before acknowledging it.
//
// Durability is checkpointed (checkpoint.go): a commit's synced write is one
// input-log record (/l/<t>: its table changes or source batch and its
// wall-clock time) with the clock, source positions and sink logs; table
// rows, view contents and operator state accumulate in a checkpoint batch
// written atomically with checkpoint_time = t and the deletion of log
// records <= t every CheckpointOptions commits/interval/bytes, before
// CREATE MATERIALIZED VIEW and DROP, and at Close. Open loads the
// checkpoint and replays the later log records through the same apply
// path (deterministic: logged wall-clock time, re-derived watermarks; no
// new log, sink or statistics writes), then checkpoints.
//
// Consistency: the Engine's lock orders commits; a commit applies at one
// logical time, and a read holds the lock shared, so every SELECT sees all
// collections at the same, latest committed time (read-your-writes across
// sessions).
//
// Error policy for view maintenance: if maintaining any view fails for a
// write (for example a division by zero caused by a new row), the whole
// transaction fails with that error and nothing changes: tables, views and
// operator state are rolled back. A view therefore never skips a row and
// never shows a partial transaction.
package sql
