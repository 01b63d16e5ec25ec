package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
	"github.com/jackc/pgx/v5"
)

// mountTmpfs mounts a tmpfs of size bytes on a fresh directory for the
// test's life, or skips the test saying why it cannot (mounting needs
// root with CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a %d MiB tmpfs for a full disk (%v): disk-full behaviour is not tested on this machine", size>>20, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// freeBytes is the space available on the file system holding dir.
func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// fillTo writes a filler file in dir until the file system has about
// left bytes free, and returns its path.
func fillTo(t *testing.T, dir string, left int64) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("filler-%d", time.Now().UnixNano()))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for freeBytes(t, dir) > left+int64(len(chunk)) {
		if _, err := f.Write(chunk); err != nil {
			t.Fatalf("filling %s: %v", dir, err)
		}
	}
	return path
}

// TestDiskFull: on a 256 MiB tmpfs with --disk-reserve 32MiB, a server
// whose disk fills up answers the write that hits the reserve with 53100,
// keeps serving reads of everything committed (tables and views) on every
// session, and once space is freed takes writes again; after a kill -9
// nothing committed is lost and nothing refused appears. A restart on a
// disk with less than half the reserve free fails with an error naming
// the disk, and succeeds once space is freed.
func TestDiskFull(t *testing.T) {
	mnt := mountTmpfs(t, 256<<20)
	data := filepath.Join(mnt, "data")
	// A small budget keeps memtables small next to the reserve; the memory
	// accountant is off: this test is about the disk.
	s := harness.StartEddy(t, harness.WithArgs("--data-dir", data, "--disk-reserve", "32MiB", "--memory-limit", "128MiB"),
		harness.WithEnv("EDDY_MEMORY_ACCOUNTING=0"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	r := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY, v text)",
		"CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(length(v)) AS bytes FROM t")
	next := 0
	insert := func() error {
		_, err := w.Exec(ctx, "INSERT INTO t SELECT i, repeat(md5(i::text), 300) FROM generate_series($1::int, $1::int + 99) AS g(i)", next)
		if err == nil {
			next += 100
		}
		return err
	}
	for range 5 {
		if err := insert(); err != nil {
			t.Fatal(err)
		}
	}
	filler := fillTo(t, mnt, 40<<20)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = insert()
	}
	wantCode(t, err, "53100", "disk is full")
	checkRows(t, ctx, r, next)
	checkRows(t, ctx, w, next)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := insert(); err != nil {
		t.Fatalf("a write after space was freed: %v", err)
	}
	s.Kill()
	s.Restart()
	checkRows(t, ctx, connect(t, ctx, s.DSN()), next)

	s.Stop()
	filler = fillTo(t, mnt, 8<<20)
	start := exec.Command(harness.EddyBinary(t), "--listen", "127.0.0.1:0", "--data-dir", data,
		"--disk-reserve", "32MiB", "--memory-limit", "128MiB")
	start.Env = append(os.Environ(), "EDDY_MEMORY_ACCOUNTING=0")
	out, err := start.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "disk is full") {
		t.Errorf("start on a full disk: err %v, output:\n%s", err, out)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	s.Restart()
	checkRows(t, ctx, connect(t, ctx, s.DSN()), next)
}

// checkRows asserts that t holds the keys 0..n-1 and that the view
// totals agrees with it.
func checkRows(t *testing.T, ctx context.Context, c *pgx.Conn, n int) {
	t.Helper()
	var rows, lo, hi, viewN, viewBytes, bytes int64
	if err := c.QueryRow(ctx, "SELECT count(*), coalesce(min(k), 0), coalesce(max(k), -1), coalesce(sum(length(v)), 0) FROM t").Scan(&rows, &lo, &hi, &bytes); err != nil {
		t.Fatal(err)
	}
	if rows != int64(n) || lo != 0 || hi != int64(n-1) {
		t.Errorf("t holds %d rows, keys %d..%d; want %d rows, keys 0..%d", rows, lo, hi, n, n-1)
	}
	if err := c.QueryRow(ctx, "SELECT n, bytes FROM totals").Scan(&viewN, &viewBytes); err != nil {
		t.Fatal(err)
	}
	if viewN != rows || viewBytes != bytes {
		t.Errorf("totals says %d rows, %d bytes; the table has %d, %d", viewN, viewBytes, rows, bytes)
	}
}
