package jsonpath

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// Options are what an evaluation takes besides the path and the document.
type Options struct {
	// Vars is the vars argument (an object), or nil when none is given
	// (the @? and @@ operators): variables are then null.
	Vars *Value
	// Silent suppresses the errors PostgreSQL's silent argument does.
	Silent bool
	// UseTZ allows datetime comparisons that need the session time zone
	// (the _tz functions), in Loc.
	UseTZ bool
	Loc   *time.Location
	// Arith computes x op y for op + - * / % on numerics with
	// PostgreSQL's numeric semantics (expr supplies its operators).
	Arith func(op Kind, x, y *apd.Decimal) (*apd.Decimal, error)
}

// Result is the outcome of an evaluation: the items found, and whether
// an error was suppressed (silent mode), which PostgreSQL reports as a
// NULL jsonb_path_exists.
type Result struct {
	Items  []Value
	Failed bool
}

// softErr is an error PostgreSQL raises through RETURN_ERROR: silent mode
// and predicates suppress it; other errors always propagate.
type softErr struct{ err error }

func (e *softErr) Error() string { return e.err.Error() }
func (e *softErr) Unwrap() error { return e.err }

func soft(code, format string, args ...any) error {
	return &softErr{repr.Errorf(code, format, args...)}
}

func isSoft(err error) bool {
	var s *softErr
	return errors.As(err, &s)
}

// The SQL/JSON SQLSTATEs.
const (
	codeMemberNotFound   = "2203A"
	codeObjectNotFound   = "2203C"
	codeArrayNotFound    = "22039"
	codeSubscript        = "22033"
	codeSingleton        = "22038"
	codeNumberNotFound   = "2203B"
	codeNonNumeric       = "22036"
	codeDatetimeArgument = "22031"
)

// Exec evaluates p over doc. existsOnly asks only whether an item exists
// (Items then holds at most one), as jsonb_path_exists does.
func Exec(p *Path, doc Value, opts *Options, existsOnly bool) (Result, error) {
	e := &evaluator{opts: opts, lax: !p.Strict, ignoreStruct: !p.Strict, root: doc, current: doc,
		arraySize: -1, genID: 1}
	if opts.Vars != nil {
		e.genID = 2
	}
	var items []Value
	found := &items
	if existsOnly && !p.Strict {
		found = nil
	}
	ok, err := e.item(p.Expr, doc, found)
	if err != nil {
		var s *softErr
		if errors.As(err, &s) {
			if opts.Silent {
				return Result{Items: items, Failed: true}, nil
			}
			return Result{}, s.err
		}
		return Result{}, err
	}
	if found == nil && ok {
		items = append(items, Value{k: vBool, b: true})
	}
	return Result{Items: items}, nil
}

type evaluator struct {
	opts         *Options
	lax          bool
	ignoreStruct bool
	root         Value
	current      Value
	arraySize    int
	genID        int64
}

// item evaluates it on v (PostgreSQL's executeItem): found collects the
// items (nil when only existence matters); the bool reports that one
// was found.
func (e *evaluator) item(it *Item, v Value, found *[]Value) (bool, error) {
	return e.itemUnwrap(it, v, found, e.lax)
}

// next applies it's next item to v, or collects v when there is none.
func (e *evaluator) next(it *Item, v Value, found *[]Value) (bool, error) {
	if it.Next != nil {
		return e.item(it.Next, v, found)
	}
	if found != nil {
		*found = append(*found, v)
	}
	return true, nil
}

// matched records a match (ok) of one of a loop's items in *any and
// reports whether the loop may stop: it matched and only whether any
// item matches is asked (found nil).
func matched(any *bool, ok bool, found *[]Value) bool {
	*any = *any || ok
	return ok && found == nil
}

func number(d *apd.Decimal) Value { return Value{k: vNumber, num: d} }

