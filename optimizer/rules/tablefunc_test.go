package rules_test

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// init registers (FlatMap $rel [calls] [flags]) with the tree parser of
// parse_test.go (this file sorts after it, so its init runs later): calls in the dataflow form (expr.ParseTableCall:
// "generate_series(1, #0)"), flags among "ordinality" and "outer".
func init() {
	builders["FlatMap"] = (*treeParser).flatMap
}

func (p *treeParser) flatMap() (ir.Rel, error) {
	in, err := p.rel()
	if err != nil {
		return nil, err
	}
	raw, err := p.bracket()
	if err != nil {
		return nil, err
	}
	m := &ir.FlatMap{Input: in}
	for _, s := range splitTop(raw) {
		c, err := expr.ParseTableCall(s, in.ColTypes())
		if err != nil {
			return nil, err
		}
		m.Funcs = append(m.Funcs, c)
	}
	for p.peek() != ')' {
		switch w := p.word(); w {
		case "ordinality":
			m.Ordinality = true
		case "outer":
			m.Outer = true
		default:
			return nil, p.errorf("unknown FlatMap flag %q", w)
		}
	}
	return m, nil
}
