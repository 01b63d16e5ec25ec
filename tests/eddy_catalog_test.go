package tests

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestEddySubscriptions follows a real client's SUBSCRIBE in
// eddy_catalog.eddy_subscriptions from another connection: it appears
// under the subscriber's pid once open (with the relation's
// name as bound, schema-qualified), counts the rows its reader took
// (the snapshot, then a write), and disappears when it is cancelled.
func TestEddySubscriptions(t *testing.T) {
	s := startSubscribeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 10), (2, 20)")
	const list = "SELECT pid::text, relation, rows_sent::text FROM eddy_catalog.eddy_subscriptions"
	if got := queryStrings(t, ctx, w, list); got != "" {
		t.Fatalf("before SUBSCRIBE: %q, want no rows", got)
	}

	c := pgconnCancellable(t, ctx, s.DSN())
	subCtx, subCancel := context.WithCancel(ctx)
	defer subCancel()
	rows, errc := streamSubscribe(t, subCtx, c, "SUBSCRIBE t", false)
	nextRows(t, rows, 2)
	waitFor(t, 20*time.Second, func() bool {
		return queryStrings(t, ctx, w, list) == fmt.Sprintf("%d|public.t|2", c.PID())
	})

	mustExec(t, ctx, w, "INSERT INTO t VALUES (3, 30)", "DELETE FROM t WHERE k = 1")
	nextChanges(t, rows, 2)
	waitFor(t, 20*time.Second, func() bool {
		return queryStrings(t, ctx, w, list) == fmt.Sprintf("%d|public.t|4", c.PID())
	})

	subCancel()
	wantCode(t, <-errc, "57014", "")
	waitFor(t, 20*time.Second, func() bool { return queryStrings(t, ctx, w, list) == "" })
}
