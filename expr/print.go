package expr

import (
	"fmt"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// String prints #Idx.
func (c *Col) String() string { return fmt.Sprintf("#%d", c.Idx) }

// String prints the literal so that ParseExpr reads back the same value and
// type: int4 bare (`1`, `-2`), numeric bare when it has a decimal point
// (`1.50`), text as a quoted string (`'it”s'`), booleans as true/false,
// NULL of a known type as `NULL::int4`, and everything else as a quoted
// string with a cast (`'2024-01-01'::date`, `2::int8`, `1.5::float8`).
func (l *Lit) String() string {
	if l.D.IsNull() {
		if l.T.Family == repr.FamUnknown {
			return "NULL"
		}
		return "NULL::" + TypeName(l.T)
	}
	txt := formatText(l.D, l.T, time.UTC)
	switch l.T.Family {
	case repr.FamEnum:
		txt = repr.EnumInternalText(l.D) // reads back without the catalog
	case repr.FamArray:
		if l.T.Elem == repr.FamEnum {
			txt = repr.EnumArrayInternalText(l.D)
		}
	case repr.FamUnknown:
		return quote(l.D.Text())
	case repr.FamBool:
		if l.D.Bool() {
			return "true"
		}
		return "false"
	case repr.FamInt:
		if l.T.Width == 32 {
			return txt
		}
		return txt + "::" + TypeName(l.T)
	case repr.FamNumeric:
		if l.T.Precision == 0 && l.D.Numeric().Form == apd.Finite && strings.Contains(txt, ".") {
			return txt
		}
		if l.D.Numeric().Form == apd.Finite {
			return txt + "::" + TypeName(l.T)
		}
	case repr.FamFloat:
		if !strings.ContainsAny(txt, "NI") { // not NaN/Infinity
			return txt + "::" + TypeName(l.T)
		}
	case repr.FamText:
		if l.T == repr.Text {
			return quote(txt)
		}
	}
	return quote(txt) + "::" + TypeName(l.T)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// String prints operators infix and parenthesized (`(#0 + 1)`, prefix
// `(- #0)`) and functions as name(args).
func (c *Call) String() string {
	if isOperator(c.Fn.Name) {
		if len(c.Args) == 1 {
			return "(" + c.Fn.Name + " " + c.Args[0].String() + ")"
		}
		return "(" + c.Args[0].String() + " " + c.Fn.Name + " " + c.Args[1].String() + ")"
	}
	return c.Fn.Name + "(" + joinExprs(c.Args, ", ") + ")"
}

// isOperator reports whether name is an operator symbol rather than a function name.
func isOperator(name string) bool {
	return name != "" && strings.IndexByte("+-*/%^=<>!~|&#@?", name[0]) >= 0
}

func joinExprs(es []Expr, sep string) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, sep)
}

// String prints CAST(x AS t) for explicit casts and x::t for coercions.
func (c *Cast) String() string {
	if c.Explicit {
		return "CAST(" + c.Arg.String() + " AS " + TypeName(c.To) + ")"
	}
	return c.Arg.String() + "::" + TypeName(c.To)
}

// String prints (a AND b AND ...).
func (a *And) String() string { return "(" + joinExprs(a.Args, " AND ") + ")" }

// String prints (a OR b OR ...).
func (o *Or) String() string { return "(" + joinExprs(o.Args, " OR ") + ")" }

// String prints NOT a (operands are parenthesized by their own printers or atomic).
func (n *Not) String() string { return "(NOT " + n.Arg.String() + ")" }

// String prints (a IS NULL) or (a IS NOT NULL).
func (n *IsNull) String() string {
	if n.Negate {
		return "(" + n.Arg.String() + " IS NOT NULL)"
	}
	return "(" + n.Arg.String() + " IS NULL)"
}

// String prints CASE WHEN c THEN r ... [ELSE e] END.
func (c *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range c.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Then.String())
	}
	if c.Else != nil {
		b.WriteString(" ELSE " + c.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

// String prints coalesce(a, b, ...).
func (c *Coalesce) String() string { return "coalesce(" + joinExprs(c.Args, ", ") + ")" }

// TypeName returns the short PostgreSQL name of t that ParseExpr and
// ParseTypeName accept: int4, float8, numeric(10,2), varchar(5), bpchar(3),
// timestamptz, ..., record(oid) for a named composite type.
func TypeName(t repr.T) string {
	if t.Vector || t.OIDKind != repr.NotOID && t.Family == repr.FamInt ||
		t.Family == repr.FamText && (t.Kind == repr.KindName || t.Kind == repr.KindQChar) {
		if t.Kind == repr.KindQChar && t.Family == repr.FamText {
			return `"char"`
		}
		return t.TypName() // oid, regclass, name, int2vector, ...
	}
	switch t.Family {
	case repr.FamArray:
		return TypeName(t.ElemType()) + "[]"
	case repr.FamInt:
		return fmt.Sprintf("int%d", t.Width/8)
	case repr.FamFloat:
		return fmt.Sprintf("float%d", t.Width/8)
	case repr.FamNumeric:
		if t.Precision > 0 {
			return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale)
		}
		return "numeric"
	case repr.FamRecord:
		if t.Composite != 0 {
			return fmt.Sprintf("record(%d)", t.Composite) // the composite type's OID as a modifier
		}
	case repr.FamEnum:
		return fmt.Sprintf("enum(%d)", t.Enum) // the enum type's OID as a modifier
	case repr.FamBit:
		name := "bit"
		if t.Varying {
			name = "varbit"
		}
		if t.Length > 0 {
			return fmt.Sprintf("%s(%d)", name, t.Length)
		}
		return name
	case repr.FamText:
		name := [...]string{"text", "varchar", "bpchar"}[t.Kind]
		if t.Length > 0 {
			return fmt.Sprintf("%s(%d)", name, t.Length)
		}
		return name
	}
	return familyNames[t.Family]
}

var familyNames = map[repr.Family]string{
	repr.FamUnknown: "unknown", repr.FamBool: "bool", repr.FamBytea: "bytea",
	repr.FamDate: "date", repr.FamTime: "time", repr.FamTimestamp: "timestamp",
	repr.FamTimestampTZ: "timestamptz", repr.FamInterval: "interval", repr.FamJSONB: "jsonb",
	repr.FamUUID: "uuid", repr.FamJSON: "json", repr.FamRecord: "record", repr.FamJSONPath: "jsonpath",
}
