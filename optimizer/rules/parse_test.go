package rules_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// parseRel parses the test form of an IR tree, an s-expression with
// bracketed lists:
//
//	(Get t [int4 text])
//	(Get t [int4 text] key=0 rows=500)   planning hints (unique key, size)
//	(Values [int4 int4] [1, 2] [3, NULL])
//	(Map $rel [#0 + 1, #2 * 2])         exprs may read earlier mapped columns
//	(Filter $rel [#0 = 1, #1 IS NULL])
//	(Project $rel [2 0])
//	(Join inner|left|right|full|cross $rel $rel [#0 = #2])   condition optional
//	(Reduce $rel [0] [count(*), sum(#1), min(distinct #2)])   aggs optional
//	(TopK $rel [0] [1 desc, 2] limit offset)
//	(Union $rel $rel ...)  (Negate $rel)  (Threshold $rel)
//
// Expressions are expr.ParseExpr forms over the operator's input columns.
// Get IDs are numbered by first appearance of the name.
func parseRel(s string) (ir.Rel, error) {
	p := &treeParser{s: s, ids: map[string]repr.CollectionID{}}
	r, err := p.rel()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.pos < len(p.s) {
		return nil, p.errorf("trailing input")
	}
	return r, nil
}

type treeParser struct {
	s   string
	pos int
	ids map[string]repr.CollectionID
}

func (p *treeParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *treeParser) skip() {
	for p.pos < len(p.s) && strings.ContainsRune(" \t\n", rune(p.s[p.pos])) {
		p.pos++
	}
}

// peek returns the next non-space byte (0 at the end).
func (p *treeParser) peek() byte {
	if p.skip(); p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *treeParser) expect(c byte) error {
	if p.peek() != c {
		return p.errorf("expected %q", c)
	}
	p.pos++
	return nil
}

// word reads a bare token.
func (p *treeParser) word() string {
	p.skip()
	start := p.pos
	for p.pos < len(p.s) && !strings.ContainsRune(" \t\n()[]", rune(p.s[p.pos])) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// bracket reads a [...] list and returns its raw contents.
func (p *treeParser) bracket() (string, error) {
	if err := p.expect('['); err != nil {
		return "", err
	}
	start, depth, quoted := p.pos, 1, false
	for ; p.pos < len(p.s); p.pos++ {
		switch c := p.s[p.pos]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '[':
			depth++
		case c == ']':
			if depth--; depth == 0 {
				p.pos++
				return p.s[start : p.pos-1], nil
			}
		}
	}
	return "", p.errorf("unterminated [")
}

func (p *treeParser) rel() (ir.Rel, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	op := p.word()
	build, ok := builders[op]
	if !ok {
		return nil, p.errorf("unknown operator %q", op)
	}
	r, err := build(p)
	if err != nil {
		return nil, err
	}
	return r, p.expect(')')
}

var builders map[string]func(p *treeParser) (ir.Rel, error)

func init() {
	builders = map[string]func(p *treeParser) (ir.Rel, error){
		"Get": (*treeParser).get, "Values": (*treeParser).values, "Map": (*treeParser).mapOp,
		"Filter": (*treeParser).filter, "Project": (*treeParser).project, "Join": (*treeParser).join,
		"Reduce": (*treeParser).reduce, "TopK": (*treeParser).topK, "Union": (*treeParser).union,
		"Negate": (*treeParser).negate, "Threshold": (*treeParser).threshold,
	}
}

