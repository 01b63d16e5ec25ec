package rules_test

import (
	"strconv"

	"github.com/eddydb/eddy/optimizer/ir"
)

// init registers (SessionWindow $rel [key cols] timecol gap-µs) with the
// tree parser of parse_test.go (whose init runs first: files initialize in
// name order).
func init() {
	builders["SessionWindow"] = (*treeParser).sessionWindow
}

func (p *treeParser) sessionWindow() (ir.Rel, error) {
	in, err := p.rel()
	if err != nil {
		return nil, err
	}
	key, err := p.intList()
	if err != nil {
		return nil, err
	}
	tc, err := strconv.Atoi(p.word())
	if err != nil {
		return nil, p.errorf("bad time column: %v", err)
	}
	gap, err := strconv.ParseInt(p.word(), 10, 64)
	if err != nil {
		return nil, p.errorf("bad gap: %v", err)
	}
	return &ir.SessionWindow{Input: in, Key: key, TimeCol: tc, Gap: gap}, nil
}
