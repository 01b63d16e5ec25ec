package storage

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCrashConsistency simulates power loss in the middle of concurrent
// commits (vfs.NewCrashableMem keeps only synced data, plus a random part
// of unsynced data) and checks on recovery that
//   - every batch is all or nothing,
//   - every batch whose Commit returned before the crash is present,
//   - each writer's batches survive as a prefix of the order it committed.
func TestCrashConsistency(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t), 2))
	for round := 0; round < 8; round++ {
		crashRound(t, rng, round)
	}
}

const (
	crashWriters  = 4
	crashKeysEach = 5
)

func crashRound(t *testing.T, rng *rand.Rand, round int) {
	fs := vfs.NewCrashableMem()
	opts := quietOptions()
	opts.FS = fs
	db, err := Open("/data", opts)
	if err != nil {
		t.Fatal(err)
	}
	var acked [crashWriters]atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range crashWriters {
		acked[g].Store(-1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			crashWriter(t, db, g, &acked[g], stop)
		}()
	}
	time.Sleep(time.Duration(5+rng.IntN(30)) * time.Millisecond)
	var before [crashWriters]int64
	for g := range before {
		before[g] = acked[g].Load()
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(rng.Uint64(), 0))})
	close(stop)
	wg.Wait()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	opts.FS = crashed
	rec, err := Open("/data", opts)
	if err != nil {
		t.Fatalf("round %d: reopening after crash: %v", round, err)
	}
	defer func() { _ = rec.Close() }()
	for g := range crashWriters {
		checkWriter(t, rec, round, g, before[g])
	}
}

// crashWriter commits batch i = 0, 1, ... each setting crashKeysEach row
// keys of collection g and the meta key last/g = i, until stop closes.
func crashWriter(t *testing.T, db *DB, g int, acked *atomic.Int64, stop chan struct{}) {
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	for i := int64(0); ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		for j := range crashKeysEach {
			b.Set(RowKey(uint64(g), fmt.Appendf(nil, "%08d/%d", i, j)), []byte("v"))
		}
		b.Set(MetaKey(fmt.Sprintf("last/%d", g)), []byte(strconv.FormatInt(i, 10)))
		if err := db.Commit(b); err != nil {
			t.Errorf("writer %d batch %d: %v", g, i, err)
			return
		}
		acked.Store(i)
		b.Reset()
	}
}

// checkWriter verifies writer g's batches after recovery.
func checkWriter(t *testing.T, db *DB, round, g int, ackedBefore int64) {
	counts := map[int64]int{}
	err := db.Scan(RowPrefix(uint64(g)), func(k, _ []byte) error {
		i, err := strconv.ParseInt(string(k[9:17]), 10, 64)
		counts[i]++
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(counts))
	for i, c := range counts {
		if c != crashKeysEach || i >= n {
			t.Fatalf("round %d writer %d: batch %d has %d of %d keys (%d batches survived)", round, g, i, c, crashKeysEach, n)
		}
	}
	if n <= ackedBefore {
		t.Fatalf("round %d writer %d: batch %d was acknowledged before the crash but lost (%d survived)", round, g, ackedBefore, n)
	}
	v, ok, err := db.Get(MetaKey(fmt.Sprintf("last/%d", g)))
	if err != nil || (ok != (n > 0)) || (ok && string(v) != strconv.FormatInt(n-1, 10)) {
		t.Fatalf("round %d writer %d: last = %q (%v %v), want %d", round, g, v, ok, err, n-1)
	}
	t.Logf("round %d writer %d: %d acknowledged before crash, %d survived", round, g, ackedBefore+1, n)
}
