package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/eddydb/eddy/server"
	"github.com/eddydb/eddy/tests/tpch"
)

// serve is the child side (-serve DIR): it starts Eddy on DIR as the eddy
// binary does (same garbage-collector policy), prints "ready DSN", and
// answers the parent's commands on stdin until stdin closes:
//
//	heap        -> "heap N": the live heap in bytes after a full collection.
//	profile X   -> "profiling": a CPU profile into FILE.X.pprof (with
//	               -cpuprofile FILE.pprof; none without), until
//	unprofile   -> "unprofiled".
//
// A CPU profile (-cpuprofile FILE.pprof) covers the child's life up to
// the heap command (the load); with it, the heap command also writes the
// live heap to FILE.heap (read it with go tool pprof
// -sample_index=inuse_space). The parent profiles each refresh batch
// alone (FILE.rf1.pprof, FILE.rf2.pprof: from its first statement to
// COMMIT's return, not the reads and collections around it).
func serve(dir, cpuprofile string) error {
	server.TuneGC()
	var limit int64
	if memoryLimit != "" {
		var err error
		if limit, err = server.ParseByteSize(memoryLimit); err != nil {
			return fmt.Errorf("-memory-limit: %w", err)
		}
		server.ApplyMemoryLimit(limit)
	}
	prof := &cpuProfile{}
	defer prof.stop()
	if err := prof.start(cpuprofile); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := server.Start(server.Config{Listen: "127.0.0.1:0", DataDir: dir, Version: "tpch", Logger: log,
		MemoryLimit: limit})
	if err != nil {
		return err
	}
	fmt.Printf("ready %s?sslmode=disable\n", srv.ConnString())
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if sc.Text() == "quiesce" {
			debug.FreeOSMemory()
			fmt.Println("quiet")
		}
		if sc.Text() == "heap" {
			fmt.Printf("heap %d\n", liveHeap())
			writeHeapProfile(cpuprofile)
			prof.stop()
		}
		if name, ok := strings.CutPrefix(sc.Text(), "profile "); ok {
			prof.stop()
			if cpuprofile != "" {
				_ = prof.start(strings.TrimSuffix(cpuprofile, ".pprof") + "." + name + ".pprof")
			}
			fmt.Println("profiling")
		}
		if sc.Text() == "unprofile" {
			prof.stop()
			fmt.Println("unprofiled")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// cpuProfile is the CPU profile being written, if any.
type cpuProfile struct{ f *os.File }

// start profiles into file (nothing when file is "").
func (p *cpuProfile) start(file string) error {
	if file == "" {
		return nil
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	p.f = f
	return nil
}

// stop ends the profile being written, if any.
func (p *cpuProfile) stop() {
	if p.f == nil {
		return
	}
	pprof.StopCPUProfile()
	p.f.Close()
	p.f = nil
}

// liveHeap collects garbage and returns the bytes of live heap objects.
func liveHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// writeHeapProfile writes the heap profile beside the CPU profile
// cpuprofile (none without one); errors only lose the profile.
func writeHeapProfile(cpuprofile string) {
	if cpuprofile == "" {
		return
	}
	f, err := os.Create(strings.TrimSuffix(cpuprofile, ".pprof") + ".heap")
	if err != nil {
		return
	}
	defer f.Close()
	_ = pprof.WriteHeapProfile(f)
}

// eddyProc is an Eddy server in a child process (this program run with
// -serve), so that the CPU time and peak RSS read from /proc are Eddy's
// alone, not the generator's or the client's. A watchdog kills the child
// when its RSS passes the limit: a runaway view must not make the
// kernel's OOM killer pick a process on a shared machine.
type eddyProc struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	out      *bufio.Scanner
	dir      string
	dsn      string
	limit    int64        // bytes of RSS
	phase    atomic.Value // string: what the parent was doing
	exceeded atomic.Int64 // the RSS that tripped the limit, 0 if none
	stop     chan struct{}
	done     chan struct{}
	// reported is when setPhase last printed progress (parent only).
	reported time.Time
}

// startEddy starts a child server on a fresh data directory.
func startEddy(limit int64, cpuprofile string) (*eddyProc, error) {
	dir, err := os.MkdirTemp("", "eddy-tpch-")
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"-serve", dir}
	if cpuprofile != "" {
		args = append(args, "-cpuprofile", cpuprofile)
	}
	if memoryLimit != "" {
		args = append(args, "-memory-limit", memoryLimit)
	}
	e := &eddyProc{cmd: exec.Command(self, args...), dir: dir, limit: limit,
		stop: make(chan struct{}), done: make(chan struct{})}
	e.phase.Store("start")
	e.cmd.Stderr = os.Stderr
	if e.stdin, err = e.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := e.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	e.out = bufio.NewScanner(stdout)
	if err := e.cmd.Start(); err != nil {
		return nil, err
	}
	go e.watch()
	line, err := e.reply("ready ")
	if err != nil {
		e.close()
		return nil, fmt.Errorf("starting eddy: %w", err)
	}
	e.dsn = line
	return e, nil
}

// reply reads the child's next line, which must start with prefix, and
// returns the rest.
func (e *eddyProc) reply(prefix string) (string, error) {
	if !e.out.Scan() {
		return "", e.failed(fmt.Errorf("the child exited: %v", e.out.Err()))
	}
	line, ok := strings.CutPrefix(e.out.Text(), prefix)
	if !ok {
		return "", fmt.Errorf("unexpected line from the child: %q", e.out.Text())
	}
	return line, nil
}

// watch polls the child's RSS every 50 ms until close.
func (e *eddyProc) watch() {
	defer close(e.done)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-tick.C:
		}
		rss, _, err := tpch.ProcMemory(e.cmd.Process.Pid)
		if err != nil {
			return // gone
		}
		if rss > e.limit {
			e.exceeded.Store(rss)
			_ = e.cmd.Process.Kill()
			return
		}
	}
}

