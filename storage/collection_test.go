package storage

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddydb/eddy/repr"
)

// TestCollection runs testdata/collection. Each file works on one store
// and one collection; Apply logs to a pending batch.
//
//	new id=<n> [keycols=0,2]   a fresh collection (the pending batch is dropped)
//	apply                       lines: <diff> <row>; stops at the first error
//	flush                       commits the pending batch
//	reload                      loads a second collection from the store and
//	                            prints it (memory must have been flushed)
//	scan | get <row of key values> | scan-prefix <row of leading key values>
//	replace                     lines: <old row> => <new row>; stops at the first error
//	writes                      prints the pending batch's write count
//	begin | rollback | commit | clear
//	share on|off                ShareScans
//	scan-prefix-shared <row>    ScanPrefixColsShared, and whether the
//	                            prefix was remembered before it
func TestCollection(t *testing.T) { runCollectionFiles(t, "testdata/collection") }

// TestSharedScans runs testdata/shared_scans (the commands of
// TestCollection): a shared prefix scan remembers what it found until the
// collection changes, by any of its writes.
func TestSharedScans(t *testing.T) { runCollectionFiles(t, "testdata/shared_scans") }

// runCollectionFiles runs the datadriven files at path, each on a fresh
// collection in a fresh store.
func runCollectionFiles(t *testing.T, path string) {
	datadriven.Walk(t, path, func(t *testing.T, path string) {
		db := openTest(t, t.TempDir())
		defer func() { _ = db.Close() }()
		st := &collState{db: db, b: db.NewBatch(), c: NewCollection(1, nil)}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out, err := st.run(t, d)
			if err != nil {
				out += "error: " + err.Error() + "\n"
			}
			return out
		})
	})
}

type collState struct {
	db *DB
	b  *Batch
	c  *Collection
}

func (s *collState) run(t *testing.T, d *datadriven.TestData) (string, error) {
	switch d.Cmd {
	case "new":
		return "", s.newCollection(t, d)
	case "apply":
		return "", forLines(d.Input, func(diff, first, rest string) error { return s.apply(diff, first+" "+rest) })
	case "flush":
		defer s.b.Reset()
		return "", s.db.Commit(s.b)
	case "reload":
		c := NewCollection(s.c.id, s.c.keyCols)
		if err := c.Load(s.db); err != nil {
			return "", err
		}
		return dumpCollection(c.Scan), nil
	case "scan":
		return dumpCollection(s.c.Scan), nil
	case "get":
		return s.get(d.Input)
	case "scan-prefix":
		row, err := parseRow(d.Input)
		prefix := repr.AppendRowKey(nil, row)
		return dumpCollection(func(fn func(repr.Row, int64) bool) { s.c.ScanPrefix(prefix, fn) }), err
	case "scan-prefix-shared":
		row, err := parseRow(d.Input)
		prefix := repr.AppendRowKey(nil, row)
		hit := s.c.remembers(prefix)
		out := dumpCollection(func(fn func(repr.Row, int64) bool) { s.c.ScanPrefixColsShared(prefix, nil, fn) })
		return out + fmt.Sprintf("remembered before: %v\n", hit), err
	case "share":
		s.c.ShareScans(strings.TrimSpace(d.Input) == "on")
	case "replace":
		return "", s.replace(d.Input)
	case "writes":
		return fmt.Sprintf("%d writes pending\n", s.b.Len()), nil
	case "clear":
		s.c.Clear(s.b)
	case "begin":
		s.c.Begin()
	case "rollback":
		s.c.Rollback()
	case "commit":
		s.c.Commit()
	default:
		return "", fmt.Errorf("unknown command %q", d.Cmd)
	}
	return "", nil
}

func (s *collState) newCollection(t *testing.T, d *datadriven.TestData) error {
	var id uint64
	d.ScanArgs(t, "id", &id)
	var keyCols []int
	if d.HasArg("keycols") {
		d.ScanArgs(t, "keycols", &keyCols)
	}
	s.c = NewCollection(id, keyCols)
	s.b.Reset()
	return nil
}

func (s *collState) apply(diffText, rowText string) error {
	diff, err := strconv.ParseInt(diffText, 10, 64)
	if err != nil {
		return err
	}
	row, err := parseRow(rowText)
	if err != nil {
		return err
	}
	return s.c.Apply(row, diff, s.b)
}

func (s *collState) replace(input string) error {
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		oldText, newText, ok := strings.Cut(line, "=>")
		if !ok {
			return fmt.Errorf("replace: %q lacks =>", line)
		}
		old, err := parseRow(strings.TrimSpace(oldText))
		if err != nil {
			return err
		}
		nu, err := parseRow(strings.TrimSpace(newText))
		if err != nil {
			return err
		}
		if err := s.c.Replace(old, nu, s.b); err != nil {
			return err
		}
	}
	return nil
}

func (s *collState) get(input string) (string, error) {
	row, err := parseRow(input)
	if err != nil {
		return "", err
	}
	got, count, ok := s.c.Get(repr.AppendRowKey(nil, row))
	if !ok {
		return "not found\n", nil
	}
	return fmt.Sprintf("%s x%d\n", formatRow(got), count), nil
}

// dumpCollection prints every entry of a scan, then the entry count.
func dumpCollection(scan func(func(repr.Row, int64) bool)) string {
	var sb strings.Builder
	n := 0
	scan(func(r repr.Row, count int64) bool {
		fmt.Fprintf(&sb, "%s x%d\n", formatRow(r), count)
		n++
		return true
	})
	fmt.Fprintf(&sb, "%d entries\n", n)
	return sb.String()
}

// remembers reports whether c's memo of shared scans holds prefix.
func (c *Collection) remembers(prefix []byte) bool {
	if c.memo == nil {
		return false
	}
	_, ok := c.memo.spans[string(prefix)]
	return ok
}
