package expr

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// Agg is one aggregate over input column Col (unused for count(*)).
// Distinct aggregates count each distinct value of Col once per group.
// For string_agg, Sep is the column holding the separator. Order is the
// aggregate's ORDER BY (string_agg(x, ',' ORDER BY y)), or an ordered-set
// aggregate's WITHIN GROUP order, whose one column is Col; Frac is the
// direct argument of percentile_cont and percentile_disc, Fracs (when not
// NULL) their array of fractions, a float8[]. A hypothetical-set
// aggregate's Col is its row record and Order its ORDER BY columns
// (AggDef.Hypothetical). The kinds, their
// names and result types are the registry's (AggDef, agg_registry.go).
type Agg struct {
	Kind     AggKind
	Col      int
	Sep      int
	Distinct bool
	Order    []SortCol
	Frac     float64
	Fracs    repr.Datum
	// DirectKey says the direct argument is not the constant Frac/Fracs
	// but input column DirectCol, one of the Reduce's key columns: an
	// expression of the grouped columns is the same on every row of a
	// group, so keying by it too splits no group, and each group's output
	// reads it from the group's key (as PostgreSQL evaluates a direct
	// argument once per group). The column is a float8 or a float8[].
	DirectKey bool
	DirectCol int
	// T is the result type (see AggType).
	T repr.T
}

// AggType returns the result type of aggregate k over an argument of type
// arg, following PostgreSQL (see the registry's Result functions).
func AggType(k AggKind, arg repr.T) (repr.T, error) {
	if t, ok := k.Type(arg); ok {
		return t, nil
	}
	return repr.Unknown, repr.Errorf(repr.CodeUndefinedFunction, "function %s(%s) does not exist", k, arg.Name())
}

// Cols returns the input columns a reads.
func (a Agg) Cols() []int {
	var cols []int
	if a.Kind != AggCountStar {
		cols = append(cols, a.Col)
	}
	if a.Kind.Def().Shape == AggBinary {
		cols = append(cols, a.Sep)
	}
	for _, o := range a.Order {
		cols = append(cols, o.Col)
	}
	if a.DirectKey {
		cols = append(cols, a.DirectCol)
	}
	return cols
}

// Remap returns a with its input columns renumbered by m.
func (a Agg) Remap(m func(int) int) Agg {
	if a.Kind != AggCountStar {
		a.Col = m(a.Col)
	}
	if a.Kind.Def().Shape == AggBinary {
		a.Sep = m(a.Sep)
	}
	a.Order = slices.Clone(a.Order)
	for i := range a.Order {
		a.Order[i].Col = m(a.Order[i].Col)
	}
	if a.DirectKey {
		a.DirectCol = m(a.DirectCol)
	}
	return a
}

