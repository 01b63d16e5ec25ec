package sql

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/eddydb/eddy/repr"
)

// csvField is one CSV field; quoted distinguishes "" (empty string) from
// an empty unquoted field (NULL by default), as PostgreSQL's CSV format does.
type csvField struct {
	val    string
	quoted bool
}

// csvReader reads PostgreSQL's CSV COPY format: delim-separated fields;
// quoted fields may contain delimiters and newlines, and inside quotes the
// escape character makes the next quote or escape character literal (with
// the default escape, the quote itself, that is a doubled quote).
type csvReader struct {
	r             *bufio.Reader
	delim         byte
	quote, escape byte
	peeked        byte
}

// escapes reports whether the byte after an escape character is a quote
// or escape character (left in peeked): the escape then applies.
func (c *csvReader) escapes() bool {
	nb, err := c.r.Peek(1)
	if err != nil || (nb[0] != c.quote && nb[0] != c.escape) {
		return false
	}
	c.peeked = nb[0]
	return true
}

// next returns the next record, or io.EOF.
func (c *csvReader) next() ([]csvField, error) {
	var rec []csvField
	var cur bytes.Buffer
	quoted, inQuotes, any := false, false, false
	for {
		b, err := c.r.ReadByte()
		if err == io.EOF {
			if inQuotes {
				return nil, repr.Errorf(repr.CodeInvalidText, "unterminated CSV quoted field")
			}
			if !any {
				return nil, io.EOF
			}
			return append(rec, csvField{cur.String(), quoted}), nil
		}
		if err != nil {
			return nil, err
		}
		any = true
		switch {
		case inQuotes && b == c.escape && c.escapes():
			_, _ = c.r.ReadByte()
			cur.WriteByte(c.peeked)
		case inQuotes && b == c.quote:
			inQuotes = false
		case inQuotes:
			cur.WriteByte(b)
		case b == c.quote:
			inQuotes, quoted = true, true
		case b == c.delim:
			rec = append(rec, csvField{cur.String(), quoted})
			cur.Reset()
			quoted = false
		case b == '\n':
			return append(rec, csvField{cur.String(), quoted}), nil
		case b == '\r':
		default:
			cur.WriteByte(b)
		}
	}
}

// binaryCopySignature starts PostgreSQL's binary COPY format.
var binaryCopySignature = []byte("PGCOPY\n\xff\r\n\x00")

// binaryCopyReader reads PostgreSQL's binary COPY format: the signature,
// flags and header extension, then tuples of (int16 field count, then per
// field an int32 length (-1 for NULL) and the value in binary format),
// ended by a field count of -1.
type binaryCopyReader struct {
	r      *bufio.Reader
	header bool
}

// next returns the raw fields of the next tuple (nil for NULL), or io.EOF.
func (b *binaryCopyReader) next() ([][]byte, error) {
	if !b.header {
		if err := b.readHeader(); err != nil {
			return nil, err
		}
		b.header = true
	}
	var n int16
	if err := binary.Read(b.r, binary.BigEndian, &n); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, badBinaryCopy("reading the field count: %v", err)
	}
	if n == -1 {
		return nil, io.EOF
	}
	if n < 0 {
		return nil, badBinaryCopy("negative field count %d", n)
	}
	fields := make([][]byte, n)
	for i := range fields {
		var l int32
		if err := binary.Read(b.r, binary.BigEndian, &l); err != nil {
			return nil, badBinaryCopy("reading a field length: %v", err)
		}
		if l == -1 {
			continue
		}
		if l < 0 {
			return nil, badBinaryCopy("invalid field length %d", l)
		}
		fields[i] = make([]byte, l)
		if _, err := io.ReadFull(b.r, fields[i]); err != nil {
			return nil, badBinaryCopy("reading a field: %v", err)
		}
	}
	return fields, nil
}

func (b *binaryCopyReader) readHeader() error {
	sig := make([]byte, len(binaryCopySignature))
	if _, err := io.ReadFull(b.r, sig); err != nil || !bytes.Equal(sig, binaryCopySignature) {
		return badBinaryCopy("COPY file signature not recognized")
	}
	var flags, extLen int32
	if err := binary.Read(b.r, binary.BigEndian, &flags); err != nil {
		return badBinaryCopy("invalid COPY file header (missing flags)")
	}
	if flags&(1<<16) != 0 {
		return badBinaryCopy("OIDs in binary COPY are not supported")
	}
	if err := binary.Read(b.r, binary.BigEndian, &extLen); err != nil || extLen < 0 {
		return badBinaryCopy("invalid COPY file header (missing length)")
	}
	_, err := io.CopyN(io.Discard, b.r, int64(extLen))
	if err != nil {
		return badBinaryCopy("invalid COPY file header (wrong length)")
	}
	return nil
}

func badBinaryCopy(format string, args ...any) error {
	return repr.Errorf("22P04", "invalid binary COPY data: "+format, args...)
}
