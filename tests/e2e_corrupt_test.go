package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddydb/eddy/tests/harness"
)

// TestCorruptDataDir damages a copy of a data directory in three ways and
// starts Eddy on each: a truncated table file must fail to start with an
// error naming it, within seconds; a truncated MANIFEST (which Pebble
// alone may open as an older state: the stamp catches that, see
// TestStoreBehindStamp) and bytes overwritten in the middle of the
// largest table file must either fail the same way or start and serve
// exactly the committed rows (when the damage hit nothing a restart
// needs). Never a panic, a hang, or views gone back in time.
func TestCorruptDataDir(t *testing.T) {
	// A small budget makes small memtables, hence table files; the
	// memory accountant is off (EDDY_MEMORY_ACCOUNTING=0): this test is
	// about the disk, not about refusing work under a tiny budget.
	s := harness.StartEddy(t, harness.WithArgs("--memory-limit", "128MiB"), harness.WithEnv("EDDY_MEMORY_ACCOUNTING=0"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := connect(t, ctx, s.DSN())
	mustExec(t, ctx, w, "CREATE TABLE t (k int PRIMARY KEY, v text)",
		"INSERT INTO t SELECT i, repeat(md5(i::text), 10) FROM generate_series(0, 29999) AS g(i)",
		"CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(length(v)) AS bytes FROM t",
		"INSERT INTO t SELECT i, repeat(md5(i::text), 10) FROM generate_series(30000, 59999) AS g(i)")
	w.Close(ctx)
	s.Stop()
	largestSST := func(dir string) string {
		var best string
		var size int64
		ents, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
		for _, p := range ents {
			if st, err := os.Stat(p); err == nil && st.Size() > size {
				best, size = p, st.Size()
			}
		}
		if best == "" {
			t.Fatalf("no table files in %s", dir)
		}
		return best
	}
	manifest := func(dir string) string {
		m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
		if len(m) != 1 {
			t.Fatalf("manifests in %s: %v", dir, m)
		}
		return m[0]
	}
	for _, c := range []struct {
		name   string
		damage func(dir string) string // returns the damaged file's name
		mayRun bool
	}{
		{"truncated table file", func(dir string) string { return truncateHalf(t, largestSST(dir)) }, false},
		{"truncated manifest", func(dir string) string { return truncateHalf(t, manifest(dir)) }, true},
		{"overwritten table file", func(dir string) string { return overwriteMiddle(t, largestSST(dir)) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			if out, err := exec.Command("cp", "-r", s.DataDir(), dir).CombinedOutput(); err != nil {
				t.Fatalf("copying the data directory: %v %s", err, out)
			}
			file := c.damage(dir)
			cctx, ccancel := context.WithTimeout(ctx, 60*time.Second)
			defer ccancel()
			cmd := exec.CommandContext(cctx, harness.EddyBinary(t), "--listen", "127.0.0.1:0", "--data-dir", dir, "--memory-limit", "128MiB")
			cmd.Env = append(os.Environ(), "EDDY_MEMORY_ACCOUNTING=0")
			var out syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			ready := false
			for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				select {
				case err = <-done:
				default:
					if ready = strings.Contains(out.String(), "eddy ready"); !ready && time.Now().Before(deadline) {
						continue
					}
				}
				break
			}
			text := out.String()
			if i := strings.LastIndex(text, "\neddy: "); i >= 0 {
				t.Logf("%s (%s): %s", c.name, filepath.Base(file), text[i+1:])
			}
			if strings.Contains(text, "panic:") || strings.Contains(text, "goroutine ") {
				t.Fatalf("eddy panicked on a %s (%s):\n%s", c.name, file, tail(text))
			}
			if ready {
				if !c.mayRun {
					t.Fatalf("eddy started on a %s (%s)", c.name, file)
				}
				checkServed(t, ctx, text)
				_ = cmd.Process.Kill()
				<-done
				return
			}
			if err == nil {
				_ = cmd.Process.Kill()
				t.Fatalf("eddy neither started nor failed within 45 s on a %s:\n%s", c.name, tail(text))
			}
			if !strings.Contains(text, "eddy: ") || !(strings.Contains(text, filepath.Base(file)) || strings.Contains(text, "damaged")) {
				t.Errorf("eddy failed on a %s without naming %s or the damage:\n%s", c.name, filepath.Base(file), tail(text))
			}
		})
	}
}

// checkServed reads the server that printed out's ready line and asserts
// it holds exactly the committed rows.
func checkServed(t *testing.T, ctx context.Context, out string) {
	t.Helper()
	i := strings.Index(out, "psql \"")
	dsn := strings.SplitN(out[i+len("psql \""):], "\"", 2)[0]
	c := connect(t, ctx, dsn)
	var n, bytes, vn, vbytes int64
	if err := c.QueryRow(ctx, "SELECT count(*), sum(length(v)) FROM t").Scan(&n, &bytes); err != nil {
		t.Logf("reading the table failed cleanly: %v", err)
		return
	}
	if err := c.QueryRow(ctx, "SELECT n, bytes FROM totals").Scan(&vn, &vbytes); err != nil {
		t.Fatal(err)
	}
	if n != 60000 || vn != n || vbytes != bytes {
		t.Errorf("served a wrong state: %d rows (%d bytes), view %d (%d bytes); want 60000 rows", n, bytes, vn, vbytes)
	}
}

// truncateHalf cuts path to half its size and returns it.
func truncateHalf(t *testing.T, path string) string {
	t.Helper()
	st, err := os.Stat(path)
	if err == nil {
		err = os.Truncate(path, st.Size()/2)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// overwriteMiddle writes garbage over 64 bytes a third of the way into
// path and returns it.
func overwriteMiddle(t *testing.T, path string) string {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err == nil {
		_, err = f.WriteAt([]byte(strings.Repeat("garbage!", 8)), st.Size()/3)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// syncBuffer is a strings.Builder safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// tail returns the last 2000 bytes of s.
func tail(s string) string { return s[max(0, len(s)-2000):] }
