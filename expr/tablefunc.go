package expr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// MaxTableFuncRows bounds the rows one call of a set-returning function may
// produce. A call that would produce more (generate_series(1, 10^9) from a
// single input row) fails with 54000 instead of exhausting memory: an
// operator's output for one step is held in memory before the next
// operator sees it. 2^20 rows cost on the order of 150 MB.
const MaxTableFuncRows = 1 << 20

// TableCol is one result column of a set-returning function.
type TableCol struct {
	// Name is the column's default name; "" names it after the function
	// (or after the FROM item's alias), as PostgreSQL names the column of
	// a function returning a scalar type.
	Name string
	T    repr.T
}

// TableGen produces the rows of one call from its evaluated, non-NULL
// arguments, calling emit once per row in order. emit copies the values
// it is handed, so a generator may reuse its slice; a non-nil error from
// emit (the row limit) must be returned unchanged.
type TableGen func(ctx *Ctx, args []repr.Datum, emit func(vals []repr.Datum) error) error

// TableFunc is one overload of a set-returning (table) function: its
// parameter types, its result columns and its generator. A table function
// is strict unless NullArgs: a call with a NULL argument produces no rows,
// as PostgreSQL's strict set-returning functions do.
type TableFunc struct {
	Name string
	Args []repr.T
	Cols []TableCol
	Gen  TableGen
	// NullArgs passes NULL arguments to Gen (string_to_table's NULL
	// delimiter splits into characters).
	NullArgs bool
	// Scalar is the scalar function a one-row table function wraps (a
	// scalar function called in FROM); nil for set-returning functions.
	Scalar *Func
	// contextual marks results that depend on the evaluation context (the
	// session time zone, the clock, randomness) rather than the arguments
	// alone.
	contextual bool
	// poly instantiates a polymorphic overload (unnest(anyarray)) for
	// concrete argument types; nil for monomorphic ones.
	poly func(args []repr.T) *TableFunc
	// Present is 1 + the index of a column no row of the function leaves
	// NULL (0: none known): a select-list call padded with NULLs beside a
	// longer one in lockstep (a NULL record in PostgreSQL) is told from a
	// row whose columns are all NULL by it.
	Present int
	// OneRow marks a function that yields exactly one row per call
	// (json[b]_to_record: PostgreSQL's function is not set-returning), so
	// a select-list call is evaluated per row rather than in lockstep with
	// set-returning calls, which repeat its value.
	OneRow bool
	// Record marks a function returning PostgreSQL's record: its columns
	// are a call's column definition list (tablefunc_record.go), which
	// the call prints.
	Record bool
	// record instantiates a Record overload for a column definition list;
	// nil once instantiated (and for other functions).
	record func(cols []TableCol) *TableFunc
}

// tableFuncs is the registry of set-returning functions by name. It is
// filled by init functions (tablefunc_*.go) and read-only afterwards; to add
// one, call tableFn (or add a TableFunc with poly) in an init function.
var tableFuncs = map[string][]*TableFunc{}

// tableFn registers a monomorphic overload.
func tableFn(name string, cols []TableCol, gen TableGen, args ...repr.T) *TableFunc {
	f := &TableFunc{Name: name, Args: args, Cols: cols, Gen: gen}
	tableFuncs[name] = append(tableFuncs[name], f)
	return f
}

// col1 is the result of a function returning one scalar column.
func col1(t repr.T) []TableCol { return []TableCol{{T: t}} }

// IsTableFunc reports whether name (lower case) is a set-returning function.
func IsTableFunc(name string) bool {
	_, ok := tableFuncs[strings.ToLower(name)]
	return ok
}

// ResolveTableFunc resolves a call of the set-returning function name over
// arguments of types args with PostgreSQL's function resolution (as
// ResolveFunc), returning the overload and the types the arguments must be
// coerced to. A name that is not a set-returning function resolves as a
// scalar function, wrapped to return its one value as one row (PostgreSQL
// allows any function in FROM).
func ResolveTableFunc(name string, args []repr.T) (*TableFunc, []repr.T, error) {
	name = strings.ToLower(name)
	cands := tableFuncs[name]
	if len(cands) == 0 && LookupFunc(name) {
		fn, want, err := ResolveFunc(name, args)
		if err != nil {
			return nil, nil, err
		}
		return scalarTable(fn), want, nil
	}
	sigs := make([]*Func, len(cands))
	for i, c := range cands {
		sigs[i] = c.sig()
	}
	fn, err := resolve(sigs, args)
	if err != nil {
		return nil, nil, funcError(name, args, err == errAmbiguous)
	}
	return fn.table, coerceTargets(fn, args), nil
}

