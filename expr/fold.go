package expr

import (
	"slices"
	"strings"
	"time"

	"github.com/eddydb/eddy/repr"
)

// NewCast returns e coerced to type to: e itself when its type already
// equals to (modifiers included), a folded literal when e is a literal
// whose cast does not depend on the session time zone and succeeds, else
// an implicit (assignment-semantics) Cast node.
func NewCast(e Expr, to repr.T) Expr {
	from := e.Type()
	if from == to {
		return e
	}
	if l, ok := e.(*Lit); ok && !zonedCast(from, to) && !isRegCast(from, to) && !StyledInput(l.D, from, to) {
		if d, err := castDatum(l.D, from, to, time.UTC, false); err == nil {
			return &Lit{D: d, T: to}
		}
	}
	return &Cast{Arg: e, To: to}
}

// zonedCast reports whether a cast's result depends on the session: its
// time zone, or its extra_float_digits (StyledCast).
func zonedCast(from, to repr.T) bool {
	return zonedType(from) || zonedType(to) || StyledCast(from, to)
}

// StyledCast reports whether a cast prints floats or intervals as text,
// which extra_float_digits and IntervalStyle change (Ctx.FloatDigits,
// Ctx.IntervalStyle).
func StyledCast(from, to repr.T) bool {
	if to.Family != repr.FamText {
		return false
	}
	switch from.Family {
	case repr.FamFloat, repr.FamInterval, repr.FamRecord:
		return true
	case repr.FamArray:
		return from.Elem == repr.FamFloat || from.Elem == repr.FamInterval || from.Elem == repr.FamRecord
	}
	return false
}

// StyledInput reports whether casting the value d of type from to type
// to reads interval text whose meaning IntervalStyle sql_standard changes
// (repr.IntervalInputStyled): such a cast is evaluated, not folded, so it
// reads the session's style (Ctx.IntervalStyle).
func StyledInput(d repr.Datum, from, to repr.T) bool {
	return to.Family == repr.FamInterval && textual(from) && !d.IsNull() && repr.IntervalInputStyled(d.Text())
}

// textual reports the string types whose text a cast parses.
func textual(t repr.T) bool {
	return t.Family == repr.FamText || t.Family == repr.FamUnknown
}

// zonedType reports whether values of t print differently in different
// time zones: timestamptz and arrays of it.
func zonedType(t repr.T) bool {
	return t.Family == repr.FamTimestampTZ || t.Family == repr.FamArray && t.Elem == repr.FamTimestampTZ
}

// NewCase builds a searched CASE, coercing conditions to bool and results
// to their common type (PostgreSQL evaluates ELSE's type first).
func NewCase(conds, thens []Expr, els Expr) (Expr, error) {
	results := thens
	if els != nil {
		results = append([]Expr{els}, thens...)
	}
	t, err := CommonType(exprTypes(results), "CASE")
	if err != nil {
		return nil, err
	}
	c := &Case{T: t}
	for i := range conds {
		if ct := conds[i].Type(); ct.Family != repr.FamBool && ct.Family != repr.FamUnknown {
			return nil, repr.Errorf(repr.CodeDatatypeMismatch, "argument of CASE/WHEN must be type boolean, not type %s", ct.Name())
		}
		c.Whens = append(c.Whens, When{Cond: NewCast(conds[i], repr.Bool), Then: NewCast(thens[i], t)})
	}
	if els != nil {
		c.Else = NewCast(els, t)
	}
	return c, nil
}

// NewCoalesce builds COALESCE over args coerced to their common type.
func NewCoalesce(args []Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, repr.Errorf(repr.CodeSyntax, "syntax error at or near \")\"")
	}
	t, err := CommonType(exprTypes(args), "COALESCE")
	if err != nil {
		return nil, err
	}
	return &Coalesce{Args: coerceAll(args, slices.Repeat([]repr.T{t}, len(args))), T: t}, nil
}

// Children returns e's direct subexpressions in evaluation order.
func Children(e Expr) []Expr {
	switch e := e.(type) {
	case *Call:
		return e.Args
	case *Cast:
		return []Expr{e.Arg}
	case *And:
		return e.Args
	case *Or:
		return e.Args
	case *Not:
		return []Expr{e.Arg}
	case *IsNull:
		return []Expr{e.Arg}
	case *Case:
		var out []Expr
		for _, w := range e.Whens {
			out = append(out, w.Cond, w.Then)
		}
		if e.Else != nil {
			out = append(out, e.Else)
		}
		return out
	case *Coalesce:
		return e.Args
	}
	return nil
}