// String prints the aggregate call: count(*), sum(DISTINCT #1),
// string_agg(#1, #2 ORDER BY #3 DESC), percentile_cont(0.5) WITHIN GROUP
// (ORDER BY #1).
func (a Agg) String() string {
	d := a.Kind.Def()
	switch d.Shape {
	case AggStar:
		return "count(*)"
	case AggOrderedSet:
		direct := ""
		switch {
		case d.Hypothetical:
			direct = fmt.Sprintf("#%d", a.Col)
		case d.Direct && a.DirectKey:
			direct = fmt.Sprintf("#%d", a.DirectCol)
		case d.Direct && !a.Fracs.IsNull():
			direct = repr.FormatText(a.Fracs, fracsType, nil)
		case d.Direct:
			direct = strconv.FormatFloat(a.Frac, 'g', -1, 64)
		}
		return fmt.Sprintf("%s(%s) WITHIN GROUP (ORDER BY %s)", d.Name, direct, FormatSortCols(a.Order))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s(", d.Name)
	if a.Distinct {
		b.WriteString("DISTINCT ")
	}
	fmt.Fprintf(&b, "#%d", a.Col)
	if d.Shape == AggBinary {
		fmt.Fprintf(&b, ", #%d", a.Sep)
	}
	if len(a.Order) > 0 {
		fmt.Fprintf(&b, " ORDER BY %s", FormatSortCols(a.Order))
	}
	b.WriteString(")")
	return b.String()
}

// ParseAgg parses one aggregate call (as Agg.String prints it) over input
// columns of types in.
func ParseAgg(s string, in []repr.T) (Agg, error) {
	bad := func() (Agg, error) { return Agg{}, fmt.Errorf("bad aggregate %q", s) }
	name, rest, ok := strings.Cut(s, "(")
	if !ok || !strings.HasSuffix(rest, ")") {
		return bad()
	}
	if name == "count" && rest == "*)" {
		return Agg{Kind: AggCountStar, T: repr.Int8}, nil
	}
	kind, ok := LookupAgg(name)
	if !ok || kind.Def().Name != name {
		return Agg{}, fmt.Errorf("unknown aggregate %q", name)
	}
	a := Agg{Kind: kind}
	var err error
	if kind.Def().Shape == AggOrderedSet {
		err = a.parseOrderedSet(rest)
	} else {
		err = a.parseArgs(rest[:len(rest)-1])
	}
	if err != nil {
		return Agg{}, fmt.Errorf("bad aggregate %q: %w", s, err)
	}
	for _, c := range a.Cols() {
		if c >= len(in) {
			return a, fmt.Errorf("%q reads a column out of range", s)
		}
	}
	a.T, err = AggType(kind, in[a.Col])
	if !a.Fracs.IsNull() || a.DirectKey && in[a.DirectCol].Family == repr.FamArray {
		a.T = repr.ArrayOf(a.T)
	}
	return a, err
}

// fracsType is the type of an ordered-set aggregate's array of fractions.
var fracsType = repr.ArrayOf(repr.Float8)

// parseOrderedSet parses "direct) WITHIN GROUP (ORDER BY #i ...)".
func (a *Agg) parseOrderedSet(s string) error {
	direct, order, ok := strings.Cut(s, ") WITHIN GROUP (ORDER BY ")
	d := a.Kind.Def()
	if !ok || (direct != "") != (d.Direct || d.Hypothetical) {
		return fmt.Errorf("want f(...) WITHIN GROUP (ORDER BY #i)")
	}
	var err error
	switch {
	case d.Hypothetical:
		a.Col, err = parseCol(direct)
	case strings.HasPrefix(direct, "#"):
		a.DirectKey = true
		a.DirectCol, err = parseCol(direct)
	case strings.HasPrefix(direct, "{") || strings.HasPrefix(direct, "["):
		a.Fracs, err = repr.ParseText(direct, fracsType, nil)
	case direct != "":
		a.Frac, err = strconv.ParseFloat(direct, 64)
	}
	if err != nil {
		return err
	}
	for _, it := range strings.Split(strings.TrimSuffix(order, ")"), ", ") {
		sc, err := ParseSortCol(it)
		if err != nil {
			return err
		}
		a.Order = append(a.Order, sc)
	}
	if len(a.Order) != 1 && !d.Hypothetical {
		return fmt.Errorf("want one ORDER BY column")
	}
	if !d.Hypothetical {
		a.Col = a.Order[0].Col
	}
	return nil
}

// parseArgs parses "[DISTINCT ]#i[, #j][ ORDER BY #k ...]".
func (a *Agg) parseArgs(s string) error {
	s, order, _ := strings.Cut(s, " ORDER BY ")
	if order != "" {
		for _, it := range strings.Split(order, ", ") {
			sc, err := ParseSortCol(it)
			if err != nil {
				return err
			}
			a.Order = append(a.Order, sc)
		}
	}
	if rest, ok := strings.CutPrefix(s, "DISTINCT "); ok {
		a.Distinct, s = true, rest
	}
	args := strings.Split(s, ", ")
	want := 1
	if a.Kind.Def().Shape == AggBinary {
		want = 2
	}
	if len(args) != want {
		return fmt.Errorf("want %d arguments", want)
	}
	var err error
	if a.Col, err = parseCol(args[0]); err == nil && want == 2 {
		a.Sep, err = parseCol(args[1])
	}
	return err
}
