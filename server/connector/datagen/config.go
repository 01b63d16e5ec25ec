package datagen

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/server/connector"
)

// Column is the name and type of one column to generate.
type Column = connector.Column

// Kind is how a column's values are generated.
type Kind uint8

// The kinds.
const (
	Random Kind = iota
	Sequence
)

// String returns the option spelling of k.
func (k Kind) String() string {
	if k == Sequence {
		return "sequence"
	}
	return "random"
}

// DefaultRowsPerSecond is datagen.rows.per.second's default (RisingWave's).
const DefaultRowsPerSecond = 10

// Config is a parsed datagen source: one Field per column, in column order.
type Config struct {
	Fields []Field
	// RowsPerSecond is the emission rate the runtime should pace to
	// (datagen.rows.per.second); the generator ignores it.
	RowsPerSecond int64
}

// Field is the generation rule of one column. Its bounds are kept in the
// column's representation so that producing a value is arithmetic only:
//
//	integers, dates (days), timestamps (µs since 2000-01-01): lo, hi
//	numeric: lo, hi are coefficients at scale (value = coefficient·10^-scale)
//	floats: flo, fhi for random; lo, hi for sequences
//	text: lo, hi for sequences (printed in decimal); length for random
//
// A sequence yields lo+n for row n while lo+n <= hi.
type Field struct {
	Column Column
	Kind   Kind
	// Seed is fields.<col>.seed; the column's stream also depends on its
	// position, so two columns with one seed still differ.
	Seed     uint64
	lo, hi   int64
	flo, fhi float64
	length   int64
	scale    int32
}

// String prints f's rule for tests and EXPLAIN-like output.
func (f Field) String() string {
	c := f.Column
	switch {
	case f.Kind == Sequence:
		return fmt.Sprintf("%s %s: sequence %d..%d", c.Name, c.Type.Name(), f.lo, f.hi)
	case c.Type.Family == repr.FamFloat:
		return fmt.Sprintf("%s %s: random [%g, %g] seed %d", c.Name, c.Type.Name(), f.flo, f.fhi, f.Seed)
	case c.Type.Family == repr.FamText:
		return fmt.Sprintf("%s %s: random length %d seed %d", c.Name, c.Type.Name(), f.length, f.Seed)
	case c.Type.Family == repr.FamNumeric:
		return fmt.Sprintf("%s %s: random [%d, %d]e-%d seed %d", c.Name, c.Type.Name(), f.lo, f.hi, f.scale, f.Seed)
	case c.Type.Family == repr.FamTimestamp:
		return fmt.Sprintf("%s %s: random [%s, %s] seed %d", c.Name, c.Type.Name(),
			repr.NewTimestamp(f.lo), repr.NewTimestamp(f.hi), f.Seed)
	case c.Type.Family == repr.FamTimestampTZ:
		return fmt.Sprintf("%s %s: random [%s, %s] seed %d", c.Name, c.Type.Name(),
			repr.NewTimestampTZ(f.lo), repr.NewTimestampTZ(f.hi), f.Seed)
	case c.Type.Family == repr.FamDate:
		return fmt.Sprintf("%s %s: random [%s, %s] seed %d", c.Name, c.Type.Name(),
			repr.NewDate(int32(f.lo)), repr.NewDate(int32(f.hi)), f.Seed)
	case c.Type.Family == repr.FamBool:
		return fmt.Sprintf("%s %s: random seed %d", c.Name, c.Type.Name(), f.Seed)
	}
	return fmt.Sprintf("%s %s: random [%d, %d] seed %d", c.Name, c.Type.Name(), f.lo, f.hi, f.Seed)
}

// The option keys outside fields.*.
const (
	OptRowsPerSecond = "datagen.rows.per.second"
	// OptSplitNum is accepted for RisingWave compatibility and ignored.
	OptSplitNum = "datagen.split.num"
)

// ParseOptions reads the WITH options of a datagen source over its
// columns. Keys outside the fields.* and datagen.* namespaces (such as
// connector) belong to the caller and are ignored. A bad value, an unknown
// property or a fields.<col> naming no column is a 22023 error naming the
// option; a column type or kind datagen cannot generate is 0A000.
func ParseOptions(cols []Column, opts map[string]string) (Config, error) {
	cfg := Config{RowsPerSecond: DefaultRowsPerSecond, Fields: make([]Field, len(cols))}
	props := make([]map[string]option, len(cols))
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if err := cfg.route(cols, props, k, opts[k]); err != nil {
			return Config{}, err
		}
	}
	for i, c := range cols {
		f, err := parseField(i, c, props[i])
		if err != nil {
			return Config{}, err
		}
		cfg.Fields[i] = f
	}
	return cfg, nil
}

// option is one fields.<col>.<prop> value with the key it came from.
type option struct{ key, val string }

// route files option k=v: a datagen.* setting into cfg, a fields.<col>.<prop>
// into props of its column.
func (cfg *Config) route(cols []Column, props []map[string]option, k, v string) error {
	low := strings.ToLower(k)
	switch {
	case low == OptRowsPerSecond:
		n, err := parseInt(k, v, 1, math.MaxInt64)
		cfg.RowsPerSecond = n
		return err
	case low == OptSplitNum:
		return nil
	case strings.HasPrefix(low, "datagen."):
		return repr.Errorf(repr.CodeInvalidParameter, "unrecognized option %q", k).
			WithHint("Valid datagen options: %s, %s, fields.<column>.<property>.", OptRowsPerSecond, OptSplitNum)
	case !strings.HasPrefix(low, "fields."):
		return nil
	}
	rest := k[len("fields."):]
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return repr.Errorf(repr.CodeInvalidParameter, "invalid option %q", k).
			WithHint("Use fields.<column>.<property>.")
	}
	i := findColumn(cols, rest[:dot])
	if i < 0 {
		return repr.Errorf(repr.CodeInvalidParameter, "option %q names no column %q", k, rest[:dot])
	}
	if props[i] == nil {
		props[i] = map[string]option{}
	}
	props[i][strings.ToLower(rest[dot+1:])] = option{key: k, val: v}
	return nil
}

// findColumn returns the index of the column called name: an exact match,
// else the only case-insensitive one, else -1.
func findColumn(cols []Column, name string) int {
	found := -1
	for i, c := range cols {
		if c.Name == name {
			return i
		}
		if strings.EqualFold(c.Name, name) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}
