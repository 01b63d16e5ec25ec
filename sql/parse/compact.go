package parse

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// compactMin is the shortest blanked statement that parseCompact cuts
// out of the text pg_query reads; tests lower it.
var compactMin = 64

// compactText is masked text with the blanked statements the front took
// itself (cuts, in order) each replaced by one space: pg_query's scanner
// otherwise walks every blank of a bulk INSERT (about 6 ns a byte).
// breaks[i] is the compact offset from which positions lie shift[i]
// bytes further in the masked text.
type compactText struct {
	text   string
	breaks []int
	shift  []int
}

// compact returns masked with cuts replaced by one space each.
func compact(masked []byte, cuts []span) compactText {
	var c compactText
	out := make([]byte, 0, len(masked))
	prev, removed := 0, 0
	for _, s := range cuts {
		out = append(out, masked[prev:s.lo]...)
		out = append(out, ' ')
		removed += s.hi - s.lo - 1
		c.breaks = append(c.breaks, len(out))
		c.shift = append(c.shift, removed)
		prev = s.hi
	}
	out = append(out, masked[prev:]...)
	c.text = string(out)
	return c
}

// toMasked converts a byte offset in the compact text to the masked's.
func (c *compactText) toMasked(off int) int {
	shift := 0
	for i, b := range c.breaks {
		if off < b {
			break
		}
		shift = c.shift[i]
	}
	return off + shift
}

// parseCompact is parsePlain(src, masked) over masked with cuts (blanked
// statements, each at least compactMin bytes, in order) removed: the same
// statements, offsets, trees and errors.
func parseCompact(src string, masked []byte, cuts []span) ([]Stmt, error) {
	if len(cuts) == 0 {
		return parsePlain(src, string(masked))
	}
	c := compact(masked, cuts)
	res, err := pg.Parse(c.text)
	if err != nil {
		e := repr.ErrorFrom(syntaxError(err))
		if e.Position > 0 {
			e = e.WithPosition(CharPosition(src, c.toMasked(charToByte(c.text, int(e.Position)-1))))
		}
		return nil, e
	}
	stmts := make([]Stmt, 0, len(res.Stmts))
	for _, raw := range res.Stmts {
		start := c.toMasked(int(raw.StmtLocation))
		end := len(masked)
		if raw.StmtLen > 0 {
			end = c.toMasked(int(raw.StmtLocation + raw.StmtLen))
		}
		if by := start - int(raw.StmtLocation); by != 0 && raw.Stmt != nil {
			shiftLocations(raw.Stmt.ProtoReflect(), int32(by))
		}
		stmts = append(stmts, newStmt(src, start, end, raw.Stmt, nil))
	}
	return stmts, nil
}
