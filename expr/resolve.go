package expr

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

// famAny is the pseudo-family of polymorphic "any"/"anynonarray"
// parameters; it never appears outside the registry.
const famAny repr.Family = 250

var anyT = repr.T{Family: famAny}

// category returns PostgreSQL's typcategory letter of t.
func category(t repr.T) byte {
	switch t.Family {
	case repr.FamBool:
		return 'B'
	case repr.FamInt, repr.FamFloat, repr.FamNumeric:
		return 'N'
	case repr.FamText:
		if t.Kind == repr.KindQChar {
			return 'Z' // "char" is an internal-use type in PostgreSQL
		}
		return 'S'
	case repr.FamDate, repr.FamTime, repr.FamTimestamp, repr.FamTimestampTZ:
		return 'D'
	case repr.FamInterval:
		return 'T'
	case repr.FamUnknown:
		return 'X'
	case famAny:
		return 'P'
	case repr.FamArray:
		return 'A'
	case repr.FamBit:
		return 'V'
	case repr.FamEnum:
		return 'E'
	}
	return 'U'
}

// isPreferred reports whether t is the preferred type of its category
// (float8, text, timestamptz, interval, bool).
func isPreferred(t repr.T) bool {
	switch t.Family {
	case repr.FamFloat:
		return t.Width == 64
	case repr.FamText:
		return t.Kind == repr.KindText
	case repr.FamTimestampTZ, repr.FamInterval, repr.FamBool:
		return true
	case repr.FamBit:
		return t.Varying
	}
	return false
}

// sameType reports whether a and b are the same SQL type, ignoring type
// modifiers (varchar(5) and varchar are the same; varchar and text are not).
func sameType(a, b repr.T) bool {
	if a.Family == repr.FamArray {
		return b.Family == repr.FamArray && sameType(a.ElemType(), b.ElemType())
	}
	return a.Equivalent(b) && (a.Family != repr.FamText || a.Kind == b.Kind)
}

// bare strips type modifiers, as PostgreSQL's error messages print types.
func bare(t repr.T) repr.T {
	return repr.T{Family: t.Family, Width: t.Width, Kind: t.Kind, Elem: t.Elem, OIDKind: t.OIDKind, Vector: t.Vector, Composite: t.Composite, Varying: t.Varying, Enum: t.Enum}
}

// implicitOK reports whether an argument of type arg may be passed to a
// parameter of type param (unknown literals go anywhere but to "any").
func implicitOK(arg, param repr.T) bool {
	if param.Family == famAny {
		return arg.Family != repr.FamUnknown
	}
	return sameType(arg, param) || castContextOf(arg, param) == castImplicit || oidWidens(arg, param)
}

// oidWidens reports an oid or reg* argument passed where int8 is expected.
// Eddy's object identifiers are int4-family values in [0, 2^32), so
// oid = bigint (which PostgreSQL resolves as oid = oid after an implicit
// int8-to-oid cast) compares as int8 = int8: the same answer for every
// bigint in oid's range, and false instead of 22003 outside it.
func oidWidens(arg, param repr.T) bool {
	return arg.Family == repr.FamInt && arg.OIDKind != repr.NotOID && param.Family == repr.FamInt && param.Width == 64 && param.OIDKind == repr.NotOID
}

// ResolveOp resolves operator op over args (one argument for prefix
// operators) with PostgreSQL's operator resolution. It returns the overload
// and the type each argument must be coerced to: the parameter type, or the
// argument's own type where the value can be passed unchanged (a type
// modifier dropped, varchar to text, polymorphic parameters).
func ResolveOp(op string, args []repr.T) (*Func, []repr.T, error) {
	table := binaryOps
	if len(args) == 1 {
		table = prefixOps
	}
	fn, err := resolve(table[op], args)
	if err != nil {
		return nil, nil, opError(op, args, err == errAmbiguous)
	}
	return fn, oidOperands(args, coerceTargets(fn, args)), nil
}

