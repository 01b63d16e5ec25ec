package rules_test

import (
	"strconv"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// init registers (Window $rel [key cols] [order] [funcs]) with the tree
// parser of parse_test.go: order as TopK's ("1 desc, 2"), functions in
// the dataflow form (expr.ParseWinFunc: "rank()", "lag(#1, 1)",
// "sum(#2) ROWS BETWEEN 1 PRECEDING AND CURRENT ROW").
func init() {
	builders["Window"] = (*treeParser).window
}

func (p *treeParser) window() (ir.Rel, error) {
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
	w := &ir.Window{Input: in, Key: key}
	for _, s := range splitTop(raw) {
		f := strings.Fields(s)
		c, err := strconv.Atoi(strings.TrimPrefix(f[0], "#"))
		if err != nil {
			return nil, err
		}
		desc := len(f) > 1 && f[1] == "desc"
		w.Order = append(w.Order, expr.SortCol{Col: c, Desc: desc, NullsFirst: desc})
	}
	if raw, err = p.bracket(); err != nil {
		return nil, err
	}
	for _, s := range splitTop(raw) {
		f, err := expr.ParseWinFunc(s, in.ColTypes())
		if err != nil {
			return nil, err
		}
		w.Funcs = append(w.Funcs, f)
	}
	return w, nil
}
