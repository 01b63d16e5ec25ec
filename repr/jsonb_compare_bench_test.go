package repr

import (
	"fmt"
	"slices"
	"testing"
)

// jsonbBenchPairs are typical jsonb values compared with one another:
// small objects, arrays and scalars, pairs that differ early, late, or
// not at all (distinct texts of equal values do not occur: the text is
// canonical).
var jsonbBenchPairs = [][2]string{
	{`{"a": 1, "b": "x"}`, `{"a": 1, "b": "y"}`},
	{`{"id": 17, "name": "alice", "tags": ["a", "b"]}`, `{"id": 17, "name": "alice", "tags": ["a", "c"]}`},
	{`{"id": 17}`, `{"id": 18, "x": null}`},
	{`[1, 2, 3]`, `[1, 2, 4]`},
	{`[1.5, "two", true]`, `[1.50, "two", false]`},
	{`42`, `43`},
	{`"hello"`, `"help"`},
	{`true`, `null`},
	{`{"k": {"nested": [1, {"deep": "v"}]}}`, `{"k": {"nested": [1, {"deep": "w"}]}}`},
}

// BenchmarkCompareJSONB is Compare over typical jsonb values (ns and
// allocations per call).
func BenchmarkCompareJSONB(b *testing.B) {
	var ds [][2]Datum
	for _, p := range jsonbBenchPairs {
		x, err := ParseJSONB(p[0])
		if err != nil {
			b.Fatal(err)
		}
		y, err := ParseJSONB(p[1])
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, [2]Datum{x, y})
	}
	b.ReportAllocs()
	b.ResetTimer()
	sink := 0
	for i := range b.N {
		p := ds[i%len(ds)]
		sink += Compare(p[0], p[1])
	}
	_ = sink
}

// BenchmarkOrderByJSONB sorts 1,000 rows by a jsonb column with
// CompareRows, as ORDER BY does (per sort).
func BenchmarkOrderByJSONB(b *testing.B) {
	rows := make([]Row, 1000)
	for i := range rows {
		var text string
		switch i % 4 {
		case 0:
			text = fmt.Sprintf(`{"id": %d, "name": "user%d", "score": %d.%d}`, (i*7919)%1000, i%13, i%97, i%10)
		case 1:
			text = fmt.Sprintf(`[%d, "s%d", %t]`, (i*31)%50, i%7, i%3 == 0)
		case 2:
			text = fmt.Sprint((i * 7919) % 1000)
		default:
			text = fmt.Sprintf(`"str%d"`, (i*7919)%1000)
		}
		d, err := ParseJSONB(text)
		if err != nil {
			b.Fatal(err)
		}
		rows[i] = Row{d, NewInt(int64(i))}
	}
	work := make([]Row, len(rows))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		copy(work, rows)
		slices.SortFunc(work, CompareRows)
	}
}