// oidOperands makes an int2, int4 or unknown (literal) operand beside
// an oid or reg* one an oid (targets are the operands' coercions), so
// f1 >= '-1040' reads the literal as 4294966256: PostgreSQL resolves oid
// = int4 as oideq after int4's implicit, binary cast to oid, so -1
// equals 4294967295. Eddy's comparison over int4 compares the held
// values, an oid's unsigned one, so the int operand must hold its oid
// value too.
func oidOperands(args, targets []repr.T) []repr.T {
	if len(args) != 2 {
		return targets
	}
	for i := range 2 {
		o, n := args[i], args[1-i]
		narrow := n.Family == repr.FamInt && n.OIDKind == repr.NotOID && n.Width != 64 || n.Family == repr.FamUnknown
		if o.Family == repr.FamInt && o.OIDKind != repr.NotOID && narrow && targets[1-i].Family == repr.FamInt && targets[1-i].Width == 32 && targets[1-i].OIDKind == repr.NotOID {
			targets[1-i] = repr.OIDT
		}
	}
	return targets
}

// ResolveFunc resolves a call of the built-in function name (lower case)
// over args, like ResolveOp. Variadic functions (concat, greatest, least,
// nullif) are instantiated for the argument types.
func ResolveFunc(name string, args []repr.T) (*Func, []repr.T, error) {
	name = strings.ToLower(name)
	if v, ok := variadics[name]; ok {
		fn, err := v(args)
		if err != nil {
			return nil, nil, err
		}
		return fn, coerceTargets(fn, args), nil
	}
	fn, err := resolve(functions[name], args)
	if err != nil {
		return nil, nil, funcError(name, args, err == errAmbiguous)
	}
	return fn, coerceTargets(fn, args), nil
}

// coerceTargets returns the types args must be cast to for fn.
func coerceTargets(fn *Func, args []repr.T) []repr.T {
	out := make([]repr.T, len(args))
	for i, a := range args {
		p := fn.Args[i]
		switch {
		case a.Family != repr.FamUnknown && sameType(a, p) && p.Precision == 0 && p.Length == 0:
			out[i] = a // only a modifier differs: binary coercible
		case a.Family == repr.FamText && p == repr.Text && a.Kind == repr.KindVarchar:
			out[i] = a // varchar -> text is a relabel
		default:
			out[i] = p
		}
	}
	return out
}

type resolveErr int

func (resolveErr) Error() string { return "unresolved" }

const (
	errNoMatch resolveErr = iota
	errAmbiguous
)

// resolve picks one candidate following PostgreSQL's func_select_candidate
// (typeconv-func.html): exact match; then implicit coercions preferring the
// most exact matches, then preferred types, then string category for
// unknown literals, then unknowns assumed to share the known arguments' type.
func resolve(cands []*Func, args []repr.T) (*Func, error) {
	var ok []*Func
	for _, f := range cands {
		if fn := instantiate(f, args); fn != nil && acceptsAll(fn, args) {
			ok = append(ok, fn)
		}
	}
	if fn := exactMatch(ok, args); fn != nil {
		return fn, nil
	}
	if len(ok) == 0 {
		return nil, errNoMatch
	}
	for _, narrow := range []func([]*Func, []repr.T) []*Func{
		mostExact, mostPreferred, unknownCategories, unknownsAsKnown,
	} {
		if len(ok) == 1 {
			return ok[0], nil
		}
		if n := narrow(ok, args); len(n) > 0 {
			ok = n
		}
	}
	if len(ok) == 1 {
		return ok[0], nil
	}
	return nil, errAmbiguous
}

// instantiate returns f, or for a polymorphic f its instance for args.
func instantiate(f *Func, args []repr.T) *Func {
	if len(f.Args) != len(args) {
		return nil
	}
	if f.poly != nil {
		return polyInstance(f, args)
	}
	return f
}

// polyInstance instantiates the polymorphic f for args, marking the
// positions f declares polymorphic (polyAt).
func polyInstance(f *Func, args []repr.T) *Func {
	fn := f.poly(args)
	if fn == nil {
		return nil
	}
	var at uint64
	for i, p := range f.Args {
		if p.Family == famAny && i < 64 {
			at |= 1 << i
		}
	}
	if at == 0 {
		return fn
	}
	c := *fn
	c.polyAt = at
	return &c
}

// declaredPoly reports whether f's parameter i was declared polymorphic.
func declaredPoly(f *Func, i int) bool { return i < 64 && f.polyAt&(1<<i) != 0 }

