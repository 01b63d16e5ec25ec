package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
}

// stampFile is the stamp's file name in the data directory.
const stampFile = "EDDY_STAMP"

// stampMagic opens the file (its version), then two big-endian uint64s.
const stampMagic = "eddystamp1"

// WriteStamp replaces the data directory's stamp atomically and durably
// (a temporary file, synced, renamed over the old one, the directory
// synced). Call it only once the state it describes is durable.
func (db *DB) WriteStamp(s Stamp) error {
	buf := binary.BigEndian.AppendUint64([]byte(stampMagic), s.Checkpoint)
	buf = binary.BigEndian.AppendUint64(buf, s.NextID)
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
	if len(buf) != len(stampMagic)+16 || string(buf[:len(stampMagic)]) != stampMagic {
		return Stamp{}, false, fmt.Errorf("storage: %s is damaged (%d bytes, not a stamp): the data directory cannot be trusted", path, len(buf))
	}
	rest := buf[len(stampMagic):]
	return Stamp{Checkpoint: binary.BigEndian.Uint64(rest), NextID: binary.BigEndian.Uint64(rest[8:])}, true, nil
}
