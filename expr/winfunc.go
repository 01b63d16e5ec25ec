package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// WinKind is a window function.
type WinKind uint8

// The window functions. WinAgg is an aggregate (WinFunc.Agg) over the
// window frame.
const (
	WinRowNumber WinKind = iota
	WinRank
	WinDenseRank
	WinPercentRank
	WinCumeDist
	WinNtile
	WinLag
	WinLead
	WinFirstValue
	WinLastValue
	WinNthValue
	WinAgg
)

var winNames = [...]string{
	WinRowNumber: "row_number", WinRank: "rank", WinDenseRank: "dense_rank",
	WinPercentRank: "percent_rank", WinCumeDist: "cume_dist", WinNtile: "ntile", WinLag: "lag",
	WinLead: "lead", WinFirstValue: "first_value", WinLastValue: "last_value", WinNthValue: "nth_value",
}

// LookupWinKind returns the window function (not aggregate) named name.
func LookupWinKind(name string) (WinKind, bool) {
	for k, n := range winNames {
		if n == name && n != "" {
			return WinKind(k), true
		}
	}
	return 0, false
}

// String returns the SQL name of k ("aggregate" for WinAgg).
func (k WinKind) String() string {
	if int(k) < len(winNames) && winNames[k] != "" {
		return winNames[k]
	}
	return "aggregate"
}

// UsesFrame reports whether k's value depends on the window frame: the
// value functions first_value, last_value and nth_value and the
// aggregates. The others ignore it, as in PostgreSQL.
func (k WinKind) UsesFrame() bool {
	return k == WinFirstValue || k == WinLastValue || k == WinNthValue || k == WinAgg
}

// WindowAggs lists the aggregates a Window can compute over a frame.
var WindowAggs = []AggKind{AggCountStar, AggCount, AggSum, AggAvg, AggMin, AggMax}

// WinFunc is one window function call, appending one column.
//
// Col is the argument column (unused by the ranking functions and
// count(*)). N is the constant of ntile (buckets), lag and lead (offset,
// negative to look the other way) and nth_value (1-based position).
// Default is the column holding lag/lead's default value (the value's
// type), -1 for NULL. Frame matters only when Kind.UsesFrame (others carry
// DefaultFrame). T is the result type (see WinFunc.Type).
type WinFunc struct {
	Kind    WinKind
	Agg     AggKind
	Col     int
	N       int64
	Default int
	Frame   Frame
	T       repr.T
}

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

// FrameBound is one end of a frame.
type FrameBound struct {
	Kind   FrameBoundKind
	Offset int64
}

// Frame is a window frame: ROWS counts positions, RANGE (without
// offsets) extends CURRENT ROW to the row's peers (rows equal in Order).
// The zero Frame is not valid; an OVER clause without a frame has
// DefaultFrame.
type Frame struct {
	Rows       bool
	Start, End FrameBound
}

// DefaultFrame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
var DefaultFrame = Frame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}

// Valid reports why f is not a frame the Window computes ("" if it is):
// a start of UNBOUNDED FOLLOWING or an end of UNBOUNDED PRECEDING, a
// negative offset, an offset in RANGE mode, or a start past the end kind
// (CURRENT ROW to n PRECEDING, n FOLLOWING to CURRENT ROW or n PRECEDING).
func (f Frame) Valid() string {
	switch {
	case f.Start.Kind == UnboundedFollowing:
		return "frame start cannot be UNBOUNDED FOLLOWING"
	case f.End.Kind == UnboundedPreceding:
		return "frame end cannot be UNBOUNDED PRECEDING"
	case f.Start.Kind > UnboundedFollowing || f.End.Kind > UnboundedFollowing:
		return "bad frame bound"
	case f.Start.Offset < 0 || f.End.Offset < 0:
		return "frame offsets must not be negative"
	case !f.Rows && (hasOffset(f.Start) || hasOffset(f.End)):
		return "RANGE frames with an offset are not supported"
	case f.Start.Kind == CurrentRow && f.End.Kind == Preceding:
		return "frame starting from current row cannot have preceding rows"
	case f.Start.Kind == Following && (f.End.Kind == CurrentRow || f.End.Kind == Preceding):
		return "frame starting from following row cannot have preceding rows"
	}
	return ""
}

func hasOffset(b FrameBound) bool { return b.Kind == Preceding || b.Kind == Following }

