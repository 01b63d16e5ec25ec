package sql

import "github.com/eddydb/eddy/faults"

// The sql package's fault-injection points (package faults): each names a
// place where a panic must be recovered with every lock released and
// nothing half-applied. tests/e2e_faults_test.go arms them one by one.
var (
	// faultReadTable: under the engine's read lock, as a statement reads
	// a table's or view's rows (SELECT, UPDATE, DELETE; readColl).
	faultReadTable = faults.Register("sql.read_table", "engine read lock held, reading a relation's rows")
	// faultCommit: under the engine's lock, applying a write set
	// (INSERT, UPDATE, DELETE, COPY; apply).
	faultCommit = faults.Register("sql.commit", "engine lock held, applying a commit's changes")
	// faultBackfill: a CREATE MATERIALIZED VIEW backfill running outside
	// the lock (backfillRun.run).
	faultBackfill = faults.Register("sql.backfill", "a view's backfill, outside the engine lock")
	// faultInstallView: under the lock, after a new view joined the
	// catalog in memory and before it is durable (installBackfilled).
	faultInstallView = faults.Register("sql.install_view", "engine lock held, a new view half installed")
	// faultDrop: under the lock, in DROP after the objects left the
	// catalog in memory and before the deletion is durable (dropSteps).
	faultDrop = faults.Register("sql.drop", "engine lock held, objects half dropped")
	// faultPublish: under the lock, handing a commit's changes to one
	// SUBSCRIBE subscriber (publishOne).
	faultPublish = faults.Register("sql.subscribe_publish", "engine lock held, delivering to a subscriber")
	// faultIngest: under the lock, applying a source's batch (ingest).
	faultIngest = faults.Register("sql.ingest", "engine lock held, applying a source batch")
	// faultCheckpoint: under the lock, as a periodic checkpoint starts
	// (checkpointGuarded).
	faultCheckpoint = faults.Register("sql.checkpoint", "engine lock held, starting a periodic checkpoint")
)