// WithChildren returns a copy of e with its subexpressions replaced by kids
// (in Children's order). Leaves are returned unchanged.
func WithChildren(e Expr, kids []Expr) Expr {
	switch e := e.(type) {
	case *Call:
		return &Call{Fn: e.Fn, Args: kids}
	case *Cast:
		return &Cast{Arg: kids[0], To: e.To, Explicit: e.Explicit}
	case *And:
		return &And{Args: kids}
	case *Or:
		return &Or{Args: kids}
	case *Not:
		return &Not{Arg: kids[0]}
	case *IsNull:
		return &IsNull{Arg: kids[0], Negate: e.Negate}
	case *Case:
		c := &Case{T: e.T}
		for i := range e.Whens {
			c.Whens = append(c.Whens, When{Cond: kids[2*i], Then: kids[2*i+1]})
		}
		if e.Else != nil {
			c.Else = kids[len(kids)-1]
		}
		return c
	case *Coalesce:
		return &Coalesce{Args: kids, T: e.T}
	}
	return e
}

// mapChildren rebuilds e with f applied to each child.
func mapChildren(e Expr, f func(Expr) Expr) Expr {
	kids := Children(e)
	if len(kids) == 0 {
		return e
	}
	out := make([]Expr, len(kids))
	for i, k := range kids {
		out[i] = f(k)
	}
	return WithChildren(e, out)
}

// Columns returns the column indices e references, sorted and unique.
func Columns(e Expr) []int {
	var cols []int
	var walk func(Expr)
	walk = func(e Expr) {
		if c, ok := e.(*Col); ok {
			cols = append(cols, c.Idx)
		}
		for _, k := range Children(e) {
			walk(k)
		}
	}
	walk(e)
	slices.Sort(cols)
	return slices.Compact(cols)
}

// Remap returns e with every column index i replaced by m(i).
func Remap(e Expr, m func(int) int) Expr {
	if c, ok := e.(*Col); ok {
		return &Col{Idx: m(c.Idx), T: c.T}
	}
	return mapChildren(e, func(k Expr) Expr { return Remap(k, m) })
}

// IsVolatile reports whether e calls a volatile function (now(), random()).
func IsVolatile(e Expr) bool {
	if c, ok := e.(*Call); ok && c.Fn.Volatile {
		return true
	}
	if c, ok := e.(*Cast); ok && isRegCast(c.Arg.Type(), c.To) {
		return true // it reads the catalog
	}
	for _, k := range Children(e) {
		if IsVolatile(k) {
			return true
		}
	}
	return false
}

// IsImmutable reports whether e's value depends only on the columns it
// reads: it holds no parameter and no volatile or time-zone-dependent
// call or cast (PostgreSQL's IMMUTABLE, which an index expression must
// be: its value is stored, so it may never change for the same row).
func IsImmutable(e Expr) bool {
	switch e.(type) {
	case *Param:
		return false
	case *Col:
		return true
	}
	if !foldable(e) {
		return false
	}
	for _, k := range Children(e) {
		if !IsImmutable(k) {
			return false
		}
	}
	return true
}

// Fold evaluates every subtree without columns, volatile calls or
// time-zone-dependent operations into a literal, and binds calls whose
// overload specializes on literal arguments (Func.bind). A subtree whose evaluation
// fails is left as is, so the error surfaces at run time only if that
// subtree is reached (as with a CASE-guarded division by zero in PG).
func Fold(e Expr) Expr {
	if _, ok := e.(*Lit); ok {
		return e
	}
	e = mapChildren(e, Fold)
	if c, ok := e.(*Call); ok && c.Fn.bind != nil {
		if g := c.Fn.bind(c.Args); g != nil {
			e = &Call{Fn: g, Args: c.Args}
		}
	}
	if !foldable(e) {
		return e
	}
	for _, k := range Children(e) {
		if _, ok := k.(*Lit); !ok {
			return e
		}
	}
	d, err := e.Eval(&Ctx{}, nil)
	if err != nil {
		return e
	}
	return &Lit{D: d, T: e.Type()}
}

// foldable reports whether e's own operation may run at plan time.
func foldable(e Expr) bool {
	switch e := e.(type) {
	case *Col, *Param:
		return false
	case *Call:
		// A record has no literal form (its text input is not
		// implemented), so calls returning one stay calls.
		return !e.Fn.Volatile && !e.Fn.zoned && e.Fn.Ret.Family != repr.FamRecord &&
			e.Fn.Ret.ElemType().Family != repr.FamRecord
	case *Cast:
		if l, ok := e.Arg.(*Lit); ok && StyledInput(l.D, l.T, e.To) {
			return false
		}
		return !zonedCast(e.Arg.Type(), e.To) && !isRegCast(e.Arg.Type(), e.To)
	}
	return true
}