// sig is the overload's signature as a Func, for resolution: its result is
// the first column's type and table leads back to the overload (an
// instantiated one for polymorphic overloads).
func (t *TableFunc) sig() *Func {
	ret := repr.Text // a record function's columns are not known yet
	if len(t.Cols) > 0 {
		ret = t.Cols[0].T
	}
	f := &Func{Name: t.Name, Args: t.Args, Ret: ret, Strict: true, table: t}
	if t.poly != nil {
		f.poly = func(args []repr.T) *Func {
			if inst := t.poly(args); inst != nil {
				return inst.sig()
			}
			return nil
		}
	}
	return f
}

// scalarTable wraps scalar function fn as a table function yielding one
// row, its value (NULL included, so NULL arguments still yield the row).
func scalarTable(fn *Func) *TableFunc {
	return &TableFunc{Name: fn.Name, Args: fn.Args, Cols: col1(fn.Ret), NullArgs: true, Scalar: fn,
		contextual: fn.Volatile || fn.zoned,
		Gen: func(ctx *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
			v := repr.Null
			if !fn.Strict || !slices.ContainsFunc(a, repr.Datum.IsNull) {
				var err error
				if v, err = fn.Impl(ctx, a); err != nil {
					return err
				}
			}
			return emit([]repr.Datum{v})
		}}
}

// Foldable reports whether a call's rows depend on its arguments alone, so
// the optimizer may compute a call with constant arguments ahead of time:
// not for results in the session time zone (timestamptz series), nor for
// wrapped volatile or zone-dependent scalar functions.
func (t *TableFunc) Foldable() bool {
	if t.contextual {
		return false
	}
	for _, c := range t.Cols {
		if c.T.Family == repr.FamTimestampTZ {
			return false
		}
	}
	return true
}

// ColTypes returns the types of the result columns.
func (t *TableFunc) ColTypes() []repr.T {
	ts := make([]repr.T, len(t.Cols))
	for i, c := range t.Cols {
		ts[i] = c.T
	}
	return ts
}

// TableCall is one call of a set-returning function: the overload and its
// argument expressions, already coerced to its parameter types.
type TableCall struct {
	Func *TableFunc
	Args []Expr
}

// String prints the call as ParseTableCall reads it: name(arg, ...),
// followed for a record-returning function by its column definition list:
// name(arg) AS ('a' int4, 'b' text).
func (c TableCall) String() string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.String()
	}
	s := c.Func.Name + "(" + strings.Join(args, ", ") + ")"
	if c.Func.Record {
		s += " AS " + formatColumnDefs(c.Func.Cols)
	}
	return s
}

// Remap returns the call with column references renumbered by m.
func (c TableCall) Remap(m func(int) int) TableCall {
	out := TableCall{Func: c.Func, Args: make([]Expr, len(c.Args))}
	for i, a := range c.Args {
		out.Args[i] = Remap(a, m)
	}
	return out
}

// Eval evaluates the arguments over row and returns the call's rows (each
// a fresh slice of len(Func.Cols) values). A NULL argument produces no
// rows (unless Func.NullArgs); more than MaxTableFuncRows rows fail with
// 54000.
func (c TableCall) Eval(ctx *Ctx, row repr.Row) ([]repr.Row, error) {
	var out []repr.Row
	err := c.Run(ctx, row, func(vals []repr.Datum) error {
		out = append(out, append(repr.Row(nil), vals...))
		return nil
	})
	return out, err
}

