package sql

import (
	"context"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
)

// explainModifyingPG builds the tree of a statement with data-modifying
// WITH queries (and of INSERT ... RETURNING with subqueries, which runs
// in that form): the main statement's tree, planned with each WITH
// query's RETURNING rows as an empty constant of its columns, with the
// write tree of each WITH query first among its children as an InitPlan
// named "CTE name", as PostgreSQL prints them. The refusals of
// checkModifyingParts apply as when the statement runs. ANALYZE runs the
// whole statement once (execModifying) and measures the main node's rows.
func (p *Portal) explainModifyingPG(ctx context.Context, n *pg.Node, opts planner.Options, o explainOpts) (*planNode, []planFooter, func() error, error) {
	ces, w := planner.ModifyingCTEs(n)
	if err := checkModifyingParts(n, ces, w); err != nil {
		return nil, nil, nil, err
	}
	opts.ModifyingCTEs = planner.DescribeModifyingCTEs(n)
	var parts []*planNode
	for _, ce := range ces {
		part, _, err := p.explainDMLPG(ctx, planner.CTEStatement(w, ce), opts, o)
		if err != nil {
			return nil, nil, nil, err
		}
		part.parent, part.subplan = "InitPlan", "CTE "+ce.Ctename
		parts = append(parts, part)
	}
	var root *planNode
	var footers []planFooter
	var err error
	if n.GetSelectStmt() != nil {
		root, footers, _, err = p.explainSelectPG(ctx, n, opts, o)
	} else {
		root, _, err = p.explainDMLPG(ctx, n, opts, o)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	root.children = append(parts, root.children...)
	run := func() error {
		tag, err := p.analyze(ctx, n)
		if err != nil {
			return err
		}
		fields := strings.Fields(tag)
		root.actual, _ = strconv.ParseInt(fields[len(fields)-1], 10, 64)
		if n.GetSelectStmt() == nil && root.output == nil { // no RETURNING
			root.actual = 0
		}
		return nil
	}
	return root, footers, run, nil
}
