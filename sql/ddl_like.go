package sql

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// CREATE TABLE ... (LIKE source [INCLUDING | EXCLUDING ...]). The clause
// is expanded, before the table is built, into the column definitions and
// constraints PostgreSQL copies (its transformTableLikeClause): always the
// columns' names, types and NOT NULL; defaults, identity, CHECK
// constraints, the primary key and UNIQUE constraints, and column
// comments when included. Foreign keys are never copied. Copied types
// travel beside the syntax tree (likeTypes), not as type names, so every
// type, composites included, copies exactly.

// The option bits of a TableLikeClause (PostgreSQL's CreateTableLikeOption).
const (
	likeComments    = 1 << 0
	likeConstraints = 1 << 2
	likeDefaults    = 1 << 3
	likeIdentity    = 1 << 5
	likeIndexes     = 1 << 6
)

// likeTypes maps the placeholder type names of expanded LIKE columns to
// their types.
type likeTypes map[*pg.TypeName]repr.T

// resolver returns a typeResolver that knows the copied columns' types and
// asks types for the others.
func (lt likeTypes) resolver(types typeResolver) typeResolver {
	return func(tn *pg.TypeName) (repr.T, error) {
		if t, ok := lt[tn]; ok {
			return t, nil
		}
		return types(tn)
	}
}

// likeComment is a copied column comment (INCLUDING COMMENTS).
type likeComment struct{ col, text string }

// expandLike replaces the LIKE clauses of cs (a copy is returned when
// there are any) by what they copy.
func (e *Engine) expandLike(cs *pg.CreateStmt) (*pg.CreateStmt, likeTypes, []likeComment, error) {
	hasLike := false
	for _, elt := range cs.TableElts {
		hasLike = hasLike || elt.GetTableLikeClause() != nil
	}
	if !hasLike {
		return cs, nil, nil, nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := proto.Clone(cs).(*pg.CreateStmt)
	out.TableElts = nil
	lt := likeTypes{}
	var comments []likeComment
	for _, elt := range cs.TableElts {
		lc := elt.GetTableLikeClause()
		if lc == nil {
			out.TableElts = append(out.TableElts, elt)
			continue
		}
		src, err := e.likeSource(lc.Relation)
		if err != nil {
			return nil, nil, nil, err
		}
		elts, cm, err := likeElements(src, lc.Options, lt, e.cat.sequenceDef)
		if err != nil {
			return nil, nil, nil, err
		}
		out.TableElts = append(out.TableElts, elts...)
		comments = append(comments, cm...)
	}
	return out, lt, comments, nil
}

// likeSource finds the relation a LIKE clause copies: a table, a view or
// a composite type, as PostgreSQL allows. The caller holds e.mu.
func (e *Engine) likeSource(rv *pg.RangeVar) (*Object, error) {
	o := e.cat.lookup(rv.Schemaname, rv.Relname)
	if o == nil {
		return nil, repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", rv.Relname)
	}
	switch o.Kind {
	case planner.RelTable, planner.RelView, planner.RelMaterializedView, relType:
		return o, nil
	}
	return nil, repr.Errorf(repr.CodeWrongObjectType, "relation \"%s\" is invalid in LIKE clause", o.Name).
		WithDetail("This operation is not supported for %ss.", kindName(o.Kind))
}

// likeElements returns the table elements copying src under options,
// registering the copied types in lt, and the comments to copy; seqs
// finds a sequence's definition by ID (nil if none).
func likeElements(src *Object, options uint32, lt likeTypes, seqs func(uint64) *SequenceDef) ([]*pg.Node, []likeComment, error) {
	var elts []*pg.Node
	var comments []likeComment
	for _, col := range src.Columns {
		cd, err := likeColumn(col, options, lt, seqs)
		if err != nil {
			return nil, nil, err
		}
		elts = append(elts, &pg.Node{Node: &pg.Node_ColumnDef{ColumnDef: cd}})
		if options&likeComments != 0 && col.Comment != "" {
			comments = append(comments, likeComment{col.Name, col.Comment})
		}
	}
	cons, err := likeKeysAndChecks(src, options)
	if err != nil {
		return nil, nil, err
	}
	return append(elts, cons...), comments, nil
}

// likeColumn copies one column: its type and NOT NULL always, its default
// and identity when included (a serial column's default still calls the
// source's sequence, as in PostgreSQL).
func likeColumn(col ColumnDef, options uint32, lt likeTypes, seqs func(uint64) *SequenceDef) (*pg.ColumnDef, error) {
	tn := &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode("like")}, Typemod: -1}
	lt[tn] = col.Type
	cd := &pg.ColumnDef{Colname: col.Name, TypeName: tn, IsLocal: true}
	if col.NotNull {
		cd.Constraints = append(cd.Constraints, constraintNode(&pg.Constraint{Contype: pg.ConstrType_CONSTR_NOTNULL}))
	}
	if col.Identity != 0 && options&likeIdentity != 0 {
		c := &pg.Constraint{Contype: pg.ConstrType_CONSTR_IDENTITY, GeneratedWhen: string(col.Identity)}
		if seq := seqs(col.Seq); seq != nil {
			c.Options = sequenceOptions(seq)
		}
		cd.Constraints = append(cd.Constraints, constraintNode(c))
	}
	if col.Identity == 0 && col.Default != "" && options&likeDefaults != 0 {
		x, err := parseExpr(col.Default)
		if err != nil {
			return nil, err
		}
		cd.Constraints = append(cd.Constraints, constraintNode(&pg.Constraint{Contype: pg.ConstrType_CONSTR_DEFAULT, RawExpr: x}))
	}
	return cd, nil
}

