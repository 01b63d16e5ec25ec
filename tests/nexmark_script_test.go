package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/eddydb/eddy/bench/nexmark/queries"
)

// TestNexmarkScript runs shared/nexmark/queries.sql as written, on one
// server: the three sources (bounded), then every view in file order. The
// test waits, after each view, until the sources it reads have ingested
// their whole stream, so every later view over them is created after its
// sources finished: each must be backfilled from the sources' start. Then
// every view must equal its recomputation over connector-fed tables
// holding the same events (the oracle of TestNexmarkOracle) and have
// dropped no late row.
func TestNexmarkScript(t *testing.T) {
	suite, err := queries.ParseSuite(queries.SQL)
	if err != nil {
		t.Fatal(err)
	}
	events := nexmarkEvents() / 2 // 20 s of event time: q7_final closes a window
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, err := startNexmarkEnv(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"person", "auction", "bid"} {
		if err := env.exec(queries.TableOf(suite.Sources[name], "_t", events, nexmarkRate)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"person", "auction", "bid"} {
		if err := env.exec(queries.BoundedSource(suite.Sources[name], events, nexmarkRate)); err != nil {
			t.Fatal(err)
		}
	}
	created := map[string]bool{}
	for _, q := range suite.Queries {
		for _, s := range q.Setup {
			if !created[s] {
				created[s] = true
				if err := env.exec(s); err != nil {
					t.Fatal(err)
				}
				if err := env.exec(queries.Renamed(s, "_t")); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := env.exec(q.View); err != nil {
			t.Fatalf("creating %s: %v", q.Name, err)
		}
		if err := env.waitIngested(q.Sources, events); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.waitIngested([]string{"person_t", "auction_t", "bid_t"}, events); err != nil {
		t.Fatal(err)
	}
	for _, q := range suite.Queries {
		if err := env.checkNoLate(q.Name); err != nil {
			t.Error(err)
		}
		rows, err := env.compare(q)
		if err != nil {
			t.Error(fmt.Errorf("%s: %w", q.Name, err))
			continue
		}
		t.Logf("%s: %d rows match the recomputation", q.Name, rows)
	}
}
