package tpch

import (
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// watchdog polls the Eddy server's resident memory and kills the server
// when it passes the limit: a view that forms a cross product can grow the
// server by gigabytes a second, and the machine is shared. The statement
// that was running then fails, and the test reports the phase.
type watchdog struct {
	limit    int64 // bytes
	server   *harness.Server
	phase    atomic.Value // string: what the test was doing
	exceeded atomic.Int64 // the RSS that tripped the limit, 0 if none
	peak     atomic.Int64 // the highest VmHWM seen
	stop     chan struct{}
	done     sync.WaitGroup
}

// rssLimit is EDDY_TPCH_MAX_RSS_MB (default 3072) in bytes.
func rssLimit() int64 {
	mb := int64(3072)
	if v, err := strconv.ParseInt(os.Getenv("EDDY_TPCH_MAX_RSS_MB"), 10, 64); err == nil && v > 0 {
		mb = v
	}
	return mb << 20
}

// startWatchdog watches s until the test ends.
func startWatchdog(t *testing.T, s *harness.Server, limit int64) *watchdog {
	w := &watchdog{limit: limit, server: s, stop: make(chan struct{})}
	w.phase.Store("start")
	pid := s.Pid()
	w.done.Add(1)
	go w.run(pid)
	t.Cleanup(func() { close(w.stop); w.done.Wait() })
	return w
}

// run polls every 50 ms.
func (w *watchdog) run(pid int) {
	defer w.done.Done()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
		rss, hwm, err := ProcMemory(pid)
		if err != nil {
			return // the process is gone
		}
		if hwm > w.peak.Load() {
			w.peak.Store(hwm)
		}
		if rss > w.limit {
			w.exceeded.Store(rss)
			w.server.Kill()
			return
		}
	}
}

// setPhase records what the test is doing, for the report.
func (w *watchdog) setPhase(p string) { w.phase.Store(p) }

// check fails the test if the watchdog killed the server.
func (w *watchdog) check(t *testing.T) {
	t.Helper()
	if rss := w.exceeded.Load(); rss > 0 {
		t.Fatalf("eddy's RSS reached %d MB (limit %d MB, EDDY_TPCH_MAX_RSS_MB) during %s; the server was killed",
			rss>>20, w.limit>>20, w.phase.Load())
	}
}
