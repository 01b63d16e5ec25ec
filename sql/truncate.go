package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// execTruncate executes TRUNCATE t [, ...] [RESTART IDENTITY] [CASCADE]:
// every live row of each table (as the transaction sees it) is retracted
// in one write set, so the deletions reach every view at one logical time
// and replay like any other write. RESTART IDENTITY resets the tables'
// owned sequences when the write commits.
func (p *Portal) execTruncate(ts *pg.TruncateStmt) error {
	p.tag = "TRUNCATE TABLE"
	s := p.st.s
	e := s.e
	var rels []*planner.Relation
	seen := map[uint64]bool{}
	for _, n := range ts.Relations {
		rv := n.GetRangeVar()
		var rel *planner.Relation
		var err error
		e.readLocked(func() {
			rel, err = e.cat.Relation(rv.Schemaname, rv.Relname)
		})
		if err != nil {
			return withPosition(err, p.st.src, rv.Location)
		}
		if rel.Kind != planner.RelTable {
			return repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a table", rel.Name)
		}
		if !seen[uint64(rel.ID)] {
			seen[uint64(rel.ID)] = true
			rels = append(rels, rel)
		}
	}
	cascade := ts.Behavior == pg.DropBehavior_DROP_CASCADE
	more, err := e.truncateReferencing(rels, seen, cascade)
	if err != nil {
		return err
	}
	rels = append(rels, more...)
	ws := s.ws
	if s.tx == txIdle {
		ws = &writeSet{}
	}
	for _, rel := range rels {
		id := uint64(rel.ID)
		for _, u := range e.liveRows(rel, ws) {
			ws.add(id, u.Row, -u.Diff)
		}
	}
	var seqs []uint64
	if ts.RestartSeqs {
		seqs = e.ownedSequences(rels)
	}
	if s.tx != txIdle {
		s.restartSeqs = append(s.restartSeqs, seqs...)
		return nil
	}
	if err := e.commit(ws); err != nil {
		return err
	}
	return e.restartSequences(seqs)
}
