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

// WinFunc is one window function call, appending one column.
//
// Col is the argument column (unused by the ranking functions and
// count(*)). N is the constant of ntile (buckets), lag and lead (offset,
// negative to look the other way) and nth_value (1-based position), or,
// when NCol >= 0, column NCol holds it (int4): lag, lead and nth_value
// read it at each row, ntile at the partition's first row where it is
// not NULL, as PostgreSQL evaluates them (NCol is -1 for a constant).
// Default is the column holding lag/lead's default value (the value's
// type), -1 for NULL, or a two-argument aggregate's second argument
// (string_agg's separator). Frame matters only when Kind.UsesFrame (others carry
// DefaultFrame). T is the result type (see WinFunc.Type).
type WinFunc struct {
	Kind    WinKind
	Agg     AggKind
	Col     int
	N       int64
	NCol    int
	Default int
	Frame   Frame
	T       repr.T
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
	if f.NCol >= 0 {
		cols = append(cols, f.NCol)
	}
	if f.Default >= 0 {
		cols = append(cols, f.Default)
	}
	return cols
}

// Remap returns f with its input columns renumbered by m.
func (f WinFunc) Remap(m func(int) int) WinFunc {
	if f.Col >= 0 && !(f.Kind == WinAgg && f.Agg == AggCountStar) && f.Kind > WinNtile {
		f.Col = m(f.Col)
	}
	if f.NCol >= 0 {
		f.NCol = m(f.NCol)
	}
	if f.Default >= 0 {
		f.Default = m(f.Default)
	}
	return f
}

// String prints the call: row_number(), ntile(4), lag(#1, 1, #3),
// nth_value(#2, 2), sum(#1) ROWS BETWEEN 1 PRECEDING AND CURRENT ROW, and
// with N read from a column lag(#1, #4), ntile(#2). The frame is printed
// when it is not DefaultFrame.
func (f WinFunc) String() string {
	var s string
	n := strconv.FormatInt(f.N, 10)
	if f.NCol >= 0 {
		n = fmt.Sprintf("#%d", f.NCol)
	}
	switch f.Kind {
	case WinRowNumber, WinRank, WinDenseRank, WinPercentRank, WinCumeDist:
		s = f.Kind.String() + "()"
	case WinNtile:
		s = fmt.Sprintf("ntile(%s)", n)
	case WinLag, WinLead:
		s = fmt.Sprintf("%s(#%d, %s", f.Kind, f.Col, n)
		if f.Default >= 0 {
			s += fmt.Sprintf(", #%d", f.Default)
		}
		s += ")"
	case WinFirstValue, WinLastValue:
		s = fmt.Sprintf("%s(#%d)", f.Kind, f.Col)
	case WinNthValue:
		s = fmt.Sprintf("nth_value(#%d, %s)", f.Col, n)
	case WinAgg:
		if f.Agg == AggCountStar {
			s = "count(*)"
		} else if f.Default >= 0 {
			s = fmt.Sprintf("%s(#%d, #%d)", f.Agg, f.Col, f.Default)
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
	f := WinFunc{Col: -1, NCol: -1, Default: -1, Frame: DefaultFrame}
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
		if k.Def().Shape == AggBinary {
			if err := want(2); err != nil {
				return err
			}
			if err := parseColInto(args[1], &f.Default); err != nil {
				return err
			}
		} else if err := want(1); err != nil {
			return err
		}
		return parseColInto(args[0], &f.Col)
	}
	f.Kind = kind
	var err error
	switch kind {
	case WinNtile:
		if err = want(1); err == nil {
			err = f.parseN(args[0])
		}
	case WinLag, WinLead:
		if err = want(2, 3); err == nil {
			err = parseColInto(args[0], &f.Col)
		}
		if err == nil {
			err = f.parseN(args[1])
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
			err = f.parseN(args[1])
		}
	default:
		err = want(0)
	}
	return err
}

// IsWindowAgg reports whether a Window computes aggregate k over a frame:
// those with a retractable accumulator (AggDef.Window) slide, and those
// keeping a multiset of values in order (string_agg, array_agg, json_agg,
// jsonb_agg, json[b]_object_agg; see IsFrameScanAgg) are computed from the frame's rows.
func IsWindowAgg(k AggKind) bool { return k.Def().Window || IsFrameScanAgg(k) }

// IsFrameScanAgg reports whether a Window computes aggregate k by reading
// its frame's rows in order at each position: a multiset aggregate that is
// not an ordered-set one (the object aggregates read the boxed key as the
// value and the value as the separator, as their Final expects).
func IsFrameScanAgg(k AggKind) bool {
	d := k.Def()
	return !d.Window && d.Multiset && d.Shape != AggOrderedSet
}

// parseN parses N: a constant, or #c for a column.
func (f *WinFunc) parseN(s string) error {
	if strings.HasPrefix(s, "#") {
		return parseColInto(s, &f.NCol)
	}
	var err error
	f.N, err = strconv.ParseInt(s, 10, 64)
	return err
}

func parseColInto(s string, dst *int) error {
	c, err := parseCol(s)
	*dst = c
	return err
}
