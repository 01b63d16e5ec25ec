package clients

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ptyProgram is a program running on a pseudo-terminal, as a user at a
// terminal would run it: it reads what write types and its output
// collects in a buffer.
type ptyProgram struct {
	master *os.File
	cmd    *exec.Cmd

	mu  sync.Mutex
	out strings.Builder
}

// startPTY starts argv on a new pseudo-terminal (80 columns, 50 rows, the
// terminal its session controls) with env added to the environment. The
// program is killed at the end of the test.
func startPTY(t *testing.T, env []string, argv ...string) *ptyProgram {
	master, slave, err := openPTY()
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: 200}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &ptyProgram{master: master, cmd: cmd}
	go p.read()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		master.Close()
	})
	return p
}

// openPTY opens a new pseudo-terminal pair through /dev/ptmx.
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("unlocking the pty: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("naming the pty: %w", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// read collects the program's output until the terminal closes.
func (p *ptyProgram) read() {
	buf := make([]byte, 4096)
	for {
		n, err := p.master.Read(buf)
		p.mu.Lock()
		p.out.Write(buf[:n])
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// output is everything the program has written so far.
func (p *ptyProgram) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// write types s at the terminal.
func (p *ptyProgram) write(t *testing.T, s string) {
	if _, err := p.master.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// waitFor waits until the output contains want, failing the test after
// timeout with the output so far.
func (p *ptyProgram) waitFor(t *testing.T, want string, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for !strings.Contains(p.output(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the terminal after %v; it shows:\n%s", want, timeout, p.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
