package sql

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// Enum labels spelled in stored SQL text. PostgreSQL stores a view's
// query, a column DEFAULT and a CHECK constraint as parsed trees, where
// a literal of an enum type is a constant holding the label's OID: ALTER
// TYPE ... RENAME VALUE renames the pg_enum row and the constant follows
// (pg_get_viewdef shows 'new'::mood; the view selects the same rows).
// Eddy stores SQL text, so the rename respells those literals: the view
// deparser (viewdef.go), which prints each literal as a constant of the
// type planning gave it, records that type (deparser.consts), and each
// literal whose type holds the enum and whose text names the label is
// replaced, token for token, by the same value's text under the new
// label ('{sad,ok}' becomes '{blue,ok}'). A literal of the same text of
// another type ('sad' AS word) is kept. A record literal of a composite
// type holding the enum is respelled field by field (respellText), and
// index expressions and predicates as a column DEFAULT (their indexes are
// built again: respelledIndexes). A literal the deparser does not print
// (it cannot tell its type) stays 0A000 naming the object.

// storedText is a piece of SQL text the catalog stores for an object.
type storedText struct {
	what, sql string
	stmt      bool // a statement (else an expression)
	// want is the type an unknown-typed literal at the top takes (a
	// column DEFAULT's column type), else noWant.
	want repr.T
	// set stores respelled text in a copy of the object; nil where Eddy
	// does not respell (index expressions).
	set func(*Object, string)
}

// storedTexts returns the SQL texts stored for u.
func storedTexts(u *Object) []storedText {
	var out []storedText
	if u.SQL != "" && (u.Kind == planner.RelView || u.Kind == planner.RelMaterializedView) {
		out = append(out, storedText{what: "the query", sql: u.SQL, stmt: true, want: noWant,
			set: func(o *Object, s string) { o.SQL = s }})
	}
	for i, cl := range u.Columns {
		if cl.Default != "" {
			out = append(out, storedText{what: fmt.Sprintf("the default of column %s", cl.Name), sql: cl.Default, want: cl.Type,
				set: func(o *Object, s string) { o.Columns[i].Default = s }})
		}
	}
	for i, k := range u.Constraints {
		if k.Check != "" {
			out = append(out, storedText{what: fmt.Sprintf("constraint %s", k.Name), sql: k.Check, want: noWant,
				set: func(o *Object, s string) { o.Constraints[i].Check = s }})
		}
	}
	if u.Index != nil {
		for i, x := range u.Index.Exprs {
			if x != "" {
				out = append(out, storedText{what: "an expression", sql: x, want: noWant,
					set: func(o *Object, s string) { ownIndex(o).Exprs[i] = s }})
			}
		}
		if u.Index.Where != "" {
			out = append(out, storedText{what: "the predicate", sql: u.Index.Where, want: noWant,
				set: func(o *Object, s string) { ownIndex(o).Where = s }})
		}
	}
	return out
}

// ownIndex gives o, a clone, its own copy of the index definition
// (clone shares it) and returns it.
func ownIndex(o *Object) *IndexDef {
	d := *o.Index
	d.Exprs = slices.Clone(d.Exprs)
	o.Index = &d
	return o.Index
}

// relabelTexts returns, as (old, new) pairs, every object whose stored
// SQL text spells label from of enum type o in a literal of a type
// holding it, the new copy respelling those literals with rl's label. It
// reads the catalog before the rename. A literal it cannot respell is
// 0A000 naming the object.
func (c *Catalog) relabelTexts(o *Object, from string, rl relabeler) ([][2]*Object, error) {
	var out [][2]*Object
	for _, u := range c.objects() {
		var nu *Object
		for _, text := range storedTexts(u) {
			sql, changed, err := c.relabelText(u, text, from, rl)
			if err != nil {
				return nil, repr.Unsupported("ALTER TYPE ... RENAME VALUE of label \"%s\" of type %s while %s of %s %s spells it as a string literal", from, o.Name, text.what, depKind(u), u.Name).
					WithHint("Drop or change the object first, then rename the value and create it again with the new label.")
			}
			if !changed {
				continue
			}
			if nu == nil {
				nu = u.clone()
			}
			text.set(nu, sql)
		}
		if nu != nil {
			out = append(out, [2]*Object{u, nu})
		}
	}
	return out, nil
}

