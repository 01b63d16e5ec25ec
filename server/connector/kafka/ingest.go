package kafka

import (
	"fmt"
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector/format"
)

// OnError is a source's policy for records its decoder rejects (the
// on_error option).
type OnError uint8

// The policies.
const (
	SkipBadRecords  OnError = iota // skip, count and report (the default)
	FailOnBadRecord                // stop the source with the record's error
)

// ParseOnError reads the on_error option: ” or 'skip', or 'fail'.
func ParseOnError(v string) (OnError, error) {
	switch strings.ToLower(v) {
	case "", "skip":
		return SkipBadRecords, nil
	case "fail":
		return FailOnBadRecord, nil
	}
	return 0, errOption("invalid on_error %q: expected skip or fail", v)
}

// prefixLen is how much of a bad record's value a report keeps.
const prefixLen = 64

// BadRecord describes a record the decoder rejected.
type BadRecord struct {
	Source    string
	Partition int32
	Offset    int64
	Err       *repr.Error
	Prefix    []byte // the first prefixLen bytes of the value
}

// String prints the report on one line.
func (b BadRecord) String() string {
	return fmt.Sprintf("source %q partition %d offset %d: %s: %s (record starts %q)",
		b.Source, b.Partition, b.Offset, b.Err.Code, describe(b.Err), b.Prefix)
}

// failure is the error that stops a source on this bad record: the
// record's SQLSTATE, naming the source and the record.
func (b BadRecord) failure() error {
	return &repr.Error{
		Code: b.Err.Code,
		Message: fmt.Sprintf("source %q stopped on a bad record at partition %d offset %d: %s",
			b.Source, b.Partition, b.Offset, b.Err.Message),
		Detail: strings.TrimPrefix(b.Err.Detail+"; ", "; ") + fmt.Sprintf("record starts %q", b.Prefix),
		Hint:   "on_error = 'skip' skips and counts bad records instead",
	}
}

// describe is the error's message with its detail.
func describe(e *repr.Error) string {
	if e.Detail != "" {
		return e.Message + ": " + e.Detail
	}
	return e.Message
}

// Ingest decodes the records of one source with its error policy.
type Ingest struct {
	Source  string
	Decoder format.Decoder
	OnError OnError
	// Report, if set, receives every bad record that is skipped.
	Report func(BadRecord)
	// Records and Bad count the records decoded and the bad ones.
	Records, Bad int64
}

// Decode appends the changes of recs to out. A bad record is skipped,
// counted and reported under SkipBadRecords; under FailOnBadRecord, Decode
// returns its error (with the source, partition, offset and record prefix)
// and out holds the changes of the records before it.
func (in *Ingest) Decode(recs []Record, out *format.Changes) error {
	for i := range recs {
		r := &recs[i]
		in.Records++
		err := in.Decoder.Decode(r.Key, r.Value, out)
		if err == nil {
			continue
		}
		in.Bad++
		bad := BadRecord{Source: in.Source, Partition: r.Partition, Offset: r.Offset, Err: repr.ErrorFrom(err), Prefix: r.Value[:min(len(r.Value), prefixLen)]}
		if in.OnError == FailOnBadRecord {
			return bad.failure()
		}
		if in.Report != nil {
			in.Report(bad)
		}
	}
	return nil
}
