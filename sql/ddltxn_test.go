package sql

import (
	"context"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
)

// TestTxGate drives the gate that makes a block's DDL exclusive: the
// owner waits for running statements, holds back new ones (which a
// cancelled context ends with 57014) and runs its own, and release lets
// the others in.
func TestTxGate(t *testing.T) {
	var g txGate
	a, b := &Session{}, &Session{}
	ctx := context.Background()
	if err := g.enter(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := g.enter(ctx, b); err != nil {
		t.Fatal(err)
	}
	owned := make(chan error, 1)
	go func() { owned <- g.own(ctx, a) }()
	select {
	case err := <-owned:
		t.Fatalf("a owns the gate while b runs a statement (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	g.leave(b)
	if err := <-owned; err != nil {
		t.Fatal(err)
	}
	g.leave(a) // the end of a's DDL statement; a stays the owner
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := g.enter(cctx, b); repr.ErrorCode(err) != repr.CodeQueryCanceled {
		t.Fatalf("b's statement while a owns the gate: %v, want 57014 when cancelled", err)
	}
	entered := make(chan error, 1)
	go func() { entered <- g.enter(ctx, b) }()
	if err := g.enter(ctx, a); err != nil { // the owner's next statement
		t.Fatal(err)
	}
	g.leave(a)
	select {
	case err := <-entered:
		t.Fatalf("b entered while a owns the gate (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	g.release(a)
	if err := <-entered; err != nil {
		t.Fatal(err)
	}
	g.leave(b)
	if g.shared != 0 || g.owner != nil || len(g.queue) != 0 {
		t.Fatalf("gate not back to rest: %d shared, owner %v, %d waiting", g.shared, g.owner, len(g.queue))
	}
}

// TestTxGateQueue: sessions waiting to own the gate get it in arrival
// order, whichever wakes first; one whose wait is cancelled leaves the
// queue without holding back the ones behind it.
func TestTxGateQueue(t *testing.T) {
	var g txGate
	ctx := context.Background()
	a := &Session{}
	if err := g.own(ctx, a); err != nil {
		t.Fatal(err)
	}
	waiters := make([]*Session, 6)
	owned := make(chan *Session, len(waiters))
	cctx, cancel := context.WithCancel(ctx)
	for i := range waiters {
		s := &Session{}
		waiters[i] = s
		wctx := ctx
		if i == 2 {
			wctx = cctx
		}
		go func() {
			if g.own(wctx, s) == nil {
				owned <- s
			}
		}()
		for !s.lockWait.Load() { // queued
			time.Sleep(time.Millisecond)
		}
	}
	cancel()
	for func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.queue) != len(waiters)-1 }() {
		time.Sleep(time.Millisecond)
	}
	g.release(a)
	for i, want := range waiters {
		if i == 2 {
			continue
		}
		if got := <-owned; got != want {
			t.Fatalf("owner %p, want waiter %d (%p)", got, i, want)
		}
		g.release(want)
	}
}

// TestTxGateArrivalOrder: statements waiting for a shared slot (autocommit
// DDL, reads) and sessions waiting to own the gate (a block's DDL) are
// served in one arrival order: a block does not overtake an autocommit
// statement that waited before it, nor goes before those that come after it.
func TestTxGateArrivalOrder(t *testing.T) {
	var g txGate
	ctx := context.Background()
	a := &Session{}
	if err := g.own(ctx, a); err != nil {
		t.Fatal(err)
	}
	events := make(chan string, 8)
	c1, b1, c2, b2 := &Session{}, &Session{}, &Session{}, &Session{}
	queue := func(s *Session, name string, own bool) {
		go func() {
			var err error
			if own {
				err = g.own(ctx, s)
			} else {
				err = g.enter(ctx, s)
			}
			if err != nil {
				t.Error(err)
			}
			events <- name
		}()
		for !s.lockWait.Load() {
			time.Sleep(time.Millisecond)
		}
	}
	queue(c1, "c1", false)
	queue(b1, "b1", true)
	queue(c2, "c2", false)
	queue(b2, "b2", true)
	next := func(want string) {
		t.Helper()
		if got := <-events; got != want {
			t.Fatalf("%s got the gate, want %s", got, want)
		}
		select {
		case got := <-events:
			t.Fatalf("%s got the gate too, after %s", got, want)
		case <-time.After(50 * time.Millisecond):
		}
	}
	g.release(a)
	next("c1")
	g.leave(c1)
	next("b1")
	g.release(b1)
	next("c2")
	g.leave(c2)
	next("b2")
	g.release(b2)
	if g.shared != 0 || g.owner != nil || len(g.queue) != 0 {
		t.Fatalf("gate not back to rest: %d shared, owner %v, %d waiting", g.shared, g.owner, len(g.queue))
	}
}
