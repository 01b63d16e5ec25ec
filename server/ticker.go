package server

import (
	"log/slog"
	"os"
	"time"

	"github.com/eddydb/eddy/sql"
)

// tickInterval is how often the ticker advances wall-clock time through
// the engine: the lag with which a temporal filter's rows enter and leave
// a view when nothing is written (writes advance it too).
const tickInterval = 100 * time.Millisecond

// releaseTicks is how many ticks apart the ticker closes the store
// iterators that spilled reads keep idle (a second: they pin files a
// compaction replaced until then).
const releaseTicks = 10

// ticker calls Engine.Tick periodically so that views with temporal
// filters follow the wall clock without writes. It is the server's only
// source of time passing for the engine (sql reads the clock, but only
// when something asks it to assign a logical time). It does nothing while
// no view has a temporal filter, but every second releases the store
// iterators that spilled reads keep idle (Engine.ReleaseIdleReads) and,
// under a memory budget, fits the soft memory limit to the memory outside
// the Go runtime (memoryFit).
type ticker struct {
	stop chan struct{}
	done chan struct{}
	// mem fits the soft limit to the memory budget (nil: no budget, or
	// GOMEMLIMIT set: the limit is left alone).
	mem *memoryFit
}

// startTicker starts ticking e every interval until stop, fitting the
// soft memory limit to budget (0: never).
func startTicker(e *sql.Engine, interval time.Duration, budget int64, log *slog.Logger) *ticker {
	t := &ticker{stop: make(chan struct{}), done: make(chan struct{})}
	if budget > 0 && os.Getenv("GOMEMLIMIT") == "" {
		t.mem = &memoryFit{budget: budget, storeBound: sql.StoreMemoryBound(sql.Options{MemoryLimit: budget})}
	}
	go t.run(e, interval, log)
	return t
}

func (t *ticker) run(e *sql.Engine, interval time.Duration, log *slog.Logger) {
	defer close(t.done)
	tk := time.NewTicker(interval)
	defer tk.Stop()
	failing := false
	for n := 1; ; n++ {
		select {
		case <-t.stop:
			return
		case <-tk.C:
		}
		err := runRecovered(log, "the ticker", func() error { return t.tick(e, n) })
		if err != nil && !failing {
			log.Error("advancing temporal filters failed", "err", err)
		}
		failing = err != nil
	}
}

// tick is one tick of run: the periodic releases every releaseTicks, then
// Engine.Tick if a view has a temporal filter.
func (t *ticker) tick(e *sql.Engine, n int) error {
	if n%releaseTicks == 0 {
		e.ReleaseIdleReads()
		if t.mem != nil {
			t.mem.fit(e.StoreMemory())
		}
	}
	if !e.HasTemporal() {
		return nil
	}
	return e.Tick()
}

// close stops the ticker and waits for a Tick in progress to finish.
func (t *ticker) close() {
	close(t.stop)
	<-t.done
}
