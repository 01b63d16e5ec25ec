package parse

import (
	"fmt"
	"os"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// BenchmarkParse compares the fast path (no extension word: straight to
// pg_query) with pg_query alone, and measures the extension front on an
// extension statement and on the whole Nexmark script.
func BenchmarkParse(b *testing.B) {
	const plain = "SELECT a, count(*) FROM t WHERE b > 10 AND c = 'x' GROUP BY a ORDER BY 2 DESC LIMIT 10"
	const source = "CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP, " +
		"WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND) WITH (connector = 'nexmark', nexmark.table.type = 'bid')"
	cases := []struct{ name, sql string }{
		{"plain", plain},
		{"plain-ext-word", plain + " -- emit"},
		{"source", source},
	}
	cases = append(cases, struct{ name, sql string }{"insert-values", lineitemInsert(3000)},
		struct{ name, sql string }{"delete-in-list", ordersDelete(150)})
	if q, err := os.ReadFile("/work/shared/nexmark/queries.sql"); err == nil {
		cases = append(cases, struct{ name, sql string }{"nexmark", string(q)})
	}
	b.Run("pg_query/insert-values", func(b *testing.B) {
		for b.Loop() {
			if _, err := pg.Parse(cases[3].sql); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pg_query/delete-in-list", func(b *testing.B) {
		for b.Loop() {
			if _, err := pg.Parse(cases[4].sql); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pg_query/plain", func(b *testing.B) {
		for b.Loop() {
			if _, err := pg.Parse(plain); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(c.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("precheck/plain", func(b *testing.B) {
		for b.Loop() {
			if mayHaveExt(plain) {
				b.Fatal("ext word")
			}
		}
	})
	for _, c := range cases[2:] {
		b.Run("lex/"+c.name, func(b *testing.B) {
			for b.Loop() {
				lex(c.sql)
			}
		})
	}
}

// lineitemInsert returns a transaction inserting n rows shaped like TPC-H
// lineitems (16 quoted literals each), as the TPC-H refresh batches do.
func lineitemInsert(n int) string {
	var b strings.Builder
	b.WriteString("BEGIN;\nINSERT INTO lineitem VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "('%d', '%d', '%d', '%d', '%d.00', '%d.%02d', '0.0%d', '0.0%d', 'N', 'O', '1996-03-13', "+
			"'1996-02-12', '1996-03-22', 'DELIVER IN PERSON', 'TRUCK', 'egular courts above the')",
			i/4+1, i*7%200000, i%10000, i%4+1, i%50+1, i*13%100000, i%100, i%9, i%8)
	}
	b.WriteString(";\nCOMMIT")
	return b.String()
}

// ordersDelete returns a transaction deleting n orders and their
// lineitems by IN lists of their keys, as TPC-H's RF2 does (n = 150 at
// SF 0.1's 0.1%).
func ordersDelete(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprint(i*9973%600000 + 1)
	}
	in := strings.Join(keys, ", ")
	return "BEGIN;\nDELETE FROM lineitem WHERE l_orderkey IN (" + in + ");\nDELETE FROM orders WHERE o_orderkey IN (" + in + ");\nCOMMIT"
}