func acceptsAll(f *Func, args []repr.T) bool {
	for i, a := range args {
		if !implicitOK(a, f.Args[i]) {
			return false
		}
	}
	return true
}

// exactMatch finds a candidate whose parameters equal the argument types;
// with one unknown operand of a binary operator, the unknown is assumed to
// have the other operand's type (PostgreSQL's binary_oper_exact).
func exactMatch(cands []*Func, args []repr.T) *Func {
	as := args
	if len(args) == 2 && (args[0].Family == repr.FamUnknown) != (args[1].Family == repr.FamUnknown) {
		known := args[0]
		if known.Family == repr.FamUnknown {
			known = args[1]
		}
		as = []repr.T{known, known}
	}
	for _, f := range cands {
		if f.poly == nil && countExact(f, as) == len(as) {
			return f
		}
	}
	return nil
}

func countExact(f *Func, args []repr.T) int {
	n := 0
	for i, a := range args {
		if a.Family != repr.FamUnknown && sameType(a, f.Args[i]) && f.Args[i].Family != famAny && !declaredPoly(f, i) {
			n++
		}
	}
	return n
}

// keepMax keeps the candidates with the highest score.
func keepMax(cands []*Func, score func(*Func) int) []*Func {
	best, out := -1, []*Func(nil)
	for _, f := range cands {
		switch s := score(f); {
		case s > best:
			best, out = s, []*Func{f}
		case s == best:
			out = append(out, f)
		}
	}
	return out
}

func mostExact(cands []*Func, args []repr.T) []*Func {
	return keepMax(cands, func(f *Func) int { return countExact(f, args) })
}

// mostPreferred keeps candidates taking the preferred type of the
// argument's category at the most positions needing a conversion.
func mostPreferred(cands []*Func, args []repr.T) []*Func {
	return keepMax(cands, func(f *Func) int {
		n := 0
		for i, a := range args {
			p := f.Args[i]
			if a.Family != repr.FamUnknown && !sameType(a, p) && isPreferred(p) && category(p) == category(a) && !declaredPoly(f, i) {
				n++
			}
		}
		return n
	})
}

// unknownCategories resolves unknown-literal positions: the string
// category if any candidate takes it there, else the one category all
// candidates take; within it, preferred types win.
func unknownCategories(cands []*Func, args []repr.T) []*Func {
	for i, a := range args {
		if a.Family != repr.FamUnknown {
			continue
		}
		cat, anyPref, same := byte(0), false, true
		for _, f := range cands {
			c := category(f.Args[i])
			if c == 'S' {
				cat = 'S'
			}
			same = same && (c == category(cands[0].Args[i]))
		}
		if cat == 0 {
			if !same {
				return nil
			}
			cat = category(cands[0].Args[i])
		}
		var keep []*Func
		for _, f := range cands {
			if category(f.Args[i]) == cat {
				keep = append(keep, f)
				anyPref = anyPref || isPreferred(f.Args[i])
			}
		}
		if anyPref {
			keep = filter(keep, func(f *Func) bool { return isPreferred(f.Args[i]) })
		}
		cands = keep
	}
	return cands
}

// unknownsAsKnown assumes unknown arguments have the type shared by all
// known arguments and keeps the one candidate accepting that, if unique.
func unknownsAsKnown(cands []*Func, args []repr.T) []*Func {
	var known *repr.T
	for i := range args {
		if args[i].Family == repr.FamUnknown {
			continue
		}
		if known != nil && !sameType(*known, args[i]) {
			return nil
		}
		known = &args[i]
	}
	if known == nil {
		return nil
	}
	keep := filter(cands, func(f *Func) bool {
		for i, a := range args {
			if a.Family == repr.FamUnknown && !implicitOK(*known, f.Args[i]) {
				return false
			}
		}
		return true
	})
	if len(keep) != 1 {
		return nil
	}
	return keep
}

func filter(fs []*Func, keep func(*Func) bool) []*Func {
	var out []*Func
	for _, f := range fs {
		if keep(f) {
			out = append(out, f)
		}
	}
	return out
}

// TypeList lists types as PostgreSQL's function messages do:
// "integer, text".
func TypeList(args []repr.T) string { return typeList(args) }