func (e *evaluator) itemUnwrap(it *Item, v Value, found *[]Value, unwrap bool) (bool, error) {
	if it.isPredicateKind() {
		st, err := e.boolItem(it, v)
		if err != nil {
			return false, err
		}
		res := Value{k: vNull}
		if st != unknown {
			res = Value{k: vBool, b: st == isTrue}
		}
		return e.next(it, res, found)
	}
	switch it.Kind {
	case KNull:
		return e.next(it, Value{k: vNull}, found)
	case KBool:
		return e.next(it, Value{k: vBool, b: it.Bool}, found)
	case KNumeric:
		return e.next(it, number(it.Num), found)
	case KString:
		return e.next(it, Value{k: vString, str: it.Str}, found)
	case KVariable:
		val, err := e.variable(it.Str)
		if err != nil {
			return false, err
		}
		return e.next(it, val, found)
	case KRoot:
		return e.next(it, e.root, found)
	case KCurrent:
		return e.next(it, e.current, found)
	case KLast:
		if e.arraySize < 0 {
			return false, errors.New("evaluating jsonpath LAST outside of array subscript")
		}
		return e.next(it, number(apd.New(int64(e.arraySize-1), 0)), found)
	case KKey:
		return e.key(it, v, found, unwrap)
	case KAnyArray:
		switch {
		case v.k == vArray:
			return e.anyItem(it.Next, v, found, 1, 1, 1, false, e.lax)
		case e.lax:
			return e.next(it, v, found)
		case !e.ignoreStruct:
			return false, soft(codeArrayNotFound, "jsonpath wildcard array accessor can only be applied to an array")
		}
		return false, nil
	case KIndexArray:
		return e.indexArray(it, v, found)
	case KAnyKey:
		switch {
		case v.k == vObject:
			return e.anyItem(it.Next, v, found, 1, 1, 1, false, e.lax)
		case unwrap && v.k == vArray:
			return e.unwrapTarget(it, v, found)
		case !e.ignoreStruct:
			return false, soft(codeObjectNotFound, "jsonpath wildcard member accessor can only be applied to an object")
		}
		return false, nil
	case KAny:
		return e.anyPath(it, v, found)
	case KAdd, KSub, KMul, KDiv, KMod:
		return e.binaryArith(it, v, found)
	case KPlus, KMinus:
		return e.unaryArith(it, v, found)
	case KFilter:
		if unwrap && v.k == vArray {
			return e.unwrapTarget(it, v, found)
		}
		st, err := e.nestedBool(it.Left, v)
		if err != nil || st != isTrue {
			return false, err
		}
		return e.next(it, v, found)
	case KType:
		return e.next(it, Value{k: vString, str: v.typeName()}, found)
	case KSize:
		size := len(v.elems)
		if v.k != vArray {
			if !e.lax {
				if !e.ignoreStruct {
					return false, soft(codeArrayNotFound, "jsonpath item method .size() can only be applied to an array")
				}
				return false, nil
			}
			size = 1
		}
		return e.next(it, number(apd.New(int64(size), 0)), found)
	case KAbs, KFloor, KCeiling:
		return e.numericMethod(it, v, found, unwrap)
	case KDouble:
		return e.double(it, v, found, unwrap)
	case KDatetime:
		if unwrap && v.k == vArray {
			return e.unwrapTarget(it, v, found)
		}
		d, err := e.datetime(it, v)
		if err != nil {
			return false, err
		}
		return e.next(it, d, found)
	case KKeyValue:
		return e.keyValue(it, v, found, unwrap)
	}
	return false, errors.New("unknown jsonpath item")
}

func (it *Item) isPredicateKind() bool {
	n := *it
	n.Next = nil
	return n.isPredicate()
}

// variable returns $name from the vars object.
func (e *evaluator) variable(name string) (Value, error) {
	vars := e.opts.Vars
	if vars == nil {
		return Value{k: vNull}, nil
	}
	for i, k := range vars.keys {
		if k == name {
			return vars.elems[i], nil
		}
	}
	return Value{}, repr.Errorf(repr.CodeUndefinedObject, "could not find jsonpath variable %q", name)
}

func (e *evaluator) key(it *Item, v Value, found *[]Value, unwrap bool) (bool, error) {
	switch {
	case v.k == vObject:
		for i, k := range v.keys {
			if k == it.Str {
				return e.next(it, v.elems[i], found)
			}
		}
		if !e.ignoreStruct {
			return false, soft(codeMemberNotFound, "JSON object does not contain key %q", it.Str)
		}
	case unwrap && v.k == vArray:
		return e.unwrapTarget(it, v, found)
	case !e.ignoreStruct:
		return false, soft(codeMemberNotFound, "jsonpath member accessor can only be applied to an object")
	}
	return false, nil
}

