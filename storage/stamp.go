package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// A Stamp is Eddy's own record, outside Pebble, of how far the store had
// got: the logical time of its last checkpoint and the next object ID then.
// Pebble recovers whatever its files describe; a truncated MANIFEST or a
// lost table file can make it open an older state without complaint, and
// the views would silently go back in time. The engine writes the stamp
// after each durable checkpoint and compares it at start: a store behind
// its stamp is damaged, and Open fails naming the directory rather than
// serving an older state.
type Stamp struct {
	Checkpoint uint64
	NextID     uint64
	// Manifest and ManifestSize are Pebble's current MANIFEST (its file
	// number) and its size when the stamp was written (filled in by
	// WriteStamp). A MANIFEST only grows until Pebble replaces it with
	// a higher-numbered one, so a shorter or older one is damage Pebble
	// would otherwise open as an older state (a truncated MANIFEST reads
	// as a torn tail).
	Manifest, ManifestSize uint64
}

// stampFile is the stamp's file name in the data directory.
const stampFile = "EDDY_STAMP"

// stampMagic opens the file (its version), then four big-endian uint64s
// (stampMagicV1: two, no MANIFEST).
const (
	stampMagic   = "eddystamp2"
	stampMagicV1 = "eddystamp1"
)

// WriteStamp replaces the data directory's stamp atomically and durably
// (a temporary file, synced, renamed over the old one, the directory
// synced). Call it only once the state it describes is durable.
func (db *DB) WriteStamp(s Stamp) error {
	s.Manifest, s.ManifestSize = currentManifest(db.fs, db.dir)
	buf := []byte(stampMagic)
	for _, v := range []uint64{s.Checkpoint, s.NextID, s.Manifest, s.ManifestSize} {
		buf = binary.BigEndian.AppendUint64(buf, v)
	}
	tmp := filepath.Join(db.dir, stampFile+".tmp")
	f, err := db.fs.Create(tmp, "")
	if err != nil {
		return fmt.Errorf("storage: writing %s: %w", tmp, err)
	}
	_, err = f.Write(buf)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = db.fs.Rename(tmp, filepath.Join(db.dir, stampFile))
	}
	if err == nil {
		err = syncDir(db)
	}
	if err != nil {
		return fmt.Errorf("storage: writing the stamp in %s: %w", db.dir, err)
	}
	return nil
}

// syncDir makes a rename in the data directory durable.
func syncDir(db *DB) error {
	d, err := db.fs.OpenDir(db.dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadStamp returns the data directory's stamp (ok false if it has none:
// a new directory, or one written before stamps existed). A stamp that
// does not parse is an error naming the file.
func (db *DB) ReadStamp() (s Stamp, ok bool, err error) {
	path := filepath.Join(db.dir, stampFile)
	f, err := db.fs.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Stamp{}, false, nil
	}
	if err != nil {
		return Stamp{}, false, fmt.Errorf("storage: reading %s: %w", path, err)
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, 64))
	if err != nil {
		return Stamp{}, false, fmt.Errorf("storage: reading %s: %w", path, err)
	}
	var v []uint64
	switch {
	case len(buf) == len(stampMagic)+32 && string(buf[:len(stampMagic)]) == stampMagic:
	case len(buf) == len(stampMagicV1)+16 && string(buf[:len(stampMagicV1)]) == stampMagicV1:
	default:
		return Stamp{}, false, fmt.Errorf("storage: %s is damaged (%d bytes, not a stamp): the data directory cannot be trusted", path, len(buf))
	}
	for rest := buf[len(stampMagic):]; len(rest) >= 8; rest = rest[8:] {
		v = append(v, binary.BigEndian.Uint64(rest))
	}
	s = Stamp{Checkpoint: v[0], NextID: v[1]}
	if len(v) == 4 {
		s.Manifest, s.ManifestSize = v[2], v[3]
	}
	return s, true, nil
}

// currentManifest returns the number and size of the MANIFEST Pebble's
// marker names in dir (0, 0 if there is none or it cannot be read).
func currentManifest(fs vfs.FS, dir string) (num, size uint64) {
	names, err := fs.List(dir)
	if err != nil {
		return 0, 0
	}
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, "marker.manifest.")
		if !ok {
			continue
		}
		_, file, ok := strings.Cut(rest, ".")
		digits, ok2 := strings.CutPrefix(file, "MANIFEST-")
		v, err := strconv.ParseUint(digits, 10, 64)
		if !ok || !ok2 || err != nil || v < num {
			continue
		}
		if st, err := fs.Stat(filepath.Join(dir, file)); err == nil {
			num, size = v, uint64(st.Size())
		}
	}
	return num, size
}

// checkManifest refuses a store whose current MANIFEST is older or
// shorter than the stamp recorded (see Stamp), naming it.
func (db *DB) checkManifest() error {
	s, ok, err := db.ReadStamp()
	if err != nil || !ok || s.Manifest == 0 {
		return err
	}
	num, size := currentManifest(db.fs, db.dir)
	if num < s.Manifest || num == s.Manifest && size < s.ManifestSize {
		return fmt.Errorf("storage: the data directory %s is damaged: its MANIFEST-%06d has %d bytes, but the last checkpoint saw MANIFEST-%06d with %d bytes (a store file was truncated, lost or replaced by an older copy); restore the directory from a backup",
			db.dir, num, size, s.Manifest, s.ManifestSize)
	}
	return nil
}