// ParseTypeName returns the type named name (a TypeName form or a common
// SQL spelling) with modifiers mods.
func ParseTypeName(name string, mods []int32) (repr.T, error) {
	if elem, ok := strings.CutSuffix(name, "[]"); ok {
		t, err := ParseTypeName(elem, mods)
		return repr.ArrayOf(t), err
	}
	t, ok := typeNames[name]
	if !ok {
		return repr.Unknown, repr.Errorf(repr.CodeUndefinedObject, "type %q does not exist", name)
	}
	switch {
	case len(mods) == 0:
	case t.Family == repr.FamText && t.Kind != repr.KindText && len(mods) == 1,
		t.Family == repr.FamBit && len(mods) == 1:
		t.Length = mods[0]
	case t.Family == repr.FamNumeric && len(mods) <= 2:
		t.Precision = mods[0]
		if len(mods) == 2 {
			t.Scale = mods[1]
		}
	case t.Family == repr.FamRecord && len(mods) == 1 && mods[0] > 0:
		t.Composite = uint32(mods[0]) // TypeName's record(oid)
	case t.Family == repr.FamEnum && len(mods) == 1 && mods[0] > 0:
		t.Enum = uint32(mods[0]) // TypeName's enum(oid)
	default:
		return repr.Unknown, repr.Errorf(repr.CodeSyntax, "invalid type modifier for %s", name)
	}
	return t, nil
}

var typeNames = map[string]repr.T{
	"int2": repr.Int2, "smallint": repr.Int2, "int4": repr.Int4, "int": repr.Int4,
	"integer": repr.Int4, "int8": repr.Int8, "bigint": repr.Int8,
	"float4": repr.Float4, "real": repr.Float4, "float8": repr.Float8, "float": repr.Float8,
	"numeric": repr.Numeric, "decimal": repr.Numeric, "bool": repr.Bool, "boolean": repr.Bool,
	"text": repr.Text, "varchar": repr.Varchar(0), "bpchar": repr.Char(0), "char": repr.Char(1),
	"bytea": repr.Bytea, "date": repr.Date, "time": repr.TimeT, "timestamp": repr.Timestamp,
	"timestamptz": repr.TimestampTZ, "interval": repr.IntervalT, "jsonb": repr.JSONB, "uuid": repr.UUID, "json": repr.JSON, "jsonpath": repr.JSONPath,
	"unknown": repr.Unknown, "record": repr.Record, "bit": repr.Bit, "varbit": repr.VarBit,
	"enum": {Family: repr.FamEnum},
}

func init() {
	for _, t := range repr.SpecialTypes() {
		typeNames[TypeName(t)] = t
	}
}

// TextAssign returns, when FoldAssign of every untyped string literal to
// type to is repr.ParseText of its text (no reg* lookup, no styled
// interval input, no bit length coercion), the time zone that parse
// reads (loc for a zoned type, else UTC); ok is false otherwise. A bulk
// INSERT then checks each column's type once, not each value's.
func TextAssign(to repr.T, loc *time.Location) (_ *time.Location, ok bool) {
	if to.Family == repr.FamUnknown || to.Family == repr.FamInterval || isRegCast(repr.Unknown, to) ||
		to.Family == repr.FamBit && to.Length > 0 {
		return nil, false
	}
	if !zonedCast(repr.Unknown, to) {
		loc = time.UTC
	}
	return loc, true
}

// FoldAssign returns literal d of type from coerced to type to as NewCast
// and the planner's folding of literals make it (assignment semantics; loc
// is the session time zone, which only time-zone-dependent casts read),
// without building an expression. ok is false when the cast is not folded
// at plan time (a reg* cast reads the catalog when run) or fails: the
// caller then builds the expression, which reports the error.
func FoldAssign(d repr.Datum, from, to repr.T, loc *time.Location) (out repr.Datum, ok bool) {
	if from == to {
		return d, true
	}
	if isRegCast(from, to) || StyledInput(d, from, to) {
		return repr.Null, false
	}
	if !zonedCast(from, to) {
		loc = time.UTC
	}
	out, err := castDatum(d, from, to, loc, false)
	return out, err == nil
}
