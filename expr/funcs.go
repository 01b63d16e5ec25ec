package expr

import (
	"crypto/md5"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/eddydb/eddy/repr"
)

// maxStringBytes is PostgreSQL's limit on one value (1 GB): larger results
// fail with 54000 instead of exhausting memory.
const maxStringBytes = 1<<30 - 1

func init() {
	t, i4 := repr.Text, repr.Int4
	textFn := func(name string, f func(string) string) {
		fn(name, t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) { return repr.NewText(f(a[0].Text())), nil }, t)
	}
	textFn("lower", strings.ToLower)
	textFn("upper", strings.ToUpper)
	textFn("reverse", reverse)
	textFn("md5", func(s string) string { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) })
	for _, name := range []string{"length", "char_length", "character_length"} {
		fn(name, i4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.NewInt(int64(utf8.RuneCountInString(a[0].Text()))), nil
		}, t)
	}
	byteLen := func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		return repr.NewInt(int64(len(a[0].Text()))), nil
	}
	fn("octet_length", i4, byteLen, t)
	// octet_length of char(n) counts its padding (bpcharoctetlen); length
	// does not (the char-to-text cast strips it).
	fn("octet_length", i4, byteLen, repr.Char(0))
	// length and octet_length of bytea count bytes.
	fn("length", i4, byteLen, repr.Bytea)
	fn("octet_length", i4, byteLen, repr.Bytea)
	for _, name := range []string{"substr", "substring"} {
		fn(name, t, substr, t, i4)
		fn(name, t, substr, t, i4, i4)
	}
	fn("replace", t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[1].Text() == "" {
			return a[0], nil
		}
		return checkLen(strings.ReplaceAll(a[0].Text(), a[1].Text(), a[2].Text()))
	}, t, t, t)
	registerTrims()
	for _, name := range []string{"strpos", "position"} {
		fn(name, i4, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			i := strings.Index(a[0].Text(), a[1].Text())
			if i < 0 {
				return repr.NewInt(0), nil
			}
			return repr.NewInt(int64(utf8.RuneCountInString(a[0].Text()[:i]) + 1)), nil
		}, t, t)
	}
	fn("left", t, leftRight(true), t, i4)
	fn("right", t, leftRight(false), t, i4)
	fn("repeat", t, repeat, t, i4)
	fn("split_part", t, splitPart, t, t, i4)
	f := fn("random", repr.Float8, func(*Ctx, []repr.Datum) (repr.Datum, error) {
		return repr.NewFloat(rand.Float64()), nil
	})
	f.Volatile = true
	for _, name := range []string{"now", "current_timestamp", "transaction_timestamp", "statement_timestamp"} {
		stmt := name == "statement_timestamp"
		f := fn(name, repr.TimestampTZ, func(c *Ctx, _ []repr.Datum) (repr.Datum, error) {
			if stmt && c.StatementStart != 0 {
				return repr.NewTimestampTZ(c.StatementStart), nil
			}
			return repr.NewTimestampTZ(c.StmtTimestamp), nil
		})
		f.Volatile = true
	}
	variadics["concat"] = concatFunc
	variadics["greatest"] = extremumFunc("greatest", 1)
	variadics["least"] = extremumFunc("least", -1)
	variadics["nullif"] = nullifFunc
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func checkLen(s string) (repr.Datum, error) {
	if len(s) > maxStringBytes {
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "requested length too large")
	}
	return repr.NewText(s), nil
}

// substr is substr(s, from [, count]) over characters, 1-based; a start
// before 1 eats into the count, a negative count is 22011.
func substr(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	r := []rune(a[0].Text())
	start := a[1].Int()
	end := int64(len(r)) + 1
	if len(a) == 3 {
		if a[2].Int() < 0 {
			return repr.Null, repr.Errorf("22011", "negative substring length not allowed")
		}
		end = min(end, start+a[2].Int())
	}
	start = max(start, 1)
	if start >= end {
		return repr.NewText(""), nil
	}
	return repr.NewText(string(r[start-1 : end-1])), nil
}

func registerTrims() {
	t := repr.Text
	for name, mode := range map[string]int{"btrim": 0, "trim": 0, "ltrim": 1, "rtrim": 2} {
		fn(name, t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.NewText(trim(a[0].Text(), " ", mode)), nil
		}, t)
		fn(name, t, func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.NewText(trim(a[0].Text(), a[1].Text(), mode)), nil
		}, t, t)
	}
}

