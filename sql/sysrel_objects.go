package sql

import (
	"github.com/eddydb/eddy/planner"
)

// relInfo is one relation as pg_class lists it: a catalog object, a
// system relation, or an index Eddy keeps inside a table's entry (its
// primary key, a UNIQUE constraint).
type relInfo struct {
	oid    uint32
	name   string
	ns     uint32
	kind   byte // pg_class.relkind
	cols   []ColumnDef
	obj    *Object // nil for system relations and derived indexes
	checks int
	// triggers marks a table with or referenced by a foreign key
	// (PostgreSQL implements them with triggers; psql lists foreign keys
	// only of tables with triggers).
	triggers bool
	indexes  []*indexInfo // the relation's indexes
	index    *indexInfo   // set for an index
}

// indexInfo is one index as pg_index lists it.
type indexInfo struct {
	oid, table uint32
	name       string
	// attnums are the indexed columns (1-based).
	attnums         []int
	unique, primary bool
	desc            []bool
	method          string
	// con is the OID of the constraint the index implements (0: none).
	con uint32
	// nkey counts the key parts among attnums (the rest are INCLUDE
	// columns; 0: all are key parts); exprs holds the SQL text of each
	// expression key part (attnum 0; "" for a column); where is a partial
	// index's predicate.
	nkey             int
	exprs            []string
	where            string
	nullsNotDistinct bool
}

// keyParts returns the number of key parts of ix.
func (ix *indexInfo) keyParts() int {
	if ix.nkey > 0 {
		return ix.nkey
	}
	return len(ix.attnums)
}

// expr returns the SQL text of key part i if it is an expression.
func (ix *indexInfo) expr(i int) (string, bool) {
	if i < len(ix.exprs) && ix.exprs[i] != "" {
		return ix.exprs[i], true
	}
	return "", false
}

// Access methods (pg_am).
const (
	amHeap  uint32 = 2
	amBtree uint32 = 403
)

// amOIDs are the OIDs of pg_am's index access methods.
var amOIDs = map[string]uint32{"btree": 403, "hash": 405, "gist": 783, "gin": 2742, "spgist": 4000, "brin": 3580}

// relations returns every relation, user objects in ID order after the
// system relations; computed once per snapshot.
func (s *sysSnap) relations() []*relInfo {
	if s.rels != nil {
		return s.rels
	}
	for _, r := range sysRelList() {
		kind := byte('r')
		if r.view {
			kind = 'v'
		}
		s.rels = append(s.rels, &relInfo{oid: r.oid, name: r.name, ns: s.cat.namespaceOID(r.schema), kind: kind, cols: r.cols})
	}
	byID := map[uint64]*relInfo{}
	for _, o := range s.cat.objects() {
		if o.Kind == relFunction || o.Enum != nil { // pg_proc's and pg_type's, not pg_class's
			continue
		}
		ri := &relInfo{oid: relOID(o.ID), name: o.Name, ns: s.cat.namespaceOID(o.Schema), kind: relKindOf(o), cols: o.Columns, obj: o}
		for _, c := range o.Constraints {
			if c.Kind == "check" {
				ri.checks++
			}
		}
		byID[o.ID] = ri
		s.rels = append(s.rels, ri)
		s.rels = append(s.rels, s.keyIndexes(ri)...)
	}
	for _, ri := range s.rels {
		for _, c := range constraintsOf(ri.obj) {
			if c.Kind == "foreign" && byID[c.RefTable] != nil {
				ri.triggers, byID[c.RefTable].triggers = true, true
			}
		}
		if o := ri.obj; o != nil && o.Kind == relIndex && byID[o.Index.Table] != nil {
			ri.index = userIndex(o)
			t := byID[o.Index.Table]
			t.indexes = append(t.indexes, ri.index)
			for i, a := range ri.index.attnums {
				if a == 0 { // an expression: named and typed as PostgreSQL does
					ri.cols = append(ri.cols, exprAttribute(o, i))
					continue
				}
				ri.cols = append(ri.cols, t.cols[a-1])
			}
		}
	}
	s.byOID = map[uint32]*relInfo{}
	for _, ri := range s.rels {
		s.byOID[ri.oid] = ri
	}
	return s.rels
}

// rel returns the relation with OID oid (nil if none).
func (s *sysSnap) rel(oid uint32) *relInfo {
	s.relations()
	return s.byOID[oid]
}

// relKindOf returns pg_class.relkind of a catalog object: sources are
// foreign tables ('f'), which psql lists and describes.
func relKindOf(o *Object) byte {
	switch o.Kind {
	case planner.RelView:
		return 'v'
	case planner.RelMaterializedView:
		if isSystemRelation(o.ID) {
			return 'v'
		}
		return 'm'
	case planner.RelSource:
		return 'f'
	case relSequence:
		return 'S'
	case relIndex:
		return 'i'
	case relType:
		return 'c'
	}
	return 'r'
}

// keyIndexes returns the indexes of a table's primary key and UNIQUE
// constraints, which Eddy keeps in the table's entry rather than as index
// objects, and notes them on ri.
func (s *sysSnap) keyIndexes(ri *relInfo) []*relInfo {
	o := ri.obj
	if o.Kind != planner.RelTable {
		return nil
	}
	var out []*relInfo
	add := func(k int, name string, cols []int, primary bool) {
		ix := &indexInfo{oid: pkIndexOID(o.ID, k), table: ri.oid, name: name, unique: true, primary: primary,
			method: "btree", con: constraintOID(o.ID, k)}
		var icols []ColumnDef
		for _, c := range cols {
			ix.attnums = append(ix.attnums, c+1)
			icols = append(icols, o.Columns[c])
		}
		ri.indexes = append(ri.indexes, ix)
		out = append(out, &relInfo{oid: ix.oid, name: name, ns: ri.ns, kind: 'i', cols: icols, index: ix})
	}
	if len(o.PrimaryKey) > 0 {
		add(0, o.pkeyName(), o.PrimaryKey, true)
	}
	for i, c := range o.Constraints {
		if c.Kind == "unique" {
			add(i+1, c.Name, c.Cols, false)
		}
	}
	return out
}

// userIndex describes a CREATE INDEX index.
func userIndex(o *Object) *indexInfo {
	ix := &indexInfo{oid: relOID(o.ID), table: relOID(o.Index.Table), name: o.Name, unique: o.Index.Unique,
		desc: o.Index.Desc, method: o.Index.Method}
	if ix.method == "" {
		ix.method = "btree"
	}
	for _, c := range o.Index.Cols { // an expression's -1 is attnum 0
		ix.attnums = append(ix.attnums, c+1)
	}
	ix.nkey = len(ix.attnums)
	for _, c := range o.Index.Include {
		ix.attnums = append(ix.attnums, c+1)
	}
	ix.exprs, ix.where, ix.nullsNotDistinct = o.Index.Exprs, o.Index.Where, o.Index.NullsNotDistinct
	return ix
}

// constraintsOf returns o's constraints (none for nil).
func constraintsOf(o *Object) []Constraint {
	if o == nil {
		return nil
	}
	return o.Constraints
}
