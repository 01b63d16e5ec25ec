package sql

import (
	"encoding/binary"
	"fmt"

	"github.com/eddydb/eddy/storage"
)

// storeFormat is the version of how this build lays out what it stores:
// a data directory written under another layout is refused at start-up
// (checkFormat), never read as if it were this one.
//
//  1. (no format key) every data directory before format 2.
//  2. Multiset collections key rows by repr.AppendRowKeyExact, so equal
//     values printed apart (numeric 2 and 2.00, float -0 and 0, interval
//     '1 day' and '24 hours', jsonb 1.0 and 1) are stored apart; jsonb
//     keys compare numbers by value. Format 1's keys folded them.
//  3. jsonb keys encode PostgreSQL's jsonb btree order (repr's
//     jsonb_order.go: object > array > boolean > number > string > null,
//     then by size), where format 2's held the printed text. A format 2
//     directory's stored jsonb keys would sort and match wrongly, so it is
//     refused like any other.
const storeFormat = 3

// metaFormat holds the store's format, a big-endian uint32.
var metaFormat = storage.MetaKey("format")

// checkFormat refuses a data directory written under another layout than
// storeFormat, and stamps a new one with it. A store is new while it has
// no clock and no object IDs (the first commit writes them): the roles a
// start-up bootstraps are the same in every format.
func (e *Engine) checkFormat() error {
	v, ok, err := e.db.Get(metaFormat)
	if err != nil {
		return err
	}
	if ok {
		if len(v) != 4 {
			return fmt.Errorf("the data directory is damaged: its format key holds %d bytes", len(v))
		}
		if f := binary.BigEndian.Uint32(v); f != storeFormat {
			return formatError(f)
		}
		return nil
	}
	_, clock, err := e.db.Get(metaClock)
	if err != nil {
		return err
	}
	_, ids, err := e.db.Get(metaNextID)
	if err != nil {
		return err
	}
	if clock || ids {
		return formatError(1)
	}
	b := e.db.NewBatch()
	defer b.Close()
	b.Set(metaFormat, binary.BigEndian.AppendUint32(nil, storeFormat))
	return e.db.Commit(b)
}

// formatError is the refusal of a data directory of format f.
func formatError(f uint32) error {
	if f > storeFormat {
		return fmt.Errorf("the data directory was written by a newer Eddy (store format %d; this build reads format %d): "+
			"start it with that Eddy", f, storeFormat)
	}
	why := "which orders jsonb keys as PostgreSQL does, not by their text"
	if f < 2 {
		why = "which stores equal values of different representations, such as 2 and 2.00, apart, and orders jsonb keys as PostgreSQL does"
	}
	return fmt.Errorf("the data directory was written by an older Eddy (store format %d; this build reads format %d, %s): "+
		"export its tables with the Eddy that wrote it (COPY ... TO) and load them into a new data directory", f, storeFormat, why)
}