// sequenceOptions returns the options that recreate def's type, bounds,
// start, increment and cycling.
func sequenceOptions(def *SequenceDef) []*pg.Node {
	num := func(v int64) *pg.Node {
		return &pg.Node{Node: &pg.Node_Float{Float: &pg.Float{Fval: strconv.FormatInt(v, 10)}}}
	}
	opt := func(name string, arg *pg.Node) *pg.Node {
		return &pg.Node{Node: &pg.Node_DefElem{DefElem: &pg.DefElem{Defname: name, Arg: arg}}}
	}
	typ := &pg.Node{Node: &pg.Node_TypeName{TypeName: &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode(def.Type)}}}}
	out := []*pg.Node{opt("as", typ), opt("increment", num(def.Increment)), opt("minvalue", num(def.Min)),
		opt("maxvalue", num(def.Max)), opt("start", num(def.Start))}
	if def.Cycle {
		out = append(out, opt("cycle", nil))
	}
	return out
}

// likeKeysAndChecks copies CHECK constraints (by name) when constraints are
// included, and the primary key and UNIQUE constraints (named anew for
// the new table) when indexes are.
func likeKeysAndChecks(src *Object, options uint32) ([]*pg.Node, error) {
	names := func(cols []int) []*pg.Node {
		var out []*pg.Node
		for _, i := range cols {
			out = append(out, pg.MakeStrNode(src.Columns[i].Name))
		}
		return out
	}
	var out []*pg.Node
	if options&likeIndexes != 0 && src.PrimaryKey != nil {
		out = append(out, constraintNode(&pg.Constraint{Contype: pg.ConstrType_CONSTR_PRIMARY, Keys: names(src.PrimaryKey)}))
	}
	for _, k := range src.Constraints {
		switch {
		case k.Kind == "check" && options&likeConstraints != 0:
			x, err := parseExpr(k.Check)
			if err != nil {
				return nil, err
			}
			out = append(out, constraintNode(&pg.Constraint{Contype: pg.ConstrType_CONSTR_CHECK, Conname: k.Name, RawExpr: x}))
		case k.Kind == "unique" && options&likeIndexes != 0:
			out = append(out, constraintNode(&pg.Constraint{Contype: pg.ConstrType_CONSTR_UNIQUE, Keys: names(k.Cols),
				NullsNotDistinct: k.NullsNotDistinct}))
		}
	}
	return out, nil
}

// sequenceDef returns the definition of sequence id, or nil.
func (c *Catalog) sequenceDef(id uint64) *SequenceDef {
	if o := c.byID[id]; o != nil {
		return o.Sequence
	}
	return nil
}

func constraintNode(c *pg.Constraint) *pg.Node {
	return &pg.Node{Node: &pg.Node_Constraint{Constraint: c}}
}
