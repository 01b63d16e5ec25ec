package storage

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// getString returns key's value in db ("" when absent).
func getString(t *testing.T, db *DB, key string) string {
	t.Helper()
	v, _, err := db.Get([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return string(v)
}

// commitInBackground commits b on a goroutine; the channel gets its error.
func commitInBackground(db *DB, b *Batch) <-chan error {
	c := make(chan error, 1)
	go func() { c <- db.Commit(b) }()
	return c
}

// TestCommitAsyncOrdersLaterCommits checks that a Commit of a batch not
// marked independent waits for the batch pending in CommitAsync, so that
// its write of the same key lands after it and wins.
func TestCommitAsyncOrdersLaterCommits(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer db.Close()
	hold := db.HoldCommitsForTest()
	older := db.NewBatch()
	older.Set([]byte("k"), []byte("older"))
	landed := make(chan struct{})
	p, err := db.CommitAsync(older, func() { close(landed) })
	if err != nil {
		t.Fatal(err)
	}
	newer := db.NewBatch()
	newer.Set([]byte("k"), []byte("newer"))
	done := commitInBackground(db, newer)
	select {
	case err := <-done:
		t.Fatalf("a dependent commit returned (%v) before the pending one landed", err)
	case <-time.After(50 * time.Millisecond):
	}
	hold <- true
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-landed:
	default:
		t.Fatal("Wait returned before the after hook ran")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := getString(t, db, "k"); got != "newer" {
		t.Fatalf("k = %q, want the later commit's %q", got, "newer")
	}
}

// TestCommitAsyncIndependent checks that an independent commit does not
// wait for the pending batch, that the overlap check refuses one that
// writes a key of it or one in a range it deletes, and that a dropped
// pending batch writes nothing.
func TestCommitAsyncIndependent(t *testing.T) {
	defer SetCheckOverlap(SetCheckOverlap(true))
	db := openTest(t, t.TempDir())
	defer db.Close()
	hold := db.HoldCommitsForTest()
	state := db.NewBatch()
	state.Set([]byte("s1"), []byte("state"))
	state.DeleteRange([]byte("l0"), []byte("l5"))
	p, err := db.CommitAsync(state, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewBatch()
	log.SetIndependent(true)
	log.Set([]byte("l7"), []byte("record"))
	select {
	case err := <-commitInBackground(db, log):
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an independent commit waited for the pending one")
	}
	for _, key := range []string{"s1", "l3"} {
		bad := db.NewBatch()
		bad.SetIndependent(true)
		bad.Set([]byte(key), []byte("x"))
		if err := db.Commit(bad); err == nil || !strings.Contains(err.Error(), "pending commit") {
			t.Fatalf("independent commit of %s over the pending batch: %v, want an overlap error", key, err)
		}
	}
	hold <- false
	if err := p.Wait(); !errors.Is(err, errDropped) {
		t.Fatalf("dropped batch: %v", err)
	}
	if got := getString(t, db, "s1"); got != "" {
		t.Fatalf("dropped batch wrote s1 = %q", got)
	}
	if got := getString(t, db, "l7"); got != "record" {
		t.Fatalf("independent commit: l7 = %q", got)
	}
	if err := db.WaitPending(); !errors.Is(err, errDropped) {
		t.Fatalf("WaitPending after a drop: %v", err)
	}
	if err := db.WaitPending(); err != nil {
		t.Fatalf("WaitPending with nothing pending: %v", err)
	}
}