// Run evaluates the arguments over row and calls emit with each of the
// call's rows in order (vals is only valid during the call). A NULL
// argument produces no rows (unless Func.NullArgs); more than
// MaxTableFuncRows rows fail with 54000.
func (c TableCall) Run(ctx *Ctx, row repr.Row, emit func(vals []repr.Datum) error) error {
	var buf [4]repr.Datum
	args := buf[:0]
	for _, a := range c.Args {
		d, err := a.Eval(ctx, row)
		if err != nil {
			return err
		}
		if d.IsNull() && !c.Func.NullArgs {
			return nil
		}
		args = append(args, d)
	}
	n := 0
	return c.Func.Gen(ctx, args, func(vals []repr.Datum) error {
		if n++; n > MaxTableFuncRows {
			return errTooManyRows(c.Func.Name)
		}
		return emit(vals)
	})
}

// errTooManyRows is the 54000 error of a call past MaxTableFuncRows.
func errTooManyRows(name string) error {
	return repr.Errorf(repr.CodeProgramLimitExceeded, "%s would return more than %d rows from one call", name, MaxTableFuncRows).
		WithHint("Split the call into smaller ranges.")
}

// ParseTableCall parses name(arg, ...) [AS (column definitions)] as
// String prints it, with the arguments over columns of types cols; the
// overload is the one whose parameters the argument types select.
func ParseTableCall(s string, cols []repr.T) (TableCall, error) {
	s, defs, err := cutColumnDefs(strings.TrimSpace(s))
	if err != nil {
		return TableCall{}, err
	}
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return TableCall{}, fmt.Errorf("bad table function call %q", s)
	}
	var c TableCall
	var ts []repr.T
	if inner := strings.TrimSpace(s[open+1 : len(s)-1]); inner != "" {
		for _, part := range splitArgs(inner) {
			e, err := ParseExpr(part, cols)
			if err != nil {
				return TableCall{}, err
			}
			c.Args = append(c.Args, e)
			ts = append(ts, e.Type())
		}
	}
	f, want, err := ResolveTableFunc(s[:open], ts)
	if err != nil {
		return TableCall{}, err
	}
	for i, t := range want {
		if !sameType(t, ts[i]) {
			return TableCall{}, fmt.Errorf("table function %s: argument %d is %s, not %s", f.Name, i+1, TypeName(ts[i]), TypeName(t))
		}
	}
	c.Func = f
	switch {
	case f.NeedsColumns() && defs == nil:
		return TableCall{}, fmt.Errorf("table function %s needs a column definition list", f.Name)
	case !f.NeedsColumns() && defs != nil:
		return TableCall{}, fmt.Errorf("table function %s takes no column definition list", f.Name)
	}
	if defs != nil {
		c.Func = f.WithColumns(defs)
	}
	return c, nil
}

// cutColumnDefs splits "name(args) AS (defs)" into the call and its
// parsed column definitions (nil without an AS list).
func cutColumnDefs(s string) (string, []TableCol, error) {
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return s, nil, nil
	}
	end := closingParen(s, open)
	if end < 0 {
		return "", nil, fmt.Errorf("bad table function call %q", s)
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(s[end+1:]), "AS ")
	if !ok {
		return s, nil, nil
	}
	defs, err := parseColumnDefs(rest)
	return s[:end+1], defs, err
}

// closingParen returns the index of the parenthesis closing the one at
// s[open], skipping quoted strings; -1 if there is none.
func closingParen(s string, open int) int {
	depth := 0
	var quote byte
	for i := open; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '(':
			depth++
		case ch == ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitArgs splits s at the commas outside parentheses, brackets and
// single- or double-quoted strings.
func splitArgs(s string) []string {
	var parts []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '(' || ch == '[':
			depth++
		case ch == ')' || ch == ']':
			depth--
		case ch == ',' && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// TableCallTypes returns the output column types of set-returning calls
// run in lockstep over a row of types in (a FlatMap, ROWS FROM): the
// input's, each function's columns, then the ordinality column.
func TableCallTypes(funcs []TableCall, ordinality bool, in []repr.T) []repr.T {
	out := append([]repr.T(nil), in...)
	for _, f := range funcs {
		out = append(out, f.Func.ColTypes()...)
	}
	if ordinality {
		out = append(out, repr.Int8)
	}
	return out
}
