package storage

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// quietOptions keeps Pebble's info logging out of test output.
func quietOptions() Options {
	return Options{CacheSize: 8 << 20, MemTableSize: 4 << 20, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func openTest(t testing.TB, dir string) *DB {
	t.Helper()
	db, err := Open(dir, quietOptions())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestDB runs testdata/db: batches of writes built line by line, commits,
// reopening, gets, scans, and the prefixed state adapters.
//
//	batch               lines: set <key> <value> | delete <key> | delete-prefix <key>
//	commit              commits the pending batch
//	reopen              closes and reopens the directory
//	get key=<key>
//	scan prefix=<key>
//	state-write prefix=<key>   lines: set <rel> <value> | delete <rel>; committed at once
//	state-scan prefix=<key> rel=<rel>
//
// Keys are written as PrettyKey prints them.
func TestDB(t *testing.T) {
	datadriven.Walk(t, "testdata/db", func(t *testing.T, path string) {
		dir := t.TempDir()
		db := openTest(t, dir)
		defer func() { _ = db.Close() }()
		b := db.NewBatch()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out, err := runDBCmd(t, &db, dir, b, d)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return out
		})
	})
}

func runDBCmd(t *testing.T, db **DB, dir string, b *Batch, d *datadriven.TestData) (string, error) {
	switch d.Cmd {
	case "batch":
		err := forLines(d.Input, func(op, key string, rest string) error { return batchOp(b, op, key, rest) })
		return fmt.Sprintf("%d ops\n", b.Len()), err
	case "commit":
		defer b.Reset()
		return "ok\n", (*db).Commit(b)
	case "reopen":
		if err := (*db).Close(); err != nil {
			return "", err
		}
		*db = openTest(t, dir)
		*b = *(*db).NewBatch()
		return "ok\n", nil
	case "get":
		v, ok, err := (*db).Get(argKey(t, d, "key"))
		if !ok || err != nil {
			return "not found\n", err
		}
		return string(v) + "\n", nil
	case "scan":
		return scanString((*db).Scan, argKey(t, d, "prefix"), nil)
	case "state-write":
		return stateWrite(*db, argKey(t, d, "prefix"), d.Input)
	case "state-scan":
		var rel, from string
		d.MaybeScanArgs(t, "rel", &rel)
		r := (*db).PrefixedReader(argKey(t, d, "prefix"))
		scan := r.Scan
		if d.HasArg("from") {
			d.ScanArgs(t, "from", &from)
			scan = func(rel []byte, fn func(k, v []byte) error) error { return r.ScanFrom(rel, []byte(from), fn) }
		}
		return scanString(scan, []byte(rel), func(k []byte) string { return string(k) })
	}
	return "", fmt.Errorf("unknown command %q", d.Cmd)
}

// forLines calls fn with the op, first argument and the rest of each line.
func forLines(input string, fn func(op, arg, rest string) error) error {
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.SplitN(strings.TrimSpace(line), " ", 3)
		for len(f) < 3 {
			f = append(f, "")
		}
		if err := fn(f[0], f[1], f[2]); err != nil {
			return err
		}
	}
	return nil
}

func batchOp(b *Batch, op, keyText, value string) error {
	key, err := ParsePrettyKey(keyText)
	if err != nil {
		return err
	}
	switch op {
	case "set":
		b.Set(key, []byte(value))
	case "delete":
		b.Delete(key)
	case "delete-prefix":
		b.DeletePrefix(key)
	default:
		return fmt.Errorf("unknown batch op %q", op)
	}
	return nil
}

