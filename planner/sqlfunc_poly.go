package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Polymorphic SQL functions (parameters and results of type anyelement,
// anyarray, anynonarray, anycompatible, anycompatiblearray or
// anycompatiblenonarray; SQLFunction.Poly) are instantiated at each call
// for its argument types, as PostgreSQL's enforce_generic_type_consistency
// does: every anyelement-family argument must have the same type (an
// array's element type for anyarray; unknown literals take it), the
// anycompatible family takes the common type of its arguments (unknown
// alone: text), and the result is the type its family resolved to. The
// instance is an ordinary SQLFunction, inlined as any other.

// polyInstance returns fn instantiated for a call over ts (the
// arguments written), or nil when ts do not fit its polymorphic
// parameters. A function without polymorphic types is returned as is.
func polyInstance(fn *SQLFunction, ts []repr.T) *SQLFunction {
	if len(fn.Poly) == 0 && fn.RetPoly == "" {
		return fn
	}
	var elem repr.T
	haveElem, usesElem, usesCompat := false, false, false
	var compat []repr.T
	for i, p := range fn.Poly {
		if p == "" {
			continue
		}
		if isCompatPoly(p) {
			usesCompat = true
		} else {
			usesElem = true
		}
		if i >= len(ts) || ts[i].Family == repr.FamUnknown {
			if isCompatPoly(p) && i < len(ts) {
				compat = append(compat, ts[i])
			}
			continue
		}
		t := ts[i]
		switch p {
		case "anyarray", "anycompatiblearray":
			if t.Family != repr.FamArray {
				return nil
			}
			t = t.ElemType()
		case "anynonarray", "anycompatiblenonarray":
			if t.Family == repr.FamArray {
				return nil
			}
		}
		if isCompatPoly(p) {
			compat = append(compat, t)
			continue
		}
		if haveElem && !sameBaseType(elem, t) {
			return nil
		}
		elem, haveElem = t, true
	}
	if usesElem && !haveElem {
		return nil // PostgreSQL: could not determine polymorphic type
	}
	var common repr.T
	if usesCompat {
		if len(compat) == 0 {
			return nil
		}
		c, err := expr.CommonType(compat, "")
		if err != nil {
			return nil
		}
		if c.Family == repr.FamUnknown {
			c = repr.Text
		}
		common = c
	}
	resolve := func(p string, t repr.T) (repr.T, bool) {
		switch p {
		case "":
			return t, true
		case "anyelement", "anynonarray":
			return elem, haveElem
		case "anyarray":
			return repr.ArrayOf(elem), haveElem
		case "anycompatible", "anycompatiblenonarray":
			return common, usesCompat
		case "anycompatiblearray":
			return repr.ArrayOf(common), usesCompat
		}
		return t, false
	}
	out := *fn
	out.Args = append([]repr.T(nil), fn.Args...)
	for i, p := range fn.Poly {
		t, ok := resolve(p, fn.Args[i])
		if !ok {
			return nil
		}
		out.Args[i] = t
	}
	ret, ok := resolve(fn.RetPoly, fn.Ret)
	if !ok {
		return nil
	}
	out.Ret = ret
	if fn.RetPoly != "" && len(fn.RetCols) == 1 {
		out.RetCols = []Column{{Name: fn.RetCols[0].Name, Type: ret}}
	}
	if fn.RetColPoly != nil {
		out.RetCols = append([]Column(nil), fn.RetCols...)
		for i, p := range fn.RetColPoly {
			if t, ok := resolve(p, fn.RetCols[i].Type); ok && i < len(out.RetCols) {
				out.RetCols[i].Type = t
			} else if !ok {
				return nil
			}
		}
	}
	out.Poly, out.RetPoly, out.RetColPoly = nil, "", nil
	return &out
}

// isCompatPoly reports whether p is of the anycompatible family.
func isCompatPoly(p string) bool {
	return p == "anycompatible" || p == "anycompatiblearray" || p == "anycompatiblenonarray"
}

// sameBaseType reports whether a and b are one type but for modifiers.
func sameBaseType(a, b repr.T) bool {
	a.Length, a.Precision, a.Scale = 0, 0, 0
	b.Length, b.Precision, b.Scale = 0, 0, 0
	return a == b
}