func (p *treeParser) get() (ir.Rel, error) {
	name := p.word()
	ts, err := p.typeList()
	if err != nil {
		return nil, err
	}
	id, ok := p.ids[name]
	if !ok {
		id = repr.CollectionID(len(p.ids) + 1)
		p.ids[name] = id
	}
	g := &ir.Get{ID: id, Name: name, Types: ts}
	for p.peek() != ')' {
		if err := p.getHint(g); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// getHint reads one planning hint of a Get: key=0,1 or rows=N.
func (p *treeParser) getHint(g *ir.Get) error {
	k, v, ok := strings.Cut(p.word(), "=")
	if !ok {
		return p.errorf("expected key=cols or rows=n")
	}
	switch k {
	case "key":
		g.Key = []int{}
		for _, c := range strings.Split(v, ",") {
			n, err := strconv.Atoi(c)
			if err != nil {
				return p.errorf("key: %v", err)
			}
			g.Key = append(g.Key, n)
		}
	case "rows":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return p.errorf("rows: %v", err)
		}
		g.Rows = n
	default:
		return p.errorf("unknown Get hint %q", k)
	}
	return nil
}

func (p *treeParser) values() (ir.Rel, error) {
	ts, err := p.typeList()
	if err != nil {
		return nil, err
	}
	v := &ir.Values{Types: ts}
	for p.peek() == '[' {
		row, err := p.exprList(nil)
		if err != nil {
			return nil, err
		}
		if len(row) != len(ts) {
			return nil, p.errorf("row has %d values, want %d", len(row), len(ts))
		}
		for i, e := range row {
			row[i] = expr.NewCast(e, ts[i])
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

func (p *treeParser) mapOp() (ir.Rel, error) {
	in, err := p.rel()
	if err != nil {
		return nil, err
	}
	raw, err := p.bracket()
	if err != nil {
		return nil, err
	}
	cols := append([]repr.T(nil), in.ColTypes()...)
	var exprs []expr.Expr
	for _, s := range splitTop(raw) {
		e, err := expr.ParseExpr(s, cols)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		exprs = append(exprs, e)
		cols = append(cols, e.Type())
	}
	return &ir.Map{Input: in, Exprs: exprs}, nil
}

func (p *treeParser) filter() (ir.Rel, error) {
	in, err := p.rel()
	if err != nil {
		return nil, err
	}
	preds, err := p.exprList(in.ColTypes())
	return &ir.Filter{Input: in, Preds: preds}, err
}

func (p *treeParser) project() (ir.Rel, error) {
	in, err := p.rel()
	if err != nil {
		return nil, err
	}
	cols, err := p.intList()
	return &ir.Project{Input: in, Cols: cols}, err
}

var joinKinds = map[string]ir.JoinKind{
	"inner": ir.JoinInner, "left": ir.JoinLeft, "right": ir.JoinRight, "full": ir.JoinFull, "cross": ir.JoinCross,
}

func (p *treeParser) join() (ir.Rel, error) {
	kind, ok := joinKinds[p.word()]
	if !ok {
		return nil, p.errorf("unknown join kind")
	}
	l, err := p.rel()
	if err != nil {
		return nil, err
	}
	r, err := p.rel()
	if err != nil {
		return nil, err
	}
	j := &ir.Join{Kind: kind, Left: l, Right: r}
	if p.peek() == '[' {
		j.On, err = p.exprList(j.ColTypes())
	}
	return j, err
}

func (p *treeParser) reduce() (ir.Rel, error) {
	in, err := p.rel()
	if err != nil {
		return nil, err
	}
	key, err := p.intList()
	if err != nil {
		return nil, err
	}
	r := &ir.Reduce{Input: in, Key: key}
	if p.peek() != '[' {
		return r, nil
	}
	raw, err := p.bracket()
	if err != nil {
		return nil, err
	}
	for _, s := range splitTop(raw) {
		a, err := parseAgg(s, in.ColTypes())
		if err != nil {
			return nil, err
		}
		r.Aggs = append(r.Aggs, a)
	}
	return r, nil
}

var aggKinds = map[string]expr.AggKind{
	"count": expr.AggCount, "sum": expr.AggSum, "avg": expr.AggAvg, "min": expr.AggMin,
	"max": expr.AggMax, "bool_and": expr.AggBoolAnd, "bool_or": expr.AggBoolOr,
	"string_agg": expr.AggStringAgg,
}

// parseAgg parses count(*), name(#i), name(distinct #i) or string_agg(#i, #j).
func parseAgg(s string, in []repr.T) (expr.Agg, error) {
	name, args, ok := strings.Cut(strings.TrimSuffix(s, ")"), "(")
	kind, known := aggKinds[name]
	if !ok || !known {
		return expr.Agg{}, fmt.Errorf("bad aggregate %q", s)
	}
	if args == "*" {
		return expr.Agg{Kind: expr.AggCountStar, T: repr.Int8}, nil
	}
	a := expr.Agg{Kind: kind}
	args, a.Distinct = strings.CutPrefix(args, "distinct ")
	parts := splitTop(args)
	cols, err := parseInts(parts)
	if err != nil || len(cols) == 0 {
		return a, fmt.Errorf("bad aggregate %q", s)
	}
	a.Col = cols[0]
	if len(cols) > 1 {
		a.Sep = cols[1]
	}
	a.T, err = expr.AggType(kind, in[a.Col])
	return a, err
}

func (p *treeParser) topK() (ir.Rel, error) {
	in, err := p.rel()
	if err != nil {
		return nil, err
	}
	key, err := p.intList()
	if err != nil {
		return nil, err
	}
	raw, err := p.bracket()
	if err != nil {
		return nil, err
	}
	t := &ir.TopK{Input: in, Key: key}
	for _, s := range splitTop(raw) {
		f := strings.Fields(s)
		c, err := strconv.Atoi(strings.TrimPrefix(f[0], "#"))
		if err != nil {
			return nil, err
		}
		t.Order = append(t.Order, expr.SortCol{Col: c, Desc: len(f) > 1 && f[1] == "desc"})
	}
	if t.Limit, err = strconv.ParseInt(p.word(), 10, 64); err != nil {
		return nil, err
	}
	t.Offset, err = strconv.ParseInt(p.word(), 10, 64)
	return t, err
}

func (p *treeParser) union() (ir.Rel, error) {
	u := &ir.Union{}
	for p.peek() == '(' {
		in, err := p.rel()
		if err != nil {
			return nil, err
		}
		u.Inputs = append(u.Inputs, in)
	}
	return u, nil
}

func (p *treeParser) negate() (ir.Rel, error) {
	in, err := p.rel()
	return &ir.Negate{Input: in}, err
}

func (p *treeParser) threshold() (ir.Rel, error) {
	in, err := p.rel()
	return &ir.Threshold{Input: in}, err
}

// exprList parses a bracketed, comma-separated list of expressions over
// columns of types cols.
func (p *treeParser) exprList(cols []repr.T) ([]expr.Expr, error) {
	raw, err := p.bracket()
	if err != nil {
		return nil, err
	}
	var out []expr.Expr
	for _, s := range splitTop(raw) {
		e, err := expr.ParseExpr(s, cols)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// intList parses a bracketed list of column numbers ("0 2" or "#0, #2").
func (p *treeParser) intList() ([]int, error) {
	raw, err := p.bracket()
	if err != nil {
		return nil, err
	}
	return parseInts(strings.FieldsFunc(raw, func(r rune) bool { return r == ' ' || r == ',' }))
}

func parseInts(parts []string) ([]int, error) {
	out := []int{}
	for _, s := range parts {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "#"))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// typeList parses a bracketed list of type names.
func (p *treeParser) typeList() ([]repr.T, error) {
	raw, err := p.bracket()
	if err != nil {
		return nil, err
	}
	ts := []repr.T{}
	for _, name := range strings.FieldsFunc(raw, func(r rune) bool { return r == ' ' || r == ',' }) {
		t, err := expr.ParseTypeName(name, nil)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// splitTop splits s at the commas outside parentheses and quotes, trimming
// each part; an all-blank s has no parts.
func splitTop(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if last := strings.TrimSpace(s[start:]); last != "" || len(out) > 0 {
		out = append(out, last)
	}
	return out
}
