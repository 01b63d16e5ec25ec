package parse

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// DropObject is DROP SOURCE or DROP SINK, which PostgreSQL has no syntax
// for:
//
//	DROP SOURCE [IF EXISTS] name [, ...] [CASCADE | RESTRICT]
//	DROP SINK [IF EXISTS] name [, ...]
//
// A source may have dependents (views reading it), hence CASCADE; a sink
// has none, so CASCADE and RESTRICT are accepted and mean nothing for it.
type DropObject struct {
	// Kind is "SOURCE" or "SINK".
	Kind     string
	IfExists bool
	// Names are the objects to drop, in order; Location is the byte offset
	// of each name in the input.
	Names   []*pg.RangeVar
	Cascade bool
}

func (*DropObject) extNode() {}

// Construct implements Ext.
func (d *DropObject) Construct() string { return "DROP " + d.Kind }

// String implements fmt.Stringer.
func (d *DropObject) String() string {
	var b strings.Builder
	b.WriteString("DROP " + d.Kind + " ")
	if d.IfExists {
		b.WriteString("IF EXISTS ")
	}
	for i, n := range d.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(relationName(n))
	}
	if d.Cascade {
		b.WriteString(" CASCADE")
	}
	return b.String()
}

// dropObject parses DROP SOURCE/SINK after the cursor has classified it.
func (c *cursor) dropObject() (*DropObject, error) {
	c.i++ // DROP
	d := &DropObject{Kind: strings.ToUpper(c.text(c.i))}
	c.i++
	d.IfExists = c.acceptAll("IF", "EXISTS")
	for {
		lo := c.i
		rv, err := c.rangeVar()
		if err != nil {
			return nil, err
		}
		if rv.Catalogname != "" {
			return nil, c.p.errorAt(lo, "0A000", "cross-database references are not implemented: %s.%s.%s", rv.Catalogname, rv.Schemaname, rv.Relname)
		}
		d.Names = append(d.Names, rv)
		if !c.acceptPunct(",") {
			break
		}
	}
	switch {
	case c.accept("CASCADE"):
		d.Cascade = true
	case c.accept("RESTRICT"):
	}
	return d, nil
}
