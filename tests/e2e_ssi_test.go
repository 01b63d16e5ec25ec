package tests

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestSSI runs scenarios of PostgreSQL's isolation test specs for
// serializable snapshot isolation (src/test/isolation/specs: their
// setups, sessions and steps, written here anew) through every
// permutation of their steps, and checks each outcome against the
// property the spec states: the permutations that must fail one
// transaction do, and, where the spec says so, the others commit every
// transaction. TestSSIPostgres runs the same on PostgreSQL 15.
func TestSSI(t *testing.T) { runSSI(t, harness.StartTarget(t)) }

// TestSSIPostgres runs TestSSI's scenarios against PostgreSQL.
func TestSSIPostgres(t *testing.T) { runSSI(t, harness.StartPostgres(t)) }

// ssiSpec is one scenario: setup statements, each session's steps (run
// inside BEGIN ISOLATION LEVEL SERIALIZABLE), the permutations to run
// (nil: all), and the property of an outcome.
type ssiSpec struct {
	name     string
	setup    []string
	sessions [][]ssiStep
	perms    [][]string
	// mustFail reports whether the permutation must fail some session;
	// exact: the others must commit every session (no false positive).
	mustFail func(pos map[string]int) bool
	exact    bool
}

// ssiStep is one step of a session: a name and its SQL.
type ssiStep struct{ name, sql string }

var ssiSpecs = []ssiSpec{
	{
		// simple-write-skew.spec: any overlap must fail one.
		name:  "SimpleWriteSkew",
		setup: []string{"CREATE TABLE test (i int PRIMARY KEY, t text)", "INSERT INTO test VALUES (5, 'apple'), (7, 'pear'), (11, 'banana')"},
		sessions: [][]ssiStep{
			{{"rwx1", "UPDATE test SET t = 'apple' WHERE t = 'pear'"}, {"c1", "COMMIT"}},
			{{"rwx2", "UPDATE test SET t = 'pear' WHERE t = 'apple'"}, {"c2", "COMMIT"}},
		},
		mustFail: func(p map[string]int) bool { return p["rwx2"] < p["c1"] && p["rwx1"] < p["c2"] },
		exact:    true,
	},
	{
		// two-ids.spec: s2 reads what s1 writes and writes what s3 reads;
		// the cycle s2 -> s1 -> s3 -> s2 exists exactly when s1 commits
		// after s2 read and before s3 reads, and s3 reads before s2 commits.
		name: "TwoIDs",
		setup: []string{"CREATE TABLE d1 (id int NOT NULL)", "CREATE TABLE d2 (id int NOT NULL)",
			"INSERT INTO d1 VALUES (1)", "INSERT INTO d2 VALUES (1)"},
		sessions: [][]ssiStep{
			{{"wx1", "UPDATE d1 SET id = id + 1"}, {"c1", "COMMIT"}},
			{{"rxwy2", "UPDATE d2 SET id = (SELECT id + 1 FROM d1)"}, {"c2", "COMMIT"}},
			{{"ry3", "SELECT id FROM d2"}, {"c3", "COMMIT"}},
		},
		mustFail: func(p map[string]int) bool {
			return p["rxwy2"] < p["c1"] && p["c1"] < p["ry3"] && p["ry3"] < p["c2"]
		},
	},
	{
		// read-only-anomaly-2.spec: without s3, s2 (which read what s1
		// wrote, a lone rw-dependency) commits; once s3 saw s1's commit
		// and read what s2 writes, the cycle fails one.
		name:  "ReadOnlyAnomaly",
		setup: []string{"CREATE TABLE bank_account (id text PRIMARY KEY, balance numeric NOT NULL)", "INSERT INTO bank_account VALUES ('X', 0), ('Y', 0)"},
		sessions: [][]ssiStep{
			{{"s1ry", "SELECT balance FROM bank_account WHERE id = 'Y'"}, {"s1wy", "UPDATE bank_account SET balance = 20 WHERE id = 'Y'"}, {"s1c", "COMMIT"}},
			{{"s2rx", "SELECT balance FROM bank_account WHERE id = 'X'"}, {"s2ry", "SELECT balance FROM bank_account WHERE id = 'Y'"},
				{"s2wx", "UPDATE bank_account SET balance = -11 WHERE id = 'X'"}, {"s2c", "COMMIT"}},
			{{"s3r", "SELECT id, balance FROM bank_account WHERE id IN ('X', 'Y') ORDER BY id"}, {"s3c", "COMMIT"}},
		},
		perms: [][]string{
			{"s2rx", "s2ry", "s1ry", "s1wy", "s1c", "s2wx", "s2c", "s3c"},
			{"s2rx", "s2ry", "s1ry", "s1wy", "s1c", "s3r", "s3c", "s2wx", "s2c"},
			{"s2rx", "s2ry", "s1ry", "s1wy", "s1c", "s3r", "s2wx", "s2c", "s3c"},
		},
		mustFail: func(p map[string]int) bool { _, ok := p["s3r"]; return ok },
		exact:    true,
	},
	{
		// A chain of rw-dependencies s1 -> s2 -> s3 whose end commits last
		// is no dangerous structure: every session commits (PostgreSQL's
		// rule that Tout must commit first).
		name:  "ChainOutLast",
		setup: []string{"CREATE TABLE kv (k int PRIMARY KEY, v int)", "INSERT INTO kv VALUES (1, 0), (2, 0), (3, 0)"},
		sessions: [][]ssiStep{
			{{"r1", "SELECT v FROM kv WHERE k = 1"}, {"w1", "UPDATE kv SET v = 1 WHERE k = 3"}, {"c1", "COMMIT"}},
			{{"r2", "SELECT v FROM kv WHERE k = 2"}, {"w2", "UPDATE kv SET v = 2 WHERE k = 1"}, {"c2", "COMMIT"}},
			{{"w3", "UPDATE kv SET v = 3 WHERE k = 2"}, {"c3", "COMMIT"}},
		},
		perms: [][]string{
			{"r1", "r2", "w1", "w2", "w3", "c1", "c2", "c3"},
			{"r1", "r2", "w3", "w2", "c2", "c3", "w1", "c1"},
		},
		mustFail: func(map[string]int) bool { return false },
		exact:    true,
	},
}

