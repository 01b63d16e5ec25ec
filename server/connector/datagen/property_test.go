package datagen

import (
	"flag"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the randomized tests (0: from the clock)")

// testSeed returns the seed of a randomized test and logs it.
func testSeed(t *testing.T) uint64 {
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", s, s)
	return s
}

// allTypes has one column of every supported type.
var allTypes = []Column{
	{Name: "i2", Type: repr.Int2}, {Name: "i4", Type: repr.Int4}, {Name: "i8", Type: repr.Int8},
	{Name: "f4", Type: repr.Float4}, {Name: "f8", Type: repr.Float8},
	{Name: "n", Type: repr.Numeric}, {Name: "np", Type: repr.NumericPS(6, 3)},
	{Name: "v", Type: repr.Varchar(0)}, {Name: "v5", Type: repr.Varchar(5)},
	{Name: "t", Type: repr.Text}, {Name: "c", Type: repr.Char(4)}, {Name: "b", Type: repr.Bool},
	{Name: "ts", Type: repr.Timestamp}, {Name: "tz", Type: repr.TimestampTZ}, {Name: "d", Type: repr.Date},
}

// TestResumeEqualsTail checks, for random seeds, sequence bounds and
// offsets, that NewAt(cfg, k) yields the tail of New(cfg) from row k.
func TestResumeEqualsTail(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 1))
	for range 30 {
		opts := map[string]string{"fields.i8.kind": "sequence",
			"fields.i8.start": strconv.Itoa(r.IntN(1000)), "fields.i8.end": strconv.Itoa(1000 + r.IntN(300))}
		for _, c := range allTypes {
			if c.Name == "i8" {
				continue
			}
			opts["fields."+c.Name+".seed"] = strconv.FormatUint(r.Uint64(), 10)
		}
		cfg, err := ParseOptions(allTypes, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := collect(New(cfg), 2000)
		k := r.Int64N(int64(len(want)) + 5)
		got := collect(NewAt(cfg, k), 2000)
		if int64(len(got)) != max(int64(len(want))-k, 0) {
			t.Fatalf("%v: NewAt(%d) gave %d rows, New gave %d", opts, k, len(got), len(want))
		}
		for i := range got {
			if repr.CompareRows(got[i], want[k+int64(i)]) != 0 {
				t.Fatalf("%v: row %d = %v, want %v", opts, k+int64(i), got[i], want[k+int64(i)])
			}
		}
	}
}

// collect returns up to n rows of g, copied.
func collect(g *Generator, n int) []repr.Row {
	var out []repr.Row
	var row repr.Row
	for range n {
		if !g.Next(&row) {
			break
		}
		out = append(out, append(repr.Row(nil), row...))
	}
	return out
}

// TestValuesInRange generates rows with random bounds and checks every
// value lies within them, has its column's type, and that the ends of
// small ranges are reached (uniform over [min, max], both inclusive).
func TestValuesInRange(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 2))
	lo, hi := -r.Int64N(20), r.Int64N(20)
	opts := map[string]string{
		"fields.i4.min": strconv.FormatInt(lo, 10), "fields.i4.max": strconv.FormatInt(hi, 10),
		"fields.f8.min": "-2.5", "fields.f8.max": "2.5", "fields.np.min": "-1", "fields.np.max": "1",
		"fields.v.length": "7", "fields.ts.max_past": "10 seconds", "fields.d.max_past": "2 days",
	}
	cfg, err := ParseOptions(allTypes, opts)
	if err != nil {
		t.Fatal(err)
	}
	g := New(cfg)
	var row repr.Row
	seen := map[int64]bool{}
	var trues int
	for range 20_000 {
		g.Next(&row)
		checkTypes(t, row)
		i4 := row[1].Int()
		seen[i4] = true
		if i4 < lo || i4 > hi || row[0].Int() < 0 || row[0].Int() > 32767 {
			t.Fatalf("ints out of range: %v", row)
		}
		if f := row[4].Float(); f < -2.5 || f > 2.5 {
			t.Fatalf("float %v out of [-2.5, 2.5]", f)
		}
		if n, _ := row[6].Numeric().Float64(); n < -1 || n > 1 || row[6].Numeric().Exponent != -3 {
			t.Fatalf("numeric %v out of [-1, 1] at scale 3", row[6])
		}
		if len(row[7].Text()) != 7 || len(row[8].Text()) > 5 || len(row[10].Text()) != 4 {
			t.Fatalf("string lengths: %v", row)
		}
		if ts := repr.TimestampToTime(row[12].Micros()); ts.After(baseTime) || ts.Before(baseTime.Add(-10*time.Second)) {
			t.Fatalf("timestamp %v outside [base-10s, base]", ts)
		}
		if d := row[14].Date(); d < 8764 || d > 8766 { // 2024-01-01 is day 8766
			t.Fatalf("date %v outside [base-2 days, base]", row[14])
		}
		if row[11].Bool() {
			trues++
		}
	}
	if int64(len(seen)) != hi-lo+1 {
		t.Errorf("saw %d distinct values of [%d, %d]", len(seen), lo, hi)
	}
	if trues < 9_500 || trues > 10_500 {
		t.Errorf("%d of 20000 booleans true", trues)
	}
}

// baseTime is the default basetime.
var baseTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// checkTypes checks each datum has its column's family.
func checkTypes(t *testing.T, row repr.Row) {
	for i, d := range row {
		if d.Family() != allTypes[i].Type.Family {
			t.Fatalf("column %s: %v is not a %s", allTypes[i].Name, d, allTypes[i].Type.Name())
		}
	}
}