// unwrapTarget applies it to each element of array v, without unwrapping
// further (executeItemUnwrapTargetArray).
func (e *evaluator) unwrapTarget(it *Item, v Value, found *[]Value) (bool, error) {
	any := false
	for _, el := range v.elems {
		if ok, err := e.itemUnwrap(it, el, found, false); err != nil {
			return false, err
		} else if matched(&any, ok, found) {
			return true, nil
		}
	}
	return any, nil
}

// anyItem walks the members or elements of container v at levels first
// to last (1 being v's own children), applying it (or collecting them
// when it is nil): PostgreSQL's executeAnyItem.
func (e *evaluator) anyItem(it *Item, v Value, found *[]Value, level, first, last uint32, ignoreStruct, unwrapNext bool) (bool, error) {
	any := false
	if level > last {
		return false, nil
	}
	for _, el := range v.elems {
		container := el.k == vArray || el.k == vObject
		if level >= first || first == AnyLast && last == AnyLast && !container {
			if it != nil {
				saved := e.ignoreStruct
				if ignoreStruct {
					e.ignoreStruct = true
				}
				ok, err := e.itemUnwrap(it, el, found, unwrapNext)
				e.ignoreStruct = saved
				if err != nil {
					return false, err
				}
				if matched(&any, ok, found) {
					return true, nil
				}
			} else {
				any = true
				if found == nil {
					return true, nil
				}
				*found = append(*found, el)
			}
		}
		if level < last && container {
			if ok, err := e.anyItem(it, el, found, level+1, first, last, ignoreStruct, unwrapNext); err != nil {
				return false, err
			} else if matched(&any, ok, found) {
				return true, nil
			}
		}
	}
	return any, nil
}

func (e *evaluator) anyPath(it *Item, v Value, found *[]Value) (bool, error) {
	any := false
	if it.First == 0 {
		saved := e.ignoreStruct
		e.ignoreStruct = true
		ok, err := e.next(it, v, found)
		e.ignoreStruct = saved
		if err != nil {
			return false, err
		}
		if ok && found == nil {
			return true, nil
		}
		any = ok
	}
	if v.k == vArray || v.k == vObject {
		ok, err := e.anyItem(it.Next, v, found, 1, it.First, it.Last, true, e.lax)
		return ok || any, err
	}
	return any, nil
}

func (e *evaluator) indexArray(it *Item, v Value, found *[]Value) (bool, error) {
	if v.k != vArray && !e.lax {
		if !e.ignoreStruct {
			return false, soft(codeArrayNotFound, "jsonpath array accessor can only be applied to an array")
		}
		return false, nil
	}
	singleton := v.k != vArray
	size := len(v.elems)
	if singleton {
		size = 1
	}
	saved := e.arraySize
	e.arraySize = size
	defer func() { e.arraySize = saved }()
	any := false
	for _, s := range it.Subs {
		from, err := e.arrayIndex(s.From, v)
		if err != nil {
			return false, err
		}
		to := from
		if s.To != nil {
			if to, err = e.arrayIndex(s.To, v); err != nil {
				return false, err
			}
		}
		if !e.ignoreStruct && (from < 0 || from > to || to >= int64(size)) {
			return false, soft(codeSubscript, "jsonpath array subscript is out of bounds")
		}
		from = max(from, 0)
		to = min(to, int64(size)-1)
		for i := from; i <= to; i++ {
			el := v
			if !singleton {
				el = v.elems[i]
			}
			if it.Next == nil && found == nil {
				return true, nil
			}
			if ok, err := e.next(it, el, found); err != nil {
				return false, err
			} else if matched(&any, ok, found) {
				return true, nil
			}
		}
	}
	return any, nil
}