func runSSI(t *testing.T, s *harness.Server) {
	for _, spec := range ssiSpecs {
		t.Run(spec.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			dsn := s.NewDatabase(t)
			ctl := connect(t, ctx, dsn)
			conns := make([]*pgx.Conn, len(spec.sessions))
			for i := range conns {
				conns[i] = connect(t, ctx, dsn)
			}
			perms := spec.perms
			if perms == nil {
				perms = interleavings(spec.sessions)
			}
			falsePos := 0
			for _, perm := range perms {
				failed := runSSIPerm(t, ctx, ctl, conns, spec, perm)
				pos := map[string]int{}
				for i, name := range perm {
					pos[name] = i
				}
				switch must := spec.mustFail(pos); {
				case must && len(failed) == 0:
					t.Errorf("%s: every session committed, want a serialization failure", strings.Join(perm, " "))
				case !must && len(failed) > 0:
					falsePos++
					if spec.exact {
						t.Errorf("%s: sessions %v failed, want every one to commit", strings.Join(perm, " "), failed)
					}
				}
			}
			t.Logf("%d permutations, %d failures where every transaction could have committed", len(perms), falsePos)
		})
	}
}

// runSSIPerm runs one permutation from a fresh setup and returns the
// sessions that failed with 40001 (at any step, COMMIT included).
func runSSIPerm(t *testing.T, ctx context.Context, ctl *pgx.Conn, conns []*pgx.Conn, spec ssiSpec, perm []string) []int {
	t.Helper()
	mustExec(t, ctx, ctl, "DROP SCHEMA IF EXISTS spec CASCADE", "CREATE SCHEMA spec")
	for _, c := range append([]*pgx.Conn{ctl}, conns...) {
		mustExec(t, ctx, c, "SET search_path = spec")
	}
	mustExec(t, ctx, ctl, spec.setup...)
	for _, c := range conns {
		mustExec(t, ctx, c, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	}
	steps := map[string][2]any{}
	for i, sess := range spec.sessions {
		for _, st := range sess {
			steps[st.name] = [2]any{i, st.sql}
		}
	}
	var failed []int
	for _, name := range perm {
		i, sql := steps[name][0].(int), steps[name][1].(string)
		if slices.Contains(failed, i) {
			continue
		}
		_, err := conns[i].Exec(ctx, sql)
		var pe *pgconn.PgError
		switch {
		case err == nil:
		case errors.As(err, &pe) && pe.Code == "40001":
			failed = append(failed, i)
			if sql != "COMMIT" {
				mustExec(t, ctx, conns[i], "ROLLBACK")
			}
		default:
			t.Fatalf("%s: %s: %v", strings.Join(perm, " "), sql, err)
		}
	}
	for _, c := range conns {
		mustExec(t, ctx, c, "ROLLBACK", "RESET search_path")
	}
	return failed
}

// interleavings returns every order of the sessions' steps that keeps
// each session's own order.
func interleavings(sessions [][]ssiStep) [][]string {
	var out [][]string
	next := make([]int, len(sessions))
	var rec func(prefix []string)
	rec = func(prefix []string) {
		done := true
		for i, sess := range sessions {
			if next[i] == len(sess) {
				continue
			}
			done = false
			next[i]++
			rec(append(slices.Clip(prefix), sess[next[i]-1].name))
			next[i]--
		}
		if done {
			out = append(out, prefix)
		}
	}
	rec(nil)
	return out
}

// TestSSIOnCall runs PostgreSQL's classic write-skew constraint under
// concurrency: several SERIALIZABLE sessions each take a doctor off call
// when at least two of a shift are on call, retrying on 40001; whatever
// commits, every shift keeps a doctor on call (snapshot isolation alone
// lets two sessions take the last two off). TestSSIOnCallPostgres runs it
// on PostgreSQL.
func TestSSIOnCall(t *testing.T) { runSSIOnCall(t, harness.StartTarget(t)) }

// TestSSIOnCallPostgres runs TestSSIOnCall against PostgreSQL.
func TestSSIOnCallPostgres(t *testing.T) { runSSIOnCall(t, harness.StartPostgres(t)) }

func runSSIOnCall(t *testing.T, s *harness.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dsn := s.NewDatabase(t)
	ctl := connect(t, ctx, dsn)
	const shifts, doctors, sessions, rounds = 3, 4, 4, 6
	mustExec(t, ctx, ctl, "CREATE TABLE doctors (shift int, name int, on_call bool, PRIMARY KEY (shift, name))")
	conns := make([]*pgx.Conn, sessions)
	for i := range conns {
		conns[i] = connect(t, ctx, dsn)
	}
	for round := range rounds {
		mustExec(t, ctx, ctl, "DELETE FROM doctors",
			"INSERT INTO doctors SELECT s, n, true FROM generate_series(1, 3) s, generate_series(1, 4) n")
		errs := make(chan error, sessions)
		for i, c := range conns {
			go func() { errs <- offCall(ctx, c, (i+round)%shifts+1, i%doctors+1) }()
		}
		for range conns {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		for sh := 1; sh <= shifts; sh++ {
			n := queryText(t, ctx, ctl, "SELECT count(*) FROM doctors WHERE on_call AND shift = "+strconv.Itoa(sh))
			if n == "0" {
				t.Fatalf("round %d: shift %d has no doctor on call", round, sh)
			}
		}
	}
}

// offCall takes doctors of shift off call, one at a time starting with
// name, while at least two are on call, each in a SERIALIZABLE block
// retried on 40001.
func offCall(ctx context.Context, c *pgx.Conn, shift, name int) error {
	for name := name; ; name = name%4 + 1 {
		done, err := offCallOnce(ctx, c, shift, name)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "40001" {
			_, _ = c.Exec(ctx, "ROLLBACK")
			continue
		}
		if err != nil || done {
			return err
		}
	}
}

// offCallOnce runs one block; done reports that fewer than two were on
// call.
func offCallOnce(ctx context.Context, c *pgx.Conn, shift, name int) (done bool, err error) {
	sh := strconv.Itoa(shift)
	if _, err := c.Exec(ctx, "BEGIN ISOLATION LEVEL SERIALIZABLE"); err != nil {
		return false, err
	}
	var n int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM doctors WHERE on_call AND shift = "+sh).Scan(&n); err != nil {
		return false, err
	}
	if n < 2 {
		_, err := c.Exec(ctx, "COMMIT")
		return true, err
	}
	if _, err := c.Exec(ctx, "UPDATE doctors SET on_call = false WHERE shift = "+sh+" AND name = "+strconv.Itoa(name)); err != nil {
		return false, err
	}
	_, err = c.Exec(ctx, "COMMIT")
	return false, err
}