// setPhase records what the parent is doing, for the watchdog's report.
// Every progressEvery it also prints the phase and the child's RSS to
// stderr, so a long run (SF 1) shows how far it got.
func (e *eddyProc) setPhase(p string) {
	e.phase.Store(p)
	if time.Since(e.reported) < progressEvery {
		return
	}
	e.reported = time.Now()
	if rss, _, err := tpch.ProcMemory(e.cmd.Process.Pid); err == nil {
		fmt.Fprintf(os.Stderr, "%s progress: %s, RSS %d MB\n", e.reported.UTC().Format(time.TimeOnly), p, rss>>20)
	}
}

// progressEvery is how often setPhase reports progress.
const progressEvery = time.Minute

// failed explains err by the watchdog when it killed the child.
func (e *eddyProc) failed(err error) error {
	if rss := e.exceeded.Load(); rss > 0 {
		return fmt.Errorf("stopped: eddy's RSS reached %d MB (above -maxrss %d MB) during %s; the server was killed",
			rss>>20, e.limit>>20, e.phase.Load())
	}
	return err
}

// cpu returns the child's user+system CPU time so far.
func (e *eddyProc) cpu() time.Duration { return procCPU(e.cmd.Process.Pid) }

// runtime returns the child's time on a CPU so far in nanoseconds
// (procRuntime): the refresh batches' measure, which the 10 ms ticks of cpu
// cannot resolve.
func (e *eddyProc) runtime() time.Duration { return procRuntime(e.cmd.Process.Pid) }

// memory returns the child's current and peak RSS.
func (e *eddyProc) memory() (rss, hwm int64) {
	rss, hwm, _ = tpch.ProcMemory(e.cmd.Process.Pid)
	return rss, hwm
}

// heap asks the child for its live heap after a full collection.
func (e *eddyProc) heap() (int64, error) {
	if _, err := io.WriteString(e.stdin, "heap\n"); err != nil {
		return 0, e.failed(err)
	}
	s, err := e.reply("heap ")
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(s, 10, 64)
}

// quiesce has the child collect its garbage and return the free memory
// to the operating system now, so that neither the collector nor the
// runtime's background scavenger bills the load's leftovers to the
// refresh batch measured next.
func (e *eddyProc) quiesce() error {
	if _, err := io.WriteString(e.stdin, "quiesce\n"); err != nil {
		return e.failed(err)
	}
	_, err := e.reply("quiet")
	return err
}

// profile has the child profile its CPU into its profile file's sibling
// named name (nothing when it was started without one) until unprofile.
func (e *eddyProc) profile(name string) error {
	if _, err := io.WriteString(e.stdin, "profile "+name+"\n"); err != nil {
		return e.failed(err)
	}
	_, err := e.reply("profiling")
	return err
}

// unprofile ends the profile that profile started.
func (e *eddyProc) unprofile() error {
	if _, err := io.WriteString(e.stdin, "unprofile\n"); err != nil {
		return e.failed(err)
	}
	_, err := e.reply("unprofiled")
	return err
}

// close stops the child (closing its stdin shuts the server down) and
// removes its data directory.
func (e *eddyProc) close() error {
	close(e.stop)
	<-e.done
	err := e.stdin.Close()
	timer := time.AfterFunc(time.Minute, func() { _ = e.cmd.Process.Kill() })
	defer timer.Stop()
	if werr := e.cmd.Wait(); werr != nil && e.exceeded.Load() == 0 {
		err = errors.Join(err, fmt.Errorf("eddy child: %w", werr))
	}
	return errors.Join(err, os.RemoveAll(e.dir))
}
