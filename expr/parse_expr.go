package expr

import (
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// expr parses an expression whose operators bind tighter than minPrec.
func (p *parser) expr(minPrec int) (Expr, error) {
	left, err := p.prefix()
	if err != nil {
		return nil, err
	}
	p.conn = nil
	for {
		next, prec, err := p.infix(left, minPrec)
		if err != nil || next == nil {
			return left, err
		}
		_ = prec
		left = next
	}
}

// infix extends left with one infix or postfix construct binding tighter
// than minPrec, or returns nil if there is none.
func (p *parser) infix(left Expr, minPrec int) (Expr, int, error) {
	t := p.peek()
	switch {
	case t.kind == tOp && t.text == "::" && precCast > minPrec:
		p.next()
		to, err := p.typeName()
		if err != nil {
			return nil, 0, err
		}
		return castLiteralOrExpr(left, to, false), precCast, nil
	case p.isKw("IS") && precIs > minPrec:
		p.next()
		neg := p.isKw("NOT")
		if neg {
			p.next()
		}
		if err := p.expect("NULL"); err != nil {
			return nil, 0, err
		}
		return &IsNull{Arg: left, Negate: neg}, precIs, nil
	case p.isKw("AND") && precAnd > minPrec:
		return p.connective(left, precAnd)
	case p.isKw("OR") && precOr > minPrec:
		return p.connective(left, precOr)
	case (p.isKw("LIKE") || p.isKw("ILIKE") || p.isKw("NOT") && (p.isKwAt(1, "LIKE") || p.isKwAt(1, "ILIKE"))) && precLike > minPrec:
		op := likeOp(p)
		return p.binary(left, op, precLike)
	case t.kind == tOp && binaryPrec(t.text) > minPrec:
		p.next()
		op := t.text
		if op == "!=" {
			op = "<>"
		}
		return p.binary(left, op, binaryPrec(t.text))
	}
	return nil, 0, nil
}

// likeOp consumes [NOT] LIKE|ILIKE and returns the operator name.
func likeOp(p *parser) string {
	not := p.isKw("NOT")
	if not {
		p.next()
	}
	op := "~~"
	if strings.EqualFold(p.next().text, "ILIKE") {
		op = "~~*"
	}
	if not {
		op = "!" + op
	}
	return op
}

func (p *parser) binary(left Expr, op string, prec int) (Expr, int, error) {
	right, err := p.expr(prec)
	if err != nil {
		return nil, 0, err
	}
	e, err := CallOp(op, left, right)
	return e, prec, err
}

func (p *parser) connective(left Expr, prec int) (Expr, int, error) {
	p.next()
	extend := left == p.conn
	right, err := p.expr(prec)
	if err != nil {
		return nil, 0, err
	}
	l, r := NewCast(left, repr.Bool), NewCast(right, repr.Bool)
	a, isAnd := l.(*And)
	o, isOr := l.(*Or)
	var e Expr
	switch {
	case prec == precAnd && extend && isAnd:
		e = &And{Args: append(append([]Expr{}, a.Args...), r)}
	case prec == precAnd:
		e = &And{Args: []Expr{l, r}}
	case extend && isOr:
		e = &Or{Args: append(append([]Expr{}, o.Args...), r)}
	default:
		e = &Or{Args: []Expr{l, r}}
	}
	p.conn = e
	return e, prec, nil
}

// CallOp resolves op over the argument expressions (one for a prefix
// operator) and builds the call with the needed coercions.
func CallOp(op string, args ...Expr) (Expr, error) {
	fn, casts, err := ResolveOp(op, exprTypes(args))
	if err != nil {
		return nil, err
	}
	return &Call{Fn: fn, Args: coerceAll(args, casts)}, nil
}

// CallFunc resolves the function name over args and builds the call.
func CallFunc(name string, args ...Expr) (Expr, error) {
	fn, casts, err := ResolveFunc(name, exprTypes(args))
	if err != nil {
		return nil, err
	}
	return &Call{Fn: fn, Args: coerceAll(args, casts)}, nil
}

func exprTypes(es []Expr) []repr.T {
	ts := make([]repr.T, len(es))
	for i, e := range es {
		ts[i] = e.Type()
	}
	return ts
}

func coerceAll(es []Expr, to []repr.T) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = NewCast(e, to[i])
	}
	return out
}

