// Command tpch measures Eddy maintaining the 22 TPC-H queries as
// materialized views (make tpch), on the data set of the TPC-H correctness
// test (tests/tpch: its generator, schema, queries and refresh batches):
//
//  1. Load. The 22 views are created on an empty Eddy, then the eight
//     tables are loaded with COPY in pieces of -chunk rows (each one
//     commit, in which Eddy steps every view). Reported: wall time,
//     CPU-seconds of the Eddy process (user+sys), rows per CPU-second,
//     peak RSS (VmHWM), the live heap after a full collection, the size
//     of the data directory, and each view's operator state as Eddy
//     reports it (eddy_dataflow_operators summed per view, per row of the
//     tables it reads; and the automatic indexes the views' joins share,
//     from eddy_indexes). For reference PostgreSQL loads the same
//     pieces into plain tables, then creates the 22 materialized views.
//  2. Refresh. The RF1 batch (0.1% new orders with their lineitems), then
//     RF2 (0.1% of the orders deleted), each in one transaction. Eddy
//     maintains every view inside the commit (sql/commit.go, propagate),
//     so the batch is reflected in all views when COMMIT returns: that is
//     Eddy's time, measured once Eddy is idle after the load (its
//     background Pebble compactions done, its garbage collected and the
//     free memory returned to the OS, so that the runtime's scavenger
//     does not run during the batch), in nanoseconds of its threads'
//     schedstat. PostgreSQL's is the same transaction followed by
//     REFRESH MATERIALIZED VIEW of each view. After the load and each
//     batch the row count of every view is compared with PostgreSQL's.
//  3. With -per-view, the state each view keeps: the data is loaded into
//     a fresh Eddy with no views, then once per view with that view alone;
//     a view's state is its run's peak RSS (and live heap) minus the run
//     with no views, divided by the rows of the tables it reads, and the
//     sum over the views is set against the raw data (its text size and
//     PostgreSQL's pg_total_relation_size of the tables).
//
// Eddy runs in a child process (this program with -serve DIR) so that the
// CPU time and peak RSS read from /proc/<pid> are the server's alone, not
// the generator's or the client's; the child applies the eddy binary's
// garbage-collector policy (server.TuneGC). A watchdog polls the child's
// RSS every 50 ms and kills it above -maxrss (default 16 GiB): the run is
// then reported as stopped, with the phase it reached, instead of the
// kernel's OOM killer choosing a victim on a shared machine.
//
// The printed Markdown goes to BENCHMARKS.md. On a shared machine trust
// the CPU-seconds: wall times include waiting for a core.
//
// Flags: -sf (0.1), -seed (1), -chunk (10,000), -queries (q01,q18;
// default all), -rf PERMILLE (1: each refresh batch 0.1% of the orders),
// -per-view, -cpuprofile DIR (per Eddy process a CPU
// profile of the load, all.pprof or qNN.pprof, the heap after it,
// all.heap or qNN.heap, and a CPU profile of each refresh batch alone,
// all.rf1.pprof and all.rf2.pprof), -maxrss MB, -postgres=false, -pgbin DIR.
package main
