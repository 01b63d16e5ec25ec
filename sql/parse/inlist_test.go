package parse

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// withFastInLists runs f with the front reading IN lists of any length
// in inputs of any length.
func withFastInLists(f func()) {
	defer func(n, b int) { inListMin, inListMinBytes = n, b }(inListMin, inListMinBytes)
	inListMin, inListMinBytes = 1, 0
	f()
}

// TestInListEquivalence parses random statements with IN lists, some
// the front reads and some it leaves to pg_query (a literal it does not
// read, a list inside a partition bound), and requires pg_query's trees,
// texts and offsets, or pg_query's error at pg_query's position.
func TestInListEquivalence(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	withFastInLists(func() {
		took := 0
		for range 400 {
			sql := randomInListBatch(r)
			stmts, err := Parse(sql)
			_, perr := parsePlain(sql, sql)
			if (err != nil) != (perr != nil) || err != nil && err.Error() != perr.Error() {
				t.Fatalf("Parse error %v, pg_query error %v\n%s", err, perr, sql)
			}
			if err != nil {
				continue
			}
			checkSameAsPgQuery(t, sql, stmts)
			toks, _ := lex(sql)
			p := &front{src: sql, toks: toks}
			for _, seg := range split(sql, toks) {
				took += len(p.inLists(seg, []byte(sql)))
			}
		}
		if took < 200 {
			t.Errorf("the front read only %d IN lists in 400 batches", took)
		}
	})
}

// randomInListBatch returns statements with IN lists of random literals,
// spacing and comments, and now and then a shape the front must leave to
// pg_query or a syntax error.
func randomInListBatch(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(pickOf(r, "BEGIN;\n", "", "SELECT 1;\n"))
	for range 1 + r.IntN(3) {
		list := func() string {
			var l strings.Builder
			l.WriteString(pickOf(r, "IN", "in", "NOT IN", "not  in") + pickOf(r, " (", "(", "\n( "))
			for j := range 1 + r.IntN(6) {
				if j > 0 {
					l.WriteString(pickOf(r, ", ", ",", " , ", ", -- c\n", ",/* c */"))
				}
				l.WriteString(randomLiteral(r))
			}
			l.WriteString(pickOf(r, ")", " )", "\n)"))
			return l.String()
		}
		switch r.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "SELECT * FROM t WHERE a %s AND b %s", list(), list())
		case 1:
			fmt.Fprintf(&b, "SELECT (x %s) AS y, 'ü' FROM t WHERE z IN (SELECT a FROM u WHERE a %s)", list(), list())
		case 2:
			fmt.Fprintf(&b, "CREATE TABLE p1 PARTITION OF p FOR VALUES %s", list())
		case 3:
			fmt.Fprintf(&b, "SELECT * FROM t WHERE a %s %s", list(), pickOf(r, "ORDER BY", "GROUP", "AND (", "x"))
		default:
			fmt.Fprintf(&b, "%s FROM lineitem WHERE l_orderkey %s", pickOf(r, "DELETE", "delete"), list())
		}
		b.WriteString(pickOf(r, ";\n", " ;", ";", "; -- done\n"))
	}
	b.WriteString(pickOf(r, "COMMIT", "COMMIT;", "commit;\n", ""))
	return b.String()
}

// TestInListCheck checks the pre-check's words: IN then a parenthesis,
// not a word ending in "in".
func TestInListCheck(t *testing.T) {
	defer func(b int) { inListMinBytes = b }(inListMinBytes)
	inListMinBytes = 0
	for sql, want := range map[string]bool{
		"DELETE FROM t WHERE a IN (1, 2)": true, "select * from t where a in\n(1)": true,
		"SELECT min(a) FROM t": false, "SELECT join (1)": false, "SELECT in_x(1)": false,
	} {
		if got := mayHaveLongInList(sql); got != want {
			t.Errorf("%q: %v, want %v", sql, got, want)
		}
	}
}