// arrayIndex evaluates a subscript to an int4, truncating it.
func (e *evaluator) arrayIndex(it *Item, v Value) (int64, error) {
	var items []Value
	if _, err := e.item(it, v, &items); err != nil {
		return 0, err
	}
	if len(items) != 1 || items[0].k != vNumber {
		return 0, soft(codeSubscript, "jsonpath array subscript is not a single numeric value")
	}
	d := items[0].num
	if d.Form != apd.Finite {
		return 0, soft(codeSubscript, "jsonpath array subscript is out of integer range")
	}
	var tr apd.Decimal
	c := apd.BaseContext.WithPrecision(1000)
	c.Rounding = apd.RoundDown
	if _, err := c.Quantize(&tr, d, 0); err != nil {
		return 0, soft(codeSubscript, "jsonpath array subscript is out of integer range")
	}
	i, err := tr.Int64()
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		return 0, soft(codeSubscript, "jsonpath array subscript is out of integer range")
	}
	return i, nil
}

// unwrapResult evaluates it on v and, in lax mode, replaces each array
// result by its elements (executeItemOptUnwrapResult with unwrap).
func (e *evaluator) unwrapResult(it *Item, v Value, unwrap bool) ([]Value, error) {
	var items []Value
	if _, err := e.item(it, v, &items); err != nil {
		return nil, err
	}
	if !unwrap || !e.lax {
		return items, nil
	}
	var out []Value
	for _, x := range items {
		if x.k == vArray {
			out = append(out, x.elems...)
		} else {
			out = append(out, x)
		}
	}
	return out, nil
}

var opNames = map[Kind]string{KAdd: "+", KSub: "-", KMul: "*", KDiv: "/", KMod: "%", KPlus: "+", KMinus: "-"}

func (e *evaluator) binaryArith(it *Item, v Value, found *[]Value) (bool, error) {
	l, err := e.unwrapResult(it.Left, v, true)
	if err != nil {
		return false, err
	}
	r, err := e.unwrapResult(it.Right, v, true)
	if err != nil {
		return false, err
	}
	if len(l) != 1 || l[0].k != vNumber {
		return false, soft(codeSingleton, "left operand of jsonpath operator %s is not a single numeric value", opNames[it.Kind])
	}
	if len(r) != 1 || r[0].k != vNumber {
		return false, soft(codeSingleton, "right operand of jsonpath operator %s is not a single numeric value", opNames[it.Kind])
	}
	res, err := e.opts.Arith(it.Kind, l[0].num, r[0].num)
	if err != nil {
		return false, &softErr{err}
	}
	if it.Next == nil && found == nil {
		return true, nil
	}
	return e.next(it, number(res), found)
}

func (e *evaluator) unaryArith(it *Item, v Value, found *[]Value) (bool, error) {
	seq, err := e.unwrapResult(it.Left, v, true)
	if err != nil {
		return false, err
	}
	any := false
	for _, x := range seq {
		if x.k != vNumber {
			if found == nil && it.Next == nil {
				continue
			}
			return false, soft(codeNumberNotFound, "operand of unary jsonpath operator %s is not a numeric value", opNames[it.Kind])
		}
		if found == nil && it.Next == nil {
			return true, nil
		}
		if it.Kind == KMinus {
			n := new(apd.Decimal).Neg(x.num)
			if n.IsZero() {
				n.Negative = false
			}
			x = number(n)
		}
		if ok, err := e.next(it, x, found); err != nil {
			return false, err
		} else if matched(&any, ok, found) {
			return true, nil
		}
	}
	return any, nil
}

var methodNames = map[Kind]string{KAbs: "abs", KFloor: "floor", KCeiling: "ceiling", KDouble: "double",
	KKeyValue: "keyvalue", KSize: "size", KDatetime: "datetime", KType: "type"}

func (e *evaluator) numericMethod(it *Item, v Value, found *[]Value, unwrap bool) (bool, error) {
	if unwrap && v.k == vArray {
		return e.unwrapTarget(it, v, found)
	}
	if v.k != vNumber {
		return false, soft(codeNonNumeric, "jsonpath item method .%s() can only be applied to a numeric value", methodNames[it.Kind])
	}
	r := new(apd.Decimal)
	c := apd.BaseContext.WithPrecision(2000)
	switch it.Kind {
	case KAbs:
		r.Abs(v.num)
	case KFloor:
		if _, err := c.Floor(r, v.num); err != nil {
			return false, err
		}
	case KCeiling:
		if _, err := c.Ceil(r, v.num); err != nil {
			return false, err
		}
	}
	if r.IsZero() {
		r.Negative = false
	}
	if it.Next == nil && found == nil {
		return true, nil
	}
	return e.next(it, number(r), found)
}