func stateWrite(db *DB, prefix []byte, input string) (string, error) {
	b := db.NewBatch()
	w := b.Prefixed(prefix)
	err := forLines(input, func(op, rel, value string) error {
		switch op {
		case "set":
			w.Set([]byte(rel), []byte(value))
		case "delete":
			w.Delete([]byte(rel))
		default:
			return fmt.Errorf("unknown state op %q", op)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return "ok\n", db.Commit(b)
}

func scanString(scan func([]byte, func(k, v []byte) error) error, prefix []byte, show func([]byte) string) (string, error) {
	if show == nil {
		show = PrettyKey
	}
	var sb strings.Builder
	err := scan(prefix, func(k, v []byte) error {
		fmt.Fprintf(&sb, "%s = %s\n", show(k), v)
		return nil
	})
	if sb.Len() == 0 {
		sb.WriteString("(empty)\n")
	}
	return sb.String(), err
}

func argKey(t *testing.T, d *datadriven.TestData, name string) []byte {
	var s string
	d.ScanArgs(t, name, &s)
	key, err := ParsePrettyKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// TestOpenLockedInProcess checks that a second Open of a held directory
// fails with ErrLocked rather than corrupting it.
func TestOpenLockedInProcess(t *testing.T) {
	dir := t.TempDir()
	db := openTest(t, dir)
	defer func() { _ = db.Close() }()
	_, err := Open(dir, quietOptions())
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: got %v, want ErrLocked", err)
	}
}

// TestOpenLockedByProcess checks ErrLocked when another process holds the
// directory: the test binary re-runs itself as that process.
func TestOpenLockedByProcess(t *testing.T) {
	if dir := os.Getenv("EDDY_STORAGE_HOLD_DIR"); dir != "" {
		db := openTest(t, dir)
		fmt.Println("held")
		_, _ = io.Copy(io.Discard, os.Stdin) // hold until the parent closes stdin
		_ = db.Close()
		return
	}
	dir := filepath.Join(t.TempDir(), "data")
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenLockedByProcess$")
	cmd.Env = append(os.Environ(), "EDDY_STORAGE_HOLD_DIR="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	buf := make([]byte, 4)
	if _, err := io.ReadFull(stdout, buf); err != nil || string(buf) != "held" {
		t.Fatalf("child did not open the store: %q %v", buf, err)
	}
	_, err := Open(dir, quietOptions())
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("Open while another process holds it: got %v, want ErrLocked", err)
	}
	t.Log(err)
}

// TestBatchRollbackTo checks that writes after a mark disappear and
// writes before it survive, including an invalid operation's error.
func TestBatchRollbackTo(t *testing.T) {
	db := openTest(t, t.TempDir())
	defer func() { _ = db.Close() }()
	b := db.NewBatch()
	b.Set([]byte("/m/a"), []byte("1"))
	m := b.Mark()
	b.Set([]byte("/m/b"), []byte("2"))
	b.Set([]byte("/m/a"), []byte("3"))
	b.DeletePrefix(nil)
	if b.Err() == nil {
		t.Fatal("DeletePrefix(nil) did not fail")
	}
	b.RollbackTo(m)
	if b.Err() != nil || b.Len() != 1 {
		t.Fatalf("after RollbackTo: err %v, %d ops", b.Err(), b.Len())
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"/m/a": "1", "/m/b": ""} {
		v, ok, err := db.Get([]byte(key))
		if err != nil || string(v) != want || ok != (want != "") {
			t.Errorf("%s = %q, %v, %v; want %q", key, v, ok, err, want)
		}
	}
}

// TestDefaultMemtableHoldsClosedWindows writes 96 MiB of state in
// checkpoint-sized batches and then range-deletes it, as a window join
// does with the rows of a window when it closes: with the default
// memtable size none of it may reach an sstable (no flush), so neither a
// flush nor a compaction pays for rows that died within seconds. With the
// former 64 MiB memtables the rows were flushed and then compacted away.
func TestDefaultMemtableHoldsClosedWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 96 MiB")
	}
	o := quietOptions()
	o.MemTableSize = 0 // the default
	db, err := Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const rows, checkpoints = 1 << 17, 4 // 96 MiB of 768-byte values
	value := make([]byte, 768)
	b := db.NewBatch()
	defer b.Close()
	for c := range checkpoints {
		for i := range rows / checkpoints {
			b.Set(append(StatePrefix(7), fmt.Appendf(nil, "w%08d", c*rows/checkpoints+i)...), value)
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		b.Reset()
	}
	b.DeletePrefix(append(StatePrefix(7), 'w'))
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if m := db.pdb.Metrics(); m.Flush.Count != 0 || m.Levels[0].TablesFlushed != 0 {
		t.Fatalf("state written and deleted within one memtable was flushed: %d flushes, %d L0 tables",
			m.Flush.Count, m.Levels[0].TablesFlushed)
	}
}
