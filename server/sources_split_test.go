package server

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
	"github.com/eddydb/eddy/server/connector/datagen"
	"github.com/eddydb/eddy/server/connector/nexmark"
)

// splitCounts are the worker counts the split-generation tests compare
// with one generator walking the batch.
var splitCounts = []int{1, 2, 3, 4, 7}

// splitSeed returns the seed of a randomized test and logs it.
func splitSeed(t *testing.T) uint64 {
	s := uint64(time.Now().UnixNano())
	t.Logf("seed %d", s)
	return s
}

// TestNexmarkSplitEqualsSerial checks that a Nexmark batch generated in
// n parts (generateSplit over nexmarkBlock) is, row for row and byte for
// byte, the batch one generator produces walking it, with the same next
// position, for every n, every table type and batches that run into the
// end of a bounded source; and that batch after batch the source ends
// where the serial one does.
func TestNexmarkSplitEqualsSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(splitSeed(t), 1))
	cfg := nexmark.DefaultConfig()
	cfg.Seed = r.Uint64()
	for range 15 {
		tt := []nexmark.TableType{nexmark.Person, nexmark.Auction, nexmark.Bid}[r.IntN(3)]
		cfg.NumEvents = 0
		if r.IntN(2) == 0 {
			cfg.NumEvents = 1 + r.Int64N(30_000)
		}
		pos := r.Int64N(20_000)
		size := []int{1, 511, 512, 513, 4096, 8192}[r.IntN(6)]
		for step := 0; step < 4; step++ {
			want, wantPos := serialNexmark(cfg, tt, pos, size)
			for _, n := range splitCounts {
				got, gotPos := generateSplit(n, size, nexmarkBlock(cfg, tt, pos))
				checkSameBatch(t, "nexmark "+tt.String(), n, pos, got, want, gotPos, wantPos)
			}
			pos = wantPos
		}
	}
}

// TestNexmarkRowsOwnTheirDatums checks that the rows of a generated batch,
// cut from shared chunks, each have the capacity of their width: a
// consumer appending to one row (a Map's new column) gets a new array
// rather than overwriting the next row.
func TestNexmarkRowsOwnTheirDatums(t *testing.T) {
	cfg := nexmark.DefaultConfig()
	for _, tt := range []nexmark.TableType{nexmark.Person, nexmark.Auction, nexmark.Bid} {
		rows, _ := generateSplit(1, 3000, nexmarkBlock(cfg, tt, 0))
		want, _ := serialNexmark(cfg, tt, 0, 3000)
		w := len(tt.Columns())
		for i, row := range rows {
			if len(row) != w || cap(row) != w {
				t.Fatalf("%s row %d: len %d cap %d, want %d", tt, i, len(row), cap(row), w)
			}
			_ = append(row, repr.NewInt(-1))
		}
		checkSameBatch(t, "appended "+tt.String(), 1, 0, rows, want, 0, 0)
	}
}

// serialNexmark is runNexmark's loop before the split: one generator
// walking the batch.
func serialNexmark(cfg nexmark.Config, tt nexmark.TableType, from int64, size int) ([]repr.Row, int64) {
	g := nexmark.NewAt(cfg, from)
	var rows []repr.Row
	for len(rows) < size {
		var row repr.Row
		if _, ok := g.NextOf(tt, &row); !ok {
			break
		}
		rows = append(rows, row)
	}
	return rows, g.Position()
}

// TestDatagenSplitEqualsSerial is TestNexmarkSplitEqualsSerial for
// datagen, with a sequence column that ends the source.
func TestDatagenSplitEqualsSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(splitSeed(t), 2))
	cols := []connector.Column{{Name: "id", Type: repr.Int8}, {Name: "v", Type: repr.Varchar(0)},
		{Name: "x", Type: repr.Float8}, {Name: "ts", Type: repr.Timestamp}}
	for range 10 {
		opts := map[string]string{"fields.v.seed": strconv.FormatUint(r.Uint64(), 10)}
		if r.IntN(2) == 0 {
			opts["fields.id.kind"] = "sequence"
			opts["fields.id.start"] = strconv.Itoa(r.IntN(100))
			opts["fields.id.end"] = strconv.Itoa(100 + r.IntN(20_000))
		}
		cfg, err := datagen.ParseOptions(cols, opts)
		if err != nil {
			t.Fatal(err)
		}
		pos := r.Int64N(10_000)
		size := []int{1, 511, 512, 513, 4096, 8192}[r.IntN(6)]
		for step := 0; step < 4; step++ {
			want, wantPos := serialDatagen(cfg, pos, size)
			for _, n := range splitCounts {
				got, gotPos := generateSplit(n, size, datagenBlock(cfg, pos))
				checkSameBatch(t, "datagen", n, pos, got, want, gotPos, wantPos)
			}
			pos = wantPos
		}
	}
}

// serialDatagen is runDatagen's loop before the split.
func serialDatagen(cfg datagen.Config, from int64, size int) ([]repr.Row, int64) {
	g := datagen.NewAt(cfg, from)
	var rows []repr.Row
	for len(rows) < size {
		var row repr.Row
		if !g.Next(&row) {
			break
		}
		rows = append(rows, row)
	}
	return rows, g.Position()
}

// checkSameBatch fails unless got is want, row by row and datum by datum
// (their encodings: a byte-identical batch), and the
// positions agree.
func checkSameBatch(t *testing.T, what string, n int, from int64, got, want []repr.Row, gotPos, wantPos int64) {
	t.Helper()
	if len(got) != len(want) || gotPos != wantPos {
		t.Fatalf("%s from %d on %d workers: %d rows to %d, want %d rows to %d", what, from, n, len(got), gotPos, len(want), wantPos)
	}
	for i := range want {
		if !bytes.Equal(repr.AppendRow(nil, got[i]), repr.AppendRow(nil, want[i])) {
			t.Fatalf("%s from %d on %d workers: row %d = %v, want %v", what, from, n, i, got[i], want[i])
		}
	}
}
