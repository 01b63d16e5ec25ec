package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/eddydb/eddy/bench/nexmark/queries"
	"github.com/eddydb/eddy/server"
	"github.com/eddydb/eddy/sql"
)

// Result is one query's measurement (JSON between child and parent).
type Result struct {
	Query         string
	Error         string  `json:",omitempty"`
	Events        int64   // measured events (all types)
	WallSec       float64 // measured phase
	CPUSec        float64 // user+sys over the measured phase
	EventsPerSec  float64
	CPUPerMillion float64 // CPU seconds per million events
	Cores         float64 // CPUSec / WallSec
	PerCore       float64 // events per CPU second
	PeakRSSMB     int64
	ViewRows      int64
	SetupSec      float64          // CREATE MATERIALIZED VIEW (and setup) wall time
	Late          map[string]int64 `json:",omitempty"`
	// SpilledOperators and SpilledCollections count the operator states
	// and the tables/views whose state lives in the store at the end
	// (past -memory-limit's budget).
	SpilledOperators, SpilledCollections int `json:",omitempty"`
	// CountError is why the view's rows could not be counted.
	CountError string   `json:",omitempty"`
	Samples    []Sample `json:",omitempty"`
}

// Sample is one -memcheck observation: the RSS, the Go runtime's memory
// not returned to the OS (heap, stacks, metadata: what its soft memory
// limit bounds; RSS less it is memory outside Go), the heap's objects,
// and Pebble's block cache and memtables (outside Go: StoreMB).
type Sample struct {
	Events                       int64
	RSSMB, GoMB, HeapMB, StoreMB int64
}

func (r Result) line() string {
	if r.Error != "" {
		return fmt.Sprintf("%-8s error: %s", r.Query, r.Error)
	}
	return fmt.Sprintf("%-8s %9s ev/s  %6.2f CPU-s/M  %.2f cores  %9s ev/s/core  %5d MB  rows %d%s%s",
		r.Query, human(r.EventsPerSec), r.CPUPerMillion, r.Cores, human(r.PerCore), r.PeakRSSMB, r.ViewRows, lateNote(r.Late), r.spillNote()+r.countNote())
}

func (r Result) spillNote() string {
	if r.SpilledOperators == 0 && r.SpilledCollections == 0 {
		return ""
	}
	return fmt.Sprintf(" spilled %d operators, %d collections", r.SpilledOperators, r.SpilledCollections)
}

func (r Result) countNote() string {
	if r.CountError == "" {
		return ""
	}
	return " count failed: " + r.CountError
}

func (r Result) note() string {
	return strings.TrimSpace(lateNote(r.Late) + r.spillNote() + r.countNote())
}

func lateNote(late map[string]int64) string {
	var parts []string
	for src, n := range late {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s:%d", src, n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " late " + strings.Join(parts, ",")
}

// errorLog records the first error-level record the server logs (a source
// reader that stopped), so the wait loop can give up instead of hanging.
type errorLog struct {
	mu    sync.Mutex
	first string
}

func (e *errorLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (e *errorLog) Handle(_ context.Context, r slog.Record) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == "" {
		var b strings.Builder
		b.WriteString(r.Message)
		r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
		e.first = b.String()
	}
	return nil
}
func (e *errorLog) WithAttrs([]slog.Attr) slog.Handler { return e }
func (e *errorLog) WithGroup(string) slog.Handler      { return e }
func (e *errorLog) get() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.first
}

// runQuery runs one query on a fresh in-process server.
func runQuery(suite *queries.Suite, q queries.Query, o options) Result {
	res := Result{Query: q.Name}
	if err := measure(suite, q, o, &res); err != nil {
		res.Error = strings.ReplaceAll(err.Error(), "\n", " ")
	}
	return res
}

func measure(suite *queries.Suite, q queries.Query, o options, res *Result) error {
	dir, err := os.MkdirTemp("", "eddy-nexmark-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var limit int64
	if o.memoryLimit != "" {
		if limit, err = server.ParseByteSize(o.memoryLimit); err != nil {
			return fmt.Errorf("-memory-limit: %w", err)
		}
		server.ApplyMemoryLimit(limit)
	}
	elog := &errorLog{}
	log := slog.New(elog)
	srv, err := server.Start(server.Config{Listen: "127.0.0.1:0", DataDir: dir, Version: "nexmark", Logger: log,
		MemoryLimit: limit, Workers: o.workers})
	if err != nil {
		return err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.ConnString()+"?sslmode=disable")
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	total := o.warmup + o.events
	for _, name := range []string{"person", "auction", "bid"} {
		if _, err := conn.Exec(ctx, queries.BoundedSource(suite.Sources[name], total, o.rate)); err != nil {
			return fmt.Errorf("creating source %s: %w", name, err)
		}
	}
	start := time.Now()
	for _, s := range append(append([]string(nil), q.Setup...), q.View) {
		if _, err := conn.Exec(ctx, s); err != nil {
			return err
		}
	}
	res.SetupSec = time.Since(start).Seconds()
	w := &waiter{e: srv.Engine(), srcs: q.Sources, total: total, elog: elog, stall: o.stall, maxRSS: o.maxRSS}
	if w.maxRSS <= 0 {
		w.maxRSS = physicalMemory() >> 21 // half, in MB
	}
	if err := w.run(o, res); err != nil {
		return err
	}
	res.SpilledOperators = srv.Engine().SpilledOperators()
	res.SpilledCollections = srv.Engine().SpilledCollections()
	if res.Late, err = srv.Engine().ViewLate(q.Name); err != nil {
		return err
	}
	// The measurement stands even when the count cannot be read (e.g.
	// 53200 under a small -memory-limit): the note says why.
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+q.Name).Scan(&res.ViewRows); err != nil {
		res.ViewRows, res.CountError = -1, err.Error()
	}
	return nil
}

