// Package faults is Eddy's one registry of fault-injection points: named
// places in the server where a test can make the code panic, to check that
// a panic is recovered where it should be (the statement, the dataflow
// step, the background goroutine), that every lock is released, and that
// nothing is left half-applied.
//
// A point is declared once, at package level, by the package it lives in
// (var faultX = faults.Register("sql.select", "...")) and placed with
// faultX.Inject(). Points are compiled into every build but do nothing
// unless armed: Inject costs one atomic load while no point is armed.
// Arming is for tests only: the process must have been started with
// EDDY_TEST_FAULTS=1 (Enabled), and then Arm("name") makes the point panic
// at its next hit, once; EDDY_TEST_FAULTS_ARM=name[,name] arms points from
// the start, for faults in start-up itself (the log's replay).
package faults
