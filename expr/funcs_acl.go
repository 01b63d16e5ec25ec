package expr

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

// Access control list functions. An aclitem is text in PostgreSQL's form
// grantee=privileges/grantor (an empty grantee is PUBLIC; a '*' after a
// privilege letter marks its grant option; role names are quoted as
// identifiers when they need it). aclexplode(aclitem[]) lists one row per
// privilege of each item, in the items' order and, within one, in the
// order of the letters "arwdDxtXUCTc" (PostgreSQL's bit order);
// acldefault(type, owner) is the ACL an object of that type has before
// any GRANT. Role names and OIDs are translated by the session's catalog.

// aclLetters are the privilege letters in PostgreSQL's bit order, with
// the privilege_type names aclexplode reports.
var aclLetters = []struct {
	letter byte
	name   string
}{
	{'a', "INSERT"}, {'r', "SELECT"}, {'w', "UPDATE"}, {'d', "DELETE"}, {'D', "TRUNCATE"}, {'x', "REFERENCES"},
	{'t', "TRIGGER"}, {'X', "EXECUTE"}, {'U', "USAGE"}, {'C', "CREATE"}, {'T', "TEMPORARY"}, {'c', "CONNECT"},
}

// aclDefaults are acldefault's privileges of the owner and of PUBLIC by
// object type letter.
var aclDefaults = map[string][2]string{
	"c": {"", ""}, "r": {"arwdDxt", ""}, "s": {"rwU", ""}, "d": {"CTc", "Tc"}, "f": {"X", "X"},
	"l": {"U", "U"}, "L": {"rw", ""}, "n": {"UC", ""}, "t": {"C", ""}, "F": {"U", ""}, "S": {"U", ""}, "T": {"U", "U"},
}

func init() {
	tableFn("aclexplode", []TableCol{{Name: "grantor", T: repr.OIDT}, {Name: "grantee", T: repr.OIDT},
		{Name: "privilege_type", T: repr.Text}, {Name: "is_grantable", T: repr.Bool}}, aclExplode, repr.ArrayOf(repr.Text)).Present = 1
	fn("acldefault", repr.ArrayOf(repr.Text), aclDefault, repr.QChar, repr.OIDT).Volatile = true
}

// parseACLItem splits aclitem text into grantee, privilege letters (with
// '*' marks) and grantor, the role names as written (quoted where they
// need it, as regrole input takes them).
func parseACLItem(s string) (grantee, privs, grantor string, err error) {
	grantee, rest, ok := cutUnquoted(s, '=')
	if !ok {
		return "", "", "", repr.Errorf("22P02", "a name must follow the \"/\" sign")
	}
	privs, grantor, ok = strings.Cut(rest, "/")
	if !ok {
		return "", "", "", repr.Errorf("22P02", "a name must follow the \"/\" sign")
	}
	return grantee, privs, grantor, nil
}

// cutUnquoted cuts s around the first sep outside double quotes.
func cutUnquoted(s string, sep byte) (string, string, bool) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			quoted = !quoted
		case s[i] == sep && !quoted:
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// roleOID resolves a role name of an aclitem (empty: PUBLIC, 0).
func roleOID(cat Catalog, name string) (repr.Datum, error) {
	if name == "" {
		return repr.NewInt(0), nil
	}
	oid, err := cat.RegIn(repr.RegRole, name)
	return repr.NewInt(int64(oid)), err
}

// aclExplode is aclexplode(aclitem[]).
func aclExplode(c *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	cat, err := catalogOf(c, "aclexplode()")
	if err != nil {
		return err
	}
	for _, item := range a[0].Array() {
		if item.IsNull() {
			continue
		}
		grantee, privs, grantor, err := parseACLItem(item.Text())
		if err != nil {
			return err
		}
		ge, err := roleOID(cat, grantee)
		if err != nil {
			return err
		}
		gr, err := roleOID(cat, grantor)
		if err != nil {
			return err
		}
		for _, l := range aclLetters {
			i := strings.IndexByte(privs, l.letter)
			if i < 0 {
				continue
			}
			grantable := i+1 < len(privs) && privs[i+1] == '*'
			if err := emit([]repr.Datum{gr, ge, repr.NewText(l.name), repr.NewBool(grantable)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// aclDefault is acldefault("char", oid): the owner's item (if it holds
// anything) then PUBLIC's.
func aclDefault(c *Ctx, a []repr.Datum) (repr.Datum, error) {
	if a[0].IsNull() || a[1].IsNull() {
		return repr.Null, nil
	}
	def, ok := aclDefaults[a[0].Text()]
	if !ok {
		return repr.Null, repr.Errorf(repr.CodeInternal, "unrecognized object type abbreviation: %s", a[0].Text())
	}
	cat, err := catalogOf(c, "acldefault()")
	if err != nil {
		return repr.Null, err
	}
	owner, ok := cat.RegOut(repr.RegRole, uint32(a[1].Int()))
	if !ok {
		owner = a[1].String()
	}
	var items []repr.Datum
	if def[1] != "" {
		items = append(items, repr.NewText("="+def[1]+"/"+owner))
	}
	if def[0] != "" {
		items = append(items, repr.NewText(owner+"="+def[0]+"/"+owner))
	}
	return repr.NewArray(items), nil
}
