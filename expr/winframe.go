package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// FrameMode is how a frame's offsets count: ROWS in positions, RANGE in
// values of the (single) ORDER BY column, GROUPS in peer groups.
type FrameMode uint8

// The frame modes; the zero mode is RANGE, PostgreSQL's default.
const (
	RangeMode FrameMode = iota
	RowsMode
	GroupsMode
)

var modeNames = [...]string{RangeMode: "RANGE", RowsMode: "ROWS", GroupsMode: "GROUPS"}

// String returns the SQL keyword of m.
func (m FrameMode) String() string { return modeNames[m] }

// Exclusion is a frame's EXCLUDE clause: which rows around the current
// one leave its frame.
type Exclusion uint8

// The exclusions; the zero one is EXCLUDE NO OTHERS (none).
const (
	ExcludeNoOthers Exclusion = iota
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

var exclusionNames = [...]string{ExcludeNoOthers: "NO OTHERS", ExcludeCurrentRow: "CURRENT ROW",
	ExcludeGroup: "GROUP", ExcludeTies: "TIES"}

// String returns the SQL words after EXCLUDE.
func (x Exclusion) String() string { return exclusionNames[x] }

// FrameBoundKind is the kind of one end of a frame.
type FrameBoundKind uint8

// The frame bound kinds; Preceding and Following have an offset.
const (
	UnboundedPreceding FrameBoundKind = iota
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is one end of a frame. Offset is a ROWS or GROUPS offset
// (positions or peer groups, >= 0); Value is a RANGE offset, a value of
// type T added to or subtracted from the ORDER BY column by PostgreSQL's
// in_range rules (an integer, float8, numeric or interval; a negative
// one is an error when a frame is computed, as in PostgreSQL).
type FrameBound struct {
	Kind   FrameBoundKind
	Offset int64
	Value  repr.Datum
	T      repr.T
}

// Frame is a window frame. RANGE without offsets extends CURRENT ROW to
// the row's peers (rows equal in Order); Exclude removes rows around the
// current one. The zero Frame is not valid; an OVER clause without a
// frame has DefaultFrame.
type Frame struct {
	Mode       FrameMode
	Start, End FrameBound
	Exclude    Exclusion
}

// DefaultFrame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
var DefaultFrame = Frame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}

// Rows reports whether f counts positions.
func (f Frame) Rows() bool { return f.Mode == RowsMode }

// HasOffset reports whether b is n PRECEDING or n FOLLOWING.
func (b FrameBound) HasOffset() bool { return b.Kind == Preceding || b.Kind == Following }

// RangeOffsets reports whether f is a RANGE frame with an offset bound.
func (f Frame) RangeOffsets() bool {
	return f.Mode == RangeMode && (f.Start.HasOffset() || f.End.HasOffset())
}

// Valid reports why f is not a frame the Window computes ("" if it is):
// a start of UNBOUNDED FOLLOWING or an end of UNBOUNDED PRECEDING, a
// negative ROWS or GROUPS offset, a RANGE offset that is NULL or not a
// number or interval, or a start past the end kind (CURRENT ROW to n
// PRECEDING, n FOLLOWING to CURRENT ROW or n PRECEDING).
func (f Frame) Valid() string {
	switch {
	case f.Start.Kind == UnboundedFollowing:
		return "frame start cannot be UNBOUNDED FOLLOWING"
	case f.End.Kind == UnboundedPreceding:
		return "frame end cannot be UNBOUNDED PRECEDING"
	case f.Start.Kind > UnboundedFollowing || f.End.Kind > UnboundedFollowing || f.Mode > GroupsMode || f.Exclude > ExcludeTies:
		return "bad frame"
	case f.Start.Offset < 0 || f.End.Offset < 0:
		return "frame offsets must not be negative"
	case f.Start.Kind == CurrentRow && f.End.Kind == Preceding:
		return "frame starting from current row cannot have preceding rows"
	case f.Start.Kind == Following && (f.End.Kind == CurrentRow || f.End.Kind == Preceding):
		return "frame starting from following row cannot have preceding rows"
	}
	for _, b := range []FrameBound{f.Start, f.End} {
		if why := b.validValue(f.Mode); why != "" {
			return why
		}
	}
	return ""
}

// validValue checks that b has a RANGE offset value exactly when it
// should.
func (b FrameBound) validValue(m FrameMode) string {
	if m != RangeMode || !b.HasOffset() {
		if !b.Value.IsNull() {
			return "only a RANGE offset has a value"
		}
		return ""
	}
	switch b.Value.Family() {
	case repr.FamInt, repr.FamFloat, repr.FamNumeric, repr.FamInterval:
		if b.T.Family == b.Value.Family() {
			return ""
		}
	}
	return "a RANGE offset must be a non-NULL number or interval"
}

// String prints the frame as in SQL: ROWS BETWEEN 1 PRECEDING AND
// CURRENT ROW, RANGE BETWEEN '1 day'::interval PRECEDING AND CURRENT ROW
// EXCLUDE TIES.
func (f Frame) String() string {
	s := fmt.Sprintf("%s BETWEEN %s AND %s", f.Mode, f.Start, f.End)
	if f.Exclude != ExcludeNoOthers {
		s += " EXCLUDE " + f.Exclude.String()
	}
	return s
}

// String prints the bound as in SQL; a RANGE offset as its literal.
func (b FrameBound) String() string {
	off := strconv.FormatInt(b.Offset, 10)
	if !b.Value.IsNull() {
		off = (&Lit{D: b.Value, T: b.T}).String()
	}
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case Preceding:
		return off + " PRECEDING"
	case CurrentRow:
		return "CURRENT ROW"
	case Following:
		return off + " FOLLOWING"
	}
	return "UNBOUNDED FOLLOWING"
}

