package exec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
)

// DebugState prints the in-memory state of node i, one line per group,
// row or entry, sorted, for tests and debugging.
func (d *Dataflow) DebugState(i int) string {
	if i < 0 || i >= len(d.ops) {
		return fmt.Sprintf("no node %%%d", i)
	}
	return debugState(d, i, d.ops[i])
}

// debugState prints op's state as DebugState does (op is node i's
// operator or, for a sharded node, one of its shards).
func debugState(d *Dataflow, i int, op operator) string {
	var lines []string
	switch o := op.(type) {
	case *shardedOp:
		var b strings.Builder
		for _, sh := range o.shards {
			if s := debugState(d, i, sh.op); s != "empty\n" {
				b.WriteString(s)
			}
		}
		lines = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if b.Len() == 0 {
			lines = nil
		}
	case *constantOp:
		lines = []string{fmt.Sprintf("emitted=%t", o.emitted)}
	case *reduceOp:
		lines = o.debug()
	case *globalReduce:
		lines = o.debug()
	case *windowReduce:
		lines = o.debug()
	case *joinOp:
		lines = o.debug()
	case *appendJoin:
		lines = o.debug()
	case *windowJoin:
		lines = o.debug()
	case *intervalJoin:
		lines = o.debug()
	case *sourceOp:
		if o.eventCol < 0 {
			return "stateless\n"
		}
		t := d.plan.Nodes[i].Types[o.eventCol]
		lines = []string{fmt.Sprintf("watermark=%s late=%d", FormatWatermark(t, o.wm), o.late)}
		if o.held != nil {
			lines = append(lines, o.held.debug()...)
		}
	case *thresholdOp:
		for _, r := range o.rows {
			row := make(repr.Row, o.width)
			if err := repr.DecodeDatums(row, r.enc[r.klen:], nil); err != nil {
				lines = append(lines, fmt.Sprintf("corrupt row: %v", err))
				continue
			}
			lines = append(lines, fmt.Sprintf("%s x%d", dataflow.FormatRow(row), r.n))
		}
	case *topkOp:
		lines = o.debug()
	case *windowTopK:
		lines = o.debug()
	case *sessionOp:
		lines = o.debug()
	case *temporalOp:
		lines = o.debug()
	case *windowOp:
		lines = o.debug()
	case *loopJoin:
		lines = o.debug()
	case *loopCount:
		lines = o.debug()
	case *loopReduce:
		lines = o.debug()
	default:
		return "stateless\n"
	}
	slices.Sort(lines)
	if len(lines) == 0 {
		return "empty\n"
	}
	return strings.Join(lines, "\n") + "\n"
}

func (o *reduceOp) debug() []string {
	var lines []string
	var slab rowSlab
	for _, g := range o.groups {
		key := make(repr.Row, len(o.spec.Key))
		if err := repr.DecodeDatums(key, g.enc[g.klen:], nil); err != nil {
			lines = append(lines, fmt.Sprintf("group corrupt: %v", err))
			continue
		}
		var out repr.Row
		if !o.spec.EmitOnClose {
			var err error
			if out, err = o.output(&slab, g); err != nil {
				lines = append(lines, fmt.Sprintf("group %s: %v", dataflow.FormatRow(key), err))
				continue
			}
		}
		s := fmt.Sprintf("group %s rows=%d out=%s", dataflow.FormatRow(key), g.rows, formatRowOrNone(out))
		sets := o.sets(g)
		for ai := range o.aggs {
			a := &o.aggs[ai]
			switch slot := a.valSlot; {
			case slot >= 0 && sets[slot] != nil && sets[slot].keys != nil:
				s += fmt.Sprintf(" %s:{%d keys}", a, len(sets[slot].keys))
			case slot >= 0 && sets[slot] != nil && sets[slot].size() > 0:
				s += fmt.Sprintf(" %s:{%s}", a, formatSet(sets[slot]))
			}
			if es := o.scaleEntries(g, a); len(es) > 0 {
				s += fmt.Sprintf(" %s:{%s}", a, formatEntries(es))
			}
		}
		lines = append(lines, s)
	}
	return lines
}

func formatRowOrNone(r repr.Row) string {
	if r == nil {
		return "none"
	}
	return dataflow.FormatRow(r)
}

// formatSet prints a multiset's entries in key order.
func formatSet(ms *multiset) string {
	var es []*mentry
	ms.all(func(e *mentry) { es = append(es, e) })
	slices.SortFunc(es, func(a, b *mentry) int { return strings.Compare(a.key, b.key) })
	return formatEntries(es)
}

// formatEntries prints entries in the order given.
func formatEntries(es []*mentry) string {
	var parts []string
	for _, e := range es {
		p := fmt.Sprintf("%s x%d", e.val, e.n)
		if sep := e.separator(); !sep.IsNull() {
			p = fmt.Sprintf("%s/%s x%d", e.val, sep, e.n)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func (o *joinOp) debug() []string {
	var lines []string
	for side, name := range []string{"left", "right"} {
		o.sides[side].each(func(r *jrow) {
			row, err := o.decodeScratch(side, r)
			if err != nil {
				lines = append(lines, fmt.Sprintf("%s corrupt: %v", name, err))
				return
			}
			lines = append(lines, fmt.Sprintf("%s %s x%d matches=%d", name, dataflow.FormatRow(row), r.n, r.matches))
		})
	}
	return lines
}

func (o *topkOp) debug() []string {
	var lines []string
	for _, g := range o.groups {
		var rows, top []string
		for _, r := range g.rows {
			rows = append(rows, fmt.Sprintf("%s x%d", dataflow.FormatRow(o.row(r)), r.n))
		}
		for _, t := range o.appendTop(nil, g) {
			top = append(top, fmt.Sprintf("%s x%d", dataflow.FormatRow(o.row(t.r)), t.n))
		}
		lines = append(lines, fmt.Sprintf("group rows=[%s] top=[%s]", strings.Join(rows, ", "), strings.Join(top, ", ")))
	}
	return lines
}