// String prints the frame as in SQL: ROWS BETWEEN 1 PRECEDING AND CURRENT ROW.
func (f Frame) String() string {
	mode := "RANGE"
	if f.Rows {
		mode = "ROWS"
	}
	return fmt.Sprintf("%s BETWEEN %s AND %s", mode, f.Start, f.End)
}

// String prints the bound as in SQL.
func (b FrameBound) String() string {
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case Preceding:
		return fmt.Sprintf("%d PRECEDING", b.Offset)
	case CurrentRow:
		return "CURRENT ROW"
	case Following:
		return fmt.Sprintf("%d FOLLOWING", b.Offset)
	}
	return "UNBOUNDED FOLLOWING"
}

// Type returns the result type of f over input columns of types in,
// following PostgreSQL: bigint for the ranks, ntile and count, double
// precision for percent_rank and cume_dist, the argument's type for the
// value functions, the aggregate's result type otherwise.
func (f WinFunc) Type(in []repr.T) (repr.T, error) {
	switch f.Kind {
	case WinRowNumber, WinRank, WinDenseRank, WinNtile:
		return repr.Int8, nil
	case WinPercentRank, WinCumeDist:
		return repr.Float8, nil
	}
	if f.Kind == WinAgg && f.Agg == AggCountStar {
		return repr.Int8, nil
	}
	if f.Col < 0 || f.Col >= len(in) {
		return repr.Unknown, fmt.Errorf("%s reads column #%d of %d", f.Kind, f.Col, len(in))
	}
	if f.Kind == WinAgg {
		return AggType(f.Agg, in[f.Col])
	}
	return in[f.Col], nil
}

// Cols returns the input columns f reads.
func (f WinFunc) Cols() []int {
	var cols []int
	switch {
	case f.Kind == WinAgg && f.Agg == AggCountStar:
	case f.Kind <= WinNtile:
	default:
		cols = append(cols, f.Col)
	}
	if (f.Kind == WinLag || f.Kind == WinLead) && f.Default >= 0 {
		cols = append(cols, f.Default)
	}
	return cols
}

// Remap returns f with its input columns renumbered by m.
func (f WinFunc) Remap(m func(int) int) WinFunc {
	if len(f.Cols()) > 0 {
		f.Col = m(f.Col)
	}
	if (f.Kind == WinLag || f.Kind == WinLead) && f.Default >= 0 {
		f.Default = m(f.Default)
	}
	return f
}

// String prints the call: row_number(), ntile(4), lag(#1, 1, #3),
// nth_value(#2, 2), sum(#1) ROWS BETWEEN 1 PRECEDING AND CURRENT ROW. The
// frame is printed when it is not DefaultFrame.
func (f WinFunc) String() string {
	var s string
	switch f.Kind {
	case WinRowNumber, WinRank, WinDenseRank, WinPercentRank, WinCumeDist:
		s = f.Kind.String() + "()"
	case WinNtile:
		s = fmt.Sprintf("ntile(%d)", f.N)
	case WinLag, WinLead:
		s = fmt.Sprintf("%s(#%d, %d", f.Kind, f.Col, f.N)
		if f.Default >= 0 {
			s += fmt.Sprintf(", #%d", f.Default)
		}
		s += ")"
	case WinFirstValue, WinLastValue:
		s = fmt.Sprintf("%s(#%d)", f.Kind, f.Col)
	case WinNthValue:
		s = fmt.Sprintf("nth_value(#%d, %d)", f.Col, f.N)
	case WinAgg:
		if f.Agg == AggCountStar {
			s = "count(*)"
		} else {
			s = fmt.Sprintf("%s(#%d)", f.Agg, f.Col)
		}
	}
	if f.Kind.UsesFrame() && f.Frame != DefaultFrame {
		s += " " + f.Frame.String()
	}
	return s
}

// ParseWinFunc parses a call as WinFunc.String prints it over input
// columns of types in, computing its result type.
func ParseWinFunc(s string, in []repr.T) (WinFunc, error) {
	f, err := parseWinFunc(strings.TrimSpace(s))
	if err != nil {
		return WinFunc{}, fmt.Errorf("bad window function %q: %w", s, err)
	}
	for _, c := range f.Cols() {
		if c < 0 || c >= len(in) {
			return WinFunc{}, fmt.Errorf("window function %q reads a column out of range", s)
		}
	}
	f.T, err = f.Type(in)
	return f, err
}

