package tests

import (
	"flag"
	"os"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// seedFlag replays a randomized test (crash, oracle); 0 picks a new seed.
var seedFlag = flag.Int64("seed", 0, "seed of the randomized tests (0: derive from the clock)")

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(harness.Main(m))
}

// testSeed returns the seed to use and logs it so a failure can be replayed.
func testSeed(t *testing.T) int64 {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -seed %d)", seed, seed)
	return seed
}
