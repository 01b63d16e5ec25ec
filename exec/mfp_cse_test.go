package exec

import (
	"github.com/eddydb/eddy/exec/dataflow"
)

// sharePlan parses a plan and prints it with every MFP rewritten by
// shareSubexprs (the harness's "share" command, testdata/mfp_cse;
// testdata/mfp runs such MFPs).
func sharePlan(input string) (string, error) {
	p, err := dataflow.Parse(input)
	if err != nil {
		return "", err
	}
	for i, n := range p.Nodes {
		if m, ok := n.Op.(dataflow.MFP); ok {
			p.Nodes[i].Op = shareSubexprs(m, len(p.Nodes[n.Inputs[0]].Types))
		}
	}
	return p.String(), nil
}