// errNoRespell marks a literal relabelText cannot respell.
var errNoRespell = fmt.Errorf("literal not respelled")

// relabelText returns text's SQL with the literals of a type holding the
// renamed enum that name label from respelled, and whether any was.
func (c *Catalog) relabelText(u *Object, text storedText, from string, rl relabeler) (string, bool, error) {
	src := text.sql
	if !text.stmt {
		src = "SELECT " + text.sql // parseExpr's form, whose locations we splice
	}
	n, err := parseLiteralText(text)
	if err != nil {
		return "", false, errNoRespell
	}
	cands := labelLiterals(n, from)
	if len(cands) == 0 {
		return "", false, nil
	}
	if text.set == nil {
		return "", false, errNoRespell
	}
	consts, err := c.literalTypes(u, text, n)
	if err != nil {
		return "", false, err
	}
	edits := map[int32]string{}
	for _, k := range cands {
		t, seen := consts[k]
		switch {
		case !seen:
			return "", false, errNoRespell
		case !holdsType(t, rl.held):
			continue
		}
		lit, err := rl.respell(k.GetSval().GetSval(), t)
		if err != nil {
			return "", false, errNoRespell
		}
		edits[k.Location] = lit
	}
	if len(edits) == 0 {
		return "", false, nil
	}
	out, err := spliceLiterals(src, edits)
	if err != nil {
		return "", false, err
	}
	if !text.stmt {
		out = strings.TrimPrefix(out, "SELECT ")
	}
	return out, true, nil
}

// parseLiteralText parses a stored text.
func parseLiteralText(text storedText) (*pg.Node, error) {
	if text.stmt {
		return parseOne(text.sql)
	}
	return parseExpr(text.sql)
}

// labelLiterals returns the string literals in n that may name label: the
// label itself, or an array's or record's text with it inside.
func labelLiterals(n *pg.Node, label string) []*pg.A_Const {
	var out []*pg.A_Const
	walkProto(n, func(m proto.Message) {
		k, ok := m.(*pg.A_Const)
		if !ok || k.GetSval() == nil {
			return
		}
		s := k.GetSval().GetSval()
		composite := strings.HasPrefix(strings.TrimSpace(s), "{") || strings.HasPrefix(strings.TrimSpace(s), "(")
		if s == label || composite && strings.Contains(s, label) {
			out = append(out, k)
		}
	})
	return out
}

// literalTypes deparses n, text of u, recording the type each literal
// is a constant of.
func (c *Catalog) literalTypes(u *Object, text storedText, n *pg.Node) (map[*pg.A_Const]repr.T, error) {
	consts := map[*pg.A_Const]repr.T{}
	if text.stmt {
		if _, err := deparseViewAST(c, u, n, false, consts); err != nil {
			return nil, errNoRespell
		}
		return consts, nil
	}
	on := u
	if u.Index != nil { // an index's texts are over its relation's row
		if on = c.byID[u.Index.Table]; on == nil {
			return nil, errNoRespell
		}
	}
	rel := on.rel
	if rel == nil {
		var err error
		if rel, err = on.relation(); err != nil {
			return nil, errNoRespell
		}
	}
	want := text.want
	if !unknownLiteral(n) {
		want = noWant
	}
	if _, ok := deparseExprAST(c, rel, n, want, false, consts); !ok {
		return nil, errNoRespell
	}
	return consts, nil
}

// respell returns the literal (quoted) of the value the text s of type t
// (a type holding the renamed enum) has after the rename.
func (rl relabeler) respell(s string, t repr.T) (string, error) {
	out, err := rl.respellText(s, t)
	if err != nil {
		return "", err
	}
	return quoteLiteral(out), nil
}

