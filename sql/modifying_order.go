package sql

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/repr"
)

// The order of a WITH statement's data-modifying parts. Every part reads
// the snapshot before the statement, so two parts may both update or
// delete one row; PostgreSQL then applies the change of the part that
// runs first and skips the row in the later one (heap_update's
// TM_SelfModified: a row the current command already changed is
// ignored), and leaves the order unspecified. Eddy follows the order
// PostgreSQL 15's executor takes when each part runs as a whole: the
// parts the main statement reads (directly or through other WITH
// queries) run first, in WITH order, as the main plan pulls them; then
// the main statement; then the parts nothing reads, in reverse WITH order
// (ExecPostprocessPlan walks es_auxmodifytables, which ExecInitModifyTable
// builds with lcons). A part always runs after the parts it reads.

// modifyingOrder returns the order in which the data-modifying parts ces
// of WITH list w and the main statement n (a nil entry) run.
func modifyingOrder(n *pg.Node, ces []*pg.CommonTableExpr, w *pg.WithClause) []*pg.CommonTableExpr {
	byName := map[string]*pg.CommonTableExpr{}
	for _, c := range w.Ctes {
		if ce := c.GetCommonTableExpr(); ce != nil {
			byName[ce.Ctename] = ce
		}
	}
	readByMain := map[*pg.CommonTableExpr]bool{}
	var mark func(names []string)
	mark = func(names []string) {
		for _, name := range names {
			if ce := byName[name]; ce != nil && !readByMain[ce] {
				readByMain[ce] = true
				mark(readNames(ce.Ctequery, nil))
			}
		}
	}
	mark(readNames(n, w))
	var out []*pg.CommonTableExpr
	done := map[*pg.CommonTableExpr]bool{}
	var run func(ce *pg.CommonTableExpr)
	run = func(ce *pg.CommonTableExpr) {
		if done[ce] {
			return
		}
		done[ce] = true
		for _, name := range readNames(ce.Ctequery, nil) {
			if dep := byName[name]; dep != nil && dep != ce && slices.Contains(ces, dep) {
				run(dep)
			}
		}
		out = append(out, ce)
	}
	for _, ce := range ces {
		if readByMain[ce] {
			run(ce)
		}
	}
	out = append(out, nil)
	for i := len(ces) - 1; i >= 0; i-- {
		run(ces[i])
	}
	return out
}

// readNames returns the unqualified relation names n reads, outside the
// WITH list skip (its queries are looked at one by one). A name an inner
// WITH list shadows counts too: erring towards "read" only moves a part
// earlier.
func readNames(n *pg.Node, skip *pg.WithClause) []string {
	var out []string
	walkProtoPruned(n, func(m proto.Message) bool {
		switch m := m.(type) {
		case *pg.WithClause:
			return m != skip
		case *pg.RangeVar:
			if m.Schemaname == "" {
				out = append(out, m.Relname)
			}
		}
		return true
	})
	return out
}

// rowClaims records, per table, the rows (by their encoding, with their
// multiplicity) that the parts of a WITH statement run so far updated or
// deleted: a later part skips them (see modifyingOrder).
type rowClaims map[uint64]map[string]int64

// claim keeps of rows (the table's first n columns, with counts copies
// each) what no earlier part changed, and records them as changed.
func (c rowClaims) claim(table uint64, n int, rows []repr.Row, counts []int64) ([]repr.Row, []int64) {
	if c == nil {
		return rows, counts
	}
	seen := c[table]
	if seen == nil {
		seen = map[string]int64{}
		c[table] = seen
	}
	var keptRows []repr.Row
	var keptCounts []int64
	for i, r := range rows {
		k := string(repr.AppendRowKey(nil, r[:n]))
		left := counts[i] - seen[k]
		if left <= 0 {
			continue
		}
		seen[k] += left
		keptRows, keptCounts = append(keptRows, r), append(keptCounts, left)
	}
	return keptRows, keptCounts
}
