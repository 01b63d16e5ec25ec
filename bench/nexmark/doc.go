// Command nexmark runs the Nexmark benchmark on an in-process Eddy (make
// nexmark): for each query of queries.sql (q0–q22 and q7_final) it starts a
// fresh server on a temporary data directory, creates the three sources
// bounded to warm-up + measured events, creates the query's materialized
// view through pgwire exactly as written, waits until every source the
// query reads has been ingested completely (sql.Engine.SourceProgressOf:
// a position is stored in the same synced batch that carries its rows
// through the views), and reports over the measured phase only:
//
//   - events/s: measured events / wall seconds;
//   - CPU-s per million events: user+sys CPU of the process (getrusage);
//   - cores used: CPU seconds / wall seconds;
//   - events/s per core: events/s / cores used (= 1e6 / CPU-s per M), the
//     figure comparable with the per-core columns of the README;
//   - peak RSS of the process (each query runs in its own child process,
//     so peaks do not carry over).
//
// Sources run independently (one reader goroutine each), so the warm-up
// boundary is taken when the rows ingested across the query's sources
// reach the warm-up share of their total, and measured events are that
// share of the whole event stream (all event types count, as in every
// published Nexmark figure).
//
// Scaling: -workers 1,2 runs each query at every count in the list, the
// counts of one query back to back (reversed every other -rounds round,
// so a drift of a shared machine's load falls on each alike), and prints
// per query the median events/s and CPU-s per M events at each count and
// the last count's over the first's, with the load average of the runs.
//
// Flags: -events (measured, default 10M), -warmup (1M), -queries
// (q0,q5; default all), -rate (event-time rate, 100,000/s), -cpuprofile DIR
// (one CPU profile per query, measured phase only, and a heap profile at its end), -memcheck N (sample RSS
// and live heap every N events), -maxrss MB (abandon a query whose state
// outgrows this; default half of physical memory, since several queries
// keep state no watermark bounds and the machine is shared).
package main