// trim removes characters in set from both ends (mode 0), the left (1) or
// the right (2).
func trim(s, set string, mode int) string {
	if mode != 2 {
		s = strings.TrimLeft(s, set)
	}
	if mode != 1 {
		s = strings.TrimRight(s, set)
	}
	return s
}

func leftRight(left bool) implFn {
	return func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
		r := []rune(a[0].Text())
		n := a[1].Int()
		if n < 0 {
			n = max(int64(len(r))+n, 0)
		}
		n = min(n, int64(len(r)))
		if left {
			return repr.NewText(string(r[:n])), nil
		}
		return repr.NewText(string(r[int64(len(r))-n:])), nil
	}
}

func repeat(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	s, n := a[0].Text(), a[1].Int()
	if n <= 0 || s == "" {
		return repr.NewText(""), nil
	}
	if n > int64(maxStringBytes/len(s)) {
		return repr.Null, repr.Errorf(repr.CodeProgramLimitExceeded, "requested length too large")
	}
	return repr.NewText(strings.Repeat(s, int(n))), nil
}

func splitPart(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	s, sep, n := a[0].Text(), a[1].Text(), a[2].Int()
	if n == 0 {
		return repr.Null, repr.Errorf(repr.CodeInvalidParameter, "field position must not be zero")
	}
	var parts []string
	if sep == "" {
		parts = []string{s}
		if s == "" {
			parts = nil
		}
	} else {
		parts = strings.Split(s, sep)
		if s == "" {
			parts = nil
		}
	}
	if n < 0 {
		n += int64(len(parts)) + 1
	}
	if n < 1 || n > int64(len(parts)) {
		return repr.NewText(""), nil
	}
	return repr.NewText(parts[n-1]), nil
}

// concatFunc instantiates concat(any...): NULL arguments are skipped and the
// others printed with their output functions; unknown literals are text.
func concatFunc(args []repr.T) (*Func, error) {
	sig := make([]repr.T, len(args))
	zoned := false
	for i, a := range args {
		sig[i] = a
		if a.Family == repr.FamUnknown {
			sig[i] = repr.Text
		}
		zoned = zoned || zonedType(a)
	}
	if len(args) == 0 {
		return nil, funcError("concat", args, false)
	}
	return &Func{Name: "concat", Args: sig, Ret: repr.Text, zoned: zoned,
		Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			var b strings.Builder
			for i, d := range a {
				if !d.IsNull() {
					b.WriteString(formatText(d, sig[i], c.Location()))
				}
			}
			return checkLen(b.String())
		}}, nil
}

// extremumFunc instantiates greatest/least over the arguments' common type;
// NULLs are ignored and the result is NULL only if all arguments are.
func extremumFunc(name string, sign int) func([]repr.T) (*Func, error) {
	return func(args []repr.T) (*Func, error) {
		if len(args) == 0 {
			return nil, funcError(name, args, false)
		}
		t, err := CommonType(args, strings.ToUpper(name))
		if err != nil {
			return nil, err
		}
		cmp := comparator(t)
		sig := make([]repr.T, len(args))
		for i := range sig {
			sig[i] = t
		}
		return &Func{Name: name, Args: sig, Ret: t, Impl: func(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
			best := repr.Null
			for _, d := range a {
				if !d.IsNull() && (best.IsNull() || cmp(d, best)*sign > 0) {
					best = d
				}
			}
			return best, nil
		}}, nil
	}
}

// comparator returns the comparison of values of type t: Compare, but
// for bpchar values (flat, or in records and arrays) without their
// trailing blanks, as bpchar's, record_cmp and array_cmp compare them.
func comparator(t repr.T) func(a, b repr.Datum) int {
	if t.Family == repr.FamText && t.Kind == repr.KindChar {
		return compareBpchar
	}
	return compareTrimmed(t)
}

// nullifFunc instantiates nullif(a, b): NULL if a = b, else a. The
// comparison uses the arguments' common type; the result has a's type.
func nullifFunc(args []repr.T) (*Func, error) {
	if len(args) != 2 {
		return nil, funcError("nullif", args, false)
	}
	eq, casts, err := ResolveOp("=", args)
	if err != nil {
		return nil, err
	}
	// PostgreSQL returns the first argument's own type; we return the
	// comparison type, which differs only for mixed-type arguments.
	ret := casts[0]
	return &Func{Name: "nullif", Args: casts, Ret: ret, Impl: func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		if a[0].IsNull() || a[1].IsNull() {
			return a[0], nil
		}
		r, err := eq.Impl(c, a)
		if err != nil || r.Bool() {
			return repr.Null, err
		}
		return a[0], nil
	}}, nil
}
