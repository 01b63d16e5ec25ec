package sql

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDMLPointWrites runs the same random transactions of UPDATEs and
// DELETEs (by a key prefix, by the whole key, by other columns) on two
// engines, one reading only the rows under the key prefix a WHERE clause
// fixes (liveRowsWhere), one reading every row, and checks after each that
// both tables agree and that the key path ran. Transactions interleave
// inserts, so pending changes meet the prefix reads.
func TestDMLPointWrites(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	fast, slow := newTestEngine(t), newTestEngine(t)
	both := func(sql string) {
		t.Helper()
		disablePointReads = false
		a := fast.run(sql)
		disablePointReads = true
		b := slow.run(sql)
		disablePointReads = false
		if a != b {
			t.Fatalf("seed %d: %s\nwith key reads:\n%s\nwith full reads:\n%s", seed, sql, a, b)
		}
	}
	both("CREATE TABLE t (a int, b int, v int, PRIMARY KEY (a, b))")
	before := pointReadCount.Load()
	for step := range 60 {
		var stmts []string
		for range 1 + rng.IntN(5) {
			a, b, v := rng.IntN(6), rng.IntN(6), rng.IntN(100)
			switch rng.IntN(6) {
			case 0, 1:
				stmts = append(stmts, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d) ON CONFLICT DO NOTHING", a, b, v))
			case 2:
				stmts = append(stmts, fmt.Sprintf("UPDATE t SET v = v + %d WHERE a = %d AND b = %d", v, a, b))
			case 3:
				stmts = append(stmts, fmt.Sprintf("UPDATE t SET v = %d WHERE a = %d AND v < 50", v, a))
			case 4:
				stmts = append(stmts, fmt.Sprintf("DELETE FROM t WHERE a = %d AND b >= %d", a, b))
			default:
				stmts = append(stmts, fmt.Sprintf("DELETE FROM t WHERE v = %d", v))
			}
		}
		body := strings.Join(stmts, "; ")
		if step%2 == 0 {
			body = "BEGIN; " + body + "; COMMIT"
		}
		both(body)
		both("SELECT * FROM t ORDER BY a, b")
	}
	if pointReadCount.Load() == before {
		t.Fatal("no UPDATE or DELETE read by key prefix")
	}
}