// waiter follows the ingestion of a query's sources.
type waiter struct {
	e     *sql.Engine
	srcs  []string
	total int64
	elog  *errorLog
	stall time.Duration
	// maxRSS is the RSS (MB) at which the query is abandoned.
	maxRSS int64
}

// progress returns the rows ingested so far and in all, over the sources.
func (w *waiter) progress() (done, all int64, err error) {
	for _, name := range w.srcs {
		p, err := w.e.SourceProgressOf(name)
		if err != nil {
			return 0, 0, err
		}
		t := queries.TableType(name)
		var pos int64
		if len(p.Position) == 8 {
			pos = int64(binary.BigEndian.Uint64(p.Position))
		}
		done += queries.CountOf(t, pos)
		all += queries.CountOf(t, w.total)
	}
	return done, all, nil
}

// run polls progress, marks the warm-up boundary and the end, and fills in
// the measurements.
func (w *waiter) run(o options, res *Result) error {
	var (
		warmed          bool
		t0              time.Time
		cpu0            time.Duration
		done0, lastDone int64
		lastMove        = time.Now()
		nextSample      int64
		stopProfile     = func() {}
	)
	for {
		done, all, err := w.progress()
		if err != nil {
			return err
		}
		if all == 0 {
			return fmt.Errorf("query reads no Nexmark source")
		}
		events := done * w.total / all // event-equivalent progress
		if !warmed && events >= o.warmup {
			warmed, t0, cpu0, done0 = true, time.Now(), cpuTime(), done
			if stopProfile, err = startProfile(o.cpuprofile, res.Query); err != nil {
				return err
			}
		}
		if o.memcheck > 0 && events >= nextSample {
			res.Samples = append(res.Samples, sampleMem(events, w.e.StoreMemory()))
			w.progressLine(res, warmed, cpu0)
			w.heapProfile(o, res.Query, fmt.Sprint(events))
			nextSample = (events/o.memcheck + 1) * o.memcheck
		}
		if done == all {
			wall, cpu := time.Since(t0).Seconds(), (cpuTime() - cpu0).Seconds()
			stopProfile()
			res.fill((all-done0)*w.total/all, wall, cpu)
			return nil
		}
		if msg := w.elog.get(); msg != "" {
			return fmt.Errorf("server error: %s", msg)
		}
		if rss := server.ResidentBytes() >> 20; rss > w.maxRSS {
			return fmt.Errorf("stopped at %d of %d events: RSS %d MB above -maxrss %d MB", events, w.total, rss, w.maxRSS)
		}
		if done != lastDone {
			lastDone, lastMove = done, time.Now()
		} else if time.Since(lastMove) > w.stall {
			w.heapProfile(o, res.Query, "stall")
			return fmt.Errorf("stalled at %d of %d rows", done, all)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// fill computes the derived figures.
func (r *Result) fill(events int64, wall, cpu float64) {
	r.Events, r.WallSec, r.CPUSec = events, wall, cpu
	r.EventsPerSec = float64(events) / wall
	r.CPUPerMillion = cpu / (float64(events) / 1e6)
	r.Cores = cpu / wall
	r.PerCore = float64(events) / cpu
	r.PeakRSSMB = peakRSS() >> 20
}

// progressLine prints the last -memcheck sample to stderr as it is
// taken, with the CPU seconds of the measured phase so far, so that a
// run stopped before its end still tells how far it got.
func (w *waiter) progressLine(res *Result, warmed bool, cpu0 time.Duration) {
	s := res.Samples[len(res.Samples)-1]
	cpu := 0.0
	if warmed {
		cpu = (cpuTime() - cpu0).Seconds()
	}
	fmt.Fprintf(os.Stderr, "%s at %d events: RSS %d MB (Go %d, store %d), live heap %d MB, peak RSS %d MB, measured CPU %.1f s\n",
		res.Query, s.Events, s.RSSMB, s.GoMB, s.StoreMB, s.HeapMB, peakRSS()>>20, cpu)
}

// heapProfile writes -heapprofile's DIR/QUERY-TAG.heap, if asked for.
func (w *waiter) heapProfile(o options, query, tag string) {
	if o.heapprofile == "" {
		return
	}
	if err := os.MkdirAll(o.heapprofile, 0o755); err != nil {
		return
	}
	writeHeapProfile(filepath.Join(o.heapprofile, query+"-"+tag+".heap"))
}

func startProfile(dir, name string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		writeHeapProfile(filepath.Join(dir, name+".heap"))
	}, nil
}

// writeHeapProfile writes the live heap at the end of the measured phase
// (after a collection), so the state a query keeps can be read with
// `go tool pprof -sample_index=inuse_space`. Errors only lose the profile.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	runtime.GC()
	_ = pprof.WriteHeapProfile(f)
}