// respellText returns the text s of a value of type t with the renamed
// label respelled. An enum or an array of one is read with the type's
// labels and printed again. A record's text (a composite type's, or an
// array of them) is taken apart as record_in and array_in take it apart,
// its fields' texts respelled by their own types, or read and printed
// again by theirs, and quoted again as record_out quotes them: the
// output of PostgreSQL's stored constant, the value.
func (rl relabeler) respellText(s string, t repr.T) (string, error) {
	if !holdsType(t, rl.held) {
		return s, nil
	}
	switch {
	case t.Family == repr.FamArray && t.Composite != 0:
		return rl.respellArray(s, repr.CompositeOf(t.Composite))
	case t.Family == repr.FamRecord:
		return rl.respellRecord(s, t)
	}
	read, err := rl.cat.enumReader(t)
	if err != nil {
		return "", err
	}
	v, err := read(s)
	if err != nil {
		return "", err
	}
	if v, err = rl.datum(v, t); err != nil {
		return "", err
	}
	return repr.FormatText(v, t, nil), nil
}

// respellRecord is respellText for a record of composite type t.
func (rl relabeler) respellRecord(s string, t repr.T) (string, error) {
	fields, ok := rl.cat.fieldTypes(t.Composite)
	if !ok {
		return "", errNoRespell
	}
	parts, perr := repr.ParseRecordText(s, len(fields))
	if perr != nil {
		return "", perr
	}
	row := make(repr.Row, len(parts))
	types := make([]repr.T, len(parts))
	for i, p := range parts {
		types[i] = repr.Text
		if p == nil {
			row[i] = repr.Null
			continue
		}
		f, err := rl.respellText(*p, fields[i])
		if err != nil {
			return "", err
		}
		row[i] = repr.NewText(canonicalText(f, fields[i]))
	}
	rec, err := repr.NewRecord(row, types)
	if err != nil {
		return "", err
	}
	return repr.FormatText(rec, repr.Record, nil), nil
}

// canonicalText is the output of the value whose input text is s, of a
// type repr reads without the catalog (PostgreSQL's stored constant
// prints so), else s.
func canonicalText(s string, t repr.T) string {
	if t.Enum != 0 || t.Composite != 0 {
		return s // respellText's output, already canonical
	}
	v, err := repr.ParseText(s, t, nil)
	if err != nil {
		return s
	}
	return repr.FormatText(v, t, nil)
}

// respellArray is respellText for an array of records of type et.
func (rl relabeler) respellArray(s string, et repr.T) (string, error) {
	arr, err := repr.ParseText(s, repr.ArrayOf(repr.Text), nil)
	if err != nil {
		return "", err
	}
	elems := arr.Array()
	out := make([]repr.Datum, len(elems))
	for i, el := range elems {
		out[i] = el
		if el.IsNull() {
			continue
		}
		f, err := rl.respellText(el.Text(), et)
		if err != nil {
			return "", err
		}
		out[i] = repr.NewText(f)
	}
	return repr.FormatText(repr.ArrayLike(arr, out), repr.ArrayOf(repr.Text), nil), nil
}

// spliceLiterals replaces, in sql, the string literal token starting at
// each location of edits by its text. A location that does not start a
// string literal token is errNoRespell.
func spliceLiterals(sql string, edits map[int32]string) (string, error) {
	sc, err := pg.Scan(sql)
	if err != nil {
		return "", errNoRespell
	}
	var b strings.Builder
	last, done := 0, 0
	for _, tk := range sc.Tokens {
		lit, ok := edits[tk.Start]
		if !ok {
			continue
		}
		if tk.Token != pg.Token_SCONST {
			return "", errNoRespell
		}
		b.WriteString(sql[last:tk.Start])
		b.WriteString(lit)
		last = int(tk.End)
		done++
	}
	if done != len(edits) {
		return "", errNoRespell
	}
	b.WriteString(sql[last:])
	return b.String(), nil
}
