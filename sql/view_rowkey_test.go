package sql

import (
	"fmt"
	"slices"
	"testing"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// viewObject returns the catalog entry of the relation named name.
func (te *testEngine) viewObject(name string) *Object {
	te.t.Helper()
	for _, o := range te.e.cat.byID {
		if o.Name == name {
			return o
		}
	}
	te.t.Fatalf("no relation %s", name)
	return nil
}

// storedKeys returns the keys Pebble holds under the rows of id.
func (te *testEngine) storedKeys(id uint64) [][]byte {
	te.t.Helper()
	var keys [][]byte
	pfx := storage.RowPrefix(id)
	if err := te.e.db.Scan(pfx, func(k, _ []byte) error {
		keys = append(keys, slices.Clone(k[len(pfx):]))
		return nil
	}); err != nil {
		te.t.Fatal(err)
	}
	return keys
}

// checkAgg fails the test unless the view agg equals its query recomputed
// from the table.
func (te *testEngine) checkAgg(view, when string) {
	te.t.Helper()
	got := te.mustRun(`SELECT * FROM ` + view + ` ORDER BY g`)
	want := te.mustRun(`SELECT g, count(*), sum(v), max(v) FROM t GROUP BY g ORDER BY g`)
	if got != want {
		te.t.Fatalf("%s %s:\n%s\nwant\n%s", view, when, got, want)
	}
}

// changeAgg inserts (ids from..from+40), updates and deletes rows of t: groups grow, change
// their max, and one (g = 2) empties.
func (te *testEngine) changeAgg(from int) {
	te.mustRun(fmt.Sprintf(`INSERT INTO t SELECT i, i %% 4, i * 10 FROM generate_series(%d, %d) AS i`, from, from+40))
	te.mustRun(`UPDATE t SET v = v + 1000 WHERE id % 7 = 0`)
	te.mustRun(`DELETE FROM t WHERE g = 2`)
	te.mustRun(`DELETE FROM t WHERE id = (SELECT max(id) FROM t WHERE g = 1)`)
}

// TestGroupKeyedView: a materialized view over a grouped aggregate is
// keyed by its group key: Pebble holds one key per group, the group key's
// encoding (a changed group is one Set), and the view stays equal to its
// query through inserts, updates, deletions that empty a group, a clean
// restart and a crash.
func TestGroupKeyedView(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE t (id int PRIMARY KEY, g int, v int)`)
	te.mustRun(`INSERT INTO t SELECT i, i % 4, i FROM generate_series(1, 40) AS i`)
	te.mustRun(`CREATE MATERIALIZED VIEW agg AS SELECT g, count(*), sum(v), max(v) FROM t GROUP BY g`)
	obj := te.viewObject("agg")
	if !slices.Equal(obj.RowKey, []int{0}) || !slices.Equal(te.e.colls[obj.ID].KeyCols(), []int{0}) {
		t.Fatalf("RowKey %v, collection key %v; want [0]", obj.RowKey, te.e.colls[obj.ID].KeyCols())
	}
	if obj.ownKey == nil || !slices.Equal(obj.ownKey.cols, []int{0}) {
		t.Fatalf("the view's own key (point reads' path) is not its group key: %+v", obj.ownKey)
	}
	te.checkAgg("agg", "after backfill")
	te.changeAgg(100)
	te.checkAgg("agg", "after changes")
	te.restart()
	te.checkAgg("agg", "after a restart")
	te.mustRun(`INSERT INTO t VALUES (500, 2, 5), (501, NULL, 7), (502, NULL, 9)`)
	te.crash()
	te.checkAgg("agg", "after a crash")
	te.mustRun(`DELETE FROM t WHERE id = 502`)
	te.checkAgg("agg", "after a crash and a delete")
	keys := te.storedKeys(obj.ID)
	var want [][]byte
	for _, g := range []repr.Datum{repr.NewInt(0), repr.NewInt(1), repr.NewInt(2), repr.NewInt(3), repr.Null} {
		want = append(want, repr.AppendKey(nil, g))
	}
	slices.SortFunc(want, func(a, b []byte) int { return slices.Compare(a, b) })
	if te.e.Checkpoint() != nil || !slices.EqualFunc(te.storedKeys(obj.ID), want, slices.Equal) {
		t.Fatalf("stored keys %x, want one per group %x (before the checkpoint %x)", te.storedKeys(obj.ID), want, keys)
	}
}

// TestGroupKeyedViewOlderCatalog: a grouped view created before views
// were keyed by their groups (no RowKey; its rows stored under whole-row
// keys) restarts as the multiset it is and is maintained as before.
func TestGroupKeyedViewOlderCatalog(t *testing.T) {
	te := newTestEngine(t)
	te.mustRun(`CREATE TABLE t (id int PRIMARY KEY, g int, v int)`)
	te.mustRun(`INSERT INTO t SELECT i, i % 4, i FROM generate_series(1, 40) AS i`)
	keyViewsByGroup = false
	defer func() { keyViewsByGroup = true }()
	te.mustRun(`CREATE MATERIALIZED VIEW old AS SELECT g, count(*), sum(v), max(v) FROM t GROUP BY g`)
	keyViewsByGroup = true
	te.mustRun(`CREATE MATERIALIZED VIEW agg AS SELECT g, count(*), sum(v), max(v) FROM t GROUP BY g`)
	te.changeAgg(100)
	te.restart()
	old := te.viewObject("old")
	if old.RowKey != nil || te.e.colls[old.ID].KeyCols() != nil {
		t.Fatalf("an older view restarts keyed: RowKey %v, collection key %v", old.RowKey, te.e.colls[old.ID].KeyCols())
	}
	te.checkAgg("old", "after a restart")
	te.changeAgg(200)
	te.crash()
	te.checkAgg("old", "after a crash")
	te.checkAgg("agg", "after a crash")
}

// TestPlainInt: the fast path of text integer parameters and COPY fields
// agrees with ParseText where it answers, and leaves the rest to it.
func TestPlainInt(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int32
		ok    bool
	}{
		{"0", 64, true}, {"-7", 32, true}, {"123456789012345678", 64, true},
		{"32767", 16, true}, {"-32768", 16, true}, {"32768", 16, false},
		{"2147483648", 32, false}, {"-2147483648", 32, true},
		{"1234567890123456789", 64, false}, {"+1", 64, false}, {" 1", 64, false},
		{"", 64, false}, {"-", 64, false}, {"1e3", 64, false}, {"--1", 64, false},
	} {
		i, ok := plainInt([]byte(c.text), c.width)
		if si, sok := plainInt(c.text, c.width); si != i || sok != ok { // COPY's fields
			t.Errorf("plainInt(%q) on a string: %d %v, on bytes %d %v", c.text, si, sok, i, ok)
		}
		if ok != c.ok {
			t.Errorf("plainInt(%q, %d): ok %v, want %v", c.text, c.width, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		want, err := repr.ParseText(c.text, repr.T{Family: repr.FamInt, Width: c.width}, nil)
		if err != nil || want.Int() != i {
			t.Errorf("plainInt(%q) = %d, ParseText %v %v", c.text, i, want, err)
		}
	}
}
