package sql

import (
	"encoding/binary"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/eddydb/eddy/storage"
)

// TestStoreFormat checks that a new data directory is stamped with
// storeFormat and opens again, and that one of another format (an older
// Eddy's: data but no format key, or a format key of 1; a newer one's)
// is refused at start-up with a message naming both formats, its data
// untouched.
func TestStoreFormat(t *testing.T) {
	te := newTestEngine(t)
	if out := te.run("CREATE TABLE t (v numeric); INSERT INTO t VALUES (2), (2.00)"); strings.Contains(out, "ERROR") {
		t.Fatal(out)
	}
	te.restart()
	if out := te.run("SELECT v FROM t ORDER BY v::text"); out != "v\n2\n2.00\nSELECT 2\n" {
		t.Fatalf("after a restart: %q", out)
	}
	if err := te.e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		format []byte // nil: no format key
		want   string
	}{
		{"older, no format key", nil, "older Eddy (store format 1; this build reads format 3"},
		{"older, format 1", binary.BigEndian.AppendUint32(nil, 1), "older Eddy (store format 1"},
		{"older, format 2 (jsonb keys by text)", binary.BigEndian.AppendUint32(nil, 2), "older Eddy (store format 2; this build reads format 3, which orders jsonb keys"},
		{"newer", binary.BigEndian.AppendUint32(nil, storeFormat+1), "newer Eddy (store format 4"},
	} {
		setStoreKey(t, te.dir, metaFormat, c.format)
		e, err := OpenWith(te.dir, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
		if err == nil {
			_ = e.Close()
			t.Fatalf("%s: opened", c.name)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v, want it to say %q", c.name, err, c.want)
		}
	}
	setStoreKey(t, te.dir, metaFormat, binary.BigEndian.AppendUint32(nil, storeFormat))
	te.open()
	if out := te.run("SELECT count(*) FROM t"); out != "count\n2\nSELECT 1\n" {
		t.Fatalf("after the refusals: %q", out)
	}
}

// setStoreKey sets key to v in the store in dir (deletes it when v is nil).
func setStoreKey(t *testing.T, dir string, key, v []byte) {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	if v == nil {
		b.Delete(key)
	} else {
		b.Set(key, v)
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