func parseWinFunc(s string) (WinFunc, error) {
	f := WinFunc{Col: -1, Default: -1, Frame: DefaultFrame}
	name, rest, ok := strings.Cut(s, "(")
	end := strings.IndexByte(rest, ')')
	if !ok || end < 0 {
		return f, fmt.Errorf("want name(args)")
	}
	argText, frame := rest[:end], strings.TrimSpace(rest[end+1:])
	var args []string
	if argText != "" {
		args = strings.Split(argText, ", ")
	}
	if err := f.parseCall(name, args); err != nil {
		return f, err
	}
	if frame != "" {
		if !f.Kind.UsesFrame() {
			return f, fmt.Errorf("%s takes no frame", f.Kind)
		}
		fr, err := parseFrame(frame)
		if err != nil {
			return f, err
		}
		f.Frame = fr
	}
	return f, nil
}

// parseCall sets f's kind and arguments from the name and argument texts.
func (f *WinFunc) parseCall(name string, args []string) error {
	want := func(n ...int) error {
		for _, k := range n {
			if len(args) == k {
				return nil
			}
		}
		return fmt.Errorf("%s takes %v arguments", name, n)
	}
	kind, ok := LookupWinKind(name)
	if !ok {
		k, ok := LookupAgg(name)
		if !ok || k.Def().Name != name || !IsWindowAgg(k) {
			return fmt.Errorf("unknown window function %q", name)
		}
		f.Kind, f.Agg = WinAgg, k
		if k == AggCount && len(args) == 1 && args[0] == "*" {
			f.Agg = AggCountStar
			return nil
		}
		if err := want(1); err != nil {
			return err
		}
		return parseColInto(args[0], &f.Col)
	}
	f.Kind = kind
	var err error
	switch kind {
	case WinNtile:
		if err = want(1); err == nil {
			f.N, err = strconv.ParseInt(args[0], 10, 64)
		}
	case WinLag, WinLead:
		if err = want(2, 3); err == nil {
			err = parseColInto(args[0], &f.Col)
		}
		if err == nil {
			f.N, err = strconv.ParseInt(args[1], 10, 64)
		}
		if err == nil && len(args) == 3 {
			err = parseColInto(args[2], &f.Default)
		}
	case WinFirstValue, WinLastValue:
		if err = want(1); err == nil {
			err = parseColInto(args[0], &f.Col)
		}
	case WinNthValue:
		if err = want(2); err == nil {
			err = parseColInto(args[0], &f.Col)
		}
		if err == nil {
			f.N, err = strconv.ParseInt(args[1], 10, 64)
		}
	default:
		err = want(0)
	}
	return err
}

func IsWindowAgg(k AggKind) bool {
	for _, w := range WindowAggs {
		if w == k {
			return true
		}
	}
	return false
}

func parseColInto(s string, dst *int) error {
	c, err := parseCol(s)
	*dst = c
	return err
}

// parseFrame parses "ROWS|RANGE BETWEEN <bound> AND <bound>".
func parseFrame(s string) (Frame, error) {
	var f Frame
	mode, rest, _ := strings.Cut(s, " BETWEEN ")
	switch mode {
	case "ROWS":
		f.Rows = true
	case "RANGE":
	default:
		return f, fmt.Errorf("bad frame %q", s)
	}
	start, end, ok := strings.Cut(rest, " AND ")
	if !ok {
		return f, fmt.Errorf("bad frame %q", s)
	}
	var err error
	if f.Start, err = parseBound(start); err == nil {
		f.End, err = parseBound(end)
	}
	if err == nil {
		if why := f.Valid(); why != "" {
			err = fmt.Errorf("%s", why)
		}
	}
	return f, err
}

func parseBound(s string) (FrameBound, error) {
	switch s {
	case "UNBOUNDED PRECEDING":
		return FrameBound{Kind: UnboundedPreceding}, nil
	case "CURRENT ROW":
		return FrameBound{Kind: CurrentRow}, nil
	case "UNBOUNDED FOLLOWING":
		return FrameBound{Kind: UnboundedFollowing}, nil
	}
	num, dir, _ := strings.Cut(s, " ")
	n, err := strconv.ParseInt(num, 10, 64)
	switch {
	case err != nil:
		return FrameBound{}, fmt.Errorf("bad frame bound %q", s)
	case dir == "PRECEDING":
		return FrameBound{Kind: Preceding, Offset: n}, nil
	case dir == "FOLLOWING":
		return FrameBound{Kind: Following, Offset: n}, nil
	}
	return FrameBound{}, fmt.Errorf("bad frame bound %q", s)
}