func (e *evaluator) double(it *Item, v Value, found *[]Value, unwrap bool) (bool, error) {
	if unwrap && v.k == vArray {
		return e.unwrapTarget(it, v, found)
	}
	switch v.k {
	case vNumber:
		f, err := strconv.ParseFloat(v.num.String(), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return false, soft(codeNonNumeric, "numeric argument of jsonpath item method .double() is out of range for type double precision")
		}
	case vString:
		d, err := repr.ParseText(v.str, repr.Float8, nil)
		if err != nil || math.IsInf(d.Float(), 0) || math.IsNaN(d.Float()) {
			return false, soft(codeNonNumeric, "string argument of jsonpath item method .double() is not a valid representation of a double precision number")
		}
		n, err := repr.Cast(d, repr.Float8, repr.Numeric, nil, true)
		if err != nil {
			return false, err
		}
		v = number(n.Numeric())
	default:
		return false, soft(codeNonNumeric, "jsonpath item method .double() can only be applied to a string or numeric value")
	}
	return e.next(it, v, found)
}

func (e *evaluator) keyValue(it *Item, v Value, found *[]Value, unwrap bool) (bool, error) {
	if unwrap && v.k == vArray {
		return e.unwrapTarget(it, v, found)
	}
	if v.k != vObject {
		return false, soft(codeObjectNotFound, "jsonpath item method .keyvalue() can only be applied to an object")
	}
	any := false
	id := number(apd.New(v.id, 0))
	for i, k := range v.keys {
		obj := Value{k: vObject, keys: []string{"id", "key", "value"},
			elems: []Value{id, {k: vString, str: k}, v.elems[i]}}
		assignIDsBase(&obj, e.genID)
		e.genID++
		if ok, err := e.next(it, obj, found); err != nil {
			return false, err
		} else if matched(&any, ok, found) {
			return true, nil
		}
	}
	return any, nil
}

// truth is SQL/JSON's three-valued logic.
type truth uint8

const (
	isFalse truth = iota
	isTrue
	unknown
)

// nestedBool evaluates a filter's predicate with @ bound to v.
func (e *evaluator) nestedBool(it *Item, v Value) (truth, error) {
	saved := e.current
	e.current = v
	defer func() { e.current = saved }()
	return e.boolItem(it, v)
}

// connective evaluates && (decides isFalse, neutral isTrue) or || (decides
// isTrue, neutral isFalse) in three-valued logic: a left side that
// decides is the answer; else a neutral right side leaves the left's,
// and any other right side is the answer.
func (e *evaluator) connective(it *Item, v Value, decides, neutral truth) (truth, error) {
	l, err := e.boolItem(it.Left, v)
	if err != nil || l == decides {
		return l, err
	}
	r, err := e.boolItem(it.Right, v)
	if err != nil || r == neutral {
		return l, err
	}
	return r, nil
}

func (e *evaluator) boolItem(it *Item, v Value) (truth, error) {
	switch it.Kind {
	case KAnd:
		return e.connective(it, v, isFalse, isTrue)
	case KOr:
		return e.connective(it, v, isTrue, isFalse)
	case KNot:
		r, err := e.boolItem(it.Left, v)
		if err != nil || r == unknown {
			return r, err
		}
		if r == isTrue {
			return isFalse, nil
		}
		return isTrue, nil
	case KIsUnknown:
		r, err := e.boolItem(it.Left, v)
		if err != nil {
			return r, err
		}
		if r == unknown {
			return isTrue, nil
		}
		return isFalse, nil
	case KExists:
		return e.exists(it.Left, v)
	case KStartsWith:
		return e.predicate(it, it.Left, it.Right, v, false, startsWith)
	case KLikeRegex:
		re := it.re
		return e.predicate(it, it.Left, nil, v, false, func(_ *Item, l, _ Value) (truth, error) {
			if l.k != vString {
				return unknown, nil
			}
			if re.MatchString(l.str) {
				return isTrue, nil
			}
			return isFalse, nil
		})
	}
	return e.predicate(it, it.Left, it.Right, v, true, e.compare)
}

