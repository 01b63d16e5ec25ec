package bench

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// StartEddyProcess starts the eddy binary bin as a server process of its
// own on a fresh data directory under dir and a free loopback port, with
// workers workers and memLimit as its --memory-limit ("" for the
// default), so that a benchmark's clients (this process) and the server
// compete for the CPUs as they do against PostgreSQL, whose backends are
// processes too. ServerCPU reads the process's CPU time from /proc.
func StartEddyProcess(dir, bin string, workers int, memLimit string) (*Target, error) {
	data, err := os.MkdirTemp(dir, "eddy-")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args := []string{"--listen", addr, "--data-dir", filepath.Join(data, "data"), "--log-level", "error",
		"--workers", strconv.Itoa(max(workers, 1))}
	if memLimit != "" {
		args = append(args, "--memory-limit", memLimit)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if err := awaitListen(addr, done); err != nil {
		_ = cmd.Process.Kill()
		return nil, errors.Join(err, os.RemoveAll(data))
	}
	stop := func() error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		return os.RemoveAll(data)
	}
	stat := fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)
	return &Target{Name: "eddy", DSN: "postgres://eddy@" + addr + "/eddy?sslmode=disable", Stop: stop,
		ServerCPU: func() time.Duration { return procCPU(stat) }}, nil
}

// awaitListen waits up to 30 s for addr to accept a connection, failing
// early if the process exits (done).
func awaitListen(addr string, done <-chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			return fmt.Errorf("eddy exited before listening: %v", err)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			return c.Close()
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("eddy did not listen on %s within 30s", addr)
}

// procCPU returns the user+system CPU time of the process whose
// /proc/<pid>/stat is path (0 when unavailable).
func procCPU(path string) time.Duration {
	f := procStat(path)
	if len(f) < 15 {
		return 0
	}
	u, _ := strconv.ParseInt(f[13], 10, 64)
	s, _ := strconv.ParseInt(f[14], 10, 64)
	return time.Duration(u+s) * time.Second / 100 // USER_HZ
}
