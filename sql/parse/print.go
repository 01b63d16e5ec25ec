package parse

import (
	"regexp"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// The String methods print extension statements as canonical SQL that
// parses back to the same statement (locations aside); the PostgreSQL
// parts are printed by pg_query's deparser, which quotes names as needed.

// String implements fmt.Stringer.
func (s *CreateSource) String() string {
	var b strings.Builder
	if s.IsTable {
		b.WriteString("CREATE TABLE ")
	} else {
		b.WriteString("CREATE SOURCE ")
	}
	if s.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(relationName(&pg.RangeVar{Schemaname: s.Schema, Relname: s.Name, Inh: true}))
	var els []string
	if len(s.Columns)+len(s.Constraints) > 0 {
		els = append(els, elementsSQL(s.Columns, s.Constraints))
	}
	if w := s.Watermark; w != nil {
		els = append(els, "WATERMARK FOR "+identSQL(w.Column)+" AS "+exprSQL(w.Expr))
	}
	if len(els) > 0 {
		b.WriteString(" (" + strings.Join(els, ", ") + ")")
	}
	writeTail(&b, s.Options, s.Format, s.Encode, s.EncodeOptions)
	return b.String()
}

// String implements fmt.Stringer.
func (s *CreateSink) String() string {
	var b strings.Builder
	b.WriteString("CREATE SINK ")
	if s.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(relationName(&pg.RangeVar{Schemaname: s.Schema, Relname: s.Name, Inh: true}))
	if s.From != nil {
		b.WriteString(" FROM " + relationName(s.From))
	} else {
		b.WriteString(" AS " + stmtSQL(s.Query))
	}
	writeTail(&b, s.Options, s.Format, s.Encode, s.EncodeOptions)
	return b.String()
}

// String implements fmt.Stringer.
func (s *Subscribe) String() string {
	var b strings.Builder
	if s.CursorName != "" {
		b.WriteString("DECLARE " + identSQL(s.CursorName) + " CURSOR FOR ")
	}
	if s.ViaCopy {
		b.WriteString("COPY (")
	}
	b.WriteString("SUBSCRIBE ")
	if s.Relation != nil {
		b.WriteString(relationName(s.Relation))
	} else {
		b.WriteString("(" + stmtSQL(s.Query) + ")")
	}
	if len(s.Options) > 0 {
		b.WriteString(" WITH " + optionsSQL(s.Options))
	}
	if s.ViaCopy {
		b.WriteString(") TO STDOUT")
		if len(s.CopyOptions) > 0 {
			b.WriteString(" WITH " + optionsSQL(s.CopyOptions))
		}
	}
	return b.String()
}

// String implements fmt.Stringer.
func (*EmitOnWindowClose) String() string { return "EMIT ON WINDOW CLOSE" }

// writeTail writes the WITH and FORMAT ... ENCODE clauses.
func writeTail(b *strings.Builder, opts []Option, format, encode string, encodeOpts []Option) {
	if len(opts) > 0 {
		b.WriteString(" WITH " + optionsSQL(opts))
	}
	if format != "" {
		b.WriteString(" FORMAT " + format + " ENCODE " + encode)
		if len(encodeOpts) > 0 {
			b.WriteString(" " + optionsSQL(encodeOpts))
		}
	}
}

// plainKey matches keys that print unquoted: lowercase dotted identifiers.
var plainKey = regexp.MustCompile(`^[a-z_][a-z0-9_$]*(\.[a-z_][a-z0-9_$]*)*$`)

// optionsSQL prints (key = 'value', ...); other keys print as string
// literals, which parse back verbatim.
func optionsSQL(opts []Option) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		k := o.Key
		if !plainKey.MatchString(k) {
			k = quoteString(k)
		}
		if o.Bare {
			parts[i] = k
		} else {
			parts[i] = k + " = " + quoteString(o.Value)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// quoteString is s as a standard SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// relationName prints a relation name as the deparser does.
func relationName(rv *pg.RangeVar) string {
	sel := &pg.SelectStmt{
		TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{{Node: &pg.Node_AStar{AStar: &pg.A_Star{}}}}}}}}}}},
		FromClause: []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: rv}}},
	}
	return strings.TrimPrefix(stmtSQL(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}), "SELECT * FROM ")
}

// identSQL prints a column or cursor name, quoted if needed.
func identSQL(name string) string {
	return exprSQL(&pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{pg.MakeStrNode(name)}}}})
}

// elementsSQL prints column definitions and constraints as the inside of
// CREATE TABLE's parentheses.
func elementsSQL(cols []*pg.ColumnDef, cons []*pg.Constraint) string {
	var elts []*pg.Node
	for _, c := range cols {
		elts = append(elts, &pg.Node{Node: &pg.Node_ColumnDef{ColumnDef: c}})
	}
	for _, c := range cons {
		elts = append(elts, &pg.Node{Node: &pg.Node_Constraint{Constraint: c}})
	}
	if len(elts) == 0 {
		return ""
	}
	cs := &pg.CreateStmt{Relation: &pg.RangeVar{Relname: "x", Inh: true, Relpersistence: "p"}, TableElts: elts, Oncommit: pg.OnCommitAction_ONCOMMIT_NOOP}
	sql := stmtSQL(&pg.Node{Node: &pg.Node_CreateStmt{CreateStmt: cs}})
	sql = strings.TrimPrefix(sql, "CREATE TABLE x (")
	return strings.TrimSuffix(sql, ")")
}

// stmtSQL deparses a statement, or describes the failure.
func stmtSQL(n *pg.Node) string {
	s, err := Deparse(n)
	if err != nil {
		return "<deparse error: " + err.Error() + ">"
	}
	return s
}

// exprSQL deparses an expression, or describes the failure.
func exprSQL(n *pg.Node) string {
	s, err := DeparseExpr(n)
	if err != nil {
		return "<deparse error: " + err.Error() + ">"
	}
	return s
}
