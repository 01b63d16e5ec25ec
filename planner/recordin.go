package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// literalRowCast is '(...)'::rel, a string literal cast to a table's or
// view's row type: PostgreSQL's record_in splits it into the columns'
// texts (parseRecordLiteral), each then cast to its column's type, so it
// plans as ROW('f1', 'f2', ...)::rel. Only literals: record input of a
// computed text is 0A000 (Eddy's record values are anonymous).
func (c *ectx) literalRowCast(tc *pg_query.TypeCast, rel *Relation) (expr.Expr, error) {
	s := tc.Arg.GetAConst().GetSval()
	if s == nil {
		return nil, repr.Unsupported("a cast of a computed value to the row type %s", rel.Name).WithPosition(tc.Location + 1)
	}
	loc := location(tc.Arg) + 1
	fields, perr := parseRecordLiteral(s.Sval, len(rel.Columns))
	if perr != nil {
		return nil, perr.WithPosition(loc)
	}
	var err error
	args := make([]expr.Expr, len(fields))
	shape := make([]expr.TableCol, len(fields))
	for i, col := range rel.Columns {
		var lit expr.Expr = &expr.Lit{D: repr.Null, T: col.Type}
		if fields[i] != nil {
			lit = &expr.Lit{D: repr.NewText(*fields[i]), T: repr.Unknown}
		}
		if args[i], err = c.b.explicitCast(lit, col.Type, loc-1); err != nil {
			return nil, withPos(err, loc-1)
		}
		shape[i] = expr.TableCol{Name: col.Name, T: col.Type}
	}
	return c.namedRecord(args, shape, tc.Location)
}

// parseRecordLiteral is record_in's parse of a row of n columns: a
// parenthesized, comma-separated list whose fields may be double-quoted
// ("" inside quotes is a quote) and backslash-escaped; an empty unquoted
// field is NULL (nil), "" the empty string. Malformed input is 22P02 with
// PostgreSQL's detail.
func parseRecordLiteral(s string, n int) ([]*string, *repr.Error) {
	malformed := func(detail string) *repr.Error {
		return repr.Errorf("22P02", "malformed record literal: \"%s\"", s).WithDetail("%s", detail)
	}
	rest := strings.TrimLeft(s, " \t\n\r\v\f")
	if !strings.HasPrefix(rest, "(") {
		return nil, malformed("Missing left parenthesis.")
	}
	rest = rest[1:]
	var out []*string
	for {
		f, tail, ok := recordField(rest)
		if !ok {
			return nil, malformed("Unexpected end of input.")
		}
		out, rest = append(out, f), tail[1:]
		switch {
		case tail[0] == ')' && len(out) < n:
			return nil, malformed("Too few columns.")
		case tail[0] == ',' && len(out) == n:
			return nil, malformed("Too many columns.")
		case tail[0] == ')':
			if strings.TrimLeft(rest, " \t\n\r\v\f") != "" {
				return nil, malformed("Junk after right parenthesis.")
			}
			return out, nil
		}
	}
}

// recordField reads one field of a record literal up to the comma or
// right parenthesis that ends it (tail starts there): nil when empty and
// unquoted. ok is false when the input ends first.
func recordField(s string) (field *string, tail string, ok bool) {
	var b strings.Builder
	quoted, seen := false, false
	i := 0
	for ; i < len(s); i++ {
		ch := s[i]
		if !quoted && (ch == ',' || ch == ')') {
			break
		}
		seen = true
		switch {
		case ch == '\\':
			if i++; i >= len(s) {
				return nil, "", false
			}
			b.WriteByte(s[i])
		case ch == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case ch == '"':
			quoted = !quoted
		default:
			b.WriteByte(ch)
		}
	}
	if i >= len(s) {
		return nil, "", false
	}
	if !seen {
		return nil, s[i:], true
	}
	str := b.String()
	return &str, s[i:], true
}
