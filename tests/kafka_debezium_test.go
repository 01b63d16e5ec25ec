package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// dbz is a Debezium change event on the k/v columns: op c, u or d, with
// before and after images ("" for null).
func dbz(part int32, op, before, after string) kafkaRec {
	img := func(s string) string {
		if s == "" {
			return "null"
		}
		return s
	}
	return kafkaRec{part, nil, fmt.Appendf(nil, `{"before": %s, "after": %s, "op": "%s"}`, img(before), img(after), op)}
}

// TestKafkaDebeziumBadDeletions: a FORMAT DEBEZIUM source without a
// watermark receives deletions of rows it never delivered, double
// deletions and an update whose before image is absent. The source drops
// them as bad records (eddy_sources, eddy_source_errors with their
// partition and offset) and every view (a grouped count and sum, min/max,
// a join with a table) keeps the answer of the live rows, across a kill
// -9; a view created afterwards agrees. Before the source checked its
// deletions, the first bad one failed the batch and stopped the source.
func TestKafkaDebeziumBadDeletions(t *testing.T) {
	addr := startKafka(t, map[string]int32{"kv": 2})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := harness.StartEddy(t)
	c := pgConnect(t, ctx, s.DSN())
	defer c.Close(ctx)
	p := producer(t, addr)
	produceRecs(t, ctx, p, "kv",
		dbz(0, "c", "", `{"k": 1, "v": 10}`),
		dbz(0, "c", "", `{"k": 1, "v": 20}`),
		dbz(1, "c", "", `{"k": 2, "v": 5}`),
		dbz(0, "d", `{"k": 3, "v": 7}`, ""), // never inserted
		dbz(1, "d", `{"k": 2, "v": 5}`, ""),
		dbz(1, "d", `{"k": 2, "v": 5}`, ""),                   // deleted twice
		dbz(0, "u", `{"k": 1, "v": 99}`, `{"k": 1, "v": 30}`)) // before image absent
	execAll(t, ctx, c,
		"CREATE SOURCE d (k int, v int) "+kafkaWith(addr, "kv")+" FORMAT DEBEZIUM ENCODE JSON",
		"CREATE TABLE names (k int, name text)",
		"INSERT INTO names VALUES (1, 'one'), (2, 'two'), (3, 'three')",
		"CREATE MATERIALIZED VIEW cnt AS SELECT k, count(*) AS n, sum(v) AS s FROM d GROUP BY k",
		"CREATE MATERIALIZED VIEW mm AS SELECT k, min(v) AS lo, max(v) AS hi FROM d GROUP BY k",
		"CREATE MATERIALIZED VIEW j AS SELECT names.name, d.v FROM d JOIN names ON d.k = names.k")
	waitRows(t, ctx, c, "SELECT * FROM cnt ORDER BY k", "1|3|60")
	waitRows(t, ctx, c, "SELECT * FROM mm ORDER BY k", "1|10|30")
	waitRows(t, ctx, c, "SELECT * FROM j ORDER BY 1, 2", "one|10;one|20;one|30")
	waitRows(t, ctx, c, "SELECT state, records, bad_records FROM eddy_sources", "running|7|3")
	waitRows(t, ctx, c, `SELECT partition, "offset", substr(error, 1, 5), record FROM eddy_source_errors ORDER BY 1, 2`,
		"0|2|22000|(3, 7);0|3|22000|(1, 99);1|2|22000|(2, 5)")

	// After a kill -9 the source still holds its live rows: (1,10) can be
	// deleted, a second deletion of it cannot.
	s.Kill()
	s.Restart()
	c2 := pgConnect(t, ctx, s.DSN())
	defer c2.Close(ctx)
	produceRecs(t, ctx, p, "kv",
		dbz(1, "d", `{"k": 1, "v": 10}`, ""),
		dbz(1, "d", `{"k": 1, "v": 10}`, ""),
		dbz(0, "c", "", `{"k": 3, "v": 1}`))
	waitRows(t, ctx, c2, "SELECT state, records, bad_records FROM eddy_sources", "running|10|4")
	waitRows(t, ctx, c2, "SELECT * FROM cnt ORDER BY k", "1|2|50;3|1|1")
	waitRows(t, ctx, c2, "SELECT * FROM mm ORDER BY k", "1|20|30;3|1|1")
	waitRows(t, ctx, c2, "SELECT * FROM j ORDER BY 1, 2", "one|20;one|30;three|1")

	// A view created now, backfilled from the topic, drops the same
	// deletions.
	execAll(t, ctx, c2,
		"CREATE MATERIALIZED VIEW cnt_later AS SELECT k, count(*) AS n, sum(v) AS s FROM d GROUP BY k",
		"CREATE MATERIALIZED VIEW mm_later AS SELECT k, min(v) AS lo, max(v) AS hi FROM d GROUP BY k")
	waitRows(t, ctx, c2, "SELECT * FROM cnt_later ORDER BY k", "1|2|50;3|1|1")
	waitRows(t, ctx, c2, "SELECT * FROM mm_later ORDER BY k", "1|20|30;3|1|1")
	waitRows(t, ctx, c2, "SELECT records, bad_records FROM eddy_sources", "10|4")
}
