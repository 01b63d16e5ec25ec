package storage

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// The kind bytes that open every key (see the package doc). They are
// printable so raw keys read well in Pebble tools.
const (
	kindMeta    byte = 'm'
	kindCatalog byte = 'c'
	kindRow     byte = 'r'
	kindState   byte = 's'
	kindLog     byte = 'l'
)

// LogKey returns the key of the input-log record of logical time t:
// /l/<t big-endian>, so records sort by time.
func LogKey(t uint64) []byte { return appendID([]byte{kindLog}, t) }

// LogPrefix returns the prefix of every input-log record.
func LogPrefix() []byte { return []byte{kindLog} }

// LogKeyTime returns the logical time of a log record's key (ok false if
// key is not one).
func LogKeyTime(key []byte) (uint64, bool) {
	if len(key) != 9 || key[0] != kindLog {
		return 0, false
	}
	return binary.BigEndian.Uint64(key[1:]), true
}

// LogPieceKey returns the key of piece i (1 or more) of the log record of
// time t, when the record is split over several values: LogKey(t)
// followed by i, so a record's pieces sort right after its first one and
// before the next record.
func LogPieceKey(t uint64, i uint32) []byte {
	return binary.BigEndian.AppendUint32(LogKey(t), i)
}

// LogKeyPiece returns the logical time and piece number (0 for the
// record's own key) of a log key (ok false if key is not one).
func LogKeyPiece(key []byte) (t uint64, piece uint32, ok bool) {
	if len(key) == 13 && key[0] == kindLog {
		return binary.BigEndian.Uint64(key[1:9]), binary.BigEndian.Uint32(key[9:]), true
	}
	t, ok = LogKeyTime(key)
	return t, 0, ok
}

// MetaKey returns the key of the named metadata value (next ids, the
// logical clock, ...).
func MetaKey(name string) []byte {
	return append([]byte{kindMeta}, name...)
}

// CatalogKey returns the key of catalog entry id.
func CatalogKey(id uint64) []byte { return appendID([]byte{kindCatalog}, id) }

// CatalogPrefix returns the prefix of every catalog entry.
func CatalogPrefix() []byte { return []byte{kindCatalog} }

// RowKey returns the key under which collection stores the row whose
// encoded key is key.
func RowKey(collection uint64, key []byte) []byte {
	return AppendRowKey(make([]byte, 0, 9+len(key)), collection, key)
}

// AppendRowKey appends RowKey(collection, key) to buf.
func AppendRowKey(buf []byte, collection uint64, key []byte) []byte {
	buf = appendID(append(buf, kindRow), collection)
	return append(buf, key...)
}

// RowPrefix returns the prefix of every row of collection.
func RowPrefix(collection uint64) []byte { return appendID([]byte{kindRow}, collection) }

// StatePrefix returns the prefix of all operator state of dataflow.
func StatePrefix(dataflow uint64) []byte { return appendID([]byte{kindState}, dataflow) }

// appendID appends id as 8 big-endian bytes, so ids sort numerically and
// no id's encoding is a prefix of another's.
func appendID(buf []byte, id uint64) []byte { return binary.BigEndian.AppendUint64(buf, id) }

// PrettyKey renders a key in the /kind/id/rest notation of the package
// doc; the rest is quoted with strconv.Quote. Keys that do not follow the
// layout print as /?/<quoted bytes>.
func PrettyKey(key []byte) string {
	if len(key) == 0 {
		return "/"
	}
	switch key[0] {
	case kindMeta:
		return "/m/" + string(key[1:])
	case kindCatalog, kindRow, kindState, kindLog:
		if len(key) == 1 {
			return "/" + string(key)
		}
		if len(key) < 9 {
			break
		}
		s := "/" + string(key[:1]) + "/" + strconv.FormatUint(binary.BigEndian.Uint64(key[1:9]), 10)
		if len(key) == 9 {
			return s
		}
		return s + "/" + quoteRest(key[9:])
	}
	return "/?/" + quoteRest(key)
}

// quoteRest quotes b like strconv.Quote without the surrounding quotes.
func quoteRest(b []byte) string {
	q := strconv.Quote(string(b))
	return q[1 : len(q)-1]
}

// ParsePrettyKey is the inverse of PrettyKey for well-formed keys; tests
// and debugging tools use it to write keys as text. It also accepts the
// prefixes "/" (the empty key) and "/<kind>".
func ParsePrettyKey(s string) ([]byte, error) {
	if s == "/" {
		return []byte{}, nil
	}
	parts := strings.SplitN(s, "/", 4)
	if len(parts) < 2 || parts[0] != "" || len(parts[1]) != 1 {
		return nil, fmt.Errorf("storage: malformed key %q", s)
	}
	kind := parts[1][0]
	if len(parts) == 2 {
		return []byte{kind}, nil
	}
	if kind == '?' {
		return unquoteRest(strings.Join(parts[2:], "/"))
	}
	if kind == kindMeta {
		return MetaKey(strings.Join(parts[2:], "/")), nil
	}
	if kind != kindCatalog && kind != kindRow && kind != kindState && kind != kindLog {
		return nil, fmt.Errorf("storage: unknown key kind in %q", s)
	}
	id, err := strconv.ParseUint(parts[2], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("storage: bad id in key %q: %w", s, err)
	}
	key := appendID([]byte{kind}, id)
	if len(parts) == 4 {
		rest, err := unquoteRest(parts[3])
		if err != nil {
			return nil, err
		}
		key = append(key, rest...)
	}
	return key, nil
}

// unquoteRest is the inverse of quoteRest.
func unquoteRest(s string) ([]byte, error) {
	rest, err := strconv.Unquote(`"` + s + `"`)
	if err != nil {
		return nil, fmt.Errorf("storage: bad key suffix %q: %w", s, err)
	}
	return []byte(rest), nil
}

// prefixEnd returns the smallest key greater than every key starting with
// prefix, or nil if there is none (prefix is empty or all 0xFF).
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