// prefix parses an operand with its prefix operators.
func (p *parser) prefix() (Expr, error) {
	t := p.next()
	switch t.kind {
	case tEOF:
		return nil, p.errorf("unexpected end of expression")
	case tCol:
		i, _ := strconv.Atoi(t.text)
		if i >= len(p.cols) {
			return nil, p.errorf("column #%d out of range (%d columns)", i, len(p.cols))
		}
		return &Col{Idx: i, T: p.cols[i]}, nil
	case tNum:
		return numberLit(t.text)
	case tStr:
		return &Lit{D: repr.NewText(t.text), T: repr.Unknown}, nil
	case tOp:
		if t.text == "-" || t.text == "+" || t.text == "~" {
			arg, err := p.expr(precUnary)
			if err != nil {
				return nil, err
			}
			return CallOp(t.text, arg)
		}
	case tPunct:
		if t.text == "(" {
			e, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			return e, p.expect(")")
		}
	case tIdent:
		return p.identifier(t.text)
	}
	return nil, p.errorf("unexpected %q", t.text)
}

// numberLit types a numeric literal like PostgreSQL: int4, else int8, else
// numeric for integers; numeric for anything with a point or exponent.
func numberLit(s string) (Expr, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		t := repr.Int8
		if fitsWidth(v, 32) {
			t = repr.Int4
		}
		return &Lit{D: repr.NewInt(v), T: t}, nil
	}
	d, err := parseText(s, repr.Numeric, nil)
	if err != nil {
		return nil, err
	}
	return &Lit{D: d, T: repr.Numeric}, nil
}

// identifier parses keywords (NULL, TRUE, NOT, CASE, CAST) and function calls.
func (p *parser) identifier(name string) (Expr, error) {
	switch strings.ToUpper(name) {
	case "NULL":
		return &Lit{D: repr.Null, T: repr.Unknown}, nil
	case "TRUE", "FALSE":
		return &Lit{D: repr.NewBool(strings.EqualFold(name, "true")), T: repr.Bool}, nil
	case "NOT":
		arg, err := p.expr(precNot)
		if err != nil {
			return nil, err
		}
		return &Not{Arg: NewCast(arg, repr.Bool)}, nil
	case "CASE":
		return p.caseExpr()
	case "CAST":
		return p.castExpr()
	}
	if p.peek().text != "(" {
		return nil, p.errorf("unexpected identifier %q", name)
	}
	p.next()
	args, err := p.exprList(")")
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(name, "coalesce") {
		return NewCoalesce(args)
	}
	return CallFunc(strings.ToLower(name), args...)
}

// exprList parses comma-separated expressions up to the closing token.
func (p *parser) exprList(end string) ([]Expr, error) {
	var args []Expr
	if p.peek().text == end {
		p.next()
		return args, nil
	}
	for {
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		if t := p.next(); t.text == end {
			return args, nil
		} else if t.text != "," {
			return nil, p.errorf("expected , or %s, found %q", end, t.text)
		}
	}
}

func (p *parser) castExpr() (Expr, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if err := p.expect("AS"); err != nil {
		return nil, err
	}
	to, err := p.typeName()
	if err != nil {
		return nil, err
	}
	return castLiteralOrExpr(e, to, true), p.expect(")")
}

// castLiteralOrExpr applies a written cast: folded into literals, else a Cast.
func castLiteralOrExpr(e Expr, to repr.T, explicit bool) Expr {
	if c := NewCast(e, to); c != e {
		if cast, ok := c.(*Cast); ok {
			cast.Explicit = explicit
		}
		return c
	}
	return e
}

func (p *parser) caseExpr() (Expr, error) {
	var conds, thens []Expr
	for p.isKw("WHEN") {
		p.next()
		c, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expect("THEN"); err != nil {
			return nil, err
		}
		t, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		conds, thens = append(conds, c), append(thens, t)
	}
	var els Expr
	if p.isKw("ELSE") {
		p.next()
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		els = e
	}
	if err := p.expect("END"); err != nil {
		return nil, err
	}
	return NewCase(conds, thens, els)
}

// typeName parses a type name in TypeName's form (also accepting common
// SQL spellings such as integer, bigint, boolean, double precision).
func (p *parser) typeName() (repr.T, error) {
	t := p.next()
	if t.kind != tIdent {
		return repr.Unknown, p.errorf("expected type name, found %q", t.text)
	}
	name := strings.ToLower(t.text)
	if name == "double" && p.isKw("precision") {
		p.next()
		name = "float8"
	}
	var mods []int32
	if p.peek().text == "(" {
		p.next()
		for {
			n := p.next()
			v, err := strconv.Atoi(n.text)
			if err != nil {
				return repr.Unknown, p.errorf("bad type modifier %q", n.text)
			}
			mods = append(mods, int32(v))
			if d := p.next(); d.text == ")" {
				break
			} else if d.text != "," {
				return repr.Unknown, p.errorf("bad type modifier list")
			}
		}
	}
	typ, err := ParseTypeName(name, mods)
	for err == nil && p.peek().text == "[" {
		p.next()
		if err = p.expect("]"); err == nil {
			typ = repr.ArrayOf(typ)
		}
	}
	return typ, err
}
