package sql

import (
	"bytes"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// FuzzDecodeLogRecord feeds arbitrary bytes to the input log's record
// decoder, which restart runs over whatever the store holds: it must
// return a record or an error, never panic, and a write-set record it
// accepts must survive a second encode/decode unchanged.
func FuzzDecodeLogRecord(f *testing.F) {
	ws := &writeSet{}
	ws.add(1001, repr.Row{repr.NewInt(1), repr.NewText("one")}, 1)
	ws.add(1001, repr.Row{repr.NewInt(2), repr.Null}, -1)
	ws.add(1002, repr.Row{}, 3)
	f.Add(encodeWriteSetRecord(-5, ws))
	f.Add(appendSourceRecord(nil, 7, 1003, []Change{
		{Kind: ChangeInsert, Row: repr.Row{repr.NewInt(9)}},
		{Kind: ChangeUpsert, Row: repr.Row{repr.NewInt(9)}, Key: repr.Row{repr.NewInt(9)}, Partition: 3},
	}))
	f.Add(appendSourceRefRecord(nil, 8, 1003, []byte{0, 1}, []byte{0, 9}, 8))
	f.Add(encodeTickRecord(1 << 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := decodeLogRecord(data)
		if err != nil || rec.kind != logWriteSet || rec.ws == nil {
			return
		}
		again := encodeWriteSetRecord(rec.wall, rec.ws)
		rec2, err := decodeLogRecord(again)
		if err != nil {
			t.Fatalf("re-encoded write set %x does not decode: %v", again, err)
		}
		if third := encodeWriteSetRecord(rec2.wall, rec2.ws); !bytes.Equal(third, again) {
			t.Fatalf("write set %x re-encodes as %x", again, third)
		}
	})
}

// FuzzDecodeStoredState feeds arbitrary bytes to the decoders of the
// engine's own stored values (catalog entries, sink logs, source
// watermarks, history cuts and partition activity): each must return a
// value or an error, never panic.
func FuzzDecodeStoredState(f *testing.F) {
	f.Add(encodeUpdates([]repr.Update{{Row: repr.Row{repr.NewInt(1), repr.NewText("x")}, Diff: 2}}))
	f.Add(encodeWatermark(42, map[int32]int64{0: 41, 3: 40}))
	f.Add(encodeCut(historyCut{has: true, wm: 7, pos: []byte{1, 2}}))
	f.Add(encodeSeen(map[int32]int64{1: 5}))
	if b, err := encodeObject(&Object{Name: "t", Schema: "public", ID: 1001}); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = decodeUpdates(data, 1)
		_, _ = decodeWatermark(data)
		_, _ = decodeCut(data)
		_ = decodeSeen(data)
		_, _ = decodeObject(data)
	})
}
