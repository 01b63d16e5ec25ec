package dataflow

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// String prints the plan one node per line, in the form Parse reads:
//
//	%0 = Source coll=1 name=t :: int4, text
//	%1 = MFP map=[(#0 + 1)] filter=[(#1 > 0)] project=[#0, #2] <- %0 :: int4, int4
//	%2 = Reduce key=[#0] aggs=[count(*), sum(#1)] <- %1 :: int4, int8, int8
//	%3 = Join kind=left on=[#0=#0] residual=[(#1 < #3)] <- %0, %2 :: ...
//	%4 = TopK key=[#0] order=[#1 DESC, #2] limit=3 offset=1 <- %3 :: ...
//	%5 = SessionWindow key=[#0] time=#2 gap=5s <- %0 :: ...
//	output %2
//
// The output line is printed only when the output is not the last node.
// Column types are printed with expr.TypeName.
func (p *Plan) String() string {
	var b strings.Builder
	for i := range p.Nodes {
		p.Nodes[i].format(&b, i)
		b.WriteByte('\n')
	}
	if p.Output != len(p.Nodes)-1 {
		fmt.Fprintf(&b, "output %%%d\n", p.Output)
	}
	return b.String()
}

// format writes node n (index i) without a trailing newline.
func (n *Node) format(b *strings.Builder, i int) {
	fmt.Fprintf(b, "%%%d = %s", i, n.Op.opName())
	if args := opArgs(n.Op); args != "" {
		b.WriteString(" " + args)
	}
	for j, in := range n.Inputs {
		sep := ", "
		if j == 0 {
			sep = " <- "
		}
		fmt.Fprintf(b, "%s%%%d", sep, in)
	}
	if len(n.Types) > 0 {
		b.WriteString(" :: " + formatTypes(n.Types))
	}
}

// formatTypes prints column types separated by ", ".
func formatTypes(ts []repr.T) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = expr.TypeName(t)
	}
	return strings.Join(s, ", ")
}

// opArgs prints the operator's arguments as name=value words.
func opArgs(op Op) string {
	switch op := op.(type) {
	case Source:
		s := fmt.Sprintf("coll=%d", op.Collection)
		if op.Name != "" {
			s += " name=" + quoteName(op.Name)
		}
		if op.HasEventTime {
			s += fmt.Sprintf(" watermark=#%d", op.EventTimeCol)
		}
		if op.Retracts {
			s += " retracts=true"
		}
		return s
	case Constant:
		rows := make([]string, len(op.Rows))
		for i, r := range op.Rows {
			rows[i] = FormatRow(r)
		}
		return "rows=[" + strings.Join(rows, ", ") + "]"
	case MFP:
		return op.args()
	case Reduce:
		s := fmt.Sprintf("key=%s aggs=[%s]", formatCols(op.Key), formatAggs(op.Aggs))
		if op.EmitOnClose {
			s += " emit=close"
		}
		if op.AppendOnly {
			s += " append-only=true"
		}
		if sh := op.Shared; sh != nil {
			s += fmt.Sprintf(" shared=%d lookup=%s", sh.Index, formatCols(sh.Cols))
		}
		return s
	case Join:
		return op.args()
	case DeltaJoin:
		return op.args()
	case SessionWindow:
		return fmt.Sprintf("key=%s time=#%d gap=%s", formatCols(op.Key), op.TimeCol, time.Duration(op.Gap)*time.Microsecond)
	case TopK:
		return op.args()
	case TemporalFilter:
		return op.args()
	case Window:
		return op.args()
	case Variable:
		return op.args()
	case FlatMap:
		return op.args()
	}
	return ""
}

// quoteName quotes a source name unless it is a plain word.
func quoteName(s string) string {
	if strings.ContainsAny(s, " \t\"'[](),=%:<-") || s == "" {
		return strconv.Quote(s)
	}
	return s
}

// FormatRow prints a row as a tuple of literals: (1, 'a', NULL).
func FormatRow(r repr.Row) string {
	s := make([]string, len(r))
	for i, d := range r {
		s[i] = d.String()
	}
	return "(" + strings.Join(s, ", ") + ")"
}

func (op MFP) args() string {
	var parts []string
	if len(op.Map) > 0 {
		parts = append(parts, "map="+formatExprs(op.Map))
	}
	if len(op.Filter) > 0 {
		parts = append(parts, "filter="+formatExprs(op.Filter))
	}
	return strings.Join(append(parts, "project="+formatCols(op.Project)), " ")
}

func (op Join) args() string {
	on := make([]string, len(op.LeftKey))
	for i := range op.LeftKey {
		on[i] = fmt.Sprintf("#%d=#%d", op.LeftKey[i], op.RightKey[i])
	}
	s := fmt.Sprintf("kind=%s on=[%s]", joinKindNames[op.Kind], strings.Join(on, ", "))
	if len(op.Residual) > 0 {
		s += " residual=" + formatExprs(op.Residual)
	}
	if op.AppendOnly {
		s += " append-only=true"
	}
	if sh := op.Shared; sh != nil {
		s += fmt.Sprintf(" shared=%s:%d", [2]string{"left", "right"}[sh.Side], sh.Index)
	}
	return s
}

var joinKindNames = [...]string{InnerJoin: "inner", LeftJoin: "left", RightJoin: "right", FullJoin: "full"}

func (op TemporalFilter) args() string {
	var parts []string
	if len(op.Lower) > 0 {
		parts = append(parts, "lower="+formatExprs(op.Lower))
	}
	if len(op.Upper) > 0 {
		parts = append(parts, "upper="+formatExprs(op.Upper))
	}
	return strings.Join(parts, " ")
}

func (op TopK) args() string {
	order := make([]string, len(op.Order))
	for i, c := range op.Order {
		order[i] = c.String()
	}
	s := fmt.Sprintf("key=%s order=[%s]", formatCols(op.Key), strings.Join(order, ", "))
	if op.Limit >= 0 {
		s += fmt.Sprintf(" limit=%d", op.Limit)
	}
	if op.Offset != 0 {
		s += fmt.Sprintf(" offset=%d", op.Offset)
	}
	if op.Rank {
		s += " rank=true"
	}
	if op.AppendOnly {
		s += " append-only=true"
	}
	return s
}

func formatAggs(aggs []expr.Agg) string {
	s := make([]string, len(aggs))
	for i, a := range aggs {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

func formatCols(cols []int) string {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = fmt.Sprintf("#%d", c)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func formatExprs(es []expr.Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.String()
	}
	return "[" + strings.Join(s, ", ") + "]"
}