// parseFrame parses "ROWS|RANGE|GROUPS BETWEEN <bound> AND <bound>
// [EXCLUDE ...]".
func parseFrame(s string) (Frame, error) {
	var f Frame
	s, excl, ok := strings.Cut(s, " EXCLUDE ")
	if ok {
		x := indexOf(exclusionNames[:], excl)
		if x <= 0 {
			return f, fmt.Errorf("bad frame exclusion %q", excl)
		}
		f.Exclude = Exclusion(x)
	}
	mode, rest, _ := strings.Cut(s, " BETWEEN ")
	m := indexOf(modeNames[:], mode)
	if m < 0 {
		return f, fmt.Errorf("bad frame %q", s)
	}
	f.Mode = FrameMode(m)
	start, end, ok := strings.Cut(rest, " AND ")
	if !ok {
		return f, fmt.Errorf("bad frame %q", s)
	}
	var err error
	if f.Start, err = parseBound(start, f.Mode); err == nil {
		f.End, err = parseBound(end, f.Mode)
	}
	if err == nil {
		if why := f.Valid(); why != "" {
			err = fmt.Errorf("%s", why)
		}
	}
	return f, err
}

func indexOf(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}

// parseBound parses one bound; a RANGE offset is a literal.
func parseBound(s string, m FrameMode) (FrameBound, error) {
	switch s {
	case "UNBOUNDED PRECEDING":
		return FrameBound{Kind: UnboundedPreceding}, nil
	case "CURRENT ROW":
		return FrameBound{Kind: CurrentRow}, nil
	case "UNBOUNDED FOLLOWING":
		return FrameBound{Kind: UnboundedFollowing}, nil
	}
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return FrameBound{}, fmt.Errorf("bad frame bound %q", s)
	}
	var b FrameBound
	switch s[i+1:] {
	case "PRECEDING":
		b.Kind = Preceding
	case "FOLLOWING":
		b.Kind = Following
	default:
		return FrameBound{}, fmt.Errorf("bad frame bound %q", s)
	}
	if m != RangeMode {
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil {
			return FrameBound{}, fmt.Errorf("bad frame bound %q", s)
		}
		b.Offset = n
		return b, nil
	}
	e, err := ParseExpr(s[:i], nil)
	if err != nil {
		return FrameBound{}, fmt.Errorf("bad frame bound %q: %w", s, err)
	}
	lit, ok := Fold(e).(*Lit)
	if !ok {
		return FrameBound{}, fmt.Errorf("bad frame bound %q: want a literal", s)
	}
	b.Value, b.T = lit.D, lit.T
	return b, nil
}