func typeList(args []repr.T) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = bare(a).Name()
	}
	return strings.Join(names, ", ")
}

func opError(op string, args []repr.T, ambiguous bool) error {
	sig := op + " " + bare(args[0]).Name()
	if len(args) == 2 {
		sig = bare(args[0]).Name() + " " + op + " " + bare(args[1]).Name()
	}
	if ambiguous {
		return repr.Errorf("42725", "operator is not unique: %s", sig).WithHint(
			"Could not choose a best candidate operator. You might need to add explicit type casts.")
	}
	return repr.Errorf(repr.CodeUndefinedFunction, "operator does not exist: %s", sig).WithHint(
		"No operator matches the given name and argument types. You might need to add explicit type casts.")
}

func funcError(name string, args []repr.T, ambiguous bool) error {
	if ambiguous {
		return repr.Errorf("42725", "function %s(%s) is not unique", name, typeList(args)).WithHint(
			"Could not choose a best candidate function. You might need to add explicit type casts.")
	}
	return repr.Errorf(repr.CodeUndefinedFunction, "function %s(%s) does not exist", name, typeList(args)).WithHint(
		"No function matches the given name and argument types. You might need to add explicit type casts.")
}

// CommonType returns the type values of ts are coerced to in UNION, CASE,
// COALESCE, VALUES, IN lists, GREATEST and LEAST, following PostgreSQL's
// select_common_type: all-unknown gives text; otherwise the first known
// type, replaced by a later type of the same category that it coerces to
// implicitly but not vice versa (unless it is the preferred type).
// context names the construct in the 42804 error.
func CommonType(ts []repr.T, context string) (repr.T, error) {
	var p *repr.T
	for i := range ts {
		n := ts[i]
		if n.Family == repr.FamUnknown {
			continue
		}
		if p == nil {
			p = &ts[i]
			continue
		}
		if sameType(*p, n) {
			if *p != n {
				q := bare(*p)
				p = &q
			}
			continue
		}
		if category(*p) != category(n) {
			return repr.Unknown, repr.Errorf(repr.CodeDatatypeMismatch, "%s types %s and %s cannot be matched",
				context, bare(*p).Name(), bare(n).Name())
		}
		if !isPreferred(*p) && implicitOK(*p, n) && !implicitOK(n, *p) {
			q := bare(n)
			p = &q
		}
	}
	if p == nil {
		return repr.Text, nil
	}
	for _, t := range ts {
		if !implicitOK(t, *p) {
			return repr.Unknown, repr.Errorf("42846", "%s could not convert type %s to %s", context, bare(t).Name(), bare(*p).Name())
		}
	}
	// The type modifier (numeric(6,2), varchar(3)) survives only when
	// every input has exactly this type, as PostgreSQL's
	// select_common_typmod: numeric(6,2) UNION integer is numeric, so an
	// integer 6 prints 6, not 6.00.
	for _, t := range ts {
		if t != *p {
			return bare(*p), nil
		}
	}
	return *p, nil
}

// NamedFuncError is PostgreSQL's 42883 for a call with named arguments
// that no function takes: names[i] is argument i's name, "" when it is
// positional (function f(integer, b => unknown) does not exist).
func NamedFuncError(name string, names []string, args []repr.T) error {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = bare(a).Name()
		if names[i] != "" {
			parts[i] = names[i] + " => " + parts[i]
		}
	}
	return repr.Errorf(repr.CodeUndefinedFunction, "function %s(%s) does not exist", name, strings.Join(parts, ", ")).WithHint(
		"No function matches the given name and argument types. You might need to add explicit type casts.")
}

// ResolveAmong resolves a call of name over args among cands, the
// signatures of functions the registry does not hold (SQL functions of
// the catalog), by ResolveFunc's rules. It returns the index in cands of
// the function chosen and the types args must be cast to; the error is
// ResolveFunc's 42883 or 42725.
func ResolveAmong(name string, cands []*Func, args []repr.T) (int, []repr.T, error) {
	fn, err := resolve(cands, args)
	if err != nil {
		return -1, nil, funcError(name, args, err == errAmbiguous)
	}
	for i, c := range cands {
		if c == fn {
			return i, coerceTargets(fn, args), nil
		}
	}
	return -1, nil, funcError(name, args, false)
}