// noThrow runs f, turning the errors silent mode suppresses into a
// failure flag (executeItemOptUnwrapResultNoThrow).
func noThrow[T any](f func() (T, error)) (T, bool, error) {
	r, err := f()
	if err != nil && isSoft(err) {
		return r, true, nil
	}
	return r, false, err
}

func (e *evaluator) exists(arg *Item, v Value) (truth, error) {
	if !e.lax {
		items, failed, err := noThrow(func() ([]Value, error) { return e.unwrapResult(arg, v, false) })
		switch {
		case err != nil:
			return unknown, err
		case failed:
			return unknown, nil
		case len(items) == 0:
			return isFalse, nil
		}
		return isTrue, nil
	}
	ok, failed, err := noThrow(func() (bool, error) { return e.item(arg, v, nil) })
	switch {
	case err != nil:
		return unknown, err
	case failed:
		return unknown, nil
	case ok:
		return isTrue, nil
	}
	return isFalse, nil
}

// predicate evaluates a comparison-like predicate over every pair of
// items of its operands (executePredicate): in lax mode true as soon as
// one pair is, in strict mode unknown as soon as one pair is.
func (e *evaluator) predicate(it, larg, rarg *Item, v Value, unwrapRight bool,
	exec func(it *Item, l, r Value) (truth, error)) (truth, error) {
	lseq, failed, err := noThrow(func() ([]Value, error) { return e.unwrapResult(larg, v, true) })
	if err != nil || failed {
		return unknown, err
	}
	var rseq []Value
	if rarg != nil {
		rseq, failed, err = noThrow(func() ([]Value, error) { return e.unwrapResult(rarg, v, unwrapRight) })
		if err != nil || failed {
			return unknown, err
		}
	} else {
		rseq = []Value{{}}
	}
	sawError, found := false, false
	for _, l := range lseq {
		for _, r := range rseq {
			res, err := exec(it, l, r)
			if err != nil {
				return unknown, err
			}
			switch res {
			case unknown:
				if !e.lax {
					return unknown, nil
				}
				sawError = true
			case isTrue:
				if e.lax {
					return isTrue, nil
				}
				found = true
			}
		}
	}
	switch {
	case found:
		return isTrue, nil
	case sawError:
		return unknown, nil
	}
	return isFalse, nil
}

func startsWith(_ *Item, whole, initial Value) (truth, error) {
	if whole.k != vString || initial.k != vString {
		return unknown, nil
	}
	if len(whole.str) >= len(initial.str) && whole.str[:len(initial.str)] == initial.str {
		return isTrue, nil
	}
	return isFalse, nil
}

// compare is compareItems: items of different kinds compare as unknown,
// except that null is unequal to everything else.
func (e *evaluator) compare(it *Item, l, r Value) (truth, error) {
	if l.k != r.k {
		if l.k == vNull || r.k == vNull {
			if it.Kind == KNotEqual {
				return isTrue, nil
			}
			return isFalse, nil
		}
		return unknown, nil
	}
	var cmp int
	switch l.k {
	case vNull:
	case vBool:
		switch {
		case l.b == r.b:
		case l.b:
			cmp = 1
		default:
			cmp = -1
		}
	case vNumber:
		cmp = repr.Compare(repr.NewNumeric(l.num), repr.NewNumeric(r.num))
	case vString:
		switch {
		case l.str < r.str:
			cmp = -1
		case l.str > r.str:
			cmp = 1
		}
	case vDatetime:
		c, ok, err := e.compareDatetime(l, r)
		if err != nil {
			return unknown, err
		}
		if !ok {
			return unknown, nil
		}
		cmp = c
	default:
		return unknown, nil
	}
	var res bool
	switch it.Kind {
	case KEqual:
		res = cmp == 0
	case KNotEqual:
		res = cmp != 0
	case KLess:
		res = cmp < 0
	case KGreater:
		res = cmp > 0
	case KLessOrEqual:
		res = cmp <= 0
	case KGreaterOrEqual:
		res = cmp >= 0
	}
	if res {
		return isTrue, nil
	}
	return isFalse, nil
}
