package server

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestTickerAdvancesTemporalFilters checks that, without any write, the
// server's ticker moves a view with a temporal filter along as the
// engine's clock advances.
func TestTickerAdvancesTemporalFilters(t *testing.T) {
	s, err := Start(Config{Listen: "127.0.0.1:0", DataDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	var now atomic.Int64
	now.Store(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro())
	s.Engine().SetClock(func() time.Time { return time.UnixMicro(now.Load()) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{
		"CREATE TABLE ev (id int, ts timestamptz)",
		"CREATE MATERIALIZED VIEW recent AS SELECT id FROM ev WHERE ts > now() - INTERVAL '1 minute' AND ts <= now()",
		"INSERT INTO ev VALUES (1, '2023-12-31 23:59:30+00'), (2, '2024-01-01 00:00:30+00')",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	waitFor := func(want string) {
		t.Helper()
		var got string
		for range 100 {
			if err := c.QueryRow(ctx, "SELECT count(*)::text || ':' || coalesce(sum(id), 0)::text FROM recent").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got == want {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("view is %q, want %q", got, want)
	}
	waitFor("1:1") // row 1 only: row 2 is 30 s in the future
	now.Add((20 * time.Second).Microseconds())
	waitFor("1:1")
	now.Add((20 * time.Second).Microseconds()) // 00:00:40: row 1 expired at 00:00:30, row 2 entered
	waitFor("1:2")
	now.Add(time.Minute.Microseconds())
	waitFor("0:0")
}
